"""MSCCL's algorithm files, as msccl-tools writes them (tests/fixtures/msccl/, written by hand in its
XML layout: msccl-tools is not on PyPI): every one loads under its whole name, its rounds are its
steps, it runs on a real gloo group of its size and equals native, and it is offered only where
the world size fits. What cannot be imported is refused saying what."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from distributed import registered_here, run_ranks, unwrap

from ringside.worker_agent.core import predict
from ringside.worker_agent.core.algorithms import Built, algorithm_of, build, registry
from ringside.worker_agent.core.catalog import catalog
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.schedule import Step, Transfer
from ringside.worker_agent.core.validation import SpecError, validate
from ringside.worker_agent.user.msccl import MscclError, load_xml
from ringside.worker_agent.user.user_algorithms import load

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "msccl"

# file: (collective, name, the algorithm's rounds by its definition, what it is)
FILES = {
    "allreduce_ring_1instance.xml": (
        "all_reduce",
        "msccl_allreduce_ring_1channelsperring_1instances",
        6,
        "ring: 2(P-1)",
    ),
    "allreduce_ring_2instances.xml": (
        "all_reduce",
        "msccl_allreduce_ring_1channelsperring_2instances",
        6,
        "two rings side by side on two channels: still 2(P-1)",
    ),
    "allgather_recursive_doubling.xml": ("all_gather", "msccl_allgather_recursive_doubling", 2, "log2 P"),
    "allreduce_recursive_doubling_halving.xml": (
        "all_reduce",
        "msccl_allreduce_recursive_doubling_halving",
        4,
        "log2 P to reduce-scatter, log2 P to gather",
    ),
    "alltoall_allpairs.xml": ("all_to_all", "msccl_alltoall_allpairs", 1, "every pair at once"),
    "alltoall_two_step.xml": ("all_to_all", "msccl_alltoall_two_step", 2, "across the nodes, then within"),
    "reducescatter_ring.xml": ("reduce_scatter", "msccl_reducescatter_ring", 3, "ring: P-1"),
    "allgather_ring.xml": ("all_gather", "msccl_allgather_ring", 3, "ring: P-1, out of place"),
}


@pytest.fixture(scope="module", autouse=True)
def fixtures():
    """The files' algorithms, for this module only: the modules after it see the built-in ones."""
    with registered_here(lambda: [load(FIXTURES / f) for f in FILES]):
        yield


@pytest.mark.parametrize("file", FILES)
def test_each_file_loads_whole_and_its_rounds_are_its_steps(file):
    collective, name, rounds, _ = FILES[file]
    record = algorithm_of(collective, name)
    assert (
        record.built and record.user and record.world_sizes == {4} and record.source == str(FIXTURES / file)
    )
    schedule = build(collective, name, 4)
    assert len(schedule.steps) == rounds
    assert predict.unit_terms(collective, name, 4)[0] == rounds, "the model's alpha term counts them too"


def test_what_the_buffers_become():
    two = build("all_reduce", "msccl_allreduce_ring_1channelsperring_2instances", 4)
    assert two.pieces == 8 and all(len(s.transfers) == 8 for s in two.steps), (
        "both instances move in every round"
    )
    scratch = build("all_to_all", "msccl_alltoall_two_step", 4)
    assert scratch.blocks == 2 * 4 + 2, "the scratch buffer's two chunks follow the collective's eight blocks"
    across = scratch.steps[0].transfers
    assert (0, 2, 2, 8, False) in across and (0, 2, 3, 9, False) in across, (
        "rank 0's chunks for node 1 land in scratch"
    )
    assert (2, 2, 8, 4 + 0, False) in scratch.steps[1].transfers, (
        "rank 2 copies rank 0's chunk out of its scratch"
    )
    ring = build("all_gather", "msccl_allgather_ring", 4)
    assert all(t.src != t.dst for s in ring.steps for t in s.transfers), (
        "the input copied onto itself moves nothing"
    )


def run_files(world, files, specs):
    """On every rank: load the files (as `ringside worker --algorithms` does), then run each spec."""
    from ringside.worker_agent.rank.runner import Runner

    for f in files:
        load(f)
    return [Runner(world, lambda event: None).run(f"msccl-{i}", spec) for i, spec in enumerate(specs)]


def test_every_file_runs_on_a_real_gloo_group_and_equals_native():
    specs = []
    for _file, (collective, name, _, _) in FILES.items():
        reduces = collective in ("all_reduce", "reduce_scatter")
        for dtype, op, count in (
            ("int64", "SUM", 16),
            ("float32", "MAX" if reduces else "SUM", 24),
            ("int64", "SUM", 5),
        ):
            if count % build(collective, name, 4).pieces and name.endswith("2instances"):
                count = 16
            specs.append(
                RunSpec(
                    collective=collective,
                    algorithm=name,
                    count=count,
                    dtype=dtype,
                    op=op if reduces else "SUM",
                    pattern="random_int" if dtype == "int64" else "random_float",
                    capture="summary",
                )
            )
    results = unwrap(run_ranks(run_files, 4, [str(FIXTURES / f) for f in FILES], specs))
    for i, spec in enumerate(specs):
        for rank in range(4):
            assert results[rank][i].verified is True, (
                f"{spec.algorithm} {spec.dtype} {spec.op} count {spec.count} rank {rank}"
            )
            assert len(results[rank][i].timings.steps) == len(build(spec.collective, spec.algorithm, 4).steps)


def test_offered_only_where_the_world_size_fits():
    name = "msccl_allreduce_ring_1channelsperring_1instances"
    at = {p: next(c for c in catalog("gloo", p)["collectives"] if c["name"] == "all_reduce") for p in (4, 8)}
    assert name in at[4]["algorithms"] and name in at[4]["pieces"]
    assert name not in at[8]["algorithms"] and name not in at[8]["pieces"]
    assert name in predict.stepwise("all_reduce", 4) and name not in predict.stepwise("all_reduce", 8)
    with pytest.raises(SpecError) as refused:
        validate(RunSpec(collective="all_reduce", algorithm=name, count=8), 8, "gloo")
    assert refused.value.field == "algorithm" and "written for 4 ranks" in refused.value.message
    curves = predict.versus_p("all_reduce", [name, "ring"], 1 << 20, 4, predict.DEFAULT)
    assert [t is not None for t in curves[name]] == [p == 4 for p in predict.P_POINTS]
    assert all(t is not None for t in curves["ring"])


def test_a_name_two_files_give_is_refused_naming_both(tmp_path):
    again = tmp_path / "copy_of_ring.xml"
    shutil.copy(FIXTURES / "allgather_ring.xml", again)
    assert load(FIXTURES / "allgather_ring.xml") == [], "the same file loaded again adds nothing"
    with pytest.raises(ValueError) as clash:
        load(again)
    assert str(FIXTURES / "allgather_ring.xml") in str(clash.value) and str(again) in str(clash.value)
    long = tmp_path / "long.xml"
    long.write_text(
        (FIXTURES / "allgather_ring.xml")
        .read_text()
        .replace('name="allgather_ring"', 'name="allgather_ring_with_a_name_well_past_thirty_characters_v2"')
    )
    assert load_xml(long) == "msccl_allgather_ring_with_a_name_well_past_thirty_characters_v2"


@pytest.mark.parametrize(
    "file,change,words",
    [
        (
            "allreduce_ring_1instance.xml",
            ('coll="allreduce"', 'coll="broadcast"'),
            "coll='broadcast' is not imported",
        ),
        ("alltoall_allpairs.xml", ('inplace="0"', 'inplace="1"'), "in-place alltoall is not imported"),
        (
            "allreduce_ring_1instance.xml",
            ('type="rrcs"', 'type="re"'),
            r"local reduce \(re\) is not imported",
        ),
        (
            "allreduce_ring_1instance.xml",
            ('type="rrcs" srcbuf="i" srcoff="3"', 'type="rrcs" srcbuf="i" srcoff="2"'),
            "a schedule reduces into the chunk it combines with",
        ),
        ("allreduce_ring_1instance.xml", ('type="rrcs"', 'type="zap"'), "operation type 'zap'"),
        ("allreduce_ring_1instance.xml", ('ngpus="4"', 'ngpus="four"'), "needs an integer ngpus"),
        (
            "allreduce_ring_1instance.xml",
            ('<step s="0" type="s"', '<step s="0" type="r"'),
            "wait for each other",
        ),
        (
            "alltoall_two_step.xml",
            (
                'type="r" srcbuf="i" srcoff="0" dstbuf="s" dstoff="0" cnt="2"',
                'type="r" srcbuf="i" srcoff="0" dstbuf="s" dstoff="1" cnt="2"',
            ),
            r"chunks 1..2 are outside the scratch buffer's 2",
        ),
        (
            "allgather_recursive_doubling.xml",
            (
                'type="r" srcbuf="o" srcoff="2" dstbuf="o" dstoff="2" cnt="2"',
                'type="r" srcbuf="o" srcoff="2" dstbuf="o" dstoff="2" cnt="1"',
            ),
            "sends 2 chunks where",
        ),
    ],
)
def test_what_cannot_be_imported_is_refused_saying_what(tmp_path, file, change, words):
    bad = tmp_path / "bad.xml"
    text = (FIXTURES / file).read_text()
    assert change[0] in text
    bad.write_text(text.replace(*change, 1))
    with pytest.raises(MscclError, match=words):
        load_xml(bad)


def bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ringside.worker_agent.cli", "bench", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_bench_skips_a_file_written_for_another_world_size_and_says_so():
    name = "msccl_allreduce_recursive_doubling_halving"
    common = [
        "--algorithms",
        str(FIXTURES / "allreduce_recursive_doubling_halving.xml"),
        "--only",
        f"native,ring,{name}",
        "-b",
        "4K",
        "-e",
        "4K",
        "-n",
        "2",
        "-w",
        "0",
        "--json",
        "-",
    ]
    wide = bench("--ranks", "8", *common)
    assert wide.returncode == 0, wide.stderr
    assert f"skipped: {name} is written for 4 ranks" in wide.stderr
    assert [r["algorithm"] for r in json.loads(wide.stdout)["rows"]] == ["native", "ring"]
    fits = bench("--ranks", "4", *common)
    assert fits.returncode == 0, fits.stderr
    rows = json.loads(fits.stdout)["rows"]
    assert [r["algorithm"] for r in rows] == ["native", "ring", name] and rows[2]["in_place"]["wrong"] == 0
    alone = bench("--ranks", "8", *common[:3], name, *common[4:])
    assert alone.returncode == 2 and f"none of {name} runs on 8 ranks" in alone.stderr


def test_a_chunk_moved_into_another_piece_needs_blocks_that_split_evenly():
    """Through scratch a chunk may land in another piece of a block: with a count that does not
    split evenly those chunks differ by an element, so the run is refused naming count."""

    # all_gather on 2 ranks; rank 1's scratch block holds 0's pieces swapped
    def swap_through_scratch(p, root, chunks):
        across = Step(
            "x",
            "",
            [
                Transfer(0, 1, 0, 5, False),
                Transfer(0, 1, 1, 4, False),
                Transfer(1, 0, 2, 2, False),
                Transfer(1, 0, 3, 3, False),
            ],
        )
        back = Step("x", "", [Transfer(1, 1, 5, 0, False), Transfer(1, 1, 4, 1, False)])
        return Built(2, (across, back), scratch=1)

    registry.register("all_gather", "swap_through_scratch", user=True)(swap_through_scratch)
    assert build("all_gather", "swap_through_scratch", 2).blocks == 3
    validate(RunSpec(collective="all_gather", algorithm="swap_through_scratch", count=4), 2, "gloo")
    with pytest.raises(SpecError) as uneven:
        validate(RunSpec(collective="all_gather", algorithm="swap_through_scratch", count=3), 2, "gloo")
    assert uneven.value.field == "count" and "count must be a multiple of 2, not 3" in uneven.value.message


def test_a_training_syncs_with_it_only_where_it_fits():
    from ringside.worker_agent.core.protocol import TrainSpec
    from ringside.worker_agent.training.rules import check

    name = "msccl_allreduce_recursive_doubling_halving"
    check(TrainSpec(method=name), 4)
    for world, chunks, field, words in (
        (8, 1, "method", "written for 4 ranks"),
        (4, 2, "chunks", "one chunk"),
    ):
        with pytest.raises(SpecError) as refused:
            check(TrainSpec(method=name, chunks=chunks), world)
        assert refused.value.field == field and words in refused.value.message

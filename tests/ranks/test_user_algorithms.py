"""Algorithms that users write: registered from a file, checked before anything runs
(with messages that point at the step, the transfer or the rank), and run for real,
verified against native. MSCCL's XML files import as schedules."""

from __future__ import annotations

from pathlib import Path

import pytest
from distributed import registered_here, run_ranks, unwrap
from schedule_docs import ring_doc

from ringside.worker_agent.core.algorithms import algorithms, build
from ringside.worker_agent.core.catalog import catalog
from ringside.worker_agent.core.protocol import MAX_PHASE, MAX_WORLD, PlanDoc, RunSpec, StepDoc
from ringside.worker_agent.core.schedule import ScheduleError
from ringside.worker_agent.core.validation import SpecError, validate
from ringside.worker_agent.user.msccl import MscclError, load_xml
from ringside.worker_agent.user.user_algorithms import algorithm, load, reduce, send, step

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "msccl_ring_allreduce_4.xml"


@pytest.fixture(scope="module", autouse=True)
def examples():
    def load_all():
        for name in ("hierarchical_all_reduce", "double_binary_tree", "broken_ring"):
            load(EXAMPLES / f"{name}.py")
        load_xml(FIXTURE)

    with registered_here(load_all):
        yield


def run_on_ranks(world, files, specs):
    """On every rank: load the users' files (as `ringside worker --algorithms` does), then run."""
    from ringside.worker_agent.rank.runner import Runner

    for f in files:
        load(f)
    return [Runner(world, lambda event: None).run(f"user-{i}", spec) for i, spec in enumerate(specs)]


def test_the_examples_run_for_real_and_equal_native():
    files = [
        str(EXAMPLES / "hierarchical_all_reduce.py"),
        str(EXAMPLES / "double_binary_tree.py"),
        str(FIXTURE),
    ]
    specs = [
        RunSpec(
            collective="all_reduce",
            algorithm=a,
            count=10,
            chunks=c,
            dtype=d,
            op=o,
            pattern="random_int" if d == "int64" else "random_float",
        )
        for a, c in (
            ("hierarchical", 1),
            ("hierarchical", 2),
            ("double_binary_tree", 1),
            ("double_binary_tree", 3),
            ("msccl_ring_allreduce", 1),
        )
        for d, o in (("int64", "SUM"), ("float32", "AVG"), ("int64", "MAX"))
    ]
    results = unwrap(run_ranks(run_on_ranks, 4, files, specs))
    for i, spec in enumerate(specs):
        for rank in range(4):
            assert results[rank][i].verified is True, f"{spec.algorithm} {spec.dtype} {spec.op} rank {rank}"


def test_they_join_the_catalog_with_their_layout():
    names = next(c for c in catalog("gloo", 4)["collectives"] if c["name"] == "all_reduce")["algorithms"]
    assert {"hierarchical", "double_binary_tree", "msccl_ring_allreduce"} <= set(names)
    assert build("all_reduce", "double_binary_tree", 4).layout == "tree"


def test_a_wrong_result_is_refused_naming_the_rank_and_the_chunk():
    with pytest.raises(SpecError) as info:
        validate(RunSpec(collective="all_reduce", algorithm="broken_ring", count=8), 4, "gloo")
    assert info.value.field == "algorithm"
    assert info.value.message == "after the last step rank 0 holds chunk 0 without rank 1's contribution"


def test_races_and_repeats_are_named_by_step_transfer_and_rank():
    @algorithm("broadcast", "racy")
    def racy(p, root, chunks):  # rank 1 copies into chunk 0 while sending it on
        return [step("go", [send(0, 1, 0)]), step("go", [send(0, 1, 0), send(1, 2, 0)])]

    @algorithm("all_reduce", "twice")
    def twice(p, root, chunks):  # rank 1 adds rank 0's buffer in twice
        return [step("up", [reduce(0, 1, 0)]), step("up", [reduce(0, 1, 0)]), step("down", [send(1, 0, 0)])]

    with pytest.raises(SpecError, match="step 1: rank 1 copies into chunk 0 while sending it"):
        validate(RunSpec(collective="broadcast", algorithm="racy"), 3, "gloo")
    with pytest.raises(SpecError, match="rank 0 holds chunk 0 with rank 0's contribution 2 times"):
        validate(RunSpec(collective="all_reduce", algorithm="twice"), 2, "gloo")


def test_a_step_whose_phase_a_run_cannot_carry_is_refused_naming_the_step():
    @algorithm("broadcast", "wordy")
    def wordy(p, root, chunks):
        return [
            step("root", [send(0, 1, 0)]),
            step("and then every other rank hands it on, one by one", [send(1, 2, 0)]),
        ]

    with pytest.raises(SpecError, match=f"step 1: its phase is 49 characters, more than {MAX_PHASE}") as info:
        validate(RunSpec(collective="broadcast", algorithm="wordy"), 3, "gloo")
    assert info.value.field == "algorithm"


def test_every_users_schedule_fits_the_form_a_run_carries_it_in():
    """The examples' and MSCCL's, at the shapes each takes: the doc reads back through JSON as a
    PlanDoc, in rank numbers as long as a world's get, and every step's words would fit a
    schedule sent as data (StepDoc)."""
    shapes = set()
    for record in algorithms():
        if not (record.built and record.user):
            continue
        for p in (2, 3, 4, 5, 8, 16):
            for chunks in (1, 3):
                try:
                    schedule = build(record.collective, record.name, p, p - 1, chunks)
                # a shape it does not take (MSCCL's ring is for 4 ranks; broken_ring for none)
                except ScheduleError:
                    continue
                widest = range(MAX_WORLD - p, MAX_WORLD)  # rank numbers as long as a world's get
                doc = PlanDoc.model_validate_json(schedule.to_doc(widest).model_dump_json())
                for s in doc.steps:
                    StepDoc(phase=s.phase, caption=s.caption, transfers=[])
                shapes.add((record.name, p, chunks))
    names = {name for name, *_ in shapes}
    assert {"hierarchical", "double_binary_tree", "msccl_ring_allreduce"} <= names and len(shapes) >= 20


def test_code_that_fails_or_returns_nonsense_is_refused_with_what_it_raised():
    @algorithm("all_gather", "crashes")
    def crashes(p, root, chunks):
        return [step("go", [send(0, 1, 1 // (p - 4))])]

    @algorithm("all_gather", "not_steps")
    def not_steps(p, root, chunks):
        return [[0, 1, 0, 0, 0]]

    with pytest.raises(SpecError, match="crashes could not build its steps for 4 ranks: ZeroDivisionError"):
        validate(RunSpec(collective="all_gather", algorithm="crashes"), 4, "gloo")
    with pytest.raises(SpecError, match="step 0 is a list; make steps with step"):
        validate(RunSpec(collective="all_gather", algorithm="not_steps"), 4, "gloo")


def test_names_are_checked_when_registered():
    for collective, name, words in (
        ("all_shuffle", "x", "unknown collective"),
        ("all_reduce", "Ring!", "lower-case"),
        ("all_reduce", "ring", "already has"),
        ("all_reduce", "native", "already has"),
    ):
        with pytest.raises(ValueError, match=words):
            algorithm(collective, name)(lambda p, root, chunks: [])
    with pytest.raises(ValueError, match="layout 'blob'"):
        algorithm("all_reduce", "blob", layout="blob")


def test_the_msccl_ring_equals_the_built_in_ring():
    imported, built_in = build("all_reduce", "msccl_ring_allreduce", 4), build("all_reduce", "ring", 4)
    assert len(imported.steps) == len(built_in.steps) == 6
    for a, b in zip(imported.steps, built_in.steps):
        assert sorted(a.transfers) == sorted(b.transfers)
    with pytest.raises(SpecError, match="for 4 ranks"):
        validate(RunSpec(collective="all_reduce", algorithm="msccl_ring_allreduce", count=8), 3, "gloo")


@pytest.mark.parametrize(
    "change,words",
    [
        (('coll="allreduce"', 'coll="alltoall"'), "in-place alltoall is not imported"),
        (('coll="allreduce"', 'coll="reduce"'), "coll='reduce' is not imported"),
        (('dstbuf="i" dstoff="1"', 'dstbuf="s" dstoff="1"'), "outside the scratch buffer's 0"),
        (('type="rrc"', 'type="zap"'), "operation type 'zap'"),
        (('ngpus="4"', 'ngpus="four"'), "needs an integer ngpus"),
        (('<step s="0" type="s"', '<step s="0" type="r"'), "wait for each other"),
    ],
)
def test_msccl_files_that_cannot_be_imported_say_why(tmp_path, change, words):
    bad = tmp_path / "bad.xml"
    bad.write_text(FIXTURE.read_text().replace(*change, 1))
    with pytest.raises(MscclError, match=words):
        load_xml(bad)


def test_a_schedule_sent_as_data_runs_for_real_and_equals_native():
    specs = [
        RunSpec(
            collective="all_reduce",
            algorithm="custom",
            schedule=ring_doc(4),
            count=9,
            dtype=d,
            op=o,
            pattern="random_int" if d == "int64" else "random_float",
        )
        for d, o in (("int64", "SUM"), ("float32", "AVG"))
    ]
    results = unwrap(run_ranks(run_on_ranks, 4, [], specs))
    assert all(results[rank][i].verified is True for rank in range(4) for i in range(len(specs)))


@pytest.mark.parametrize(
    "edit,field,words",
    [
        (
            lambda d: d["steps"][5]["transfers"][0].__setitem__(2, 0),
            "schedule",
            "without rank 0's contribution",
        ),
        (lambda d: d["steps"][0]["transfers"].append([0, 9, 0, 0, 1]), "schedule", "outside 4 ranks"),
        (
            lambda d: d["steps"][0]["transfers"][0].__setitem__(4, 7),
            "schedule",
            "must be 0 (copy) or 1 (reduce)",
        ),
        (lambda d: d.update(steps=[d["steps"][0]] * 3000), None, "at most 512"),
    ],
)
def test_a_bad_schedule_sent_as_data_is_refused(edit, field, words):
    doc = ring_doc(4)
    edit(doc)
    try:
        spec = RunSpec(collective="all_reduce", algorithm="custom", schedule=doc, count=8)
    except ValueError as e:  # the protocol's own bounds
        assert field is None and words in str(e)
        return
    with pytest.raises(SpecError) as info:
        validate(spec, 4, "gloo")
    assert info.value.field == field and words in info.value.message


def test_custom_and_a_schedule_go_together():
    with pytest.raises(SpecError, match="needs one"):
        validate(RunSpec(collective="all_reduce", algorithm="custom"), 4, "gloo")
    with pytest.raises(SpecError, match="comes with algorithm"):
        validate(RunSpec(collective="all_reduce", algorithm="ring", schedule=ring_doc(4)), 4, "gloo")

"""`ringside bench` on real ranks: nccl-tests' flags, columns and footer, #wrong in elements for
native too, the merged table under torchrun across two nodes, and the rule that marks a ratio
(no timing is asserted)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from distributed import run_ranks, stop_torchrun, unwrap
from netns import NODES, on_node

from ringside.bench import cli, plan, statistics, sweep, table, wrong
from ringside.worker_agent.core.algorithms import algorithm_of
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.validation import SpecError


def run_bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ringside.worker_agent.cli", "bench", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    return parser.parse_args(argv)


def data_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def assert_aligned(text: str) -> None:
    """Every right-aligned column ends where its heading does, whatever the algorithms' names."""
    header = next(line for line in text.splitlines() if line.startswith("#") and "algorithm" in line)
    ends = [header.index(word) + len(word) for word in ("time", "algbw", "busbw", "#wrong", "x native")]
    ends.insert(4, header.index("time", ends[3]) + 4)
    for line in data_lines(text):
        for end in ends:
            assert line[end - 1] != " " and (end == len(line) or line[end] == " "), (line, end)


def test_nccl_tests_flags_mean_what_they_mean_there(capsys):
    assert parse("-o", "prod").op == "PRODUCT" and parse("-d", "bf16").dtype == "bfloat16"
    a = parse(
        "-b",
        "1K",
        "-e",
        "4K",
        "-f",
        "2",
        "-n",
        "7",
        "-w",
        "2",
        "-c",
        "0",
        "-o",
        "max",
        "-d",
        "half",
        "-a",
        "3",
        "-z",
        "1",
        "-r",
        "1",
        "--ranks",
        "3",
    )
    assert (
        a.min_bytes,
        a.max_bytes,
        a.factor,
        a.iterations,
        a.warmup,
        a.check,
        a.op,
        a.dtype,
        a.average,
        a.blocking,
        a.root,
        a.ranks,
    ) == (1024, 4096, 2, 7, 2, 0, "MAX", "float16", 3, 1, 1, 3)
    assert parse().ranks is None and parse().iterations == 20 and parse().check == 1
    for argv, words in (
        (["-c", "2"], "-c/--check: must be one of 0, 1"),
        (["-a", "4"], "must be one of 0, 1, 2, 3"),
        (["-z", "yes"], "must be one of 0, 1"),
        (["-d", "float128"], "is not a dtype"),
        (["-o", "mean"], "is not a reduction"),
        (["-n", "0"], "at least 1"),
    ):
        with pytest.raises(SystemExit):
            parse(*argv)
        assert words in capsys.readouterr().err
    with pytest.raises(SpecError, match="give -f .* or -i .*, not both"):
        plan.prepare(parse("-f", "2", "-i", "1K"), 2)
    refused = run_bench("--ranks", "2", "--op", "BAND", "--dtype", "float32")
    assert refused.returncode == 2 and "op: BAND needs an integer dtype" in refused.stderr


def test_the_table_its_footer_and_every_row_in_json(tmp_path):
    out = tmp_path / "rows.json"
    done = run_bench(
        "--ranks",
        "3",
        "-b",
        "1K",
        "-e",
        "4K",
        "--only",
        "ring,native,tree",
        "-n",
        "5",
        "-w",
        "1",
        "--json",
        str(out),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = data_lines(done.stdout)
    assert [(int(r.split()[0]), r.split()[5]) for r in rows] == [
        (s, a) for s in (1024, 4096) for a in ("native", "ring", "tree")
    ]
    for line in rows:  # out-of-place columns empty, in-place ones checked: #wrong 0, native's too
        cells = line.split()
        assert cells[6:10] == ["-"] * 4 and cells[13] == "0" and int(cells[1]) == int(cells[0]) // 4
    assert "# Out of bounds values : 0 OK" in done.stdout and "# Avg bus bandwidth    : " in done.stdout
    document = json.loads(out.read_text())
    assert document["ranks"] == 3 and document["out_of_bounds"] == 0 and len(document["rows"]) == 6
    for r in document["rows"]:
        m = r["in_place"]
        assert r["out_of_place"] is None and m["wrong"] == 0 and len(r["iterations"]) == 5
        assert m["busbw"] == pytest.approx(m["algbw"] * 2 * 2 / 3) and len(r["rank_times"]) == 3
        vs = r["vs_native"]
        if r["algorithm"] == "native":
            assert vs == {"ratio": 1.0, "low": None, "high": None, "marked": False}
        else:
            assert vs["low"] <= vs["ratio"] <= vs["high"]


def test_times_combine_across_ranks_as_a_says():
    times = np.array([[1.0, 3.0], [4.0, 6.0]])  # [rank, iteration]
    assert [statistics.combined(times, average, 0)[0] for average in range(4)] == [2.0, 3.5, 2.0, 5.0]
    assert statistics.combined(times, 1, 0)[1].tolist() == [2.5, 4.5]
    # -z 1 only syncs the ranks between iterations: -a still combines them (-a 3: the slowest)
    slowest = statistics.combined(times, 3, 1)
    assert slowest[0] == 5.0 and slowest[1].tolist() == [4.0, 6.0]
    assert statistics.combined(times, 1, 1)[0] == 3.5


def test_native_sits_where_torch_puts_it_and_long_names_keep_the_columns():
    done = run_bench(
        "--ranks", "2", "--collective", "all_gather", "-b", "2K", "-e", "2K", "-n", "2", "-w", "0", "-z", "1"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "-z 1: each iteration from a barrier; a row's time is" in done.stdout
    rows = {line.split()[5]: line for line in data_lines(done.stdout)}
    assert set(rows) == {"native", "ring", "recursive_doubling", "auto"}
    # all_gather_into_tensor from a copy: out of place; a schedule's buffer: in place
    assert rows["native"].split()[6] != "-" and rows["native"].split()[10] == "-"
    assert rows["ring"].split()[6] == "-" and rows["ring"].split()[10] != "-"
    assert rows["auto"].split()[-1] in {"native", "ring", "recursive_doubling"}
    assert {line.split()[1] for line in rows.values()} == {"256"}, "count: one rank's block, as nccl-tests'"
    assert_aligned(done.stdout)
    scattered = run_bench(
        "--ranks",
        "2",
        "--collective",
        "scatter",
        "-b",
        "2K",
        "-e",
        "2K",
        "-n",
        "2",
        "-w",
        "0",
        "--only",
        "native",
    )
    assert scattered.returncode == 0, scattered.stderr[-2000:]
    (native,) = data_lines(scattered.stdout)
    # scatter into a tensor of its own: out of place
    assert native.split()[6] != "-" and native.split()[10] == "-" and native.split()[1] == "256"


def corrupted_native(world):
    """On every rank: one native all_reduce; rank 1's output spoiled in 3 elements; the bench's count."""
    from ringside.worker_agent.rank.runner import Runner

    spec = RunSpec(
        collective="all_reduce",
        algorithm="native",
        count=64,
        pattern="random_float",
        capture="none",
        verify=False,
    )
    output = Runner(world, lambda event: None).open("spoiled", spec).output_once()
    if world.rank == 1:
        output[[3, 10, 40]] += 1.0
    return wrong.count_wrong(spec, world.rank, world.world_size, output)


def test_a_wrong_native_result_shows_its_elements_in_wrong():
    counts = unwrap(run_ranks(corrupted_native, 3))
    assert counts == [0, 3, 0]
    a = argparse.Namespace(**{**sweep.SWEEP_DEFAULTS, **vars(parse("--ranks", "3", "-b", "256", "-n", "5"))})
    times = np.full((3, 5), 1e-3)
    rows = [
        table.row(a, 3, "gloo", 256, algorithm_of("all_reduce", name), times, elements, times)
        for name, elements in (("native", sum(counts)), ("ring", None))
    ]
    rows[1]["algorithm"] = "msccl_allreduce_ring_1channelsperring_2instances"  # a name past any width
    text = table.table(rows, a)
    assert_aligned(text)
    assert [line.split()[13] for line in data_lines(text)] == ["3", "N/A"]
    # the footer counts results, as nccl-tests does; #wrong their elements
    assert "# Out of bounds values : 1 FAILED (1 results not checked" in text


def test_a_ratio_is_marked_only_where_its_interval_excludes_one():
    rng = np.random.default_rng(7)
    native = 1e-3 * (1 + 0.3 * rng.random(40))
    slower = statistics.ratio_to(native * 1.5 * (1 + 0.05 * rng.standard_normal(40)), native)
    noisy = statistics.ratio_to(native * (1 + 0.5 * rng.standard_normal(40)).clip(0.2), native)
    assert slower.low > 1 and slower.marked
    assert noisy.low <= 1 <= noisy.high and not noisy.marked
    assert statistics.ratio_to(native[::2] * 1.5, native[::2]) == statistics.ratio_to(
        native[::2] * 1.5, native[::2]
    )
    few = statistics.ratio_to(native[:3] * 2, native[:3])
    assert few.ratio == pytest.approx(2) and few.low is None and not few.marked
    # in the table: a * beside the marked ratio alone
    a = argparse.Namespace(**{**sweep.SWEEP_DEFAULTS, **vars(parse("--ranks", "2", "-b", "1K", "-n", "40"))})
    reference = np.tile(native, (2, 1))
    rows = [
        table.row(a, 2, "gloo", 1024, algorithm_of("all_reduce", name), np.tile(times, (2, 1)), 0, reference)
        for name, times in (
            ("native", native),
            ("ring", native * 1.5),
            ("tree", native * (1 + 0.5 * rng.standard_normal(40))),
        )
    ]
    marks = {line.split()[5]: "*" in line.split() for line in data_lines(table.table(rows, a))}
    assert marks == {"native": False, "ring": True, "tree": False}


def test_one_slow_spell_is_not_a_difference():
    """Eight iterations in a row at twice the time (a busy spell on a shared machine), the rest
    as native's: resampled one by one its interval excluded 1 (1.08-1.33); in runs it does not."""
    native = 1e-3 * (1 + 0.3 * np.random.default_rng(7).random(40))
    spell = native.copy()
    spell[10:18] *= 2
    assert not statistics.ratio_to(spell, native).marked
    spread = native.copy()
    spread[::5] *= 2  # as many slow iterations, spread over the table: every run of them sees some
    assert statistics.ratio_to(spread, native).low > 1


def test_slow_links_never_read_zero():
    assert table.gbps(500e3) == "0.0005" and table.gbps(2.5e9) == "2.50" and table.gbps(12_345) == "1.23e-05"


def test_torchrun_on_two_nodes_prints_one_table_of_every_rank(tmp_path, bridge):  # noqa: F811 (a fixture)
    out = tmp_path / "rows.json"
    nodes = []
    for node in range(2):
        env = {**os.environ, "GLOO_SOCKET_IFNAME": bridge.nodes[node][1], "OMP_NUM_THREADS": "1"}
        cmd = on_node(
            bridge,
            node,
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--nnodes=2",
            f"--node-rank={node}",
            "--nproc-per-node=2",
            f"--master-addr={bridge.nodes[0][2]}",
            "--master-port=29512",
            "-m",
            "ringside.bench",
            "--only",
            "native,ring",
            "-b",
            "1K",
            "-e",
            "4K",
            "-n",
            "3",
            "-w",
            "1",
            "--json",
            str(out),
        )
        nodes.append(
            subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        )
    try:
        (first, err), (second, _) = [proc.communicate(timeout=240) for proc in nodes]
        assert [proc.returncode for proc in nodes] == [0, 0], err[-3000:]
    finally:
        for proc in nodes:
            stop_torchrun(proc)
    assert "4 ranks on node-a (2), node-b (2), gloo" in first and not data_lines(second)
    assert [line.split()[5] for line in data_lines(first)] == ["native", "ring"] * 2
    rows = json.loads(out.read_text())["rows"]
    assert all(len(r["rank_times"]) == 4 and min(r["rank_times"]) > 0 for r in rows)
    assert all(r["in_place"]["wrong"] == 0 for r in rows) and rows[0]["hosts"] == {NODES[0]: 2, NODES[1]: 2}

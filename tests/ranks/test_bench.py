"""`ringside bench` on real gloo ranks: its default output read by a parser written as nccl-tests'
users write theirs, nccl-tests' -d all, -o all, -c N and -z on real runs, #wrong in elements for
torch's call in both placements, what dtypes.py says gloo takes run on gloo, Ringside's table after
nccl-tests', and the merged table under torchrun across two nodes (no timing is asserted)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import subprocess
import sys

import pytest
import torch
from distributed import run_ranks, stop_torchrun, unwrap
from netns import NODES, on_node

from ringside.bench import dtypes, nccl_runs, placement, wrong
from ringside.bench.sweep import SWEEP_DEFAULTS
from ringside.worker_agent.core.collectives import COLLECTIVES, get

# nccl-tests' bus factors (their src/*.cu GetBw, doc/PERFORMANCE.md), by collective, for n ranks
NCCL_TESTS_FACTOR = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "all_to_all": lambda n: (n - 1) / n,
    "gather": lambda n: (n - 1) / n,
    "scatter": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
    "send_recv": lambda n: 1.0,
}


def run_bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ringside.worker_agent.cli", "bench", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def nccl_tests_rows(text: str) -> list[dict]:
    """nccl-tests' output read as their users read it: skip '#' lines, split on whitespace, take
    the lines of 13 fields, the numbers by their index."""
    rows = []
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        f = line.split()
        assert len(f) == 13, line
        rows.append(
            {
                "size": int(f[0]),
                "count": int(f[1]),
                "type": f[2],
                "redop": f[3],
                "root": int(f[4]),
                "oop": {"time": float(f[5]), "algbw": float(f[6]), "busbw": float(f[7]), "wrong": f[8]},
                "ip": {"time": float(f[9]), "algbw": float(f[10]), "busbw": float(f[11]), "wrong": f[12]},
            }
        )
    return rows


NCCL_TESTS_FIGURE = re.compile(r"\d+\.\d\d")  # a bandwidth as nccl-tests print a small one: 0.00


def test_nccl_tests_canonical_command_prints_every_size():
    """nccl-tests' command line as their users type it (sizes from 8 bytes, -g 1 and its kin):
    every size has its row, read by their parser; an algorithm that cannot cut 2 elements into 4
    chunks says so in its '#' line and the others run."""
    done = run_bench(
        "--ranks", "4", "-b", "8", "-e", "64", "-f", "2", "-g", "1", "-t", "1", "-m", "1", "-G", "0",
        "-p", "0", "-n", "2", "-w", "0",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "# nThread 1 nGpus 1 minBytes 8 maxBytes 64 step: 2(factor) " in done.stdout
    rows = nccl_tests_rows(done.stdout)
    assert [(r["size"], r["count"]) for r in rows] == [(8, 2), (16, 4), (32, 8), (64, 16)]
    for line in (line for line in done.stdout.splitlines() if not line.startswith("#")):
        for figure in (line.split()[i] for i in (6, 7, 10, 11)):
            assert NCCL_TESTS_FIGURE.fullmatch(figure), line
    ours = [line.split() for line in done.stdout.splitlines() if re.match(r"#\s+\d", line)]
    said = [line for line in ours if line[7:9] == ["not", "run"]]
    assert [said[0][i] for i in (1, 2, 6, 9, 10)] == ["8", "2", "ring", "ring", "cuts"]
    assert all(line[1] == "8" for line in said)  # 16 bytes are 4 elements: every algorithm cuts them
    assert {line[6] for line in ours if line[1] == "16"} == {
        "native", "ring", "tree", "master_worker", "recursive_doubling", "rabenseifner", "auto",
    }  # fmt: skip


def on_every_collective(world) -> dict[str, tuple[int, str]]:
    """On every rank: `python -m ringside.bench --collective NAME` for each collective, nccl-tests'
    defaults but for one 1K size and -n 2; each one's exit code and what rank 0 printed."""
    from ringside.bench.__main__ import on_cluster
    from ringside.bench.cli import add_arguments

    done = {}
    for name in COLLECTIVES:
        parser = argparse.ArgumentParser()
        add_arguments(parser, local=False)
        args = parser.parse_args(["--collective", name, "-b", "1K", "-e", "1K", "-n", "2"])
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            code = on_cluster(world, args)
        done[name] = (code, printed.getvalue())
    return done


def test_every_collective_runs_under_the_default_flags():
    """Each collective's both tables, barrier's too, every row right (#wrong 0), parsed as
    nccl-tests' users parse them."""
    done = unwrap(run_ranks(on_every_collective, 2))[0]
    assert list(done) == list(COLLECTIVES)
    for name, (code, text) in done.items():
        assert code == 0, (name, text[-2000:])
        (row,) = nccl_tests_rows(text)
        assert row["size"] == (0 if name == "barrier" else 1024), name
        # in-place all_to_all is unchecked, as nccl-tests leave it
        in_place = "N/A" if name == "all_to_all" else "0"
        assert [row["oop"]["wrong"], row["ip"]["wrong"]] == ["0", in_place], name
        ours = [line.split() for line in text.splitlines() if re.match(r"#\s+\d", line)]
        assert [line[6] for line in ours][0] == "native" and ours[-1][6] == "auto", name
        assert all(line[11] == "0" for line in ours), (name, ours)


def footer_value(text: str, name: str) -> str:
    """A footer line read as scripts read it: grep the name, the last field."""
    (line,) = [line for line in text.splitlines() if line.startswith(f"# {name}")]
    return line.split()[-1]


@pytest.mark.parametrize("collective", ["all_reduce", "all_gather"])
def test_the_default_output_is_read_by_a_parser_written_for_nccl_tests(tmp_path, collective):
    """4 ranks (all_reduce's factor 1.5, all_gather's 0.75), two sizes, native and ring."""
    out = tmp_path / "bench.json"
    size_args = ("-b", "256K", "-e", "1M", "-f", "4", "-n", "5")
    done = run_bench(
        "--ranks", "4", "--collective", collective, *size_args, "--only", "native,ring", "--json", str(out)
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = nccl_tests_rows(done.stdout)
    assert [r["size"] for r in rows] == [262144, 1048576] and {r["type"] for r in rows} == {"float"}
    factor = NCCL_TESTS_FACTOR[collective](4)
    for r in rows:
        for cell in (r["oop"], r["ip"]):
            # busbw from its column is algbw x nccl-tests' factor, within the two decimals printed
            assert cell["busbw"] == pytest.approx(cell["algbw"] * factor, abs=0.005 * (1 + factor))
            assert cell["wrong"] == "0" and cell["time"] > 0
    assert footer_value(done.stdout, "Out of bounds values") == "OK"
    assert float(footer_value(done.stdout, "Avg bus bandwidth")) > 0
    assert f"# Collective test concluded: {collective}" in done.stdout.splitlines()
    document = json.loads(out.read_text())
    for r, exact in zip(rows, document["results"], strict=True):
        for place, k in (("oop", "out_of_place"), ("ip", "in_place")):
            m = exact[k]
            assert m["busbw"] == pytest.approx(m["algbw"] * factor) and m["wrong"] == 0
            assert r[place]["busbw"] == pytest.approx(m["busbw"] / 1e9, abs=0.006)
    # Ringside's table follows, every line of it behind '#': ring against native, by size
    ours = done.stdout.split(f"# Collective test concluded: {collective}\n")[1]
    assert "# Ringside's algorithms" in ours and all(line.startswith("#") for line in ours.splitlines())
    assert [(r["size"], r["algorithm"]) for r in document["rows"]] == [
        (s, a) for s in (262144, 1048576) for a in ("native", "ring")
    ]


def test_all_dtypes_and_all_ops_are_every_pair_gloo_runs(tmp_path):
    out = tmp_path / "all.json"
    done = run_bench(
        "--ranks", "2", "-b", "1K", "-e", "1K", "-n", "2", "-w", "0", "-d", "all", "-o", "all",
        "--only", "native", "--json", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    pairs, _ = dtypes.combos("gloo", "all_reduce", "all", "all")
    document = json.loads(out.read_text())
    assert [(r["type"], r["redop"]) for r in document["results"]] == pairs
    assert all(r[k]["wrong"] == 0 for r in document["results"] for k in ("out_of_place", "in_place"))
    rows = nccl_tests_rows(done.stdout)
    words = {(r["type"], r["redop"]) for r in rows}
    assert {
        ("int8", "band"),
        ("half", "avg"),
        ("double", "prod"),
        ("bfloat16", "min"),
        ("bool", "bxor"),
    } <= words
    assert {("complex64", "sum"), ("uint8", "max")} <= words and ("float", "bor") not in words
    assert "skipped: uint32, uint64, float8_e4m3fn" in done.stderr
    assert "# Ringside's algorithms" not in done.stdout  # native alone: nccl-tests' table alone


def test_an_unchecked_and_an_unsupported_run_are_said_in_nccl_tests_words():
    unchecked = run_bench("--ranks", "2", "-b", "1K", "-e", "1K", "-n", "2", "-c", "0", "--only", "native")
    assert unchecked.returncode == 0, unchecked.stderr[-2000:]
    (row,) = nccl_tests_rows(unchecked.stdout)
    assert row["oop"]["wrong"] == row["ip"]["wrong"] == "N/A"
    assert "validation: 0" in unchecked.stdout and "# Out of bounds values : 0 OK" in unchecked.stdout
    refused = run_bench("--ranks", "2", "-d", "uint32", "-b", "1K", "-e", "1K")
    assert refused.returncode == 2 and "datatype: uint32: torch's gloo process group does not carry them" in (
        refused.stderr
    )


def every_blocking(world) -> list[list[float]]:
    """nccl-tests' table of one size with each -z, -m 2 calls an iteration: each placement's time."""
    times = []
    for blocking in range(4):
        flags = {
            **SWEEP_DEFAULTS,
            "collective": "all_reduce",
            "iterations": 3,
            "warmup": 1,
            "blocking": blocking,
            "agg_iters": 2,
        }
        (found,) = nccl_runs.results(world, argparse.Namespace(**flags), [("float32", "SUM")], [4096])
        times.append([found[k]["time"] for k in ("out_of_place", "in_place")])
    return times


def test_every_z_of_nccl_tests_runs_and_says_so_in_their_words():
    for times in unwrap(run_ranks(every_blocking, 2)):
        assert len(times) == 4 and min(min(t) for t in times) > 0
    done = run_bench("--ranks", "2", "-b", "4K", "-e", "4K", "-n", "3", "-z", "3", "--only", "native")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "# Blocking Enabled: wait and barrier after each iteration; time excludes barrier " in done.stdout


def checked_with_a_fault(world, check: int, spoiled_rep: int) -> list:
    """nccl-tests' table of one size on every rank, rank 1's output spoiled in 3 elements in the
    checked call made from input `spoiled_rep` alone; each placement's #wrong."""
    original = nccl_runs._Result._placed

    def spoiling(self, in_place, seed):
        placed = original(self, in_place, seed)
        if seed != spoiled_rep or world.rank != 1:
            return placed
        start = placed.start

        def start_then_spoil():
            work = start()
            placement.finish(work, self.timeout)
            placed.output[[3, 10, 40]] += 1.0
            return work

        return placement.Placed(start_then_spoil, placed.output)

    nccl_runs._Result._placed = spoiling
    try:
        flags = {**SWEEP_DEFAULTS, "collective": "all_reduce", "iterations": 2, "warmup": 0, "check": check}
        a = argparse.Namespace(**flags)
        (found,) = nccl_runs.results(world, a, [("float32", "SUM")], [1024])
    finally:
        nccl_runs._Result._placed = original
    return [found["out_of_place"]["wrong"], found["in_place"]["wrong"]]


def test_c_checks_as_many_calls_each_from_a_fresh_input_and_stops_at_the_first_wrong():
    """The fault is in the second checked call only: -c 1 never sees it; -c 3 finds its 3 elements."""
    assert unwrap(run_ranks(checked_with_a_fault, 3, 1, 2))[0] == [0, 0]
    assert unwrap(run_ranks(checked_with_a_fault, 3, 3, 2))[0] == [3, 3]
    assert unwrap(run_ranks(checked_with_a_fault, 3, 3, 1))[0] == [3, 3]


def every_pair_in_both_placements(world) -> list[str]:
    """On every rank: each (dtype, op) pair dtypes.py says gloo runs, for every collective, called
    once in each placement and checked; what failed, said."""
    failed = []
    p, timeout = world.world_size, placement.timedelta(seconds=30)
    for name, collective in COLLECTIVES.items():
        pairs, _ = dtypes.combos("gloo", name, "all", "all")
        for dtype, op in pairs:
            if dtype is None:
                continue
            count, root = 4, 0
            peer = 1
            for in_place in (False, True):
                buffer = torch.zeros(collective.blocks(p) * count, dtype=getattr(torch, dtype))
                mine = collective.input_blocks(world.rank, p, root)
                x = wrong.rank_input(collective, dtypes.TYPES[dtype], count, world.rank, p, root, 1)
                buffer[mine.start * count : mine.stop * count] = x
                placed = placement.place(
                    collective, buffer, count, list(range(p)), world.rank, root, peer, op, in_place
                )
                placed.once(timeout)
                want = wrong.expected(get(name), dtype, count, op, root, peer, world.rank, p, 1)
                if placed.checked and wrong.count_wrong(collective.reduces, placed.output, want, p):
                    failed.append(f"{name} {dtype} {op} {'in' if in_place else 'out of'} place")
    return failed


def test_what_dtypes_says_gloo_runs_gloo_runs():
    """Every collective, every pair the catalog gives gloo, both placements: torch runs each and
    its result is the collective's definition. A torch that changes its mind fails here."""
    assert unwrap(run_ranks(every_pair_in_both_placements, 3)) == [[], [], []]


def test_a_wrong_native_result_shows_its_elements_in_wrong():
    """count_wrong on a real native output, spoiled in 3 elements on rank 1."""
    counts = unwrap(run_ranks(spoiled_native, 3))
    assert counts == [0, 3, 0]


def spoiled_native(world):
    collective, p = get("all_reduce"), world.world_size
    buffer = wrong.rank_input(collective, dtypes.TYPES["float32"], 64, world.rank, p, 0, 5)
    placed = placement.place(collective, buffer, 64, list(range(p)), world.rank, 0, 1, "SUM", True)
    placed.once(placement.timedelta(seconds=30))
    if world.rank == 1:
        placed.output[[3, 10, 40]] += 1.0
    want = wrong.expected(collective, "float32", 64, "SUM", 0, 1, world.rank, p, 5)
    return wrong.count_wrong(True, placed.output, want, p)


def test_each_result_is_torchs_call_in_both_placements_and_ringsides_follow(tmp_path):
    out = tmp_path / "ag.json"
    done = run_bench(
        "--ranks", "2", "--collective", "all_gather", "-b", "2K", "-e", "2K", "-n", "5", "-w", "0",
        "--only", "native,ring,recursive_doubling,auto", "--json", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    (row,) = nccl_tests_rows(done.stdout)
    assert row["count"] == 256 and row["oop"]["wrong"] == row["ip"]["wrong"] == "0"
    document = json.loads(out.read_text())
    places = {r["algorithm"]: [k for k in ("out_of_place", "in_place") if r[k]] for r in document["rows"]}
    # torch's all_gather_into_tensor is out of place; a schedule's working buffer is in place
    assert places["native"] == ["out_of_place"] and places["ring"] == ["in_place"]
    assert document["rows"][-1]["ran"] in {"native", "ring", "recursive_doubling"}
    ours = [line for line in done.stdout.splitlines() if re.match(r"#\s+\d", line)]
    assert [line.split()[6] for line in ours] == ["native", "ring", "recursive_doubling", "auto"]


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
            "-f",
            "4",
            "-n",
            "3",
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
    assert "4 ranks on node-a (2), node-b (2), gloo" in first and not nccl_tests_rows(second)
    assert [r["size"] for r in nccl_tests_rows(first)] == [1024, 4096]
    document = json.loads(out.read_text())
    assert [d["host"] for d in document["devices"]] == [NODES[0]] * 2 + [NODES[1]] * 2
    assert all(
        len(r["rank_times"]["in_place"]) == 4 and min(r["rank_times"]["in_place"]) > 0
        for r in document["results"]
    )
    assert [r["algorithm"] for r in document["rows"]] == ["native", "ring"] * 2
    assert all(r["in_place"]["wrong"] == 0 for r in document["rows"])

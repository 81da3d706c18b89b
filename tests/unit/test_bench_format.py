"""`ringside bench` speaks nccl-tests: their flags with their values and defaults (from their
src/common.cu), their stepping of sizes, their type and op names, and their table's text line for
line; what no rank could run is refused before any starts, naming the flag."""

from __future__ import annotations

import argparse
import json

import pytest

from ringside.bench import cli, dtypes, plan, table
from ringside.worker_agent.core.validation import SpecError

M = 1 << 20


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    return parser.parse_args(argv)


def test_the_defaults_are_nccl_tests():
    """common.cu: minBytes = maxBytes = 32M, stepBytes 1M, stepFactor 1 (none), iters 20,
    warmup_iters 1, datacheck 1, average 1, blocking_coll 0, ncclSum, ncclFloat, root 0."""
    a = parse()
    assert (a.min_bytes, a.max_bytes, a.factor, a.step) == (32 * M, 32 * M, None, None)
    assert (a.iterations, a.warmup, a.check, a.average, a.blocking) == (20, 1, 1, 1, 0)
    assert (a.op, a.dtype, a.root) == ("SUM", "float32", 0)
    assert plan.sizes("all_reduce", a.min_bytes, a.max_bytes, a.factor, a.step) == [32 * M]


def test_sizes_step_as_nccl_tests_step_them():
    """Times -f where it is above 1; else plus -i, 1M unless given."""
    assert plan.sizes("all_reduce", 1024, 3 * M, None, None) == [1024, M + 1024, 2 * M + 1024]
    assert plan.sizes("all_reduce", 1024, 3 * M, 1, None) == [1024, M + 1024, 2 * M + 1024]
    assert plan.sizes("all_reduce", 1024, 8192, 2, None) == [1024, 2048, 4096, 8192]
    assert plan.sizes("all_reduce", 1024, 4096, None, 1024) == [1024, 2048, 3072, 4096]
    assert plan.sizes("barrier", 1024, 4096, 2, None) == [0]


def test_nccl_tests_flags_take_their_values():
    assert parse("-d", "all").dtype == "all" and parse("-o", "all").op == "all"
    names = {"int8": "int8", "half": "float16", "float": "float32", "double": "float64", "bf16": "bfloat16"}
    for word, name in {
        **names,
        "f8e4m3": "float8_e4m3fn",
        "uint64": "uint64",
        "complex64": "complex64",
    }.items():
        assert parse("-d", word).dtype == name
    assert [parse("-o", w).op for w in ("sum", "prod", "max", "min", "avg", "band")] == [
        "SUM",
        "PRODUCT",
        "MAX",
        "MIN",
        "AVG",
        "BAND",
    ]
    assert parse("-c", "5").check == 5 and parse("-c", "0").check == 0
    assert [parse("-z", z).blocking for z in "0123"] == [0, 1, 2, 3]
    assert parse("-f", "1").factor == 1 and parse("-a", "3").average == 3


def test_the_flags_most_nccl_tests_command_lines_carry_are_taken():
    """-g 1 -t 1: one GPU a process, which every rank here is; -m N aggregates N calls an
    iteration; -G 0 and -p (0 or 1) change nothing on this design."""
    a = parse("-g", "1", "-t", "1", "-m", "1", "-G", "0", "-p", "0")
    assert (a.ngpus, a.nthreads, a.agg_iters, a.cudagraph, a.parallel_init) == (1, 1, 1, 0, 0)
    assert parse("--agg_iters", "4").agg_iters == 4 and parse("-p", "1").parallel_init == 1
    assert (parse().ngpus, parse().nthreads, parse().agg_iters, parse().cudagraph) == (1, 1, 1, 0)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["-z", "4"], "-z/--blocking: must be one of 0, 1, 2, 3, not '4'"),
        (["-c", "-1"], "-c/--check: must be an integer of at least 0, not '-1'"),
        (["-d", "float128"], "'float128' is not a dtype"),
        (["-o", "mulsum"], "mulsum (nccl-tests' pre-multiplied sum) is no op of torch's ReduceOp"),
        (["-o", "mean"], "'mean' is not a reduction"),
        (["-a", "4"], "must be one of 0, 1, 2, 3"),
        (["-n", "0"], "at least 1"),
        (["-m", "0"], "-m/--agg_iters: must be an integer of at least 1, not '0'"),
        (["-g", "2"], "-g/--ngpus: must be 1, not '2': each rank drives one device, in a process"),
        (["-t", "8"], "-t/--nthreads: must be 1, not '8': each rank is a process of its own, one thread"),
        (["-G", "10"], "-G/--cudagraph: must be 0, not '10': torch's process group calls are launched"),
        (["-p", "2"], "-p/--parallel_init: must be 0 or 1, not '2'"),
    ],
)
def test_a_bad_value_is_refused_naming_what_was_wrong(capsys, argv, words):
    with pytest.raises(SystemExit):
        parse(*argv)
    (said,) = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]  # one line
    assert words in said


def planned(*argv: str, ranks: int = 2, backend: str = "gloo") -> tuple[list[str], list[int]]:
    a = parse(*argv)
    a.backend = backend
    return plan.prepare(a, ranks, say=False)


def test_what_torchs_backend_does_not_run_is_refused_naming_the_flag():
    with pytest.raises(SpecError, match="datatype: uint32: torch's gloo process group does not carry them"):
        planned("-d", "uint32", "-b", "1K", "-e", "1K")
    with pytest.raises(SpecError, match="op: float32: bitwise reductions need an integer dtype"):
        planned("-d", "float", "-o", "band", "-b", "1K", "-e", "1K")
    with pytest.raises(SpecError, match="torch's NCCL carries float8 as bytes"):
        planned("-d", "f8e4m3", "-o", "sum", "-b", "1K", "-e", "1K", backend="nccl")
    with pytest.raises(SpecError, match="give -f .* or -i .*, not both"):
        planned("-f", "2", "-i", "1K")
    # an algorithm that cannot cut a count is no refusal: nccl-tests' table runs every size
    names, sizes = planned("-b", "8", "-e", "16M", "-f", "2", ranks=4)
    assert "ring" in names and sizes[:2] == [8, 16] and len(sizes) == 22
    # float8 moves on NCCL; a collective that does not reduce takes no op, whatever -o says
    assert planned(
        "-d", "f8e4m3", "-o", "prod", "--collective", "all_gather", "-b", "1K", "-e", "1K", backend="nccl"
    )


def test_an_algorithm_that_cannot_cut_a_count_is_said_at_that_size():
    """On 4 ranks, 8 bytes of float are 2 elements a block: ring cuts a block into 4 chunks."""
    a = parse("-b", "8", "-e", "16", "-f", "2")
    assert plan.unfit(a, "ring", 8, 4) == "ring cuts each block into 4 chunks, more than count=2 elements"
    assert plan.unfit(a, "ring", 16, 4) is None and plan.unfit(a, "native", 8, 4) is None


def test_all_is_every_dtype_and_op_the_backend_runs():
    pairs, left = dtypes.combos("gloo", "all_reduce", "all", "all")
    assert ("int8", "BAND") in pairs and ("bfloat16", "AVG") in pairs and ("complex64", "SUM") in pairs
    assert (
        ("complex64", "MAX") not in pairs and ("float32", "BOR") not in pairs and ("int8", "AVG") not in pairs
    )
    assert not any(d in ("uint32", "float8_e4m3fn") for d, _ in pairs)
    assert "int8, uint8, int32, int64, bool with avg: avg needs a floating dtype" in left
    moved, _ = dtypes.combos("gloo", "all_gather", "all", "all")
    assert ("complex128", None) in moved and {op for _, op in moved} == {None}
    gathered, _ = dtypes.combos("gloo", "gather", "all", "sum")
    assert not any(d.startswith("complex") for d, _ in gathered)
    assert dtypes.combos("nccl", "broadcast", "float8_e5m2", "sum")[0] == [("float8_e5m2", None)]


def result(wrong: int | None = 0) -> dict:
    cell = {"time": 123.456e-6, "algbw": 2.5e9, "busbw": 3.75e9, "wrong": wrong}
    return {
        "size": 1 << 20,
        "count": 1 << 18,
        "type": "float32",
        "redop": "SUM",
        "root": -1,
        "out_of_place": cell,
        "in_place": {**cell, "busbw": 0.0004e9},
        "rank_times": {},
    }


def test_a_row_is_nccl_tests_13_columns_in_their_widths():
    line = table.line(result())
    assert line == (
        "     1048576        262144     float     sum      -1   123.46    2.50    3.75       0"
        "   123.46    2.50    0.00       0"
    )
    fields = line.split()
    assert len(fields) == 13 and float(fields[7]) == 3.75 and float(fields[11]) == 0.0
    unchecked = table.line(result(wrong=None)).split()
    assert len(unchecked) == 13 and unchecked[8] == unchecked[12] == "N/A"


@pytest.mark.parametrize(
    "value, width, text",
    [
        # time (us), 7 wide: two decimals up to 4 integer digits, one at 5, none at 6 and 7, then e
        (3.14159, 7, "   3.14"),
        (9999.994, 7, "9999.99"),
        (12345.67, 7, "12345.7"),
        (123456.7, 7, " 123457"),
        (1234567.8, 7, "1234568"),
        (12345678.9, 7, "1.2e+07"),
        # a bandwidth (GB/s), 6 wide: a slow one reads 0.00, as nccl-tests' does
        (0.0, 6, "  0.00"),
        (6e-06, 6, "  0.00"),
        (0.0001, 6, "  0.00"),
        (0.004, 6, "  0.00"),
        (0.005, 6, "  0.01"),
        (2.5, 6, "  2.50"),
        (999.99, 6, "999.99"),
        (1234.56, 6, "1234.6"),
        (123456.7, 6, "123457"),
        (1234567.0, 6, " 1e+06"),
    ],
)
def test_every_figure_is_in_nccl_tests_format(value, width, text):
    assert table.fit(value, width) == text


def test_the_header_says_the_flags_as_nccl_tests_do():
    a = parse("-b", "8", "-e", "16M", "-f", "2", "-m", "4", "-g", "1", "-t", "1", "-G", "0")
    setting = {
        "backend": "gloo",
        "torch": "2.13.0",
        "devices": [{"rank": 0, "host": "vm", "pid": 7, "index": -1, "bus": "cpu", "name": "CPU"}],
    }
    assert (
        "# nThread 1 nGpus 1 minBytes 8 maxBytes 16777216 step: 2(factor) warmup iters: 1 iters: 20 "
        "agg iters: 4 validation: 1 graph: 0 unalign: 0"
    ) in table.header(a, setting)


def test_the_footer_is_nccl_tests_lines():
    a = parse("-b", "1M", "-e", "1M")
    lines = table.footer(a, [result(), result(wrong=7)])
    assert lines == [
        "# Out of bounds values : 2 FAILED",  # results: the row's two placements
        f"# Avg bus bandwidth    : {(3.75 + 0.0004) / 2:g} ",
        "#",
        "# Collective test concluded: all_reduce",
        "#",
    ]


def test_ringsides_table_is_behind_hashes_and_long_names_keep_its_columns():
    import numpy as np

    from ringside.bench import compare
    from ringside.bench.sweep import SWEEP_DEFAULTS
    from ringside.worker_agent.core.algorithms import algorithm_of

    a = argparse.Namespace(**{**SWEEP_DEFAULTS, **vars(parse("-b", "1K", "-e", "1K", "-n", "20"))})
    times = np.full((2, 20), 1e-3)
    rows = [
        compare.row(a, 2, "gloo", 1024, algorithm_of("all_reduce", name), times * k, None, times)
        for name, k in (("native", 1), ("ring", 2))
    ]
    rows[1]["algorithm"] = "msccl_allreduce_ring_1channelsperring_2instances"  # a name past any width
    text = compare.table(rows, a, [])
    assert all(line.startswith("#") for line in text.splitlines())
    head = next(line for line in text.splitlines() if "#wrong" in line)
    ends = [head.index(word) + len(word) for word in ("time", "algbw", "busbw", "#wrong", "x native")]
    body = [line for line in text.splitlines() if line.split()[1:2] == ["1024"]]
    assert len(body) == 2
    for line in body:
        for end in ends:
            assert line[end - 1] != " " and line[end : end + 1] in ("", " "), (line, end)
    assert "rows with a wrong element: 0; 2 not checked" in text


def test_an_algorithm_not_run_at_a_size_says_why_behind_a_hash():
    import numpy as np

    from ringside.bench import auto, compare
    from ringside.bench.sweep import SWEEP_DEFAULTS
    from ringside.worker_agent.core.algorithms import algorithm_of
    from ringside.worker_agent.core.protocol import BenchRow

    a = argparse.Namespace(**{**SWEEP_DEFAULTS, **vars(parse("-b", "8", "-e", "8", "-n", "4"))})
    times = np.full((4, 4), 1e-4)
    native = algorithm_of("all_reduce", "native")
    why = "ring cuts each block into 4 chunks, more than count=2 elements"
    rows = [
        compare.row(a, 4, "gloo", 8, native, times, 0, times),
        compare.not_run(a, 4, "gloo", 8, algorithm_of("all_reduce", "ring"), why),
    ]
    lines = compare.table(rows, a, []).splitlines()
    assert all(line.startswith("#") for line in lines)
    (said,) = [line for line in lines if " ring " in line]
    assert said.split()[:7] == ["#", "8", "2", "float", "sum", "-1", "ring"]
    assert said.endswith(f"not run  {why}")
    assert "# rows with a wrong element: 0; 1 not run (the row says why)" in lines
    assert compare.average_busbw(rows).keys() == {"native"} and compare.unchecked(rows) == 0
    # auto's model is fitted to what ran: the row not run adds no sample
    assert auto.model_of(rows, "all_reduce", 4)[0].runs == 0
    # a served bench's row crosses the server as JSON (its times NaN) and prints the same
    crossed = [json.loads(BenchRow(**r).model_dump_json()) for r in rows]
    assert compare.table(crossed, a, []) == compare.table(rows, a, [])

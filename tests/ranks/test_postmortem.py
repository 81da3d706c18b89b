"""Post-mortem (`ringside open`): a real gloo job (four ranks under torchrun) hangs with rank 2
stopped, and every rank dumps its Flight Recorder as the watchdog would (flight_dumps.py). Ringside
reads the dumps raw, as torch wrote them, and its verdict is checked against torch's own analyzer
(fr_trace) on the same dumps, which needs their group config rewritten to read gloo's at all."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess

import pytest
from flight_dumps import PREFIX, for_fr_trace, fr_trace, hung_job, line_of

from ringside.server.postmortem.judge import judged
from ringside.worker_agent.clients.harness import CLI
from ringside.worker_agent.postmortem.dumps import read_paths
from ringside.worker_agent.postmortem.reports import opened


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    return hung_job(tmp_path_factory.mktemp("hung"))


def judge(*paths, **flags):
    said, ranks = opened(read_paths([str(p) for p in paths]), "the dumps", **flags)
    return judged("j-test", said, ranks).job.hang


def ringside_open(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CLI, "open", "--print", *map(str, args)], capture_output=True, text=True, timeout=120
    )


def test_the_stopped_rank_is_named_where_torch_s_analyzer_names_it(dumps, tmp_path):
    said, found = fr_trace(for_fr_trace(dumps.pickled, tmp_path / "for-fr-trace"))
    assert len(found) == 1, said
    hang = judge(dumps.pickled)
    assert hang is not None and hang.kind == "wait"
    assert (
        (hang.group, hang.seq, hang.late) == (found[0].group, found[0].seq, found[0].missing) == ("0", 6, [2])
    )
    assert hang.waiting == [0, 1, 3]

    done = ringside_open(dumps.pickled)
    assert done.returncode == 1, done.stderr  # a hang was found
    # the rank that stopped, the collective, and each rank's line from the dumps' stacks
    assert "ranks 0, 1, 3 wait in all_reduce #6 (1,000 float32); rank 2 last reported #5" in done.stdout
    assert f"last seen at fr_hang.py:{dumps.stopped_line}" in done.stdout
    assert f"ranks 0, 1, 3 at fr_hang.py:{dumps.waiting_line}; rank 2 at fr_hang.py:{dumps.stopped_line}" in (
        done.stdout
    )


def test_a_rank_that_skipped_the_collective_is_named_where_torch_s_analyzer_names_it(tmp_path):
    skipped = hung_job(tmp_path, skip=True)
    said, found = fr_trace(for_fr_trace(skipped.pickled, tmp_path / "for-fr-trace"))
    assert [(f.group, f.seq, f.missing, f.error) for f in found] == [
        ("0", 6, [2], "COLLECTIVE_TYPE_MISMATCH")
    ], said
    hang = judge(skipped.pickled)
    assert hang is not None and (hang.kind, hang.group, hang.seq, hang.late) == ("mismatch", "0", 6, [2])
    done = ringside_open(skipped.pickled)
    assert done.returncode == 1, done.stderr
    assert (
        "ranks disagree on #6 of group 0: rank 2 barrier; ranks 0, 1, 3 all_reduce of 1,000 float32 "
        "(the ops differ)" in done.stdout
    ), done.stdout
    assert f"rank 2 at fr_hang.py:{line_of('WHERE THE SKIPPING RANK WAITS')}" in done.stdout


def test_gloo_s_dumps_are_read_as_torch_writes_them(dumps):
    said, _ = fr_trace(dumps.pickled)
    assert "KeyError" in said  # torch's analyzer, on the same files, before any rewrite
    assert judge(dumps.pickled).late == [2]


def test_json_dumps_give_the_same_verdict(dumps):
    pickled, as_json = judge(dumps.pickled), judge(dumps.json)
    assert as_json is not None
    assert (as_json.kind, as_json.group, as_json.seq, as_json.late, as_json.waiting) == (
        pickled.kind,
        pickled.group,
        pickled.seq,
        pickled.late,
        pickled.waiting,
    )
    done = ringside_open(dumps.json)
    assert done.returncode == 1 and "rank 2 last reported #5" in done.stdout, done.stderr


def test_how_long_ago_a_rank_was_seen_is_counted_to_the_dumps_moment(dumps, tmp_path):
    """Opened an hour after its files were written, a dump still says what it said then."""
    later = tmp_path / "later"
    shutil.copytree(dumps.pickled, later)
    at = max(f.stat().st_mtime for f in later.iterdir())
    for f in later.iterdir():
        os.utime(f, (at + 3600, at + 3600))
    moved = judge(later).text
    ago = float(judge(dumps.pickled).text.split(" s ago")[0].rsplit(" ", 1)[1])
    assert f"{ago + 3600:.1f} s ago" in moved, (ago, moved)


def test_a_rank_without_a_dump_is_refused_unless_allowed_and_is_then_named(dumps, tmp_path):
    some = tmp_path / "some"
    some.mkdir()
    for rank in (0, 1, 3):
        shutil.copy(dumps.pickled / f"{PREFIX}{rank}", some)

    refused = ringside_open(some)
    assert refused.returncode == 2 and refused.stdout == ""
    assert "3 of the job's 4 ranks: rank 2 left none" in refused.stderr

    allowed = ringside_open(some, "--allow-incomplete-ranks")
    assert allowed.returncode == 1, allowed.stderr
    assert (
        "ranks 0, 1, 3 wait in all_reduce #6 (1,000 float32) of group 0; rank 2 left no dump"
        in allowed.stdout
    )
    # where torch's analyzer, allowed the same, cannot decide
    said, found = fr_trace(for_fr_trace(some, tmp_path / "for-fr-trace"), "--allow-incomplete-ranks")
    assert not found and "missed FR dumps from ranks ({2})" in said


def test_a_pickle_that_would_run_code_is_refused_and_nothing_runs(tmp_path):
    ran = tmp_path / "ran"

    class Runs:
        def __reduce__(self):
            return os.system, (f"touch {ran}",)

    folder = tmp_path / "dumps"
    folder.mkdir()
    (folder / f"{PREFIX}0").write_bytes(pickle.dumps(Runs()))
    done = ringside_open(folder)
    assert done.returncode == 2 and done.stdout == ""
    assert f"{folder / PREFIX}0: it holds STACK_GLOBAL (posix system)" in done.stderr
    assert "plain data only" in done.stderr
    assert not ran.exists()

"""What a watched job is said to do, against real jobs (gloo, four ranks under torchrun and
ringside.watch) and a real server: no mismatch on a legal job, a send/recv deadlock and a
stopped pipeline stage named as what they are, a rank's exception said with its type and
message however the watch was started, and process groups under the names torch gave them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from distributed import stop_torchrun
from server_helpers import WORKER_TOKEN, start_serve
from watched import FIXTURES, drain, job, jobs, newest_job, torchrun, wait_for
from websockets.sync.client import connect

NAMING_BOUND_S = 2.0  # the product's bound: a deadlock of blocked sends and receives is named within it


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    up = start_serve(tmp_path_factory.mktemp("watch-hangs"))
    yield up
    up.stop()


def started(server, script: str, before: set[str], collectives: int = 1) -> tuple[dict, dict[int, int]]:
    """The job once its four ranks have said hello and it has seen `collectives`: it, and each rank's pid."""
    found = wait_for(lambda: newest_job(server, script, before))
    ranks = wait_for(lambda: len(r := job(server, found["id"])["ranks"]) == 4 and r)
    wait_for(lambda: job(server, found["id"])["job"]["collectives"] >= collectives)
    return found, {r["rank"]: r["pid"] for r in ranks}


def naming(server, job_id: str, late: list[int], timeout: float = 30) -> dict:
    """The job's hang once it names `late` (and only them) as the ones to blame."""
    seen: list[dict | None] = []

    def named():
        seen.append(h := job(server, job_id)["job"]["hang"])
        return h and h["late"] == late and h

    try:
        return wait_for(named, timeout)
    except AssertionError:
        raise AssertionError(f"{late} not named within {timeout} s; the last hang: {seen[-1:]}") from None


def process_state(pid: int) -> str:
    """The process's state letter, as /proc says it: "T" once it is stopped."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rpartition(")")[2].split()[0]


def ended(server, script: str, before: set[str], state: str) -> dict:
    """The newest job of `script` once it has ended in `state`."""
    return wait_for(lambda: (j := newest_job(server, script, before)) and j["state"] == state and j)


def until_file(tmp_path) -> tuple:
    until = tmp_path / "stop"
    return until, {"WATCHED_UNTIL": str(until)}


def hangs_said(heard: list[dict], job_id: str) -> list[dict]:
    return [m for m in heard if m["type"] == "watched_hang" and m["job_id"] == job_id and m["hang"]]


def test_a_healthy_moe_job_and_the_seeds_scatter_are_never_a_mismatch_and_a_stopped_rank_is_named(
    server, tmp_path
):
    """Uneven all_to_all_single every step, an all_reduce of the loss, a scatter only the root puts data
    into and a gather only the root takes out of: legal, so never a mismatch, and a rank stopped among
    them is named as the one the others wait for."""
    until = tmp_path / "stop"
    before = {j["id"] for j in jobs(server)}
    heard: list[dict] = []
    with connect(server.ws_url("/ws")) as viewer:
        proc = torchrun(
            server.url, FIXTURES / "moe_scatter.py", launcher=(), env={"WATCHED_UNTIL": str(until)}
        )
        try:
            found, pids = started(server, "moe_scatter.py", before, collectives=120)
            os.kill(pids[2], signal.SIGSTOP)
            try:
                seen: list = []  # the job's hangs as they came: what a failure says it saw instead

                # rank 2 alone late, and every other rank waiting on it: a rank left inside the
                # collective rank 2 was stopped in (others finished it) waits on it once it is silent
                def named() -> dict | None:
                    h = job(server, found["id"])["job"]["hang"]
                    if not seen or seen[-1] != h:
                        seen.append(h)
                    return h if h and h["late"] == [2] and h["waiting"] == [0, 1, 3] else None

                try:
                    hang = wait_for(named, timeout=30)
                except AssertionError:
                    raise AssertionError(
                        f"rank 2 not named alone, the others waiting, within 30 s; hangs seen: {seen[-5:]}"
                    ) from None
            finally:
                os.kill(pids[2], signal.SIGCONT)
            until.touch()
            out, err = proc.communicate(timeout=120)
            done = wait_for(lambda: (j := job(server, found["id"]))["job"]["state"] == "done" and j)
            time.sleep(0.5)  # the last messages
            heard += drain(viewer)
        finally:
            stop_torchrun(proc)
    assert proc.returncode == 0, err[-3000:]
    said = hangs_said(heard, found["id"])
    mismatches = [m["text"] for m in said if m["hang"]["kind"] == "mismatch"]
    assert not mismatches, mismatches
    assert not [c for c in done["collectives"] if c["mismatch"]], "no collective's ranks disagree"
    assert not [e["text"] for e in done["events"] if "disagree" in e["text"]]
    ops = {c["op"] for c in done["collectives"]}
    assert {"all_to_all", "all_reduce", "scatter", "gather"} <= ops, ops
    assert hang["kind"] == "wait", hang["text"]


def test_four_live_ranks_blocked_in_receives_from_each_other_are_named_a_deadlock_at_once(server, tmp_path):
    """Every rank blocked in a recv from its left, none having sent: the cycle is named with each rank
    and its line within NAMING_BOUND_S of the last rank entering its recv; gloo's timeout then ends
    them, which is said as it happened (no one "caught up")."""
    before = {j["id"] for j in jobs(server)}
    # gloo's timeout, four times the naming bound: the cycle is named well before it ends the ranks
    timeout = str(4 * NAMING_BOUND_S)
    proc = torchrun(server.url, FIXTURES / "recv_ring.py", str(tmp_path), timeout, launcher=())
    try:
        found = wait_for(lambda: newest_job(server, "recv_ring.py", before))
        entered = wait_for(lambda: len(t := list(tmp_path.glob("rank*.t"))) == 4 and t)
        hang = wait_for(
            lambda: (h := job(server, found["id"])["job"]["hang"]) and h["kind"] == "deadlock" and h,
            timeout=30,
            every=0.05,
        )
        named_after = time.time() - max(float(t.read_text()) for t in entered)
        proc.communicate(timeout=120)
    finally:
        stop_torchrun(proc)
    print(f"the deadlock was named {named_after:.2f} s after the last rank entered its recv")
    assert (hang["late"], hang["waiting"], hang["op"]) == ([0, 1, 2, 3], [], "recv"), hang["text"]
    line = next(
        n for n, text in enumerate((FIXTURES / "recv_ring.py").read_text().splitlines(), 1) if "recv(" in text
    )
    assert hang["text"].startswith("ranks 0, 1, 2, 3 wait on each other, and none can go on: "), hang["text"]
    for rank in range(4):
        left = (rank - 1) % 4
        assert (
            f"rank {rank} waits in recv from rank {left} (1,024 float32) at recv_ring.py:{line}"
            in hang["text"]
        )
    assert named_after < NAMING_BOUND_S, f"named {named_after:.2f} s after (the product's bound)"
    ended = wait_for(lambda: (j := job(server, found["id"]))["job"]["state"] != "running" and j, timeout=60)
    events = [e["text"] for e in ended["events"]]
    assert not [e for e in events if "caught up" in e], events
    assert any("timed out (exit code 1): " in e or "went without" in e for e in events), events


def test_a_stopped_pipeline_stage_is_named_and_only_it_while_the_others_wait_in_their_sends_and_receives(
    server, tmp_path
):
    """torch.distributed.pipelining's GPipe on four stages; stage 2 stopped. The others wait on it in
    their receives and sends (stage 0 through stage 1): stage 2 is the one named, and stays the only
    one as it turns silent, until it goes on."""
    until, stop = tmp_path / "until", tmp_path / "stop"
    before = {j["id"] for j in jobs(server)}
    env = {"WATCHED_UNTIL": str(until), "WATCHED_STOP": str(stop)}
    proc = torchrun(server.url, FIXTURES / "pipeline_stages.py", launcher=(), env=env)
    try:
        found, pids = started(server, "pipeline_stages.py", before, collectives=20)
        stop.write_text("2")  # stage 2 stops itself inside a micro-batch's forward
        wait_for(lambda: process_state(pids[2]) == "T", every=0.01)
        stopped = time.monotonic()
        try:
            hang = naming(server, found["id"], [2])
            named_after = time.monotonic() - stopped
            later = []
            while time.monotonic() - stopped < named_after + 4:  # through its turning silent
                later.append(job(server, found["id"])["job"]["hang"])
                time.sleep(0.2)
        finally:
            os.kill(pids[2], signal.SIGCONT)
        until.touch()
        out, err = proc.communicate(timeout=120)
    finally:
        stop_torchrun(proc)
    print(f"the stopped stage was named {named_after:.2f} s after SIGSTOP")
    assert proc.returncode == 0, err[-3000:]
    assert hang["kind"] == "wait" and set(hang["waiting"]) <= {0, 1, 3}, hang["text"]
    assert "from rank 2" in hang["text"] or "to rank 2" in hang["text"], hang["text"]
    assert all(h is not None and h["late"] == [2] and h["kind"] == "wait" for h in later), [
        h and (h["kind"], h["late"]) for h in later
    ]
    assert any("has said nothing" in h["text"] for h in later), "it turned silent, still the one named"
    # stage 0 waits through stage 1: seen once its reporter reads it blocked, maybe a read later
    assert any(h["waiting"] == [0, 1, 3] for h in [hang, *later]), [h["text"] for h in later]
    done = wait_for(lambda: (j := job(server, found["id"]))["job"]["state"] == "done" and j)
    assert any(e["text"].startswith("rank 2 caught up: ") for e in done["events"]), done["events"]


def test_a_rank_that_raises_under_the_one_line_watch_is_said_with_its_exception(server):
    before = {j["id"] for j in jobs(server)}
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nproc-per-node=2",
        "--standalone",
        str(FIXTURES / "one_line.py"),
        server.url,
        "20",
        "3",
    ]
    env = {**os.environ, "RINGSIDE_WORKER_TOKEN": WORKER_TOKEN, "OMP_NUM_THREADS": "1"}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode != 0 and "ValueError: a bad batch at step 3" in done.stderr
    found = wait_for(
        lambda: (j := newest_job(server, "one_line.py", before)) and j["state"] == "failed" and j
    )
    shown = job(server, found["id"])
    one = next(r for r in shown["ranks"] if r["rank"] == 1)
    assert (one["ended"], one["exit_code"], one["error"]) == (True, 1, "ValueError: a bad batch at step 3")
    said = "rank 1 raised (exit code 1): ValueError: a bad batch at step 3"
    assert said in [e["text"] for e in shown["events"]], shown["events"]


def test_process_groups_keep_the_names_torch_gave_them(server):
    before = {j["id"] for j in jobs(server)}
    proc = torchrun(server.url, FIXTURES / "named_groups.py", launcher=())
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-3000:]
    found = wait_for(
        lambda: (j := newest_job(server, "named_groups.py", before)) and j["state"] == "done" and j
    )
    shown = job(server, found["id"])
    named = {}
    for group, desc in shown["group_descs"].items():
        named.setdefault(desc, []).append(shown["groups"][group])
    assert sorted(named["mesh_dp"]) == [[0, 2], [1, 3]]
    assert sorted(named["mesh_tp"]) == [[0, 1], [2, 3]]
    assert named["pairs"] == [[0, 1]]
    in_pairs = [c for c in shown["collectives"] if shown["group_descs"].get(c["group"]) == "pairs"]
    assert len(in_pairs) == 3 and all(c["ranks"] == [0, 1] and c["complete"] for c in in_pairs)


def test_a_job_that_pauses_below_its_own_hang_after_is_never_named(server):
    """Rank 2 pauses 4 s every 5 steps (a checkpoint) while the others wait in the step's all_reduce; the
    job asks for --hang-after 10 through its launcher (its hello carries it): no pause is a hang, and
    none is said to have caught up. The default threshold and the pause rule: test_watch_pauses.py."""
    before = {j["id"] for j in jobs(server)}
    heard: list[dict] = []
    with connect(server.ws_url("/ws")) as viewer:
        proc = torchrun(server.url, FIXTURES / "checkpoint_pause.py", launcher=("--hang-after", "10"))
        try:
            done = ended(server, "checkpoint_pause.py", before, "done")
            out, err = proc.communicate(timeout=120)
            heard += drain(viewer)
        finally:
            stop_torchrun(proc)
    assert proc.returncode == 0, err[-3000:]
    found = job(server, done["id"])
    assert found["job"]["collectives"] >= 10, "two pauses' steps and the rest were seen"
    assert not hangs_said(heard, done["id"]), [m["text"] for m in hangs_said(heard, done["id"])]
    assert not [e["text"] for e in found["events"] if "wait in" in e["text"] or "caught up" in e["text"]]

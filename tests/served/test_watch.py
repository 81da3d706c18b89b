"""Watching a user's own job (ringside.watch): real jobs under real torchrun (gloo, four
ranks), a real server on a loopback port, its real SQLite file. The jobs are the
examples a user would copy, and one with a comm hook of its own that keeps the record
the Flight Recorder's view of the buckets is checked against."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from distributed import stop_torchrun
from netns import NODES, on_node
from server_helpers import WORKER_TOKEN, messages, start_serve
from watched import FIXTURES, drain, job, jobs, newest_job, torchrun, wait_for, wait_for_message
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from ringside.server.watched.matching import RANKS_HELD
from ringside.server.watched.service import MAX_PUSH_RANKS
from ringside.worker_agent.rank.local import free_port

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    up = start_serve(tmp_path_factory.mktemp("watch"))
    yield up
    up.stop()


def test_a_stopped_rank_is_named_while_the_others_wait_and_every_bucket_is_seen(server, tmp_path):
    before = {j["id"] for j in jobs(server)}
    with connect(server.ws_url("/ws")) as viewer:
        proc = torchrun(server.url, FIXTURES / "ddp_hooked.py", str(tmp_path), "60", "0.1", launcher=())
        try:
            found = wait_for(lambda: newest_job(server, "ddp_hooked.py", before))
            ranks = wait_for(lambda: len(r := job(server, found["id"])["ranks"]) == 4 and r)
            wait_for(lambda: job(server, found["id"])["job"]["collectives"] > 30)
            pid = next(r["pid"] for r in ranks if r["rank"] == 2)
            drain(viewer)  # what was said before the stop is not about it
            os.kill(pid, signal.SIGSTOP)
            stopped = time.monotonic()
            # the job's hang as the server holds it: a busy machine may make rank 2 (or another) a second
            # late before the stop, a wait that is real and said then, and goes on as this one; a rank left
            # inside the collective rank 2 stopped in waits on it once rank 2 is silent (SILENT_S)
            hang = wait_for(
                lambda: (
                    (h := job(server, found["id"])["job"]["hang"])
                    and (h["late"], h["waiting"]) == ([2], [0, 1, 3])
                    and h
                ),
                timeout=30,
            )
            named_after = time.monotonic() - stopped
            drain(viewer)
            os.kill(pid, signal.SIGCONT)
            # said as the hang clears, or as another (a rank a second late to the next) takes its place
            over = wait_for_message(
                viewer,
                lambda m: (
                    m["type"] == "watched_hang"
                    and re.search(r"\branks? (\d+, )*2(, \d+)* caught up", m["text"])
                ),
                timeout=30,
            )
            out, err = proc.communicate(timeout=120)
        finally:
            stop_torchrun(proc)
    # bench/watch_overhead.py measures it too
    print(f"the stopped rank was named {named_after:.2f} s after SIGSTOP")
    assert proc.returncode == 0, err[-3000:]
    assert "ddp_hooked.py:" in hang["text"], hang["text"]
    if hang["kind"] == "wait":  # stopped between collectives (mostly: it sleeps between steps),
        # or inside one every rank issued, which the others wait in while it is silent
        assert hang["op"] == "all_reduce", hang["text"]
        assert "rank 2 last reported #" in hang["text"] or "rank 2 has said nothing for" in hang["text"], (
            hang["text"]
        )
    else:  # stopped inside one it had issued, the others' recorders not saying they wait in it
        assert "rank 2 has said nothing for" in hang["text"], hang["text"]
    assert over["job_id"] == found["id"]

    done = wait_for(lambda: (j := job(server, found["id"]))["job"]["state"] == "done" and j)
    assert {r["rank"]: r["exit_code"] for r in done["ranks"]} == {0: 0, 1: 0, 2: 0, 3: 0}
    assert done["job"]["hang"] is None
    assert any("caught up" in e["text"] for e in done["events"])

    # every bucket, on every rank, in order, with its element count: the job's own hook says which
    noted = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(4)]
    assert all(n == noted[0] for n in noted)
    reduces = [c for c in done["collectives"] if c["op"] == "all_reduce" and c["group"] == "0"]
    assert [c["count"] for c in reduces] == [numel for _, numel in noted[0]]
    assert len({n for _, n in noted[0]}) > 1, "the model should make buckets of more than one size"
    assert all(sorted(c["issued"]) == ["0", "1", "2", "3"] and c["complete"] for c in reduces)
    assert [c["seq"] for c in reduces] == sorted(c["seq"] for c in reduces)
    assert all(c["bytes"] == 4 * c["count"] and c["dtype"] == "float32" for c in reduces)


def test_ddp_buckets_are_named_and_timed_with_the_hook_and_the_job_is_exported(server):
    before = {j["id"] for j in jobs(server)}
    proc = torchrun(
        server.url,
        EXAMPLES / "ddp_train.py",
        "--steps",
        "6",
        "--width",
        "256",
        "--bucket-mb",
        "0.25",
        nproc=2,
    )
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-3000:]
    found = wait_for(lambda: (j := newest_job(server, "ddp_train.py", before)) and j["state"] == "done" and j)
    shown = job(server, found["id"])
    buckets = [c for c in shown["collectives"] if c["bucket"] is not None]
    assert buckets and all(c["op"] == "all_reduce" and c["bucket"]["numel"] == c["count"] for c in buckets)
    assert {c["bucket"]["index"] for c in buckets} == {0, 1}, "two buckets a step at 0.25 MB"
    assert all(p.endswith(("weight", "bias")) for c in buckets for p in c["bucket"]["params"])
    assert all(sorted(c["durations"]) == ["0", "1"] and c["busbw_gbps"] > 0 for c in buckets[:-2])
    totals = {(t["group"], t["op"]): t for t in shown["totals"]}
    assert (
        totals[("0", "all_reduce")]["count"] == len(buckets) and totals[("0", "all_reduce")]["busbw_gbps"] > 0
    )

    status, trace = server.call("GET", f"/api/watched/{found['id']}/trace", token=None)
    assert status == 200
    names = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"] if e.get("name") == "process_name"}
    host = socket.gethostname()
    assert names == {0: f"rank 0 · {host} · local rank 0", 1: f"rank 1 · {host} · local rank 1"}
    slices = [e for e in trace["traceEvents"] if e["ph"] in "be"]
    assert all("id" not in e for e in slices), (
        "ids local to a rank's process: Perfetto takes a plain id as global"
    )
    begins = {(e["pid"], e["id2"]["local"]): e for e in slices if e["ph"] == "b"}
    ends = {(e["pid"], e["id2"]["local"]): e for e in slices if e["ph"] == "e"}
    assert begins.keys() == ends.keys() and len(begins) == 2 * shown["job"]["collectives"], (
        "a slice a rank a collective"
    )
    for c in buckets[:-2]:  # timed by the hook: the slice lasts what the rank measured
        for rank, seconds in c["durations"].items():
            key = (int(rank), f"{c['group']}:{c['seq']}")
            assert abs(ends[key]["ts"] - begins[key]["ts"] - seconds * 1e6) < 1, (key, seconds)


def test_a_job_outlives_its_server_and_carries_on_with_the_next(tmp_path):
    port = free_port()
    first = start_serve(tmp_path, port=port)
    # 6 s and more: the job is held while the next server starts, and past a second without one it
    # has most of its steps left when it goes on (its reporter retries at once, then every 2 s)
    steps = 300
    proc = torchrun(
        first.url,
        EXAMPLES / "ddp_train.py",
        "--steps",
        str(steps),
        "--width",
        "128",
        "--pace",
        "0.02",
        nproc=2,
    )
    try:
        found = wait_for(lambda: newest_job(first, "ddp_train.py", set()))
        wait_for(lambda: job(first, found["id"])["job"]["collectives"] > 20)
        first.proc.kill()  # kill -9: no goodbye to anyone
        first.proc.wait(timeout=30)
        time.sleep(1)  # the job runs on without a server
        # and is held while the next one starts: on a loaded machine a start outlasted the job. Its
        # ranks one by one: torchrun starts each in a session of its own
        held = [proc.pid, *(p.pid for p in psutil.Process(proc.pid).children(recursive=True))]
        for pid in held:
            os.kill(pid, signal.SIGSTOP)
        try:
            second = start_serve(tmp_path, port=port, timeout=120)  # its ranks wait, however long
        finally:
            for pid in held:
                os.kill(pid, signal.SIGCONT)
        try:
            out, err = proc.communicate(timeout=180)
            assert proc.returncode == 0, err[-3000:]
            again = wait_for(lambda: (j := job(second, found["id"]))["job"]["state"] == "done" and j)
            assert [j["id"] for j in jobs(second)] == [found["id"]], "the ranks came back to the same job"
            # what the server had not saved as it died is lost (its record is saved once a second, and a
            # loaded machine's writer lags: a loaded run lost 58 steps, a collective a step); the rest is
            # there, to the last step
            assert (
                again["job"]["collectives"] > steps - 150
                and max(c["seq"] for c in again["collectives"]) >= steps
            ), (again["job"]["collectives"], max(c["seq"] for c in again["collectives"]))
            assert any("came back" in e["text"] for e in again["events"])
            indices = [c["index"] for c in again["collectives"]]
            assert indices == sorted(set(indices)), "indices go on after the kill, none taken twice"
            assert err.count("the job runs on and reporting retries") == 2, "once per rank"
            assert err.count("reporting to") == 2, "and once when it is back"
        finally:
            second.stop()
    finally:
        stop_torchrun(proc)


def test_a_job_with_two_groups_on_two_nodes_is_grouped_by_host_and_group(tmp_path, bridge):
    server = start_serve(tmp_path, "--host", "0.0.0.0")
    port = server.url.rsplit(":", 1)[1]
    url = f"http://{bridge.host_ip}:{port}"
    env = {**os.environ, "RINGSIDE_WORKER_TOKEN": WORKER_TOKEN, "OMP_NUM_THREADS": "1"}
    nodes = []
    for node in range(2):
        env_node = {**env, "GLOO_SOCKET_IFNAME": bridge.nodes[node][1]}
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
            "--master-port=29511",
            "-m",
            "ringside.watch",
            "--server",
            url,
            str(EXAMPLES / "two_groups.py"),
            "--steps",
            "5",
        )
        nodes.append(
            subprocess.Popen(cmd, env=env_node, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        )
    try:
        for proc in nodes:
            out, err = proc.communicate(timeout=180)
            assert proc.returncode == 0, err[-3000:]
        found = wait_for(
            lambda: (j := newest_job(server, "two_groups.py", set())) and j["state"] == "done" and j
        )
        shown = job(server, found["id"])
    finally:
        server.stop()
    assert found["nodes"] == 2 and found["world_size"] == 4
    assert {r["rank"]: (r["host"], r["local_rank"]) for r in shown["ranks"]} == {
        0: (NODES[0], 0),
        1: (NODES[0], 1),
        2: (NODES[1], 0),
        3: (NODES[1], 1),
    }
    groups = {name: members for name, members in shown["groups"].items()}
    assert sorted(groups.values()) == [[0, 1], [0, 1, 2, 3], [0, 2], [2, 3]]
    leaders = next(name for name, members in groups.items() if members == [0, 2])
    by_group = {}
    for c in shown["collectives"]:
        by_group.setdefault(c["group"], []).append(c)
    assert [c["op"] for c in by_group[leaders]] == ["all_reduce"] * 5
    assert all(
        c["ranks"] == [0, 2] and sorted(c["issued"]) == ["0", "2"] and c["complete"]
        for c in by_group[leaders]
    )
    node_groups = [name for name, members in groups.items() if members in ([0, 1], [2, 3])]
    for name in node_groups:
        assert [c["op"] for c in by_group[name]] == ["all_reduce", "broadcast"] * 5
        assert all(c["count"] == 1 << 16 and c["bytes"] == 4 << 16 for c in by_group[name])


def test_pipeline_traffic_is_counted_per_link(server):
    before = {j["id"] for j in jobs(server)}
    steps, micro, width = 3, 2, 64
    proc = torchrun(
        server.url,
        EXAMPLES / "pipeline_train.py",
        "--steps",
        str(steps),
        "--micro",
        str(micro),
        "--width",
        str(width),
        nproc=3,
    )
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-3000:]
    found = wait_for(
        lambda: (j := newest_job(server, "pipeline_train.py", before)) and j["state"] == "done" and j
    )
    links = {
        (link["src"], link["dst"]): (link["count"], link["bytes"])
        for link in job(server, found["id"])["links"]
    }
    one = steps * micro, steps * micro * 8 * width * 4  # a float32 (8, width) tensor per micro-batch each way
    assert links == {(0, 1): one, (1, 2): one, (2, 1): one, (1, 0): one}


def test_the_job_runs_on_when_the_server_refuses_its_token(server):
    proc = torchrun(server.url, EXAMPLES / "two_groups.py", "--steps", "2", nproc=2, token="not-the-token")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-3000:]
    assert "every rank holds" in out
    assert err.count("refused the worker token") == 2, "once per rank"


def test_the_launcher_runs_the_program_as_python_would(server, tmp_path):
    script = tmp_path / "prog.py"
    script.write_text("import sys\nprint(__name__, sys.argv)\nsys.exit(int(sys.argv[2]))\n")
    cmd = [sys.executable, "-m", "ringside.watch", "--server", server.url, str(script), "--flag", "3"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 3 and done.stdout.strip() == f"__main__ ['{script}', '--flag', '3']"
    script.write_text("raise KeyError('boom')\n")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "KeyError: 'boom'" in done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "ringside.watch", str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if k != "RINGSIDE_SERVER"},
    )
    assert done.returncode != 0 and "name the server" in done.stderr


def hello(**fields) -> str:
    return json.dumps(
        {
            "type": "watch_hello",
            "job": "k-forged",
            "rank": 0,
            "world_size": 2,
            "host": "h",
            "pid": 1,
            "launcher": "script",
            "backend": "gloo",
            "started_ns": 1,
            **fields,
        }
    )


def closed_with(server, frames: list[str]) -> tuple[int, str]:
    with connect(server.ws_url(f"/ws/watch?token={WORKER_TOKEN}")) as ws:
        try:
            for frame in frames:
                ws.send(frame)
            ws.recv(timeout=10)
        except ConnectionClosed as closed:
            return closed.rcvd.code, closed.rcvd.reason
    raise AssertionError("the socket stayed open")


def test_forged_reports_close_their_socket_and_change_nothing(server):
    before = len(jobs(server))
    # closed before it is accepted: the handshake is answered 403
    with pytest.raises(InvalidStatus) as refused:
        connect(server.ws_url("/ws/watch"))
    assert refused.value.response.status_code == 403
    assert closed_with(server, ['{"type": "watch_report", "rank": 0, "t_ns": 1}'])[0] == 1008
    code, reason = closed_with(server, [hello(world_size=0)])
    assert code == 1007 and "world_size" in reason
    report = {
        "type": "watch_report",
        "rank": 0,
        "t_ns": 1,
        "issued": [{"group": "0", "seq": i, "op": "all_reduce", "t_ns": 1} for i in range(1025)],
    }
    code, reason = closed_with(server, [hello(job="k-long"), json.dumps(report)])
    assert code == 1007 and "issued" in reason
    code, reason = closed_with(
        server, [hello(job="k-other"), json.dumps({**report, "rank": 1, "issued": []})]
    )
    assert code == 1008 and "rank 0 sent an event as rank 1" in reason
    code, reason = closed_with(server, [hello(job="k-long", world_size=3)])
    assert code == 4409 and "has 2 ranks, not 3" in reason
    assert len(jobs(server)) == before + 2, "only the two well-formed hellos made jobs"
    assert server.call("GET", "/api/watched/j-999999", token=None)[0] == 404


def test_one_line_in_the_script_watches_it_under_plain_torchrun(server):
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
    ]
    done = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "RINGSIDE_WORKER_TOKEN": WORKER_TOKEN, "OMP_NUM_THREADS": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = wait_for(lambda: (j := newest_job(server, "one_line.py", before)) and j["state"] == "done" and j)
    shown = job(server, found["id"])
    reduces = [c for c in shown["collectives"] if c["op"] == "all_reduce"]
    assert len(reduces) == 20 and all(c["count"] == 1024 and c["complete"] for c in reduces)
    assert {r["rank"]: (r["launcher"], r["ended"], r["exit_code"]) for r in shown["ranks"]} == {
        0: ("torchrun", True, None),
        1: ("torchrun", True, None),
    }, "atexit says goodbye, without a code to give"


def test_ranks_that_disagree_on_a_collective_are_named_and_the_job_fails(server):
    before = {j["id"] for j in jobs(server)}
    with connect(server.ws_url("/ws")) as viewer:
        proc = torchrun(server.url, FIXTURES / "desync.py", "6", nproc=2, launcher=())
        try:
            # a rank's report a second behind the other's is a wait, and said, before they are seen to
            # disagree
            said = wait_for_message(
                viewer,
                lambda m: m["type"] == "watched_hang" and m["hang"] and m["hang"]["kind"] == "mismatch",
                timeout=60,
            )
            proc.communicate(timeout=120)
        finally:
            stop_torchrun(proc)
    assert proc.returncode != 0, "gloo's timeout ends it"
    assert said["hang"]["kind"] == "mismatch" and said["hang"]["late"] == [0, 1]
    assert (
        "rank 0 broadcast of 1,000 float32" in said["text"]
        and "rank 1 all_reduce of 1,000 float32" in said["text"]
    )
    found = wait_for(lambda: (j := newest_job(server, "desync.py", before)) and j["state"] == "failed" and j)
    events = [e["text"] for e in job(server, found["id"])["events"]]
    # the backend's timeout ends a rank with the exception it raised, said as it happened
    assert any(
        "went without" in text or re.match(r"rank \d (timed out|raised) \(exit code 1\): \w+Error: ", text)
        for text in events
    ), events


def test_collectives_the_recorder_overwrote_unread_are_counted_not_called_a_hang(server):
    before = {j["id"] for j in jobs(server)}
    env = {
        **os.environ,
        "RINGSIDE_WORKER_TOKEN": WORKER_TOKEN,
        "OMP_NUM_THREADS": "1",
        "TORCH_FR_BUFFER_SIZE": "16",
    }
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nproc-per-node=2",
        "--standalone",
        "-m",
        "ringside.watch",
        "--server",
        server.url,
        str(FIXTURES / "tiny.py"),
        "3000",
    ]
    with connect(server.ws_url("/ws")) as viewer:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, done.stderr[-3000:]
        found = wait_for(lambda: (j := newest_job(server, "tiny.py", before)) and j["state"] == "done" and j)
        hangs = []
        try:
            while True:
                hangs += [
                    m
                    for m in messages(viewer.recv(timeout=0.5))
                    if m["type"] == "watched_hang" and m["hang"] and m["job_id"] == found["id"]
                ]
        except TimeoutError:
            pass
    assert found["missed"] > 0, "a 16-entry ring cannot keep 3,000 back-to-back collectives between reads"
    shown = job(server, found["id"])
    unseen = {(c["group"], c["seq"]) for c in shown["collectives"] if c["unseen"]}
    # a rank a second late is a wait, and said (a busy machine makes some): not one its reports lost
    assert unseen and not [h for h in hangs if (h["hang"]["group"], h["hang"]["seq"]) in unseen], (
        "a collective some rank's report lost is not a hang"
    )
    assert all(c["complete"] or c["unseen"] for c in shown["collectives"])


def test_a_job_stopped_by_sigterm_says_so_and_ends_failed_at_once(server):
    before = {j["id"] for j in jobs(server)}
    proc = torchrun(
        server.url, EXAMPLES / "ddp_train.py", "--steps", "2000", "--width", "64", "--pace", "0.01", nproc=2
    )
    try:
        found = wait_for(lambda: newest_job(server, "ddp_train.py", before))
        wait_for(lambda: job(server, found["id"])["job"]["collectives"] > 10)
        proc.send_signal(signal.SIGTERM)  # as a scheduler stops a job: torchrun passes it to its ranks
        proc.communicate(timeout=60)
    finally:
        stop_torchrun(proc)
    ended = wait_for(lambda: (j := job(server, found["id"]))["job"]["state"] != "running" and j, timeout=8)
    assert ended["job"]["state"] == "failed", "every rank said it ended, with 143: no wait for a lost job"
    assert {r["rank"]: r["exit_code"] for r in ended["ranks"]} == {0: 143, 1: 143}
    assert all(r["error"] == "SIGTERM" for r in ended["ranks"])


def test_a_rank_blocked_in_a_collective_ends_on_sigterm_and_says_so(server):
    """Rank 0 waits in C, in gloo, for a rank that never comes: a Python handler alone would run only
    after the backend's timeout (30 minutes). A scheduler's SIGTERM ends it now, its goodbye said."""
    before = {j["id"] for j in jobs(server)}
    proc = torchrun(server.url, FIXTURES / "blocked.py", nproc=2)
    try:
        found = wait_for(lambda: (j := newest_job(server, "blocked.py", before)) and j["hang"] and j)
        pid = next(r["pid"] for r in job(server, found["id"])["ranks"] if r["rank"] == 0)
        os.kill(pid, signal.SIGTERM)
        ended = wait_for(lambda: (r := job(server, found["id"])["ranks"][0])["ended"] and r, timeout=60)
        # gone soon after its goodbye (it says it, then exits), not after the backend's timeout
        wait_for(lambda: not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE)
    finally:
        stop_torchrun(proc)
    assert (ended["exit_code"], ended["error"]) == (143, "SIGTERM")


def test_a_report_of_a_wide_world_opens_what_the_job_holds_and_tells_no_more(server):
    """One forged report of 1,024 collectives in a claimed world of 65,536 ranks: each copied the
    world's ranks (67 M entries: 3 GB at its peak, 800 MB kept, the loop held for 29 s) and the viewers
    were pushed 500 of them (182 MB). Now the collectives share the group's list, those forgotten at
    once (past what the job holds open) are never told, and a push holds MAX_PUSH_RANKS rank entries:
    a page reads the rest of what the job holds."""
    world = 1 << 16
    server_rss = psutil.Process(server.proc.pid).memory_info().rss
    issued = [{"group": "0", "seq": i, "op": "all_reduce", "t_ns": 2 + i} for i in range(1024)]
    with (
        connect(server.ws_url("/ws"), max_size=None) as viewer,
        connect(server.ws_url(f"/ws/watch?token={WORKER_TOKEN}")) as ws,
    ):
        ws.send(hello(job="k-wide-report", world_size=world, script="wide.py"))
        ws.send(json.dumps({"type": "watch_report", "rank": 0, "t_ns": 2, "issued": issued}))
        told = []
        while not told:
            told = [m for m in messages(viewer.recv(timeout=60)) if m["type"] == "watched_collectives"]
        grown = psutil.Process(server.proc.pid).memory_info().rss - server_rss
        held, before, pages = [], "", 0
        while before is not None:  # a page of about 2 MB: each of these names 65,536 ranks
            page = server.call("GET", f"/api/watched/{told[0]['job_id']}?limit=2000{before}")[1]
            held, before, pages = page["collectives"] + held, page["before"], pages + 1
            before = f"&before={before}" if page["collectives"] else None
    assert len(told[0]["collectives"]) == max(1, MAX_PUSH_RANKS // world)
    assert len(held) == RANKS_HELD // world, "what the job holds open, no more"
    assert pages > 2, "read a page at a time"
    assert grown < 256 << 20, f"{grown >> 20} MiB held"

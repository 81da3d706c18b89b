"""Post-mortem on a server: `ringside open --server` adds a hung job's Flight Recorder dumps (a real
gloo job's, flight_dumps.py) to a running server, kept and shown as a watched job is, with the
watch's verdict; and pointed at torch.distributed.debug's server on a running job, it shows the job
live, without relaunching it, and the rank that stops is named."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import psutil
import pytest
from distributed import free_port, stop_torchrun
from flight_dumps import hung_job
from server_helpers import WORKER_TOKEN, messages, start_serve
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from ringside.worker_agent.clients.harness import CLI
from ringside.worker_agent.postmortem.dumps import read_paths
from ringside.worker_agent.postmortem.reports import opened

FIXTURES = Path(__file__).parents[1] / "fixtures"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    up = start_serve(tmp_path_factory.mktemp("postmortem"))
    yield up
    up.stop()


def ringside_open(*args, token: str = WORKER_TOKEN, **popen):
    env = {**os.environ, "RINGSIDE_WORKER_TOKEN": token}
    return subprocess.Popen(
        [*CLI, "open", *map(str, args)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


def wait_for(what, timeout: float = 60, every: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := what():
            return value
        time.sleep(every)
    raise AssertionError(f"not within {timeout} s: {what.__doc__ or what}")


def jobs(server) -> list[dict]:
    return server.call("GET", "/api/watched?limit=200")[1]["jobs"]


def test_dumps_opened_on_a_server_are_a_job_like_a_watched_one_with_its_verdict(server, tmp_path):
    dumps = hung_job(tmp_path)
    with connect(server.ws_url("/ws")) as viewer:
        done = ringside_open("--server", server.url, dumps.pickled)
        out, err = done.communicate(timeout=120)
        assert done.returncode == 1, err  # a hang was found
        job_id = out.splitlines()[-1].split()[1].rstrip(":")
        heard = wait_for(
            lambda: next((m for m in messages(viewer.recv(timeout=10)) if m["type"] == "watched"), None)
        )
    assert out.splitlines()[-1] == f"job {job_id}: {server.url}/?job={job_id}"
    assert "hang: ranks 0, 1, 3 wait in all_reduce #6 (1,000 float32); rank 2 last reported #5" in out
    # the page hears of it as of a watched job, its hang with it
    assert heard["job"]["id"] == job_id and heard["job"]["hang"]["late"] == [2]

    shown = server.call("GET", f"/api/watched/{job_id}")[1]
    assert shown["job"]["state"] == "dumped" and shown["job"]["world_size"] == 4
    hang = shown["job"]["hang"]
    assert (hang["kind"], hang["group"], hang["seq"], hang["late"], hang["waiting"]) == (
        "wait",
        "0",
        6,
        [2],
        [0, 1, 3],
    )
    assert hang["where"] == {"2": f"fr_hang.py:{dumps.stopped_line}"}
    where = {r["rank"]: r["where"] for r in shown["ranks"]}
    waits, stops = f"fr_hang.py:{dumps.waiting_line}", f"fr_hang.py:{dumps.stopped_line}"
    assert where == {0: waits, 1: waits, 2: stops, 3: waits}
    waited = [c for c in shown["collectives"] if not c["complete"]]
    assert [(c["group"], c["seq"], sorted(c["issued"])) for c in waited] == [("0", 6, ["0", "1", "3"])]
    assert {(c["group"], c["op"]) for c in shown["collectives"] if c["complete"]} == {
        ("0", "all_reduce"),
        ("0", "broadcast"),
        ("0", "barrier"),
        ("1", "all_reduce"),
    }
    assert shown["groups"] == {"1": [0, 1]}


def test_without_a_server_one_is_started_on_loopback_showing_the_job(tmp_path):
    entry = {"record_id": 0, "collective_seq_id": 1, "profiling_name": "gloo:barrier", "time_created_ns": 1}
    for rank in range(2):
        (tmp_path / f"fr_{rank}.json").write_text(
            json.dumps({"entries": [{**entry, "process_group": ["0", ""]}]})
        )
    port = free_port()
    local = ringside_open(tmp_path, "--port", port, "--db", tmp_path / "runs.db", start_new_session=True)
    try:
        said = [local.stdout.readline() for _ in range(4)]
        kept = f"(Ctrl-C stops it; the job is kept in {tmp_path}/runs.db)"
        assert said[0] == f"Ringside: http://127.0.0.1:{port}/ {kept}\n"
        assert said[2] == "no hang: every collective a rank issued, its group issued too\n"
        assert said[3] == f"job j-000001: http://127.0.0.1:{port}/?job=j-000001\n"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/watched/j-000001") as answer:
            shown = json.load(answer)
        assert shown["job"]["state"] == "dumped" and shown["job"]["hang"] is None
        assert [(c["op"], c["complete"]) for c in shown["collectives"]] == [("barrier", True)]
    finally:
        local.send_signal(signal.SIGINT)
        local.communicate(timeout=30)
    assert local.returncode == 0


def test_a_ring_of_thousands_of_collectives_a_rank_is_taken_whole(server, tmp_path):
    each = {
        "profiling_name": "gloo:all_reduce",
        "process_group": ["0", "default_pg"],
        "input_sizes": [[4096]],
    }
    entries = [
        {**each, "record_id": i, "collective_seq_id": i + 1, "time_created_ns": i + 1} for i in range(3000)
    ]
    for rank in range(2):
        (tmp_path / f"fr_{rank}.json").write_text(json.dumps({"entries": entries}))
    done = ringside_open("--server", server.url, tmp_path)
    out, err = done.communicate(timeout=120)
    assert done.returncode == 0, err  # frames of about 500 KiB a rank, each a dumped_rank
    job_id = out.splitlines()[-1].split()[1].rstrip(":")
    assert server.call("GET", f"/api/watched/{job_id}")[1]["job"]["collectives"] == 3000


def test_a_rank_out_of_turn_closes_the_socket_and_keeps_nothing(server, tmp_path):
    (tmp_path / "fr_0.json").write_text(json.dumps({"entries": []}))
    said, ranks = opened(read_paths([str(tmp_path)]), "x")
    before = jobs(server)
    with connect(server.ws_url(f"/ws/dumps?token={WORKER_TOKEN}")) as ws:
        ws.send(said.model_copy(update={"world_size": 2, "ranks": [1]}).model_dump_json())
        ws.send(ranks[0].model_dump_json())  # rank 0, where rank 1 was named
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
    assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (1008, "rank 0 was not named, or came twice")
    assert jobs(server) == before


def test_a_server_that_refuses_the_token_keeps_nothing(server, tmp_path):
    (tmp_path / "fr_0.json").write_text(json.dumps({"entries": []}))
    before = jobs(server)
    done = ringside_open("--server", server.url, tmp_path, token="not-the-token")
    out, err = done.communicate(timeout=120)
    assert done.returncode == 2 and out == ""
    assert f"the server at {server.url} answered 403: it needs the worker token" in err
    assert jobs(server) == before


def test_a_running_job_behind_torch_s_debug_server_is_shown_live_and_a_stopped_rank_named(server, tmp_path):
    port = free_port()
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=4"]
    job = subprocess.Popen(
        [*cmd, str(FIXTURES / "debug_served.py"), str(port), str(tmp_path)],
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url, bridge, stopped = f"http://127.0.0.1:{port}", None, None
    try:
        wait_for(lambda: len(list(tmp_path.glob("rank*"))) == 4 and _lists_workers(url))
        bridge = ringside_open("--server", server.url, url)
        shown = wait_for(
            lambda: next((j for j in jobs(server) if j["script"] == url and j["collectives"] > 20), None)
        )
        assert shown["state"] == "running" and shown["world_size"] == 4 and shown["backend"] == "gloo"
        line = next(
            i for i, s in enumerate((FIXTURES / "debug_served.py").read_text().splitlines(), 1) if "HERE" in s
        )
        ranks = wait_for(
            lambda: len(r := server.call("GET", f"/api/watched/{shown['id']}")[1]["ranks"]) == 4 and r
        )
        # each rank's main thread, from its worker's stacks: in the all_reduce, or the sleep after it
        wait_for(
            lambda: all(
                r["where"] in (f"debug_served.py:{line}", f"debug_served.py:{line + 1}") for r in ranks
            )
        )
        stopped = int((tmp_path / "rank2").read_text())
        os.kill(stopped, signal.SIGSTOP)  # its worker server stops with it: a silence, as a stopped rank's
        hang = wait_for(
            lambda: (
                (h := server.call("GET", f"/api/watched/{shown['id']}")[1]["job"]["hang"])
                and h["late"] == [2]
                and h
            ),
            timeout=30,
        )
        assert hang["waiting"] == [0, 1, 3]
    finally:
        if stopped is not None:
            os.kill(stopped, signal.SIGCONT)
        if bridge is not None:
            bridge.terminate()
            bridge.communicate(timeout=30)
        stop_torchrun(job)


def _lists_workers(url: str) -> bool:
    """Whether the debug server's page lists every rank's worker server."""
    try:
        with urllib.request.urlopen(f"{url}/tcpstore", timeout=2) as page:
            return page.read().decode().count("debug_server/rank") == 4
    except OSError:
        return False


def flood_frame(rank: int, world: int, reports: int = 32, each: int = 1024) -> str:
    """A dumped_rank frame of `reports` full reports (about 3.3 MiB), written as text: the test's
    own cost stays small beside the server's."""
    issued = ",".join(
        f'{{"group":"0","seq":{s},"op":"all_reduce","dtype":"Float","count":1024,"bytes":4096,'
        f'"t_ns":{T0 + s}}}'
        for s in range(1, each + 1)
    )
    report = f'{{"type":"watch_report","rank":{rank},"t_ns":{T0 + each + 1},"issued":[{issued}]}}'
    hello = (
        f'{{"type":"watch_hello","job":"flood","rank":{rank},"world_size":{world},"host":"h","pid":0,'
        f'"launcher":"dump","backend":"gloo","started_ns":{T0}}}'
    )
    return f'{{"type":"dumped_rank","hello":{hello},"reports":[{",".join([report] * reports)}]}}'


T0 = 1_000_000_000


def test_a_flood_of_dumps_is_read_to_the_watch_s_bound_and_health_answers_throughout(tmp_path):
    """200 declared ranks, 81 of them sending 3.3 MiB each (262 MiB): the server reads what a watched
    job may keep (64 MB), says the rest was not read, and gives its memory back; health answers all
    along (its slowest answer is printed: a figure, not a verdict). Pinged every second: the server
    judging the frames it holds is no late pong of the sender's, whose pong waits behind them."""
    server = start_serve(tmp_path, "--ping-every", "1")
    try:
        proc = psutil.Process(server.proc.pid)
        before = proc.memory_info().rss
        peak, health, stop = [before], [], threading.Event()

        def watch() -> None:
            while not stop.wait(0.05):  # a sample every 50 ms: what the server does meanwhile, not a wait
                t = time.monotonic()
                health.append((server.call("GET", "/api/health")[0], time.monotonic() - t))
                peak.append(proc.memory_info().rss)

        watcher = threading.Thread(target=watch)
        watcher.start()
        sent = list(range(81))
        said = {
            "type": "dumps_hello",
            "source": "flood",
            "world_size": 200,
            "ranks": sent,
            "taken_ns": T0 + 10**10,
        }
        try:
            with connect(server.ws_url(f"/ws/dumps?token={WORKER_TOKEN}"), max_size=None) as ws:
                ws.send(json.dumps(said))
                for rank in sent:
                    ws.send(flood_frame(rank, 200))
                answer = json.loads(ws.recv(timeout=300))
        finally:
            stop.set()
            watcher.join()
        after = proc.memory_info().rss
        print(
            f"dumps flood: rss {before >> 20} -> peak {max(peak) >> 20} -> {after >> 20} MB; "
            f"{len(health)} health answers, slowest {max(s for _, s in health):.2f} s"
        )
        assert answer["type"] == "dumps_opened"
        assert "the dumps past 64 MB were not read" in answer["verdict"]
        shown = server.call("GET", f"/api/watched/{answer['job']}")[1]
        assert shown["job"]["world_size"] == 200 and 0 < len(shown["ranks"]) < 81  # the first 64 MB: 19 ranks
        assert max(peak) - before < 300 << 20, f"{(max(peak) - before) >> 20} MB over the start"
        assert health and all(status == 200 for status, _ in health)
    finally:
        server.stop()

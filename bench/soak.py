"""A soak: `ringside up --ranks 4` runs small collectives back to back for N minutes
(default 10) while V viewer websockets (default 200) watch, and one rank is SIGKILLed every
K minutes (default 2; its pid from /api/cluster), and a client floods beside them (polls and as many
votes as it can send, bodies where no route reads one, 20 stalled bodies at a time) while another
attacks (attack()). Prints: runs by final
state (every run must end done, or failed with a reason), the server's and the ranks' memory at start and
end (and the server's each minute), the flood's answers by status and every poll's tally against
the votes it accepted, and for every viewer session whether it received the
run_ended of every run that ended while it watched, or was told it fell behind (1013; it
then reconnects, as the page does). Asserts nothing.

    .venv/bin/python bench/soak.py [--minutes 10] [--viewers 200] [--kill-every 2] [--ranks 4]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import secrets
import signal
import socket
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import websockets

from ringside.worker_agent.clients.harness import WORKER_TOKEN, start_up
from ringside.worker_agent.core.protocol import PROTOCOL_VERSION

SPECS = [  # small, so that runs follow each other quickly; kept varied
    {"collective": "all_reduce", "algorithm": "ring", "count": 1024},
    {"collective": "all_gather", "algorithm": "recursive_doubling", "count": 64},
    {"collective": "broadcast", "algorithm": "binomial_tree", "count": 256, "root": 1},
    {"collective": "reduce_scatter", "algorithm": "ring", "count": 128, "chunks": 2},
    {"collective": "all_reduce", "algorithm": "native", "count": 4096, "iterations": 5},
    {"collective": "all_to_all", "algorithm": "pairwise", "count": 16},
]
# pydantic writes no spaces: no parse per frame
ENDED = re.compile(r'"type":"run_ended","run":\{"id":"([^"]+)"')
DROPPED = 1013


@dataclass
class Session:
    """One viewer connection, from its snapshot to its close."""

    opened: float = 0.0  # when its snapshot arrived
    expected_from: set = field(default_factory=set)  # runs the snapshot had queued or on stage
    ended: set = field(default_factory=set)  # run_ended ids received
    close_code: int | None = None
    closed: float | None = None


@dataclass
class Run:
    id: str
    submitted: float
    state: str = ""
    error: str | None = None
    verified: bool | None = None


def mib(n: float) -> str:
    return f"{n / 2**20:.0f} MiB"


def memory(up) -> tuple[int, list[int]]:
    ranks = []
    for r in up.cluster()["ranks"]:
        with contextlib.suppress(psutil.Error):  # a rank being restarted
            ranks.append(psutil.Process(r["pid"]).memory_info().rss)
    return psutil.Process(up.proc.pid).memory_info().rss, ranks


async def viewer(url: str, sessions: list[Session], stop: asyncio.Event) -> None:
    while not stop.is_set():
        session = Session()
        try:
            async with websockets.connect(url, max_size=None, max_queue=64, open_timeout=60) as ws:
                snapshot = json.loads(await ws.recv())
                session.opened = time.monotonic()
                current = {snapshot["current"]["id"]} if snapshot["current"] else set()
                session.expected_from = {r["id"] for r in snapshot["queue"]} | current
                sessions.append(session)
                while not stop.is_set():
                    try:
                        frame = await asyncio.wait_for(ws.recv(), 1.0)
                    except asyncio.TimeoutError:
                        continue
                    session.ended.update(ENDED.findall(frame))
        except websockets.ConnectionClosed as e:
            session.close_code = e.rcvd.code if e.rcvd else None
        except (OSError, asyncio.TimeoutError):
            session.close_code = -1
        session.closed = time.monotonic()
        if not stop.is_set():
            await asyncio.sleep(0.5)  # as the page does before it reconnects


async def drive(up, runs: list[Run], until: float, kill_every: float, kills: list) -> None:
    """Runs back to back; a rank killed every `kill_every` seconds."""
    started, i = time.monotonic(), 0
    next_kill = started + kill_every
    while time.monotonic() < until:
        status, body = await asyncio.to_thread(up.call, "POST", "/api/runs", SPECS[i % len(SPECS)])
        if status == 503:  # the group is being restarted
            await asyncio.sleep(0.2)
            continue
        assert status == 202, (status, body)
        i += 1
        run = Run(body["id"], time.monotonic())
        runs.append(run)
        if time.monotonic() >= next_kill:  # now, with a run in flight: it must fail and say why
            live = [r for r in up.cluster()["ranks"] if r["status"] != "lost"]
            victim = live[len(kills) % len(live)]
            os.kill(victim["pid"], signal.SIGKILL)
            kills.append((round(time.monotonic() - started), victim["rank"], victim["pid"], run.id))
            next_kill += kill_every
        while True:
            _, got = await asyncio.to_thread(up.call, "GET", f"/api/runs/{run.id}")
            if got["state"] not in ("queued", "running"):
                run.state, run.error, run.verified = got["state"], got["error"], got["verified"]
                break
            await asyncio.sleep(0.02)


def made_up() -> str:
    """A ballot as the server hands them out, signed by no one."""
    return f"{secrets.token_urlsafe(12)}.{secrets.token_urlsafe(16)}"


async def flood(up, stop: asyncio.Event, seen: Counter, polls: list) -> None:
    """A client that floods beside the lecture: a poll on the newest done run now and then, as
    many votes as it can send (each with a ballot it made up, as a script would: no page holds
    it, so none counts), bodies where no route reads one, and connections that send half a body
    and stall."""
    port = int(up.url.rsplit(":", 1)[1])
    while not stop.is_set():
        poll = None
        for run in up.call("GET", "/api/runs?limit=5")[1]["runs"]:
            status, body = await asyncio.to_thread(
                up.call, "POST", "/api/polls", {"run_id": run["id"], "question": "busiest_link"}
            )
            if status == 201:
                poll = body
                break
        stalled = [await asyncio.open_connection("127.0.0.1", port) for _ in range(20)]
        for _, writer in stalled:
            writer.write(b"POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\n{")
        accepted, began = 0, time.monotonic()
        while time.monotonic() - began < 20 and not stop.is_set():
            if poll is not None:
                status, _ = await asyncio.to_thread(
                    up.call,
                    "POST",
                    f"/api/polls/{poll['id']}/votes",
                    {"choice": accepted % len(poll["choices"]), "ballot": made_up()},
                    None,
                )
                seen[status] += 1
                accepted += status == 202
            status, _ = await asyncio.to_thread(up.call, "POST", "/api/nonexistent", b"x" * 65536, None)
            seen[status] += 1
        for _, writer in stalled:
            writer.close()
        if poll is not None:
            revealed = (await asyncio.to_thread(up.call, "POST", f"/api/polls/{poll['id']}/reveal"))[1]
            polls.append((poll["id"], accepted, revealed["votes"], sum(revealed["counts"])))


async def attack(up, stop: asyncio.Event, seen: Counter) -> None:
    """Beside the flood, every 20 s (from addresses of their own: the viewers and the flood hold most
    of what 127.0.0.1 may): viewers' sockets at a spelling of /ws that once had a rank's
    frame bound, each beginning a 15 MiB frame; hellos as rank 0 of the world's size with the
    worker token but not the world's key; a watched job's reporter naming what no job keeps, for
    10 s; connections from five addresses that never end their headers. `seen` counts how each
    ended (a forged rank accepted is a slot taken)."""
    port = int(up.url.rsplit(":", 1)[1])
    ws_url = up.ws_url("/%77s")
    hello = {"v": PROTOCOL_VERSION, "type": "hello", "rank": 0, "world_size": 4, "host": "forged"}
    hello |= {"pid": 4242, "backend": "gloo", "device": "cpu", "torch_version": "x"}

    async def side_door() -> None:
        try:
            async with websockets.connect(ws_url, max_size=None, local_addr=("127.0.0.2", 0)) as ws:
                await ws.send(b"x" * (15 << 20))
                with contextlib.suppress(asyncio.TimeoutError, websockets.ConnectionClosed):
                    await asyncio.wait_for(drained(ws), 10)
                seen[f"/%77s closed {ws.close_code}"] += 1
        except (OSError, websockets.ConnectionClosed) as e:
            seen[f"/%77s {type(e).__name__}"] += 1

    async def drained(ws) -> None:
        async for _ in ws:  # what the viewers' socket says first (its snapshot), until it closes
            pass

    async def forged() -> None:
        try:
            worker_url = up.ws_url(f"/ws/worker?token={WORKER_TOKEN}")
            async with websockets.connect(worker_url, local_addr=("127.0.0.3", 0)) as ws:
                await ws.send(json.dumps(hello))
                await asyncio.wait_for(ws.recv(), 1)
        except websockets.ConnectionClosed as closed:
            seen[f"forged rank closed {closed.rcvd.code if closed.rcvd else None}"] += 1
        except asyncio.TimeoutError:
            seen["forged rank ACCEPTED"] += 1
        except OSError as e:
            seen[f"forged rank {type(e).__name__}"] += 1

    async def reporter(seconds: float) -> None:
        """A watched job's one rank reporting ten times a second, each report naming 1,024 collectives
        in new group and op names and 1,024 peers beyond its world of 2 (bounds.py drops them)."""
        watch_hello = {"v": PROTOCOL_VERSION, "type": "watch_hello", "job": f"flood-{time.time_ns()}"}
        watch_hello |= {"rank": 0, "world_size": 2, "host": "h", "pid": 1, "launcher": "script"}
        watch_hello |= {"backend": "gloo", "started_ns": time.time_ns()}
        try:
            async with websockets.connect(up.ws_url(f"/ws/watch?token={WORKER_TOKEN}"), max_size=None) as ws:
                await ws.send(json.dumps(watch_hello))
                began, n = time.monotonic(), 0
                while time.monotonic() - began < seconds and not stop.is_set():
                    n += 1
                    issued = [
                        {"group": f"g{n}-{i}", "seq": 0, "op": f"o{n}-{i}", "t_ns": 1} for i in range(1024)
                    ]
                    links = [{"peer": 2 + i, "sent": 8, "sends": 1} for i in range(1024)]
                    report = {
                        "type": "watch_report",
                        "v": PROTOCOL_VERSION,
                        "rank": 0,
                        "t_ns": time.time_ns(),
                    }
                    await ws.send(json.dumps(report | {"issued": issued, "links": links}))
                    await asyncio.sleep(0.1)
                seen["reporter flood: reports sent"] += n
        except (OSError, websockets.ConnectionClosed) as e:
            seen[f"reporter flood {type(e).__name__}"] += 1

    async def stalled_headers() -> list:
        held = []
        for i in range(250):
            sock = socket.socket()
            sock.setblocking(False)
            sock.bind((f"127.0.0.{60 + i % 5}", 0))
            try:
                await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
                await asyncio.get_running_loop().sock_sendall(sock, b"GET /api/health HTTP/1.1\r\n")
            except OSError:
                seen["stalled header refused"] += 1
            held.append(sock)
        return held

    while not stop.is_set():
        held = await stalled_headers()
        await asyncio.gather(*(side_door() for _ in range(20)), *(forged() for _ in range(20)), reporter(10))
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stop.wait(), 20)
        for sock in held:
            sock.close()


async def soak(up, minutes: float, viewers: int, kill_every: float) -> None:
    sessions: list[Session] = []
    runs: list[Run] = []
    kills: list = []
    stop = asyncio.Event()
    server_rss, rank_rss = memory(up)
    print(
        f"# start: server RSS {mib(server_rss)}, ranks RSS {', '.join(mib(r) for r in rank_rss)}", flush=True
    )
    watchers = [asyncio.create_task(viewer(up.ws_url(), sessions, stop)) for _ in range(viewers)]
    while len(sessions) < viewers:
        await asyncio.sleep(0.1)
    began = time.monotonic()
    driver = asyncio.create_task(drive(up, runs, began + minutes * 60, kill_every * 60, kills))
    flooded, polls = Counter(), []
    flooder = asyncio.create_task(flood(up, stop, flooded, polls))
    attacked: Counter = Counter()
    attacker = asyncio.create_task(attack(up, stop, attacked))
    while not (await asyncio.wait({driver}, timeout=60))[0]:
        print(
            f"# {time.monotonic() - began:4.0f} s: {len(runs)} runs, server RSS {mib(memory(up)[0])}, "
            f"viewer sessions {len(sessions)}",
            flush=True,
        )
    await driver
    deadline = time.monotonic() + 30  # until the last run_ended has reached every viewer still watching
    while time.monotonic() < deadline and any(
        s.closed is None and runs[-1].id not in s.ended for s in sessions
    ):
        await asyncio.sleep(0.2)
    stop.set()
    await asyncio.gather(*watchers, flooder, attacker)
    elapsed = time.monotonic() - began

    server_end, ranks_end = memory(up)
    states = Counter(r.state for r in runs)
    unexplained = [
        r for r in runs if r.state not in ("done", "failed") or (r.state == "failed" and not r.error)
    ]
    wrong = [r for r in runs if r.state == "done" and r.verified is False]
    print(
        f"# {elapsed:.0f} s, {len(runs)} runs ({len(runs) / elapsed:.1f}/s): {dict(states)}; "
        f"without an end or a reason: {len(unexplained)}; done but wrong: {len(wrong)}"
    )
    for r in [r for r in runs if r.state == "failed"][:5]:
        print(f"#   {r.id} failed: {r.error}")
    print(f"# kills (s, rank, pid, run in flight): {kills}")
    print(
        f"# flood: answers by status {dict(flooded)}; "
        f"polls (id, votes accepted, tally's votes, sum of counts): {polls}"
    )
    print(f"# attacks: how each ended {dict(attacked)}")
    print(
        f"# end: server RSS {mib(server_end)} (start {mib(server_rss)}), ranks RSS "
        f"{', '.join(mib(r) for r in ranks_end)} (start {', '.join(mib(r) for r in rank_rss)})"
    )

    ended_at = {r.id: r.submitted for r in runs if r.state}
    complete = told = missed = other = 0
    codes = Counter()
    # a run is expected by a session whose snapshot had it, or that was watching when it was submitted
    for s in sessions:
        expected = {rid for rid, t in ended_at.items() if rid in s.expected_from or t > s.opened}
        if s.close_code == DROPPED:
            told += 1
        elif expected <= s.ended:
            complete += 1
        elif s.close_code is not None:  # closed early, for another reason than falling behind
            other += 1
            codes[s.close_code] += 1
        else:
            missed += 1
    print(
        f"# viewer sessions {len(sessions)} ({viewers} viewers): received every run_ended {complete}, "
        f"told they fell behind (1013) {told}, missed events without being told {missed}, closed otherwise "
        f"{other} {dict(codes) or ''}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--viewers", type=int, default=200)
    parser.add_argument("--kill-every", type=float, default=2, help="minutes between rank kills")
    parser.add_argument("--ranks", type=int, default=4)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so that `finally` stops the server and its ranks
    tmp = Path(tempfile.mkdtemp(prefix="ringside-soak-"))
    up = start_up(tmp, ranks=args.ranks, env={"RINGSIDE_WORKER_TOKEN": WORKER_TOKEN})
    try:
        asyncio.run(soak(up, args.minutes, args.viewers, args.kill_every))
    finally:
        up.stop()
    log = up.log_text()
    print(
        f"# server log: {log.count('Traceback')} tracebacks, {log.count('restarting the group')} group "
        f"restarts; {up.log}"
    )


if __name__ == "__main__":
    main()

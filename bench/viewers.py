"""Many viewers at once: V viewer websockets (default 1000) watch R runs (default 50) of a
small 4-rank ring all_reduce. For every step event, its delivery lag at a viewer is its
arrival there minus its earliest arrival at any viewer (the fan-out's spread); counts
the viewers that received every event of every run, and samples the server's RSS after
each run (flat means no leak). Prints figures; asserts nothing.

    .venv/bin/python bench/viewers.py [--viewers 1000] [--runs 50]

One client process holds every socket and parses frames only after each run, so that
its own work inflates the lags as little as it can.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import tempfile
import time
from pathlib import Path

import psutil
import websockets

from ringside.worker_agent.clients.harness import messages, start_up

SMALL = {"collective": "all_reduce", "algorithm": "ring", "count": 16, "capture": "summary"}


def step_events(message: dict, run_id: str) -> list[tuple[int, int]]:
    """(step, rank) of each rank's step of the run that the message carries: a `step`
    message's, or those reported before `run_started` and sent in it."""
    if message["type"] == "step" and message["run_id"] == run_id:
        return [(message["step"], message["rank"])]
    if message["type"] == "run_started" and message["run"]["id"] == run_id:
        return [(step["step"], int(rank)) for step in message["run"]["steps"] for rank in step["ranks"]]
    return []


async def one_run(up, sockets) -> tuple[list[float], int, int]:
    """(lags, viewers that got every step event, step events in the run)."""
    status, body = await asyncio.to_thread(up.call, "POST", "/api/runs", SMALL)
    assert status == 202, body
    done = f'"type":"run_ended","run":{{"id":"{body["id"]}"'  # messages.py's field order

    async def listen(ws) -> list[tuple[float, str]]:
        frames = []
        while True:
            frame = await ws.recv()
            frames.append((time.perf_counter(), frame))
            if done in frame:
                return frames

    received = await asyncio.wait_for(asyncio.gather(*(listen(ws) for ws in sockets)), timeout=300)
    arrivals = [
        {event: at for at, frame in frames for m in messages(frame) for event in step_events(m, body["id"])}
        for frames in received
    ]
    events = set().union(*arrivals)
    first = {e: min(a[e] for a in arrivals if e in a) for e in events}
    return (
        [a[e] - first[e] for a in arrivals for e in a],
        sum(set(a) == events for a in arrivals),
        len(events),
    )


async def bench(up, viewers: int, runs: int, server: psutil.Process) -> None:
    sockets = []
    for _ in range(viewers):
        ws = await websockets.connect(up.ws_url(), max_size=None, max_queue=None, open_timeout=60)
        await ws.recv()  # the snapshot
        sockets.append(ws)
    lags, rss, complete, events = [], [server.memory_info().rss], 0, 0
    for _ in range(runs):
        run_lags, run_complete, run_events = await one_run(up, sockets)
        lags += run_lags
        complete += run_complete
        events += run_events
        rss.append(server.memory_info().rss)
    for ws in sockets:
        await ws.close()
    p99 = statistics.quantiles(lags, n=100, method="inclusive")[98]
    print(f"{viewers} viewers x {runs} runs (goal p99 lag <= 250 ms, RSS flat):")
    print(
        f"  {complete} of {viewers * runs} viewer-runs received every step event "
        f"({events} step events in all)"
    )
    print(
        f"  delivery lag p50 {statistics.median(lags) * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms, max "
        f"{max(lags) * 1e3:.1f} ms"
    )
    mib = [r / 2**20 for r in rss]
    print(
        f"  server RSS: {mib[0]:.1f} MiB with the viewers connected, after run 1 {mib[1]:.1f}, "
        f"after run {runs // 2} {mib[runs // 2]:.1f}, after run {runs} {mib[-1]:.1f} MiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--viewers", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.viewers + 256)), hard))
    up = start_up(Path(tempfile.mkdtemp()), ranks=4)
    try:
        asyncio.run(bench(up, args.viewers, args.runs, psutil.Process(up.proc.pid)))
    finally:
        up.stop()


if __name__ == "__main__":
    main()

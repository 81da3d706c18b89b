"""POST /api/runs to the first step event at a viewer, with 4 real gloo ranks and a
small tensor (a 16-element ring all_reduce): p50 and p99 over many runs, and the
server's RSS before and after them. Then POST .../cancel on a long run (10000
iterations, short and long ones) to its `cancelled` state at the viewer. Prints
figures; asserts nothing.

    .venv/bin/python bench/server_latency.py [--runs 100] [--ranks 4] [--cancels 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import psutil
import websockets

from ringside.worker_agent.clients.harness import messages, start_up

SMALL = {"collective": "all_reduce", "algorithm": "ring", "count": 16, "capture": "summary"}
RUN_NEWS = ("run", "run_started", "run_ended")  # the viewer messages that carry a run and its state


def has_step(message: dict, run_id: str) -> bool:
    """A rank's step of the run: a `step` message, or steps reported before `run_started` and sent in it."""
    if message["type"] == "run_started" and message["run"]["id"] == run_id:
        return any(step["ranks"] for step in message["run"]["steps"])
    return message["type"] == "step" and message["run_id"] == run_id


async def latencies(up, runs: int) -> list[float]:
    out = []
    async with websockets.connect(up.ws_url(), max_size=None) as ws:
        await ws.recv()  # the snapshot
        for _ in range(runs):
            start = time.perf_counter()
            status, body = await asyncio.to_thread(up.call, "POST", "/api/runs", SMALL)
            assert status == 202, body
            while not any(has_step(m, body["id"]) for m in messages(await ws.recv())):
                pass
            out.append(time.perf_counter() - start)
            await asyncio.to_thread(up.wait, body["id"])
    return out


async def cancel_latencies(up, cancels: int, count: int) -> list[float]:
    out = []
    long = {
        "collective": "all_reduce",
        "algorithm": "ring",
        "count": count,
        "capture": "none",
        "iterations": 10_000,
    }
    async with websockets.connect(up.ws_url(), max_size=None) as ws:
        await ws.recv()  # the snapshot

        async def until(run_id: str, state: str) -> None:
            while not any(
                m["type"] in RUN_NEWS and m["run"]["id"] == run_id and m["run"]["state"] == state
                for m in messages(await ws.recv())
            ):
                pass

        for _ in range(cancels):
            status, body = await asyncio.to_thread(up.call, "POST", "/api/runs", long)
            assert status == 202, body
            await until(body["id"], "running")
            await asyncio.sleep(0.5)
            start = time.perf_counter()
            status, _ = await asyncio.to_thread(up.call, "POST", f"/api/runs/{body['id']}/cancel")
            assert status == 200, status
            await until(body["id"], "cancelled")
            out.append(time.perf_counter() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--cancels", type=int, default=5)
    args = parser.parse_args()
    up = start_up(Path(tempfile.mkdtemp()), ranks=args.ranks)
    try:
        server = psutil.Process(up.proc.pid)
        rss_before = server.memory_info().rss
        xs = asyncio.run(latencies(up, args.runs))
        rss_after = server.memory_info().rss
        stops = {count: asyncio.run(cancel_latencies(up, args.cancels, count)) for count in (16, 1 << 22)}
    finally:
        up.stop()
    p99 = statistics.quantiles(xs, n=100, method="inclusive")[98]
    print(
        f"POST -> first step at a viewer, P={args.ranks}, {args.runs} runs (goal p50 "
        "<= 30 ms, p99 <= 100 ms):"
    )
    print(f"  p50 {statistics.median(xs) * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms, max {max(xs) * 1e3:.1f} ms")
    print(f"  server RSS {rss_before / 2**20:.1f} MiB -> {rss_after / 2**20:.1f} MiB")
    print(f"POST cancel -> cancelled at a viewer, a 10000-iteration ring all_reduce, {args.cancels} cancels:")
    for count, ys in stops.items():
        print(
            f"  {count * 4:>9} B per rank: median {statistics.median(ys) * 1e3:.0f} ms, "
            f"max {max(ys) * 1e3:.0f} ms"
        )


if __name__ == "__main__":
    main()

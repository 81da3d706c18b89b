"""POST /api/runs to the first step event at a viewer, with 4 real gloo ranks and a
small tensor (a 16-element ring all_reduce): p50 and p99 over many runs, and the
server's RSS before and after them. Prints figures; asserts nothing.

    .venv/bin/python bench/server_latency.py [--runs 100] [--ranks 4]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psutil
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from server_helpers import messages, start_up  # noqa: E402

SMALL = {"collective": "all_reduce", "algorithm": "ring", "count": 16, "capture": "summary"}


async def latencies(up, runs: int) -> list[float]:
    out = []
    async with websockets.connect(up.ws_url(), max_size=None) as ws:
        await ws.recv()  # the snapshot
        for _ in range(runs):
            start = time.perf_counter()
            status, body = await asyncio.to_thread(up.call, "POST", "/api/runs", SMALL)
            assert status == 202, body
            while not any(m["type"] == "step" and m["run_id"] == body["id"] for m in messages(await ws.recv())):
                pass
            out.append(time.perf_counter() - start)
            await asyncio.to_thread(up.wait, body["id"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--ranks", type=int, default=4)
    args = parser.parse_args()
    up = start_up(Path(tempfile.mkdtemp()), ranks=args.ranks)
    try:
        server = psutil.Process(up.proc.pid)
        rss_before = server.memory_info().rss
        xs = asyncio.run(latencies(up, args.runs))
        rss_after = server.memory_info().rss
    finally:
        up.stop()
    p99 = statistics.quantiles(xs, n=100)[98]
    print(f"POST -> first step at a viewer, P={args.ranks}, {args.runs} runs (goal p50 <= 30 ms, p99 <= 100 ms):")
    print(f"  p50 {statistics.median(xs) * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms, max {max(xs) * 1e3:.1f} ms")
    print(f"  server RSS {rss_before / 2**20:.1f} MiB -> {rss_after / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()

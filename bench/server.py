"""The server under a lecture's load, on loopback, with real workers:

- `ringside up --ranks 4`: launch to every rank registered;
- POST /api/runs to the first step event at a viewer (small tensor, 4 ranks), p50 / p99;
- 1000 viewer websockets at once, each receiving every event of a run: p99 delivery lag
  (an event's arrival at a viewer minus its earliest arrival at any viewer);
- the server's RSS across 50 runs.

Prints figures; asserts nothing. Loops are bounded and every target is 127.0.0.1.

    .venv/bin/python bench/server.py [--viewers 1000] [--runs 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psutil
import websockets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from server_helpers import start_up  # noqa: E402

SMALL = {"collective": "all_reduce", "algorithm": "ring", "count": 16, "capture": "summary"}


def messages(frame: str) -> list[dict]:
    """A frame holds one message or a batch of them."""
    data = json.loads(frame)
    return data if isinstance(data, list) else [data]


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def time_to_ready(tmp: Path) -> float:
    tmp.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    up = start_up(tmp, ranks=4)
    elapsed = time.perf_counter() - start
    reported = re.search(r"ready in ([\d.]+) s", (tmp / f"up-{up.url.rsplit(':', 1)[1]}.log").read_text())
    up.stop()
    print(f"ringside up --ranks 4: ready {elapsed:.2f} s after launch (workers alone: {reported.group(1)} s)")
    return elapsed


async def first_step_latency(up, runs: int) -> list[float]:
    out = []
    async with websockets.connect(up.url.replace("http", "ws") + "/ws", max_size=None) as ws:
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


async def fan_out(up, viewers: int) -> tuple[list[float], int, int]:
    url = up.url.replace("http", "ws") + "/ws"
    sockets = []
    for _ in range(viewers):
        ws = await websockets.connect(url, max_size=None, open_timeout=30)
        await ws.recv()
        sockets.append(ws)
    arrivals: list[dict[tuple, float]] = [dict() for _ in sockets]
    status, body = await asyncio.to_thread(up.call, "POST", "/api/runs", SMALL)
    run_id = body["id"]

    async def listen(i: int, ws) -> None:
        while True:
            frame = await ws.recv()
            now = time.perf_counter()
            for m in messages(frame):
                if m["type"] == "step" and m["run_id"] == run_id:
                    arrivals[i][m["step"], m["rank"]] = now
                if m["type"] == "run" and m["run"]["id"] == run_id and m["run"]["state"] == "done":
                    return

    await asyncio.wait_for(asyncio.gather(*(listen(i, ws) for i, ws in enumerate(sockets))), timeout=300)
    for ws in sockets:
        await ws.close()
    events = set().union(*arrivals)
    first = {e: min(a[e] for a in arrivals if e in a) for e in events}
    lags = [a[e] - first[e] for a in arrivals for e in a]
    complete = sum(1 for a in arrivals if set(a) == events)
    return lags, complete, len(events)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--viewers", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.viewers + 256)), hard))
    tmp = Path(tempfile.mkdtemp())
    time_to_ready(tmp / "ready")
    (tmp / "load").mkdir()
    up = start_up(tmp / "load", ranks=4)
    try:
        server = psutil.Process(up.proc.pid)
        rss_before = server.memory_info().rss
        latency = asyncio.run(first_step_latency(up, args.runs))
        rss_after = server.memory_info().rss
        print(f"POST -> first step at a viewer, {args.runs} runs: p50 {statistics.median(latency) * 1e3:.1f} ms, "
              f"p99 {pct(latency, 0.99) * 1e3:.1f} ms")
        print(f"server RSS across {args.runs} runs: {rss_before / 2**20:.1f} MiB -> {rss_after / 2**20:.1f} MiB")
        lags, complete, events = asyncio.run(fan_out(up, args.viewers))
        print(f"{args.viewers} viewers: {complete} received all {events} step events; delivery lag p50 "
              f"{statistics.median(lags) * 1e3:.1f} ms, p99 {pct(lags, 0.99) * 1e3:.1f} ms, max {max(lags) * 1e3:.1f} ms")
    finally:
        up.stop()


if __name__ == "__main__":
    main()

"""What reads cost with a long history: N runs in the store (default 100,000), copied from
real runs of `ringside up --ranks 4` (their bodies as the server wrote them), then p50 and
p99 of the read endpoints, 100 requests each (half one at a time, half 10 at once), and
the server's RSS. Prints a table; asserts nothing (goal: p99 < 100 ms each).

    .venv/bin/python bench/read_cost.py [--runs 100000] [--requests 100] [--ranks 4]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil

from ringside.server.db.database import Database
from ringside.server.dispatch.job import JobState
from ringside.server.model import costs as model
from ringside.server.runs.run import Run
from ringside.server.runs.store import RunStore
from ringside.worker_agent.clients.harness import start_up

TEMPLATES = [  # what a lecture runs, mostly stepwise and small, some native
    {"collective": "all_reduce", "algorithm": "ring", "count": 1024},
    {"collective": "all_reduce", "algorithm": "tree", "count": 4096, "iterations": 5},
    {
        "collective": "all_reduce",
        "algorithm": "rabenseifner",
        "count": 65536,
        "capture": "none",
        "iterations": 20,
    },
    {"collective": "all_gather", "algorithm": "ring", "count": 256, "chunks": 2},
    {"collective": "broadcast", "algorithm": "binomial_tree", "count": 1024, "root": 1},
    {"collective": "reduce_scatter", "algorithm": "recursive_halving", "count": 512},
    {"collective": "all_to_all", "algorithm": "pairwise", "count": 64, "capture": "full"},
    {
        "collective": "all_reduce",
        "algorithm": "native",
        "count": 1 << 18,
        "capture": "none",
        "iterations": 20,
    },
    {  # the largest body a lecture makes: every value of every step
        "collective": "parameter_server",
        "algorithm": "pull_push",
        "count": 2046,
        "servers": 3,
        "capture": "full",
    },
]
ENDPOINTS = [
    "/api/health",
    "/api/cluster",
    "/api/runs?limit=30",
    "/metrics",
    "/api/model?collective=all_reduce&algorithm=ring",
    "/api/model?collective=all_reduce&algorithm=ring&world_size=64&count=1048576",
    "/api/runs?limit=30&offset=90000",
    "/api/compare/formulas?run={first}",  # the seed's formulas beside the newest like runs
    "/api/runs/{newest_ps}",  # a parameter server's full capture, whole
]


def seed(db: Path, runs: int, templates: list[Run]) -> list[str]:
    """`runs` more runs, through the Store API (as a server would have saved them): copies of
    the templates with their own ids, nine in ten done, the rest failed or cancelled. The newest
    done copy's id of each template."""
    newest = [t.id for t in templates]
    store = RunStore(Database(db))
    first = store.last_number() + 1
    rows = [model.row_of(t) for t in templates]
    for i in range(runs):
        k = i % len(templates)
        state = JobState.FAILED if i % 10 == 7 else JobState.CANCELLED if i % 30 == 11 else JobState.DONE
        run = templates[k].model_copy(
            update={"id": f"r-{first + i:06d}", "created_at": time.time(), "state": state}
        )
        store.save(run)
        if state == JobState.DONE:
            store.add_figures(run, rows[k])
            newest[k] = run.id
    store.database.flush()  # every write in the file before the reads and the raw SQL below
    store.database.close()
    return newest


def peak_rss(pid: int) -> int:
    """The process's high-water mark of resident memory (VmHWM), in bytes."""
    line = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("VmHWM:"))
    return int(line.split()[1]) * 1024


def timed(up, path: str) -> float:
    start = time.perf_counter()
    status, _ = up.call("GET", path)
    assert status == 200, (path, status)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--ranks", type=int, default=4)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ringside-read-cost-"))
    db = tmp / "runs.db"

    up = start_up(tmp, ranks=args.ranks, db=db)
    try:
        templates = [Run.model_validate(up.run(**spec)) for spec in TEMPLATES]
    finally:
        up.stop()
    print(
        f"# {len(templates)} real runs as templates; body sizes "
        f"{sorted(len(t.model_dump_json()) for t in templates)} bytes"
    )
    start = time.perf_counter()
    newest = seed(db, args.runs, templates)
    ids = {"first": templates[0].id, "newest_ps": newest[-1]}
    print(
        f"# seeded {args.runs} runs in {time.perf_counter() - start:.1f} s; store "
        f"{db.stat().st_size / 2**20:.0f} MiB"
    )

    start = time.perf_counter()
    up = start_up(tmp, ranks=args.ranks, db=db)
    print(f"# ringside up --ranks {args.ranks} ready in {time.perf_counter() - start:.1f} s on that store")
    try:
        server = psutil.Process(up.proc.pid)
        rss0 = server.memory_info().rss
        print(f"{'endpoint':<78} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7}  (1 at a time, then 10 at once)")
        with ThreadPoolExecutor(10) as pool:
            for path in (e.format(**ids) for e in ENDPOINTS):
                timed(up, path)  # warm
                alone = [timed(up, path) for _ in range(args.requests // 2)]
                together = list(
                    pool.map(
                        timed, [up] * (args.requests - len(alone)), [path] * (args.requests - len(alone))
                    )
                )
                ms = sorted(1000 * t for t in alone + together)
                p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
                print(f"{path:<78} {statistics.median(ms):7.1f} {p99:7.1f} {ms[-1]:7.1f}")
        rss1 = server.memory_info().rss
        print(
            f"# server RSS {rss0 / 2**20:.0f} MiB after start, {rss1 / 2**20:.0f} MiB after the requests; "
            f"runs stored: {up.call('GET', '/api/runs?limit=1')[1]['total']}"
        )
        # the heaviest prediction the cap lets through, 8 at once (before the cap: 1.7 GB for one)
        heavy = "/api/model?collective=all_to_all&algorithm=pairwise&world_size=362"
        start = time.perf_counter()
        with ThreadPoolExecutor(8) as pool:
            each = list(pool.map(timed, [up] * 8, [heavy] * 8))
        print(
            f"# {heavy} 8 at once: {time.perf_counter() - start:.2f} s in all, {max(each):.2f} s the "
            f"slowest; server peak RSS {peak_rss(up.proc.pid) / 2**20:.0f} MiB, RSS now "
            f"{server.memory_info().rss / 2**20:.0f} MiB"
        )
    finally:
        up.stop()


if __name__ == "__main__":
    main()

"""`ringside up --ranks 4`: from launch to every rank registered, and from Ctrl-C to
no process left. Prints figures; asserts nothing.

    .venv/bin/python bench/up_time.py [--ranks 4] [--repeat 3]
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from pathlib import Path

from ringside.worker_agent.clients.harness import start_up, wait_gone


def once(tmp: Path, ranks: int) -> tuple[float, float, float]:
    """(launch to ready as a user sees it, the launcher's own figure, Ctrl-C to no process left)."""
    start = time.perf_counter()
    up = start_up(tmp, ranks=ranks)
    ready = time.perf_counter() - start
    own = float(
        re.search(r"ready in ([\d.]+) s", (tmp / f"up-{up.url.rsplit(':', 1)[1]}.log").read_text()).group(1)
    )
    pids = [up.proc.pid, *up.descendants()]
    start = time.perf_counter()
    up.stop()
    left = wait_gone(pids)
    stopped = time.perf_counter() - start
    if left:
        print(f"  processes left after Ctrl-C: {left}")
    return ready, own, stopped


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = [once(Path(tempfile.mkdtemp()), args.ranks) for _ in range(args.repeat)]
    ready, own, stopped = (sorted(col) for col in zip(*rows))
    print(f"ringside up --ranks {args.ranks}, {args.repeat} launches (goal: ready <= 5 s):")
    print(
        f"  launch -> every rank registered: median {statistics.median(ready):.2f} s, worst {ready[-1]:.2f} s"
    )
    print(
        f"  of which the workers (server up -> all ranks said hello): median {statistics.median(own):.2f} s"
    )
    print(
        f"  Ctrl-C -> no process left: median {statistics.median(stopped):.2f} s, worst {stopped[-1]:.2f} s"
    )


if __name__ == "__main__":
    main()

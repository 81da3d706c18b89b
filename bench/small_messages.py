"""Latency-bound all_reduce: tree and master_worker against native (and ring)
at 1 KiB - 64 KiB, as ratios to native measured in the same run. It is
`ringside bench` with these arguments:

    .venv/bin/python bench/small_messages.py [--ranks 4]
"""

from __future__ import annotations

import sys

from ringside.worker_agent.cli import main

if __name__ == "__main__":
    ranks = sys.argv[sys.argv.index("--ranks") + 1] if "--ranks" in sys.argv else "4"
    sys.exit(
        main(
            [
                "bench",
                "--ranks",
                ranks,
                "--collective",
                "all_reduce",
                "--only",
                "native,tree,master_worker,ring",
                "-b",
                "1K",
                "-e",
                "64K",
                "-f",
                "4",
                "-n",
                "30",
                "-w",
                "5",
            ]
        )
    )

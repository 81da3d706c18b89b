"""Ranks made the first way the seeds teach: one script that spawns its own ranks with
torch.multiprocessing, each setting the variables a launcher would, then joining a
Ringside server as a worker. (The other way is a launcher that starts the same program
on every rank: `torchrun --nproc-per-node=4 -m ringside.worker_agent --server URL`.)

    RINGSIDE_WORKER_TOKEN=… python examples/spawn_workers.py --server http://127.0.0.1:8000 -n 4
"""

from __future__ import annotations

import argparse
import os
import socket

import torch.multiprocessing as mp


def rank_main(rank: int, world_size: int, port: int, server: str) -> None:
    os.environ.update(
        RANK=str(rank),
        WORLD_SIZE=str(world_size),
        LOCAL_RANK=str(rank),
        LOCAL_WORLD_SIZE=str(world_size),
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
        RINGSIDE_LAUNCHER="torch.multiprocessing.spawn",
    )
    from ringside.worker_agent.cli import main

    raise SystemExit(main(["worker", "--server", server]))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--server", required=True, help="URL of the Ringside server to join")
    parser.add_argument("-n", "--ranks", type=int, default=4)
    args = parser.parse_args()
    mp.spawn(rank_main, args=(args.ranks, free_port(), args.server), nprocs=args.ranks)

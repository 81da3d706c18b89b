"""What watching costs a job: a DDP training (gloo, P ranks by torchrun) timed per step
plain, under the launcher (`-m ringside.watch`: Flight Recorder read in process, p2p
counted, where each rank is), and under the launcher with the DDP comm hook, at models of
about 1 M and 25 M parameters. Modes take turns round by round, each round starting one
further on, so drift and the first job's warm-up hit all alike; a step's time is rank 0's,
the median over rounds x steps, and `rounds` the least and most of the rounds' own ratios
(the noise). Then how soon a stopped rank is named: SIGSTOP one rank mid-job, time until
the server's viewers hear the hang.

    .venv/bin/python bench/watch_overhead.py [--ranks 4] [--rounds 4] [--steps 30] [--models "1 M"]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HIDDEN = {"1 M": 960, "25 M": 4950}  # 256·h + h² + 10·h parameters
MODES = {"plain": None, "watched": [], "watched + hook": ["--ddp-hook"]}


def train(args: list[str]) -> None:
    """One rank of the job: DDP steps, rank 0 prints every step's time as JSON."""
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    hidden, steps, warmup = int(args[0]), int(args[1]), 3
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Linear(256, hidden),
        torch.nn.ReLU(),
        torch.nn.Linear(hidden, hidden),
        torch.nn.ReLU(),
        torch.nn.Linear(hidden, 10),
    )
    ddp = DistributedDataParallel(net)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.01)
    times = []
    for _step in range(warmup + steps):
        began = time.perf_counter()
        loss = ddp(torch.randn(32, 256)).square().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        times.append(time.perf_counter() - began)
    if dist.get_rank() == 0:
        print(json.dumps(times[warmup:]), flush=True)
    del (
        ddp,
        optimizer,
        loss,
    )  # DDP holds the group: gone first, its threads end with it (examples/ddp_train.py)
    gc.collect()
    dist.destroy_process_group()


def torchrun(ranks: int, mode: list[str] | None, server: str, *args: str, **popen) -> subprocess.Popen:
    watch = [] if mode is None else ["-m", "ringside.watch", "--server", server, *mode]
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        f"--nproc-per-node={ranks}",
        "--standalone",
        *watch,
        __file__,
        "--train",
        *args,
    ]
    return subprocess.Popen(
        cmd, **{"stdout": subprocess.PIPE, "stderr": subprocess.DEVNULL, "text": True, **popen}
    )


def step_times(ranks: int, mode, server: str, hidden: int, steps: int) -> list[float]:
    proc = torchrun(ranks, mode, server, str(hidden), str(steps), stderr=subprocess.PIPE)
    out, err = proc.communicate(timeout=1200)
    lines = [line for line in out.splitlines() if line.startswith("[")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"the job failed ({proc.returncode}):\n{err[-3000:]}")
    return json.loads(lines[-1])


def names(message: dict, rank: int) -> bool:
    """Whether a viewer's message is a hang naming `rank` late: on a busy machine other ranks straggle
    past a second now and then, and such a hang says nothing of the stopped one."""
    return message["type"] == "job_hang" and bool(message["hang"]) and rank in message["hang"]["late"]


def named_after(ranks: int, server) -> float:
    """Seconds from SIGSTOP of one rank to the viewers' job_hang naming it."""
    from websockets.sync.client import connect

    from ringside.worker_agent.clients.harness import messages, stop_torchrun

    with connect(server.ws_url("/ws")) as viewer:
        proc = torchrun(ranks, [], server.url, str(HIDDEN["1 M"]), "400", start_new_session=True)
        try:
            pid, late = None, []
            while pid is None:  # once the job's ranks have said hello and issued: the last rank not late
                for message in messages(viewer.recv(timeout=60)):
                    if message["type"] == "job_hang":  # one already late would be named by no new message
                        late = message["hang"]["late"] if message["hang"] else []
                    if (
                        message["type"] == "job"
                        and len(message["ranks"]) == ranks
                        and message["job"]["collectives"] > 20
                    ):
                        victim = max(set(range(ranks)) - set(late))
                        pid = next(r["pid"] for r in message["ranks"] if r["rank"] == victim)
            os.kill(pid, signal.SIGSTOP)
            stopped = time.monotonic()
            while True:
                for message in messages(viewer.recv(timeout=60)):
                    if names(message, victim):
                        return time.monotonic() - stopped
        finally:
            stop_torchrun(proc)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--stops", type=int, default=3, help="SIGSTOPs timed")
    parser.add_argument(
        "--models", nargs="+", choices=HIDDEN, default=list(HIDDEN), help="model sizes to time (default: all)"
    )
    args = parser.parse_args()
    from ringside.worker_agent.clients.harness import WORKER_TOKEN, start_serve

    server = start_serve(Path(tempfile.mkdtemp(prefix="watch-bench-")))
    os.environ["RINGSIDE_WORKER_TOKEN"] = WORKER_TOKEN
    try:
        print(
            f"DDP on gloo, P={args.ranks}, {args.rounds} rounds x {args.steps} steps, "
            "medians (rank 0's step time)"
        )
        print(f"{'model':>6} {'mode':>16} {'step ms':>9} {'vs plain':>9} {'rounds':>13}")
        for label in args.models:
            times = {mode: [] for mode in MODES}
            per_round = {mode: [] for mode in MODES}  # each round's median over plain's: the noise
            order = list(MODES)
            for r in range(args.rounds):
                for mode in order[r % len(order) :] + order[: r % len(order)]:  # each round starts one on
                    steps = step_times(args.ranks, MODES[mode], server.url, HIDDEN[label], args.steps)
                    times[mode] += steps
                    per_round[mode].append(statistics.median(steps))
            plain = statistics.median(times["plain"])
            for mode in MODES:
                median = statistics.median(times[mode])
                rounds = [m / p for m, p in zip(per_round[mode], per_round["plain"])]
                print(
                    f"{label:>6} {mode:>16} {median * 1e3:9.2f} {median / plain:9.3f} "
                    f"{min(rounds):6.3f}-{max(rounds):.3f}"
                )
        named = [named_after(args.ranks, server) for _ in range(args.stops)]
        print(
            f"a stopped rank named after {statistics.median(named):.2f} s (median of {len(named)}; "
            f"{', '.join(f'{s:.2f}' for s in named)})"
        )
    finally:
        server.stop()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--train"]:
        train(sys.argv[2:])
    else:
        main()

"""What watching costs the jobs engineers run, on gloo with P ranks under torchrun:

- ddp: DistributedDataParallel over eight 512x512 layers with 1 MB buckets (8 gradient
  all-reduces a step), then the loss all-reduced for the log, as training loops do;
- fsdp2: the same layers under torch.distributed.fsdp.fully_shard, one unit each (an all-gather
  per unit forward and again backward, a reduce-scatter per unit), then the loss all-reduced.

Each job runs plain (torchrun alone) and watched (`-m ringside.watch`, as docs/watch.md starts it)
in alternating pairs: pair i runs plain first when i is even, watched first when odd, so drift and
warm-up hit both alike. A run's step time is the median of rank 0's steps, its CPU per step the
median of every rank's process CPU time per step (all its threads: the reporter's too). Each pair
gives watched/plain, and the table shows the median of the pairs' ratios, their spread (least and
most) and in how many pairs watched was the slower. The server runs on this machine at nice 10,
as one elsewhere would barely touch the ranks' cores. Then how soon a stopped rank is named:
SIGSTOP one rank of a watched DDP job, time until the server's viewers hear the hang.

    .venv/bin/python bench/watch_overhead.py [--ranks 2] [--pairs 8] [--steps 30] [--jobs ddp fsdp2]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WIDTH, LAYERS, BUCKET_MB, BATCH = 512, 8, 1.0, 32
JOBS = ("ddp", "fsdp2")
WARMUP = 3


def layers():
    import torch

    torch.manual_seed(0)
    blocks = [torch.nn.Sequential(torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU()) for _ in range(LAYERS)]
    return torch.nn.Sequential(*blocks, torch.nn.Linear(WIDTH, 10))


def wrapped(job: str):
    """The model as the job wraps it."""
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard
    from torch.nn.parallel import DistributedDataParallel

    net = layers()
    if job == "ddp":
        return DistributedDataParallel(net, bucket_cap_mb=BUCKET_MB)
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    for block in net:
        fully_shard(block, mesh=mesh)
    return fully_shard(net, mesh=mesh)


def train(args: list[str]) -> None:
    """One rank of the job: its steps; every rank prints its steps' wall and CPU times as JSON."""
    import torch
    import torch.distributed as dist

    job, steps = args[0], int(args[1])
    dist.init_process_group("gloo")
    model = wrapped(job)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    data = torch.Generator().manual_seed(dist.get_rank())
    wall, cpu = [], []
    for step in range(WARMUP + steps):
        if step == WARMUP:
            reporter_began, process_began = reporter_cpu(), time.process_time()
        began, began_cpu = time.perf_counter(), time.process_time()
        x, y = torch.randn(BATCH, WIDTH, generator=data), torch.randint(0, 10, (BATCH,), generator=data)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        logged = loss.detach().clone()
        dist.all_reduce(logged)  # the loss every rank logs
        wall.append(time.perf_counter() - began)
        cpu.append(time.process_time() - began_cpu)
    share = (reporter_cpu() - reporter_began) / max(1e-9, time.process_time() - process_began)
    said = {"rank": dist.get_rank(), "wall": wall[WARMUP:], "cpu": cpu[WARMUP:], "reporter": share}
    print("steps " + json.dumps(said), flush=True)
    del model, optimizer, loss  # DDP holds the group: gone first (examples/ddp_train.py)
    gc.collect()
    dist.destroy_process_group()


def reporter_cpu() -> float:
    """CPU seconds the watch's own threads (the reporter's reads and sends) have used in this rank."""
    import threading

    ours = [t.ident for t in threading.enumerate() if t.name.startswith("ringside") and t.ident]
    return sum(time.clock_gettime(time.pthread_getcpuclockid(ident)) for ident in ours)


def torchrun(ranks: int, server: str | None, *args: str, **popen) -> subprocess.Popen:
    watch = [] if server is None else ["-m", "ringside.watch", "--server", server]
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


def run(ranks: int, server: str | None, job: str, steps: int) -> tuple[float, float, float]:
    """One job, plain (server None) or watched: rank 0's median step time, every rank's median CPU per
    step, and the watch's threads' share of the ranks' CPU (the median rank's)."""
    proc = torchrun(ranks, server, job, str(steps), stderr=subprocess.PIPE)
    out, err = proc.communicate(timeout=1200)
    # the ranks' lines share one pipe, and two may land on one line
    said = [json.loads(found) for found in re.findall(r"steps (\{[^{}]*\})", out)]
    if proc.returncode != 0 or len(said) != ranks:
        raise SystemExit(f"the {job} job failed ({proc.returncode}):\n{err[-3000:]}")
    zero = next(times for times in said if times["rank"] == 0)
    cpu = [s for times in said for s in times["cpu"]]
    return (
        statistics.median(zero["wall"]),
        statistics.median(cpu),
        statistics.median(t["reporter"] for t in said),
    )


def names(message: dict, rank: int) -> bool:
    """Whether a viewer's message is a hang naming `rank` late: on a busy machine other ranks straggle
    past a second now and then, and such a hang says nothing of the stopped one."""
    return message["type"] == "watched_hang" and bool(message["hang"]) and rank in message["hang"]["late"]


def named_after(ranks: int, server) -> float:
    """Seconds from SIGSTOP of one rank to the viewers' watched_hang naming it."""
    from websockets.sync.client import connect

    from ringside.worker_agent.clients.harness import messages, stop_torchrun

    with connect(server.ws_url("/ws")) as viewer:
        proc = torchrun(ranks, server.url, "ddp", "400", start_new_session=True)
        try:
            pid, late = None, []
            while pid is None:  # once the job's ranks have said hello and issued: the last rank not late
                for message in messages(viewer.recv(timeout=60)):
                    if message["type"] == "watched_hang":  # one already late would be named by no new message
                        late = message["hang"]["late"] if message["hang"] else []
                    if (
                        message["type"] == "watched"
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


def pairs(args, server: str, job: str) -> dict[str, list[tuple[float, float, float]]]:
    """Plain and watched runs of `job`, in alternating pairs."""
    runs: dict[str, list[tuple[float, float, float]]] = {"plain": [], "watched": []}
    for i in range(args.pairs):
        order = ["plain", "watched"] if i % 2 == 0 else ["watched", "plain"]
        for mode in order:
            runs[mode].append(run(args.ranks, server if mode == "watched" else None, job, args.steps))
    return runs


def ratios(watched: list[float], plain: list[float]) -> str:
    each = [w / p for w, p in zip(watched, plain)]
    slower = sum(r > 1 for r in each)
    return f"{statistics.median(each):6.3f} {min(each):6.3f}-{max(each):.3f} {slower:>3}/{len(each)}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--stops", type=int, default=3, help="SIGSTOPs timed (0: none)")
    parser.add_argument("--jobs", nargs="+", choices=JOBS, default=list(JOBS), help="jobs to time")
    args = parser.parse_args()
    import psutil

    from ringside.worker_agent.clients.harness import WORKER_TOKEN, start_serve

    server = start_serve(Path(tempfile.mkdtemp(prefix="watch-bench-")))
    psutil.Process(server.proc.pid).nice(10)
    os.environ["RINGSIDE_WORKER_TOKEN"] = WORKER_TOKEN
    try:
        print(
            f"gloo, P={args.ranks}, {args.pairs} alternating pairs x {args.steps} steps; "
            "watched/plain: median of the pairs, least-most, pairs slower"
        )
        print(
            f"{'job':>6} {'step ms':>17} {'watched/plain':>26}   {'CPU ms/step':>17} {'watched/plain':>26}"
            f"   {'watch threads':>13}"
        )
        print(
            f"{'':>6} {'plain':>8} {'watched':>8} {'':>26}   {'plain':>8} {'watched':>8} {'':>26}"
            f"   {'CPU share':>13}"
        )
        for job in args.jobs:
            runs = pairs(args, server.url, job)
            (plain_s, plain_cpu, _), (watched_s, watched_cpu, shares) = (
                [list(column) for column in zip(*runs[m])] for m in ("plain", "watched")
            )
            print(
                f"{job:>6} {statistics.median(plain_s) * 1e3:8.2f} {statistics.median(watched_s) * 1e3:8.2f} "
                f"{ratios(watched_s, plain_s):>26}   "
                f"{statistics.median(plain_cpu) * 1e3:8.2f} {statistics.median(watched_cpu) * 1e3:8.2f} "
                f"{ratios(watched_cpu, plain_cpu):>26}   {statistics.median(shares):12.1%}",
                flush=True,
            )
        if args.stops:
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

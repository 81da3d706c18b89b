"""A real data-parallel training: an MLP under DistributedDataParallel on gloo, its
gradients all-reduced in buckets. It runs under plain torchrun; under Ringside's
launcher every bucket's all-reduce shows on the dashboard as it happens:

    torchrun --nproc-per-node=4 examples/ddp_train.py --steps 50
    RINGSIDE_WORKER_TOKEN=… torchrun --nproc-per-node=4 -m ringside.watch --server http://127.0.0.1:8000 \\
        examples/ddp_train.py --steps 50

--slow-rank R --slow-s S makes rank R sleep S seconds before step --slow-step: the
others wait for it in their next all-reduce, which the dashboard names."""

import argparse
import gc
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def model(width: int) -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Linear(256, width),
        torch.nn.ReLU(),
        torch.nn.Linear(width, width),
        torch.nn.ReLU(),
        torch.nn.Linear(width, 10),
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument(
        "--width", type=int, default=1024, help="hidden width: 1024 is about 1.3 M parameters"
    )
    parser.add_argument("--bucket-mb", type=float, default=2.0)
    parser.add_argument(
        "--pace", type=float, default=0.0, help="seconds to sleep every step: a job slow enough to watch"
    )
    parser.add_argument("--slow-rank", type=int, default=-1)
    parser.add_argument("--slow-step", type=int, default=10)
    parser.add_argument("--slow-s", type=float, default=0.0)
    args = parser.parse_args()

    dist.init_process_group("gloo")
    train(args)
    # DDP holds the group: gone first, the group's threads end here. A gloo thread left to drop the
    # last all-reduce as Python shuts down aborts the process ("terminate called without an active
    # exception"), now and then, on a busy machine
    gc.collect()
    dist.destroy_process_group()


def train(args: argparse.Namespace) -> None:
    rank = dist.get_rank()
    torch.manual_seed(0)
    ddp = DistributedDataParallel(model(args.width), bucket_cap_mb=args.bucket_mb)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.01)
    data = torch.Generator().manual_seed(rank)
    for step in range(args.steps):
        if rank == args.slow_rank and step == args.slow_step:
            time.sleep(args.slow_s)  # the straggler
        x, y = torch.randn(32, 256, generator=data), torch.randint(0, 10, (32,), generator=data)
        loss = torch.nn.functional.cross_entropy(ddp(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        time.sleep(args.pace)
        if rank == 0 and step % 10 == 0:
            print(f"step {step}: loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()

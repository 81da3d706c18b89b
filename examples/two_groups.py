"""Two process groups, as hierarchical code has them: a group per node for the
all-reduce inside it, and a group of the nodes' first ranks for the all-reduce between
them, then a broadcast back inside each node. Runs under plain torchrun (one node or
several), or under Ringside's launcher, which matches each collective within its group:

    torchrun --nproc-per-node=4 examples/two_groups.py
    RINGSIDE_WORKER_TOKEN=… torchrun --nproc-per-node=4 -m ringside.watch --server URL \
        examples/two_groups.py"""

import argparse
import os

import torch
import torch.distributed as dist


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--count", type=int, default=1 << 16)
    args = parser.parse_args()

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    # torchrun's LOCAL_WORLD_SIZE; on one machine, half the ranks make a "node" each
    per_node = int(os.environ.get("LOCAL_WORLD_SIZE", world))
    per_node = per_node if per_node < world else max(1, world // 2)
    nodes = [list(range(n, min(n + per_node, world))) for n in range(0, world, per_node)]
    mine = None
    for members in nodes:  # every rank makes every group, in the same order, as new_group asks
        group = dist.new_group(members)
        if rank in members:
            mine = (group, members)
    leaders = dist.new_group([members[0] for members in nodes])
    group, members = mine
    for step in range(args.steps):
        grad = torch.full((args.count,), float(rank + step))
        dist.all_reduce(grad, group=group)  # inside the node
        if rank == members[0]:
            dist.all_reduce(grad, group=leaders)  # between the nodes
        dist.broadcast(grad, src=members[0], group=group)
    expected = sum(range(world)) + world * (args.steps - 1)
    assert grad[0].item() == expected, (grad[0].item(), expected)
    if rank == 0:
        print(f"{args.steps} steps: every rank holds {expected:g}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

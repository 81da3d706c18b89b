"""A pipeline-style job: the model cut into one stage per rank, activations sent
forward and gradients sent back with send/recv every micro-batch, the loss on the
last stage. Runs under plain torchrun, or under Ringside's launcher, which shows the
traffic on every link between stages:

    torchrun --nproc-per-node=4 examples/pipeline_train.py --steps 20
    RINGSIDE_WORKER_TOKEN=… torchrun --nproc-per-node=4 -m ringside.watch --server URL \
        examples/pipeline_train.py"""

import argparse

import torch
import torch.distributed as dist


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--micro", type=int, default=4, help="micro-batches per step")
    parser.add_argument("--width", type=int, default=256)
    args = parser.parse_args()

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(rank)
    stage = torch.nn.Sequential(torch.nn.Linear(args.width, args.width), torch.nn.Tanh())
    optimizer = torch.optim.SGD(stage.parameters(), lr=0.01)
    data = torch.Generator().manual_seed(0)
    for step in range(args.steps):
        optimizer.zero_grad()
        for _ in range(args.micro):
            x = torch.randn(8, args.width, generator=data)
            if rank > 0:  # the activations from the stage before
                dist.recv(x, src=rank - 1)
            x.requires_grad_(rank > 0)
            y = stage(x)
            if rank < world - 1:
                dist.send(y.detach(), dst=rank + 1)
                grad = torch.empty_like(y)
                dist.recv(grad, src=rank + 1)  # the gradient back from the stage after
                y.backward(grad)
            else:
                loss = y.pow(2).mean()
                loss.backward()
            if rank > 0:
                dist.send(x.grad, dst=rank - 1)
        optimizer.step()
        if rank == world - 1 and step % 5 == 0:
            print(f"step {step}: loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

"""Data-parallel training, P=4 on this machine: time per step and its communication share
for each way to sync gradients, at models of about 100 K, 1 M and 10 M parameters, and
ring all_reduce against a one-server parameter server and against S=P-1 shards, as
ratios measured in one run (methods interleaved round by round, so drift hits all alike).
A step's time is the slowest rank's; medians over rounds x steps.

Then what reporting costs: the same ring training loop with Ringside's reporting on (the
steps' gradient syncs captured at summary level, every one or one in four, each step's
report serialised and handed to a sender thread, as a worker in server mode does)
against reporting off.

    .venv/bin/python bench/training.py [--ranks 4] [--rounds 3] [--steps 4]
"""

from __future__ import annotations

import argparse
import statistics
import time

from ringside.worker_agent.core.protocol import TrainSpec
from ringside.worker_agent.rank.local import run_ranks, unwrap
from ringside.worker_agent.training.rules import parameters, through_servers

HIDDEN = (280, 963, 3125)  # h² + 76h + 10 parameters: about 100 K, 1 M and 10 M
# reporting off; on, keeping every k-th step's sync (sync_every)
MODES = {"off": 0, "every": 1, "one in four": 4}


def methods(p: int) -> list[tuple[str, int]]:
    return [("native", 1), ("ring", 1), ("tree", 1), ("parameter_server", 1), ("parameter_server", p - 1)]


def measure(world, rounds: int, steps: int) -> dict:
    import torch
    import torch.distributed as dist

    from ringside.worker_agent.training.trainer import Trainer

    out = {}
    for hidden in HIDDEN:
        times = {m: ([], []) for m in methods(world.world_size)}
        for _ in range(rounds):
            for method, servers in times:
                spec = TrainSpec(
                    method=method, servers=servers, hidden=hidden, steps=steps + 1, lr=0.01, batch=64
                )
                records = Trainer(spec, world.rank, world.world_size).run()[1:]  # the first step warms up
                # communication is timed on the ranks that compute: a server's wait for their gradients is not
                t = torch.tensor(
                    [[r.compute_s + r.comm_s, r.comm_s if r.samples else 0.0] for r in records],
                    dtype=torch.float64,
                )
                dist.all_reduce(t, op=dist.ReduceOp.MAX)  # a step lasts as long as its slowest rank
                times[method, servers][0].extend(t[:, 0].tolist())
                times[method, servers][1].extend(t[:, 1].tolist())
        out[hidden] = {
            m: (statistics.median(step), statistics.median(comm)) for m, (step, comm) in times.items()
        }
    return out


def reporting(world, rounds: int, steps: int) -> dict:
    """Median step time (slowest rank) with reporting off and on, per model size."""
    import queue
    import threading

    import torch
    import torch.distributed as dist

    from ringside.worker_agent.training.trainer import Trainer, reporter

    out = {}
    for hidden in HIDDEN:
        times = {mode: [] for mode in MODES}
        for _ in range(rounds):
            for mode, every in MODES.items():
                spec = TrainSpec(
                    method="ring", hidden=hidden, steps=steps + 1, lr=0.01, batch=64, sync_every=every or None
                )
                outbox: queue.SimpleQueue = queue.SimpleQueue()
                sender = threading.Thread(
                    target=lambda box=outbox: [None for _ in iter(box.get, None)], daemon=True
                )
                sender.start()
                trainer = Trainer(spec, world.rank, world.world_size, capture=bool(every))
                report = reporter(
                    trainer, "bench", world.rank, lambda m, box=outbox: box.put(m.model_dump_json())
                )
                dist.barrier()
                began = time.perf_counter()  # the training loop alone, as a server's worker runs it
                trainer.run(report if every else None)
                t = torch.tensor([time.perf_counter() - began], dtype=torch.float64)
                outbox.put(None)
                sender.join()
                dist.all_reduce(t, op=dist.ReduceOp.MAX)
                times[mode].append(t.item() / (steps + 1))
        out[hidden] = tuple(statistics.median(times[mode]) for mode in MODES)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=4)
    args = parser.parse_args()
    results = unwrap(run_ranks(measure, args.ranks, args.rounds, args.steps, timeout=3600))[0]
    p = args.ranks
    print(
        f"training, {p} ranks, gloo, float32 MLP, batch 64; median step of {args.rounds} rounds x "
        f"{args.steps} steps (slowest rank)"
    )
    print(f"{'params':>10} {'method':>22} {'step ms':>9} {'comm ms':>9} {'comm share':>10}")
    for hidden, by_method in results.items():
        for (method, servers), (step, comm) in by_method.items():
            label = f"{method} S={servers}" if through_servers(method) else method
            print(
                f"{parameters(hidden):>10} {label:>22} {step * 1e3:>9.2f} {comm * 1e3:>9.2f} "
                f"{comm / step * 100:>9.1f}%"
            )
        ring = by_method["ring", 1][0]
        print(
            f"{'':>10} ring / parameter_server S=1: {ring / by_method['parameter_server', 1][0]:.2f}   "
            f"ring / parameter_server S={p - 1}: {ring / by_method['parameter_server', p - 1][0]:.2f}"
        )
    costs = unwrap(run_ranks(reporting, args.ranks, args.rounds, args.steps * 4, timeout=3600))[0]
    print(
        f"\nreporting, ring: median time per step over {args.rounds} rounds of "
        f"{args.steps * 4} steps (slowest rank)"
    )
    print(f"{'params':>10} {'off ms':>9} {'on ms':>9} {'on/off':>7} {'1 in 4 ms':>10} {'1 in 4/off':>10}")
    for hidden, (off, on, some) in costs.items():
        print(
            f"{parameters(hidden):>10} {off * 1e3:>9.2f} {on * 1e3:>9.2f} {on / off:>7.3f} "
            f"{some * 1e3:>10.2f} {some / off:>10.3f}"
        )


if __name__ == "__main__":
    main()

"""`ringside train`: data-parallel training on P local ranks, printed as it goes.

    ringside train -n 4 --method ring --steps 100
    ringside train -n 4 --compare --hidden 512      # every method, the same model and steps

Each row is one step over the whole batch: its loss and accuracy (the workers' parts,
weighted by samples), the slowest worker's compute and communication time, and the bytes
on the busiest rank's link. `--compare` prints the chapter's trade-off as one table:
time per step, communication share, busiest link, final loss.
"""

from __future__ import annotations

import argparse
import json
import sys

from ringside.bench.cli import at_least

from ..core.protocol import TrainSpec
from ..core.validation import SpecError
from .rules import PARAMETER_SERVER, check, combine_step, methods, parameters, result_of, through_servers
from .trainer import StepRecord


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-n", "--ranks", type=at_least(1), default=4, help="local ranks to spawn (default %(default)s)"
    )
    parser.add_argument("-m", "--method", default="native", help=f"gradient sync: {', '.join(methods())}")
    parser.add_argument(
        "-S", "--servers", type=at_least(1), default=1, help="parameter_server: ranks that hold a shard"
    )
    parser.add_argument("--hidden", type=at_least(1), default=64, help="width of the MLP's two hidden layers")
    parser.add_argument("--steps", type=at_least(1), default=100)
    parser.add_argument("--lr", type=float, default=0.5)
    parser.add_argument("--batch", type=at_least(1), default=64, help="samples per step over all workers")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--every", type=at_least(1), default=10, help="print every this many steps (default %(default)s)"
    )
    parser.add_argument(
        "--compare", action="store_true", help="run every method (and 1 and P-1 servers) and compare"
    )
    parser.add_argument(
        "--json", action="store_true", help="one JSON object per step (or per method with --compare)"
    )


def spec_of(a: argparse.Namespace, method: str | None = None, servers: int | None = None) -> TrainSpec:
    return TrainSpec(
        method=method or a.method,
        servers=servers or a.servers,
        hidden=a.hidden,
        steps=a.steps,
        lr=a.lr,
        batch=a.batch,
        seed=a.seed,
    )


def train(world, spec_json: str) -> dict:
    """On every rank: the whole run; returns this rank's records and its final evaluation."""
    from dataclasses import asdict

    from .trainer import Trainer

    trainer = Trainer(TrainSpec.model_validate_json(spec_json), world.rank, world.world_size)
    records = [asdict(r) for r in trainer.run()]
    return {"records": records, "worker": trainer.sync.worker is not None, "evaluation": trainer.evaluate()}


def merge(ranks: list[dict]) -> list[dict]:
    """One row per step over every rank."""
    return [
        combine_step(step, [StepRecord(**r) for r in records])
        for step, records in enumerate(zip(*(r["records"] for r in ranks)))
    ]


def summary(spec: TrainSpec, rows: list[dict], evaluation: tuple[float, float]) -> dict:
    label = f"{spec.method} S={spec.servers}" if through_servers(spec.method) else spec.method
    return {"method": label, **result_of(rows, *evaluation)}


def row_text(r: dict) -> str:
    link = "-" if r["busiest_link_bytes"] is None else r["busiest_link_bytes"]
    return (
        f"{r['step']:>6} {r['loss']:>8.4f} {r['accuracy']:>8.3f} {r['compute_s'] * 1e3:>10.2f} "
        f"{r['comm_s'] * 1e3:>10.2f} {link:>12}"
    )


def summary_text(s: dict) -> str:
    link = "-" if s["busiest_link_bytes"] is None else s["busiest_link_bytes"]
    return (
        f"{s['method']:>22} {s['step_ms']:>9.2f} {s['comm_share'] * 100:>6.1f}% {link:>12} "
        f"{s['final_loss']:>10.4f} {s['test_accuracy'] * 100:>8.1f}%"
    )


def plan(a: argparse.Namespace) -> list[TrainSpec]:
    if not a.compare:
        return [spec_of(a)]
    specs = [spec_of(a, m) for m in methods() if not through_servers(m)]
    servers = sorted({1, a.ranks - 1}) if a.ranks > 1 else []
    return specs + [spec_of(a, PARAMETER_SERVER, s) for s in servers]


def main(args: argparse.Namespace) -> int:
    from ..rank.local import run_ranks

    specs = plan(args)
    try:
        for spec in specs:
            check(spec, args.ranks)
    except SpecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(
        f"# ringside train: {args.ranks} ranks, an MLP of {parameters(args.hidden)} parameters, "
        f"batch {args.batch}, {args.steps} steps",
        file=sys.stderr,
    )
    summaries = []
    for spec in specs:
        results = run_ranks(train, args.ranks, spec.model_dump_json(), timeout=24 * 3600)
        failed = [r for r in results if not isinstance(r, dict)]
        if failed:
            print(f"error: {spec.method}: {failed[0]}", file=sys.stderr)
            return 1
        rows = merge(results)
        evaluation = next(r["evaluation"] for r in results if r["worker"])
        summaries.append(summary(spec, rows, evaluation))
        if args.compare:
            continue
        if args.json:
            print("\n".join(json.dumps(r) for r in rows))
            continue
        print(f"{'step':>6} {'loss':>8} {'accuracy':>8} {'compute ms':>10} {'comm ms':>10} {'busiest B':>12}")
        print("\n".join(row_text(r) for i, r in enumerate(rows) if i % args.every == 0 or i == len(rows) - 1))
        print(f"held-out: loss {evaluation[0]:.4f}, accuracy {evaluation[1] * 100:.1f}%")
    if args.compare:
        if args.json:
            print("\n".join(json.dumps(s) for s in summaries))
        else:
            print(
                f"{'method':>22} {'step ms':>9} {'comm':>7} {'busiest B':>12} "
                f"{'final loss':>10} {'held-out':>9}"
            )
            print("\n".join(summary_text(s) for s in summaries))
    return 0

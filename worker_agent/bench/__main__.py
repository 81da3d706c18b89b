"""`torchrun ... -m ringside.bench ARGS`: `ringside bench` on every rank of a torchrun job, on
one node or many; every rank measures and rank 0 prints the tables of all the ranks' numbers
(ringside/bench/__init__.py says what they are). The flags are `ringside bench`'s, less
--ranks: the ranks are torchrun's."""

from __future__ import annotations

import argparse
import sys

from ringside.bench.cli import add_arguments
from ringside.bench.plan import prepare
from ringside.bench.report import failed, report
from ringside.bench.run import run
from ringside.worker_agent.core.validation import SpecError
from ringside.worker_agent.rank.process_group import init_from_env


def main(argv: list[str]) -> int:
    """Join torchrun's group, run the sweep, report from rank 0."""
    parser = argparse.ArgumentParser(
        prog="torchrun ... -m ringside.bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser, local=False)
    args = parser.parse_args(argv)
    world = init_from_env(args.backend)
    try:
        return on_cluster(world, args)
    finally:
        world.close()


def on_cluster(world, args: argparse.Namespace) -> int:
    """On every rank of a torchrun job: rank 0 reports for all."""
    args.backend = world.backend
    try:
        names, size_list = prepare(args, world.world_size, world.rank == 0)  # the same on every rank
    except SpecError as e:
        if world.rank == 0:
            print(f"error: {e}", file=sys.stderr)
        return 2
    flags = {**vars(args), "algorithms": []}  # the files loaded above
    setting, results, rows = run(world, flags, names, size_list)
    if world.rank == 0:
        return report(setting, results, rows, args)
    return 1 if failed(results, rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

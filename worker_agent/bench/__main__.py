"""The torchrun entry of the bench: join torchrun's group, run the sweep, report from rank 0."""

from __future__ import annotations

import argparse
import sys

from ringside.worker_agent import bench
from ringside.worker_agent.rank.process_group import init_from_env


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="torchrun ... -m ringside.bench",
        description=sys.modules["ringside.bench"].__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    bench.add_arguments(parser, local=False)
    args = parser.parse_args(argv)
    world = init_from_env(args.backend)
    try:
        return bench.on_cluster(world, args)
    finally:
        world.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

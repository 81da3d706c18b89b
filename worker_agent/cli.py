"""`ringside`: one command, a subcommand per job. Each subcommand lives in the
module that owns it (`add_arguments(parser)` and `main(args) -> int`), and is
imported only when used, so `ringside worker` never loads the server."""

from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMANDS = {
    "up": ("ringside.server.up", "the server and N local workers, in one command"),
    "serve": ("ringside.server.serve", "the server alone; workers connect to it"),
    "worker": (
        "ringside.worker_agent.rank.worker",
        "one rank (torchrun-compatible): connect to a server, or run a spec and print JSON lines",
    ),
    "run": ("ringside.worker_agent.clients.run", "trigger a run on a server and print its result"),
    "bench": (
        "ringside.bench.cli",
        "nccl-tests' table on local ranks or a server's (torchrun: -m ringside.bench)",
    ),
    "open": (
        "ringside.worker_agent.postmortem.cli",
        "a job's Flight Recorder dumps (or torch's debug server on it) judged and shown, after the fact",
    ),
    "train": (
        "ringside.worker_agent.training.cli",
        "data-parallel training on local ranks, gradients synced by any method",
    ),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="ringside", description="See distributed communication.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = argv[0] if argv and argv[0] in SUBCOMMANDS else None
    for name, (module, help_text) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            importlib.import_module(module).add_arguments(p)
    args = parser.parse_args(argv)
    return importlib.import_module(SUBCOMMANDS[args.command][0]).main(args) or 0


if __name__ == "__main__":
    sys.exit(main())

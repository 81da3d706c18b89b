"""`ringside worker`: one rank. With --server it joins a Ringside server and runs
what it is sent; without, it runs the spec given on the command line and
writes every event as a JSON line. Reads torchrun's environment, so

    torchrun --nproc-per-node=4 -m ringside.worker_agent --collective all_reduce --algorithm ring

runs a real 4-rank ring all_reduce and prints what every rank saw.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import sys

from pydantic import ValidationError

from ..core.protocol import Message, RunSpec
from ..core.validation import SpecError
from ..spec_args import add_spec_arguments, first_error, spec_from_args
from ..user.user_algorithms import load
from .process_group import DEFAULT_TIMEOUT, init_from_env


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", help="URL of a Ringside server to join (http://host:port)")
    parser.add_argument(
        "--token",
        default=os.environ.get("RINGSIDE_WORKER_TOKEN"),
        help="the server's worker token (default: $RINGSIDE_WORKER_TOKEN, which keeps it out of `ps`)",
    )
    parser.add_argument(
        "--backend", choices=("gloo", "nccl"), help="default: nccl when every local rank has a GPU, else gloo"
    )
    parser.add_argument(
        "--algorithms",
        action="append",
        default=[],
        metavar="FILE",
        help="a file of your own algorithms (Python, or MSCCL's XML) to load; repeatable",
    )
    parser.add_argument(
        "--pg-timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help="seconds a rank waits for a lost peer before failing (default %(default)s)",
    )
    run = parser.add_argument_group("one run without a server (events go out as JSON lines)")
    add_spec_arguments(run)
    run.add_argument("--out", help="file for the events; {rank} is replaced by the rank (default: stdout)")
    run.add_argument(
        "--run-id", help="id carried by every event (default: derived from the spec and the rendezvous)"
    )


def main(args: argparse.Namespace) -> int:
    try:  # before joining: a file that does not load must not leave the others waiting
        for path in args.algorithms:
            load(path)
    except Exception as e:  # the user's file: whatever it raised, said plainly
        print(f"error: --algorithms: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    if args.server:
        world = init_from_env(args.backend, args.pg_timeout)
        from .server_link import serve  # the server's protocol lives there; plain runs never load it

        try:
            return serve(args.server, args.token, world)
        finally:
            world.leave()
    try:
        spec = spec_from_args(args)
    except (ValidationError, ValueError) as e:
        print(f"error: {first_error(e)}", file=sys.stderr)
        return 2
    with contextlib.ExitStack() as files:  # --out's file, closed once the run is over
        try:  # before joining, so a bad path never leaves the others waiting on this rank
            path = args.out.format(rank=os.environ.get("RANK", "0")) if args.out else None
            out = files.enter_context(open(path, "w")) if path else sys.stdout
        except OSError as e:
            print(f"error: --out: {e.strerror}: {e.filename}", file=sys.stderr)
            return 2
        world = init_from_env(args.backend, args.pg_timeout)
        from .runner import RunFailed, Runner

        def emit(message: Message) -> None:
            out.write(message.model_dump_json() + "\n")

        try:
            Runner(world, emit).run(args.run_id or _run_id(spec), spec)
        except SpecError as e:
            print(f"error: {e}", file=sys.stderr)
            world.close()
            return 2
        except RunFailed as e:
            print(f"error: {e}", file=sys.stderr)
            return 1  # the group is broken: nothing to close
        finally:
            out.flush()
    world.close()
    return 0


def _run_id(spec: RunSpec) -> str:
    """The same on every rank without talking: the spec and the rendezvous they share."""
    key = spec.model_dump_json() + os.environ.get("MASTER_ADDR", "") + os.environ.get("MASTER_PORT", "")
    return hashlib.sha1(key.encode()).hexdigest()[:12]

"""The launcher: `torchrun … -m ringside.watch [--server URL] [--ddp-hook] train.py ARGS…`
(or `-m package.module ARGS…`). It runs the user's program as __main__ on every rank,
with its own sys.argv, and the reporter beside it. The program's exit code, exceptions
and signals are its own: the launcher only says goodbye to the server on the way out."""

from __future__ import annotations

import os
import runpy
import sys
from typing import TypedDict

from ringside.worker_agent.core.watch_protocol import hang_after_of

from . import after, p2p, start
from .flight import DEFAULT_RING
from .sigterm import goodbye_on_sigterm

USAGE = """usage: python -m ringside.watch [--server URL] [--token T] [--ddp-hook] [--hang-after S]
                               (SCRIPT | -m MODULE) [ARGS...]

  --server URL  the Ringside server (default $RINGSIDE_SERVER)
  --token T     its worker token (default $RINGSIDE_WORKER_TOKEN, which keeps it out of `ps`)
  --ddp-hook    name DDP's gradient buckets and time them: installs a comm hook on every
                DistributedDataParallel model (leave it off if the job registers its own)
  --hang-after S  seconds this job's ranks wait on others before the server names it a hang
                (default: the server's --hang-after)"""


class Options(TypedDict):
    server: str | None
    token: str | None
    ddp_hook: bool
    hang_after: float | None
    module: str | None  # the program: a module (-m) or a script, one of them
    script: str | None
    args: list[str]  # the program's own


def parse(argv: list[str]) -> Options:
    """The launcher's options, then the program and its arguments, untouched."""
    options: Options = {
        "server": None,
        "token": None,
        "ddp_hook": False,
        "hang_after": None,
        "module": None,
        "script": None,
        "args": [],
    }
    i = 0
    while i < len(argv):
        word = argv[i]
        name, _, value = word.partition("=")
        if word in ("-h", "--help"):
            print(USAGE)
            sys.exit(0)
        if word == "--ddp-hook":
            options["ddp_hook"] = True
        elif name in ("--server", "--token", "--hang-after", "-m"):
            if not value:
                i += 1
                if i == len(argv):
                    sys.exit(f"{USAGE}\n\nringside.watch: {name} needs a value")
                value = argv[i]
            if name == "-m":
                options["module"], options["args"] = value, argv[i + 1 :]
                return options
            if name == "--server":
                options["server"] = value
            elif name == "--hang-after":
                options["hang_after"] = hang_after(value)
            else:
                options["token"] = value
        elif word.startswith("-"):
            sys.exit(
                f"{USAGE}\n\nringside.watch: unknown option {word} (the program's own options go after it)"
            )
        else:
            options["script"], options["args"] = word, argv[i + 1 :]
            return options
        i += 1
    sys.exit(f"{USAGE}\n\nringside.watch: name the program to run (a script, or -m MODULE)")


def hang_after(value: str) -> float:
    try:
        return hang_after_of(value)
    except ValueError as e:
        sys.exit(f"ringside.watch: --hang-after {e}")


def exit_code(code) -> int:
    """What the process exits with for SystemExit(code), as Python says."""
    return 0 if code is None else code if isinstance(code, int) else 1


def main(argv: list[str]) -> None:
    options = parse(argv)
    if not (options["server"] or os.environ.get("RINGSIDE_SERVER")):
        sys.exit(f"{USAGE}\n\nringside.watch: name the server: --server http://HOST:8000 or $RINGSIDE_SERVER")
    os.environ.setdefault("TORCH_FR_BUFFER_SIZE", str(DEFAULT_RING))  # the cost of a read (flight.py)
    traffic = p2p.Traffic()
    p2p.install(traffic)
    reporter = start(
        options["server"],
        options["token"],
        traffic,
        ddp_hook=options["ddp_hook"],
        hang_after=options["hang_after"],
    )
    after("init_process_group", reporter.attach)  # hello at once: a job shorter than a poll is seen too
    goodbye_on_sigterm(reporter.close)
    code, error = 0, None
    try:
        if options["module"]:
            sys.argv = [options["module"], *options["args"]]
            runpy.run_module(options["module"], run_name="__main__", alter_sys=True)
        else:
            script = options["script"]
            assert script is not None  # parse() names a module or a script, or exits
            sys.argv = [script, *options["args"]]
            sys.path[0] = os.path.dirname(os.path.abspath(script))  # as `python script.py` has it
            runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        code = exit_code(e.code)
        raise
    except KeyboardInterrupt:
        code = 130
        raise
    except BaseException as e:
        code, error = 1, f"{type(e).__name__}: {e}"[:300]
        raise
    finally:
        reporter.close(code, error)


if __name__ == "__main__":
    main(sys.argv[1:])

"""A RunSpec from command-line flags, shared by `ringside worker` and `ringside run`.
Imports no torch: `ringside run` is a light client."""

from __future__ import annotations

import argparse
import json

from pydantic import ValidationError

from .core.protocol import AUTO_CHUNKS, RunSpec

SPEC_FLAGS = (
    "collective",
    "algorithm",
    "count",
    "dtype",
    "op",
    "root",
    "peer",
    "servers",
    "pattern",
    "seed",
    "capture",
    "chunks",
    "iterations",
    "warmup",
    "timeout",
)


def add_spec_arguments(group) -> None:
    """The RunSpec's fields as flags (shared with `ringside run`)."""
    group.add_argument("--spec", help="the whole RunSpec as JSON; flags override its fields")
    group.add_argument("--collective")
    group.add_argument("--algorithm")
    for name in ("count", "root", "peer", "servers", "seed", "iterations", "warmup"):
        group.add_argument(f"--{name}", type=int)
    group.add_argument("--chunks", type=chunks, help='a number, or "auto": the server\'s model picks it')
    for name in ("dtype", "op", "pattern", "capture"):
        group.add_argument(f"--{name}")
    group.add_argument("--timeout", type=float)
    group.add_argument("--group", help="comma-separated global ranks (default: all)")


def chunks(text: str) -> int | str:
    """--chunks: a whole number, or "auto" (resolved by the server when the run is submitted)."""
    if text == AUTO_CHUNKS:
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'must be a whole number or "auto", not {text!r}') from None


def spec_from_args(args: argparse.Namespace) -> RunSpec:
    fields = json.loads(args.spec) if args.spec else {}
    fields.update({k: getattr(args, k) for k in SPEC_FLAGS if getattr(args, k) is not None})
    if args.group:
        fields["group"] = [int(r) for r in args.group.split(",")]
    return RunSpec.model_validate(fields)


def first_error(e: Exception) -> str:
    if isinstance(e, ValidationError):
        err = e.errors()[0]
        field = ".".join(str(x) for x in err["loc"]) or "spec"
        return f"{field}: {err['msg']}"
    return str(e)

"""Algorithms that users write, loaded from a Python file named when the cluster
starts (`ringside up --algorithms FILE`; the same for `worker` and `bench`). An
algorithm is a plain function of (world size, root, chunks) that returns its
steps, written with `send`, `reduce` and `step`:

    from .user_algorithms import algorithm, reduce, send, step

    @algorithm("all_reduce", "my_ring", pieces=lambda p, chunks: p * chunks)
    def my_ring(p, root, chunks):
        ...  # a list of step(phase, [send(src, dst, chunk), reduce(src, dst, chunk), ...])

It registers under its name for its collective and then appears wherever the
built-in ones do (catalog, page, bench, sweep, model). Before it runs it is
checked for the world it runs on: the race rules (schedule.check) and its result
against the collective's definition (provenance.check_definition), so a broken one
is refused with words that point at the step, the transfer or the rank.

The same file may hold send/recv code instead, as a course teaches it: a function of
the rank's working buffer (a tensor laid out as the collective's blocks), its rank and
the group's size, written with torch.distributed's point-to-point calls (send, recv,
isend, irecv, batch_isend_irecv, and .wait() on what they return), peers being group
ranks:

    @traced("all_reduce", "my_ring")
    def my_ring(buf, rank, size):
        ...  # dist.isend(buf[a:b], (rank + 1) % size); dist.recv(tmp, (rank - 1) % size); buf[c:d] += tmp

It runs on the real ranks, recorded call by call, and the transfers it made are
rebuilt into steps and animated like any schedule (traced_run.py).

Only files named on the command line of the machine that starts the cluster are
ever executed; nothing that arrives over the network is.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from ..core.algorithms import Built, Kind, algorithms, register
from ..core.schedule import Step, Transfer

NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_loading: str | None = None  # the file `load` is running: what its algorithms register as their source
Pieces = int | Callable[[int, int], int] | None


def send(src: int, dst: int, chunk: int, into: int | None = None) -> Transfer:
    """`src` sends its chunk `chunk` to `dst`, which copies it into chunk `into` (default: the same)."""
    return Transfer(src, dst, chunk, chunk if into is None else into, False)


def reduce(src: int, dst: int, chunk: int, into: int | None = None) -> Transfer:
    """`src` sends its chunk `chunk` to `dst`, which combines it into chunk `into` with the run's op."""
    return Transfer(src, dst, chunk, chunk if into is None else into, True)


def step(phase: str, transfers: Iterable[Transfer], caption: str = "") -> Step:
    """Transfers that happen at once. Braces in the caption are kept as they are."""
    return Step(phase, caption.replace("{", "{{").replace("}", "}}"), list(transfers))


def algorithm(collective: str, name: str, pieces: Pieces = None, layout: str = "ring"):
    """Register the decorated function as algorithm `name` of `collective`. `pieces`:
    chunks per block, a number or a function of (world size, chunks); default `chunks`.
    `layout`: how the page places the ranks (one of vocabulary.LAYOUTS)."""
    registering = register(collective, _checked(name), layout=layout, user=True, source=_loading)

    def wrap(fn: Callable[[int, int, int], Iterable[Step]]):
        def build(p: int, root: int = 0, chunks: int = 1) -> Built:
            k = pieces(p, chunks) if callable(pieces) else (pieces or chunks)
            steps = tuple(fn(p, root, chunks))
            for i, s in enumerate(steps):
                if not isinstance(s, Step):
                    raise TypeError(
                        f"step {i} is a {type(s).__name__}; make steps with step(phase, transfers)"
                    )
            return Built(int(k), tuple(s for s in steps if len(s.table)))

        build.__doc__ = fn.__doc__
        registering(build)
        return fn

    return wrap


def traced(collective: str, name: str, layout: str = "ring", ops: Iterable[str] = ("SUM", "AVG")):
    """Register the decorated function, fn(buf, rank, size), as algorithm `name` of
    `collective`: code written with torch.distributed's send/recv calls, run on the real
    ranks and traced (traced_run.py). A function that also takes `root` and `peer` gets them
    (group ranks). `ops`: the reductions it computes correctly (it adds with `+=`, so by
    default SUM, and AVG, which the runner divides at the end)."""
    return register(
        collective, _checked(name), kind=Kind.TRACED, layout=layout, ops=ops, user=True, source=_loading
    )


def _checked(name: str) -> str:
    """A user's name for an algorithm, refused in words unless it is a plain identifier."""
    if not NAME.match(name):
        raise ValueError(f"algorithm name {name!r}: lower-case letters, digits and _, starting with a letter")
    return name


def load(path: str | Path) -> list[tuple[str, str]]:
    """Run a file of user algorithms (Python) or import an MSCCL algorithm (XML);
    returns the (collective, name) pairs it registered. A name that another file already
    gave is refused naming both files."""
    global _loading
    path = Path(path)
    before = _registered()
    if path.suffix == ".xml":
        from .msccl import load_xml

        load_xml(path)
    else:
        spec = importlib.util.spec_from_file_location(f"ringside_user_{abs(hash(path.resolve()))}", path)
        if spec is None or spec.loader is None:
            raise ValueError(f"{path}: not a Python file")
        _loading = str(path.resolve())
        try:
            spec.loader.exec_module(importlib.util.module_from_spec(spec))
        finally:
            _loading = None
    return sorted(_registered() - before)


def _registered() -> set[tuple[str, str]]:
    return {(a.collective, a.name) for a in algorithms()}

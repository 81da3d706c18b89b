"""Every algorithm as one registered record (DESIGN.md's Algorithm): its collective, its
name, its kind, its builder, its traffic formula, the layout it is drawn in and the ops it
computes. Built-ins and users' algorithms register alike, with `register`, which fills in
the collective and the name, so a builder returns only its pieces and steps. Code asks a
record's properties (planned, built, given, traced, reference, chosen), never compares names.

Every collective also has three records that no builder makes: native (the backend's own
call), auto (the server's model picks one of the others when a run is submitted) and
custom (a schedule that comes with the run, as data).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple, TypeVar, overload

from ..collectives import COLLECTIVES, Collective, get
from ..provenance import check_definition
from ..schedule import Schedule, ScheduleError, Step, check, check_words
from ..vocabulary import LAYOUTS

if TYPE_CHECKING:
    from .formulas import Formula


# a registered function: a builder, or send/recv code; registering it leaves it as it was
F = TypeVar("F", bound=Callable[..., object])


class Kind(Enum):
    NATIVE = "native"  # the backend's own call, timed whole: the reference for results and for speed
    SCHEDULE = "schedule"  # steps built by a function of the run's shape, before it runs
    CUSTOM = "custom"  # a schedule that comes with the run, as data (RunSpec.schedule)
    TRACED = "traced"  # send/recv code, run and recorded: its steps are rebuilt from what it did
    AUTO = "auto"  # the server's model picks one of the others when the run is submitted


# The names a run asks for the records that every collective has: their kinds' own.
NATIVE, AUTO, CUSTOM = Kind.NATIVE.value, Kind.AUTO.value, Kind.CUSTOM.value


class Built(NamedTuple):
    """What a builder returns: `Algorithm.schedule` makes it its collective's Schedule."""

    pieces: int  # chunks each block is cut into
    steps: Sequence[Step]  # Algorithm.schedule makes them a tuple
    scratch: int = 0  # blocks of working space after the collective's own (an MSCCL file's scratch buffer)


@dataclass(frozen=True)
class Algorithm:
    collective: str
    name: str
    kind: Kind
    # SCHEDULE: (p, root, chunks[, servers]) -> Built; TRACED: the code, fn(buf, rank, size[, root, peer])
    builder: Callable[..., object] | None = None
    formula: Formula | None = None  # the traffic a lecture writes on the board (formulas.py)
    layout: str = "ring"  # how the page places the ranks (a custom schedule brings its own)
    ops: tuple[str, ...] | None = None  # the reductions it computes; None: every one the backend has
    user: bool = False  # a user's: checked against its collective's definition whenever it is built
    # the only world sizes it is written for (an MSCCL file's); None: any
    world_sizes: frozenset[int] | None = None
    source: str | None = None  # the file a user's algorithm came from, named when another gives the same name

    # What code asks of it. planned: its schedule is known before it runs, so the server plans the
    # run with it. built: a function of the run's shape builds that schedule (the model predicts it, a
    # sweep times it). given: the run gives that schedule, as data (RunSpec.schedule). traced: it runs
    # as code, and its schedule is rebuilt from what the code did. reference: the backend's own call,
    # which every other is verified against, and which has no steps. chosen: the server's model
    # chooses another in its place, so it never reaches a rank.
    planned = property(lambda self: self.kind in (Kind.SCHEDULE, Kind.CUSTOM))
    built = property(lambda self: self.kind is Kind.SCHEDULE)
    given = property(lambda self: self.kind is Kind.CUSTOM)
    traced = property(lambda self: self.kind is Kind.TRACED)
    reference = property(lambda self: self.kind is Kind.NATIVE)
    chosen = property(lambda self: self.kind is Kind.AUTO)

    def fits(self, p: int) -> bool:
        """Whether it can run on a group of `p` ranks: a fixed-size algorithm (an MSCCL file
        written for 4 ranks) is offered only there; catalog, bench, model and auto skip it elsewhere."""
        return self.world_sizes is None or p in self.world_sizes

    def misfit(self, p: int) -> str:
        """Why it does not fit `p` ranks, in words."""
        sizes = " or ".join(map(str, sorted(self.world_sizes or ())))
        return f"{self.name} is written for {sizes} ranks (its file fixes the world size), not {p}"

    def schedule(self, p: int, root: int = 0, chunks: int = 1, servers: int | None = None) -> Schedule:
        """Its schedule for one run's shape, unchecked (`build` checks it). `servers`: RunSpec.servers,
        for a collective with servers; None: the builder's default."""
        collective = get(self.collective, servers)
        if self.builder is None:
            raise ValueError(
                f"{self.collective} {self.name} is {self.kind.value}: no function builds its steps"
            )
        made = self.builder(p, root, chunks, **({} if servers is None else {"servers": servers}))
        if not isinstance(made, tuple):
            raise TypeError(f"{self.name} returned a {type(made).__name__}, not its pieces and steps (Built)")
        built = Built(*made)
        return Schedule(
            self.collective,
            self.name,
            p,
            root,
            collective.blocks(p) + built.scratch,
            built.pieces,
            tuple(built.steps),
            self.layout,
            collective.servers,
        )


def _general(collective: Collective) -> dict[str, Algorithm]:
    """The records every collective has: native, auto and custom. A native run of a collective with
    servers is drawn as its schedules are."""
    drawn = "servers" if collective.has_servers else "ring"
    native = Algorithm(collective.name, NATIVE, Kind.NATIVE, layout=drawn)
    return {
        NATIVE: native,
        AUTO: Algorithm(collective.name, AUTO, Kind.AUTO),
        CUSTOM: Algorithm(collective.name, CUSTOM, Kind.CUSTOM),
    }


_TABLE: dict[str, dict[str, Algorithm]] = {name: _general(c) for name, c in COLLECTIVES.items()}


def register(
    collective: str,
    name: str | None = None,
    *,
    kind: Kind = Kind.SCHEDULE,
    layout: str = "ring",
    formula: Formula | None = None,
    ops: Iterable[str] | None = None,
    user: bool = False,
    world_sizes: Iterable[int] | None = None,
    source: str | None = None,
) -> Callable[[F], F]:
    """Register the decorated function as algorithm `name` (default: the function's own name) of
    `collective`: a builder, (p, root, chunks) -> Built, or with kind TRACED, send/recv code. What
    can be refused when it is called is refused then: an unknown collective or layout, a taken name
    (naming both files when both came from one). `world_sizes`: the only ones it is written for;
    `source`: the file it comes from."""
    get(collective)
    if layout not in LAYOUTS:
        raise ValueError(f"layout {layout!r} is not one of {', '.join(LAYOUTS)}")
    if name is not None:
        _free(collective, name, source)

    def wrap(fn: F) -> F:
        record = Algorithm(
            collective,
            name or fn.__name__,
            kind,
            fn,
            formula,
            layout,
            None if ops is None else tuple(ops),
            user,
            None if world_sizes is None else frozenset(world_sizes),
            source,
        )
        _free(collective, record.name, source)
        _TABLE[collective][record.name] = record
        return fn

    return wrap


class NameTaken(ValueError):
    """A second algorithm of a collective by a name that one already has."""


def _free(collective: str, name: str, source: str | None = None) -> None:
    taken = _TABLE[collective].get(name)
    if taken is None:
        return
    if taken.source is not None and source is not None:
        raise NameTaken(
            f"{collective} already has an algorithm called {name!r}, from {taken.source}; "
            f"{source} gives the same name"
        )
    raise NameTaken(
        f"{collective} already has an algorithm called {name!r}"
        + (f" (from {taken.source})" if taken.source else "")
        + (f"; {source} gives it again" if source else "")
    )


class UnknownAlgorithm(ValueError):
    """A name that the collective has no algorithm by."""


_RAISE = object()
# what a rank runs, as an unknown name's answer lists it
_RUN_ORDER = (Kind.NATIVE, Kind.SCHEDULE, Kind.TRACED)
_Default = TypeVar("_Default")


@overload
def algorithm_of(collective: str, name: str) -> Algorithm: ...
@overload
def algorithm_of(collective: str, name: str, default: _Default) -> Algorithm | _Default: ...
def algorithm_of(collective: str, name: str, default: object = _RAISE) -> object:
    """The record of `name` for `collective`. A name it does not have raises UnknownAlgorithm, or
    gives `default` when one is given (an unknown collective always raises)."""
    found = _TABLE[get(collective).name].get(name)
    if found is not None:
        return found
    if default is not _RAISE:
        return default
    runs = algorithms(collective)
    known = ", ".join(a.name for kind in _RUN_ORDER for a in runs if a.kind is kind)
    raise UnknownAlgorithm(f"{name!r} is not an algorithm of {collective} (known: {known})")


# The page lists send/recv code before the schedules, so that the last (what a page opens on) builds one.
_PAGE_ORDER = (Kind.NATIVE, Kind.AUTO, Kind.TRACED, Kind.SCHEDULE)


def algorithms(collective: str | None = None) -> list[Algorithm]:
    """The algorithms of `collective` (of every collective, in COLLECTIVES' order, when None) in the
    page's order: native, auto, send/recv code, schedules, each kind as registered. custom is not
    listed: a run names it when it brings its own schedule."""
    tables = [_TABLE[get(collective).name]] if collective is not None else _TABLE.values()
    return [a for table in tables for kind in _PAGE_ORDER for a in table.values() if a.kind is kind]


@lru_cache(maxsize=128)
def build(
    collective: str, name: str, world_size: int, root: int = 0, chunks: int = 1, servers: int | None = None
) -> Schedule:
    """The checked schedule of a built algorithm for one run's shape (`servers`: see
    Algorithm.schedule). Cached: schedules are immutable data."""
    record = algorithm_of(collective, name, None)
    if record is None or not record.built:
        raise ValueError(f"no stepwise algorithm {name!r} for {collective!r}")
    if world_size < 1:
        raise ValueError(f"world_size must be at least 1, not {world_size}")
    if not 0 <= root < world_size:
        raise ValueError(f"root must be a rank of the group, 0..{world_size - 1}, not {root}")
    if chunks < 1:
        raise ValueError(f"chunks must be at least 1, not {chunks}")
    if not record.fits(world_size):
        raise ScheduleError(record.misfit(world_size))
    if not record.user:
        schedule = record.schedule(world_size, root, chunks, servers)
        check(schedule)
        return schedule
    try:
        schedule = record.schedule(world_size, root, chunks, servers)
    except Exception as e:  # the user's code, whatever it raised: say so, and where
        raise ScheduleError(
            f"{name} could not build its steps for {world_size} ranks: {type(e).__name__}: {e}"
        ) from e
    check(schedule)
    check_words(schedule)
    check_definition(schedule)
    return schedule

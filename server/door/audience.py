"""Who may hear what. Every message a viewer's socket carries declares its `audience` as a class
attribute, and the fan-out sends no message that declares none (viewers/fanout.py): a new message
type is private until someone says who may hear it. What the room hears of each is
polls/visibility.py's to say, by the audience alone.

The fields of a record that carry a poll's answer (a run's values, results, traffic, times) are
marked where they are defined, `Annotated[..., Answer()]`; the copy a room reads while a poll holds
the record is built from the marks (`held_copy`), so a new marked field is withheld with no rule
written anywhere else."""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel


class Audience(Enum):
    EVERYONE = "everyone"  # every page hears it whole
    PRESENTER = "presenter"  # the presenter's pages alone
    ROOM_COPY = "room copy"  # every page: the room hears the message's `for_room()` (None: nothing)
    # held from the room while a poll holds a run the message concerns (`concerns()`), until the reveal
    HELD = "held"
    # held from the room only while the runs of a poll holding a run it concerns still run
    HELD_WHILE_RUNNING = "held while running"
    # runs' lines in a list (`lines()`, `with_lines(...)`): the room reads each as a run list shows it
    RUN_LINES = "run lines"
    # made for one page as that page may read it (the snapshot): never published to every page
    PAGE = "page"


# what a message of each audience names besides, for visibility.py to decide with
NEEDS = {
    Audience.ROOM_COPY: ("for_room",),
    Audience.HELD: ("concerns",),
    Audience.HELD_WHILE_RUNNING: ("concerns",),
    Audience.RUN_LINES: ("lines", "with_lines"),
}


class Undeclared(TypeError):
    """A message type that says not who may hear it (a programming error: loud in every test)."""


@dataclass(frozen=True)
class RunNamed:
    """A run a message concerns, as a poll knows it: by id, and where the message carries the run,
    by its shape (collective, count, dtype, ranks), which a question of speed holds whole."""

    id: str
    shape: tuple[str, int, str, int] | None = None


@functools.cache  # asked of every message published
def declared(kind: type) -> Audience:
    """The audience a message type declares, or Undeclared naming what it lacks."""
    audience = getattr(kind, "audience", None)
    if not isinstance(audience, Audience):
        raise Undeclared(f"{kind.__qualname__} declares no audience: say who may hear it (door/audience.py)")
    lacking = [name for name in NEEDS.get(audience, ()) if not callable(getattr(kind, name, None))]
    if lacking:
        needed = ", ".join(f"{name}()" for name in lacking)
        raise Undeclared(f"{kind.__qualname__} is heard as {audience.value} but has no {needed}")
    return audience


class Feed(Protocol):
    """What a feature tells every viewer through (the fan-out, viewers/fanout.py)."""

    def publish(self, message: BaseModel) -> None: ...


# --- the fields that carry an answer ------------------------------------------------------------


class Asked(Protocol):
    """What a held copy needs of the poll holding the record (a Poll)."""

    @property
    def question(self) -> str: ...
    @property
    def step(self) -> int | None: ...
    @property
    def words_unread(self) -> bool:
        """The lecturer's own question: what it asks is theirs, so every marked field is held."""
        ...


@dataclass(frozen=True)
class Answer:
    """A field's mark: it carries a poll's answer, and reads blank (its default) in the room's copy.
    `only`: the built-in questions it answers (None: every one; a lecturer's own question may ask
    anything, so every mark holds for it); `kept(asked, owner)`: where it is the question's premise
    instead (a step before the one asked about)."""

    only: frozenset[str] | None = None
    kept: Callable[[Any, Any], bool] | None = None

    def hides(self, asked: Asked, owner: BaseModel) -> bool:
        if self.only is not None and asked.question not in self.only and not asked.words_unread:
            return False
        return self.kept is None or not self.kept(asked, owner)


ANSWER = Answer()  # an answer to every question


def only(*questions: str) -> Answer:
    return Answer(only=frozenset(questions))


def _mark(kind: type[BaseModel], name: str) -> Answer | None:
    return next((m for m in kind.model_fields[name].metadata if isinstance(m, Answer)), None)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The model classes a field's type holds (in a list, a dict's values, an optional)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is dict:
        args = args[1:]
    if typing.get_origin(annotation) in (list, tuple, dict, typing.Union, types.UnionType, typing.Annotated):
        return [m for a in args for m in _models_in(a)]
    return []


@functools.cache
def marked(kind: type[BaseModel]) -> frozenset[str]:
    """The fields of `kind` marked as an answer."""
    return frozenset(name for name in kind.model_fields if _mark(kind, name) is not None)


@functools.cache
def _holding(kind: type[BaseModel]) -> frozenset[str]:
    """The fields of `kind` marked, or holding models with marked fields (what a held copy walks)."""
    return frozenset(
        name
        for name, info in kind.model_fields.items()
        if name in marked(kind) or any(m is not kind and _holding(m) for m in _models_in(info.annotation))
    )


M = TypeVar("M", bound=BaseModel)


def held_copy(record: M, asked: Asked) -> M:
    """`record` as a room reads it while a poll asking `asked` holds it: every field marked as an answer
    to that question blank, in the record and in the models it holds; the rest as it is."""
    kind = type(record)
    update: dict[str, Any] = {}
    for name in _holding(kind):
        mark, value = _mark(kind, name), getattr(record, name)
        if mark is not None and mark.hides(asked, record):
            update[name] = kind.model_fields[name].get_default(call_default_factory=True)
        else:
            update[name] = _held_within(value, asked)
    return record.model_copy(update=update) if update else record


def _held_within(value: Any, asked: Asked) -> Any:
    """A field's value with the answers in the models it holds blank."""
    if isinstance(value, BaseModel):
        return held_copy(value, asked)
    if isinstance(value, list):
        return [_held_within(v, asked) for v in value]
    if isinstance(value, dict):
        return {k: _held_within(v, asked) for k, v in value.items()}
    return value

"""Captions that name the ranks when few take part, so that a lecture can read a
step out loud: "every rank at depth 1 sends ... (rank 1 to rank 0 and rank 2 to
rank 0)". Rank names are placeholders that Schedule.to_doc fills in with
global ranks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ..schedule import Round, Row, Transfer, as_table, rank

FEW = 4  # pairs of ranks that a caption still names one by one


def named(caption: str, transfers: Iterable[Row] | np.ndarray) -> str:
    """`caption`, followed by who sends to whom if at most FEW pairs of ranks talk (local copies aside)."""
    pairs: list[tuple[int, int]] = []
    for a, b in as_table(transfers)[:, :2]:
        if a != b and (a, b) not in pairs:
            pairs.append((int(a), int(b)))
            if len(pairs) > FEW:  # a busy step: stop looking, its caption stays general
                return caption
    return f"{caption} ({listing([f'{rank(a)} to {rank(b)}' for a, b in pairs])})" if pairs else caption


def narrated(phase: str, caption: str, transfers: Sequence[Transfer] | np.ndarray) -> Round:
    """A round whose caption names its ranks when there are few."""
    return Round(phase, named(caption, transfers), transfers)


def counted(n: int, noun: str) -> str:
    """'1 place', '2 places'."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def beyond(p2: int) -> str:
    """Who folds in when the world is not a power of two."""
    return f"each rank beyond the largest power of two, {p2},"


def listing(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"

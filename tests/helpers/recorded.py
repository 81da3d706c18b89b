"""What a stored run says a rank held: the truth the page's cells and a phone's answers are held to."""

from __future__ import annotations


def truth(run: dict, rank: int, chunk: int, step: int) -> float:
    """The first value of `rank`'s `chunk` after `step` (-1: its input), as the run recorded it."""
    for done in reversed(run["steps"][: step + 1]):
        for state in done["ranks"][str(rank)]["states"]:
            if state["chunk"] == chunk:
                return state["values"][0]
    return next(s["values"][0] for s in run["inputs"][str(rank)] if s["chunk"] == chunk)

"""barrier: no rank leaves until every rank has arrived (collectives.py models it as
an OR of one-bit tokens, so the buffers show who has heard from whom)."""

from __future__ import annotations

from ..schedule import Step, Transfer
from .captions import named
from .registry import Built, register


@register("barrier")
def dissemination(p: int, root: int = 0, chunks: int = 1) -> Built:
    """Round k: every rank signals the rank 2^k ahead; after ceil(log2 P) rounds all have heard from all."""
    if chunks != 1:
        raise ValueError(f"a barrier moves one token: chunks must be 1, not {chunks}")
    steps, d = [], 1
    while d < p:
        signals = [Transfer(r, (r + d) % p, 0, 0, True) for r in range(p)]
        steps.append(
            Step(
                "signal",
                named(
                    f"every rank signals the rank {d} ahead of it, passing on who it has heard from", signals
                ),
                signals,
            )
        )
        d *= 2
    return Built(1, tuple(steps))

"""What the ranks of one collective must agree on, op by op, as torch's own Flight Recorder
analysis (torch.distributed.flight_recorder) decides a match. Every rank issues the same op in
the same dtype; sizes agree only where the op needs them equal:

- all_reduce, broadcast, reduce, all_gather, reduce_scatter, barrier: what each rank puts in;
- scatter: what each rank takes out (only the root puts data in: P blocks, the others none);
- gather: what each rank puts in (only the root takes P blocks out);
- all_to_all (and all_to_all_single) and the uneven all_gather_v, reduce_scatter_v: nothing
  per rank, for each rank's splits are its own; only that the elements all ranks put in are
  the elements they all take out, once every rank has issued it.

Pure: the live matching asks it (agreement.py), and so a job opened from its dumps (postmortem/)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import NamedTuple

from ringside.server.watched.words import Phrase, render, said
from ringside.worker_agent.core.watch_protocol import Issued

# the per-rank sizes of these legally differ (torch's names and the backends' own)
UNEVEN = frozenset(
    {
        "all_to_all",
        "all_to_all_single",
        "all_to_all_v_single",
        "alltoall",
        "alltoall_base",
        "all_gather_v",
        "reduce_scatter_v",
    }
)
SAME_OUT = frozenset({"scatter"})  # what each rank takes out agrees; the root alone puts data in
BALANCED = frozenset({"all_to_all", "all_to_all_single", "alltoall", "alltoall_base"})
# a rank finishes its part of these without every other rank: a gather's sender once the root has its
# block, a scatter's or a broadcast's receiver once it has its own (their root, only once all took part)
ROOTED = frozenset({"broadcast", "reduce", "scatter", "gather"})


class Signature(NamedTuple):
    """What one rank issued, as far as its peers must agree with it."""

    op: str
    dtype: str
    size: str  # "" where the op's per-rank sizes legally differ

    @property
    def phrase(self) -> Phrase:
        if not self.dtype and self.size in ("", "0"):
            return said("issued_op", op=self.op)  # a barrier
        if not self.size:
            return said("issued_of_dtype", op=self.op, dtype=self.dtype)
        size = f"{self.size} {self.dtype}".rstrip()
        return said("issued_into" if self.op in SAME_OUT else "issued_of", op=self.op, size=size)

    @property
    def words(self) -> str:
        return render(self.phrase)


def signature(op: str, one: Issued) -> Signature:
    """`one` as its peers must match it (`op`: its name as Ringside says it)."""
    return _signature(op, one.op, one.dtype, one.count, one.count_out)


# every rank of a collective issues the same, most often: its signature is made once, not per rank
@lru_cache(maxsize=4096)
def _signature(op: str, issued_as: str, dtype: str, count: int, count_out: int | None) -> Signature:
    if op in UNEVEN or issued_as in UNEVEN:
        return Signature(op, dtype, "")
    if op in SAME_OUT:
        return Signature(op, dtype, "" if count_out is None else f"{count_out:,}")
    return Signature(op, dtype, f"{count:,}")


def difference(a: Signature, b: Signature) -> Phrase:
    """What differs between two signatures."""
    if a.op != b.op:
        return said("ops_differ")
    if a.dtype != b.dtype:
        return said("dtypes_differ")
    return said("sizes_differ")


class Sides(NamedTuple):
    """Ranks grouped by what they issued as one collective: the odd ones apart from the most."""

    odd: list[int]  # off the most that agree; every rank where no side is the most (a tie)
    sides: list[tuple[str, list[int]]]  # (what, ranks), the fewest first


def sides(said: Mapping[int, str]) -> Sides:
    """The ranks of a collective by what each issued (`said`: rank -> words)."""
    by: dict[str, list[int]] = {}
    for rank in sorted(said):
        by.setdefault(said[rank], []).append(rank)
    ordered = sorted(by.items(), key=lambda side: len(side[1]))
    most = ordered[-1][1] if len(ordered) == 1 or len(ordered[-1][1]) > len(ordered[-2][1]) else []
    return Sides([r for r in sorted(said) if r not in most], ordered)


def unbalanced(op: str, puts: Mapping[int, tuple[int, int | None]]) -> Phrase | None:
    """For an all_to_all every rank issued (`puts`: rank -> elements in, out): why its ranks cannot
    all have matched splits, or None. Which rank's splits are wrong the record does not say."""
    if op not in BALANCED or any(out is None for _, out in puts.values()):
        return None
    into = sum(i for i, _ in puts.values())
    out = sum(o or 0 for _, o in puts.values())
    if into == out:
        return None
    return said("splits_disagree", into=f"{into:,}", out=f"{out:,}")

"""What a collective is, said once: a descriptor per collective, in the manner of
nccl-tests' per-collective `testColl`. Everything else (validation, inputs, the
executor's buffer, the simulator, native calls, verification, the server's
bandwidth figures, the catalog) asks the descriptor and never the name.

Ranks are group-local. `count` is the size of one block: what each rank
contributes to all_gather or gather, what each rank receives from scatter or
reduce_scatter, one destination's share of all_to_all. Every rank holds one
working buffer of `blocks(p)` blocks; its input fills `input_blocks`, its
output is read from `output_blocks`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from functools import reduce as fold
from types import ModuleType
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..vocabulary import OPS

if TYPE_CHECKING:  # the types only: the descriptors import no torch (the server imports them)
    import torch
    from torch.distributed import ProcessGroup, ReduceOp

    from ..protocol import RunSpec

UFUNCS = {name: getattr(np, op.elementwise) for name, op in OPS.items()}  # AVG's add is then divided


def combine(op: str | None, values: list[np.ndarray]) -> np.ndarray:
    """Reduce a list of arrays with `op`, in list order."""
    if op is None:  # a collective that reduces is always given its op (Collective.op)
        raise ValueError("combining values needs an op")
    return average(op, fold(UFUNCS[op], values), len(values))


def average(op: str | None, total: np.ndarray, p: int) -> np.ndarray:
    """AVG's last step, the division by the group size; any other op's result as it is."""
    if op is None or not OPS[op].mean:
        return total
    return total / p if np.issubdtype(total.dtype, np.floating) else total // p


class Sized(Protocol):
    """What a descriptor reads of a run to size its buffer: a RunSpec's fields, which the server's
    model query (server/model.py) has too."""

    @property
    def count(self) -> int: ...
    @property
    def dtype(self) -> str: ...
    @property
    def servers(self) -> int | None: ...


@dataclass
class NativeArgs:
    """What a descriptor's native call needs, torch's objects included, so that the
    descriptors themselves import no torch (the server imports them)."""

    dist: ModuleType  # torch.distributed
    buffer: torch.Tensor  # the working buffer
    blocks: list[torch.Tensor]  # its blocks, as views
    p: int
    me: int  # group ranks from here on
    root: int
    peer: int
    ranks: list[int]  # the global rank of every group rank
    group: ProcessGroup | None  # the process group (None: the default group)
    op: ReduceOp.RedOpType | None  # None for a collective that does not reduce
    all_gather_into: Callable[..., object]  # dist.all_gather_into_tensor under its name in this torch
    reduce_scatter_into: Callable[..., object]


# starts the call; returns a Work to wait on, or what a blocking call returns (send: None, recv: the
# sender's rank), which is not waited on
Start = Callable[[], object]


class Collective(ABC):
    """The defaults describe a collective on one block that every rank holds."""

    name: str
    rooted = False  # one rank is special (the root; send_recv: the sender)
    reduces = False  # combines values with the run's op (barrier's op is its own)
    has_peer = False  # names a second rank (send_recv: the receiver)
    payload = True  # moves the run's data (a barrier's one-bit tokens are its own)
    exactly_once = True  # each input goes into a result once (SUM counts repeats; a barrier's OR does not)
    has_servers = False  # some ranks serve the others (parameter_server: the run says how many)
    # its lesson is when each rank arrives and leaves, not its values (a barrier: all leave as the last comes)
    arrivals = False
    # the seconds apart a lecture staggers its ranks' arrivals (perturb.py's stagger), so the wait shows
    lecture_stagger_s: float | None = None
    servers = 0  # how many do
    min_ranks = 1
    # nccl-tests' columns: whether the output lands on the input (in place) or in a buffer apart
    in_place = True  # a schedule's, in the working buffer
    native_in_place = True  # torch's own call, as native() makes it

    # --- the buffer ----------------------------------------------------------

    def blocks(self, p: int) -> int:
        return 1

    def input_blocks(self, rank: int, p: int, root: int) -> range:
        """Blocks of the working buffer that this rank's input fills (empty: no input)."""
        return range(0, 1)

    def output_blocks(self, rank: int, p: int, root: int, peer: int) -> range:
        """Blocks of the working buffer that hold this rank's output (empty: no output)."""
        return range(0, 1)

    def message_blocks(self, p: int) -> int:
        """Blocks in one rank's message as nccl-tests count it: the larger of input and output."""
        return 1

    def message_bytes(self, count: int, itemsize: int, p: int) -> int:
        return self.message_blocks(p) * count * itemsize

    def bus_factor(self, p: int) -> float:
        """nccl-tests' factor: busbw = algbw x factor compares with a link's speed."""
        return 1.0

    def with_servers(self, servers: int) -> Collective:
        """The descriptor for a run with this many servers (one without servers is itself)."""
        return self

    def server_ranks(self, p: int, root: int) -> list[int]:
        """Group ranks that serve the others, for the page to set apart; none by default."""
        return []

    # --- what a run of it means ----------------------------------------------

    def op(self, spec: RunSpec) -> str | None:
        """The op its reductions apply; None for a collective that only moves data."""
        return spec.op if self.reduces else None

    def dtype(self, spec: Sized) -> str:
        return spec.dtype

    def count(self, spec: Sized) -> int:
        return spec.count

    def input_values(self, values: np.ndarray, rank: int) -> np.ndarray:
        """A rank's input from the run's pattern; a collective with inputs of its own replaces them."""
        return values

    def given(self, values: np.ndarray, rank: int, p: int, root: int) -> np.ndarray:
        """What the rank's buffer starts with, from its input in the run's dtype: the input itself
        unless the collective's lesson says otherwise."""
        return values

    @abstractmethod
    def reference(
        self, inputs: list[np.ndarray], op: str | None, root: int, peer: int
    ) -> list[np.ndarray | None]:
        """Each rank's output by the collective's definition; `inputs[r]` is rank r's input
        (empty for ranks that have none), shaped as `input_blocks` says."""

    @abstractmethod
    def sources(self, rank: int, p: int, root: int, peer: int) -> dict[int, list[tuple[int, int]]]:
        """What the definition says each output block of this rank is made of: the (rank,
        block) inputs that go into it, each once (one for a collective that moves data)."""

    @abstractmethod
    def native(self, a: NativeArgs) -> tuple[Start, torch.Tensor | None]:
        """(start, output): the backend's own call on the working buffer, and the tensor
        that holds this rank's output afterwards (None: no output here)."""

    def native_reference(self, a: NativeArgs) -> tuple[Start, torch.Tensor | None]:
        """The call that a stepwise run's output is checked against."""
        return self.native(a)

    def __repr__(self) -> str:
        return f"<collective {self.name}>"


class BlockPerRank(Collective):
    """A working buffer of P blocks, block r belonging to rank r; each rank's message is all
    of them, and a (P-1)/P share of it crosses the busiest link."""

    def blocks(self, p: int) -> int:
        return p

    def message_blocks(self, p: int) -> int:
        return p

    def bus_factor(self, p: int) -> float:
        return (p - 1) / p


def split(inputs: list[np.ndarray], p: int) -> list[list[np.ndarray]]:
    """Each rank's input cut into p blocks (a rank with no input: none)."""
    return [np.array_split(x, p) if len(x) else [] for x in inputs]

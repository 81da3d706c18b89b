"""barrier: no rank leaves until every rank has arrived.

Modelled as an OR of one-bit tokens: when it completes, every rank's token
holds every rank's bit, i.e. every rank has heard from all. So a barrier is
an all_reduce of its own: one int64 element, op BOR, whatever the run asked."""

from __future__ import annotations

import numpy as np

from .all_reduce import ALL_REDUCE
from .base import Collective, NativeArgs


class Barrier(Collective):
    name = "barrier"
    OP, DTYPE = "BOR", "int64"
    payload = False
    exactly_once = False

    def bus_factor(self, p):
        return 0.0

    def op(self, spec):
        return self.OP

    def dtype(self, spec):
        return self.DTYPE

    def count(self, spec):
        return 1

    def input_values(self, values, rank):
        return np.array([1 << (rank % 63)], dtype=np.int64)

    def reference(self, inputs, op, root, peer):
        return ALL_REDUCE.reference(inputs, self.OP, root, peer)

    def sources(self, rank, p, root, peer):
        return ALL_REDUCE.sources(rank, p, root, peer)

    def native(self, a):
        return (lambda: a.dist.barrier(a.group, async_op=True)), None  # leaves nothing behind

    def native_reference(self, a: NativeArgs):
        return ALL_REDUCE.native(a)


BARRIER = Barrier()

"""A ring that deadlocks, as course labs keep writing it: every rank first sends its
chunk to its right neighbour with a blocking send, then receives from its left. A
blocking send waits until the peer has posted the matching receive (gloo's does, even
for one element), and every rank is waiting in its send, so none ever receives.

Ringside stops it within the run's timeout and names the wait-for cycle, with the
line of this file that each rank is stuck in. The fix: send with isend, or let even
ranks send first and odd ranks receive first.

    ringside up --ranks 4 --algorithms examples/deadlock_ring.py
"""

import torch
import torch.distributed as dist

from ringside.worker_agent.user import traced


@traced("all_reduce", "deadlock_ring")
def deadlock_ring(buf, rank, size):
    chunks = buf.chunk(size)
    right, left = (rank + 1) % size, (rank - 1) % size
    for s in range(size - 1):
        send, recv = (rank - s - 1) % size, (rank - s - 2) % size
        incoming = torch.empty_like(chunks[recv])
        dist.send(chunks[send], right)  # blocks until the right neighbour receives: it never does
        dist.recv(incoming, left)
        chunks[recv].add_(incoming)
    for s in range(size - 1):
        send, recv = (rank - s) % size, (rank - s - 1) % size
        dist.send(chunks[send], right)
        dist.recv(chunks[recv], left)

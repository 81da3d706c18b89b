"""The tutorial's ring all_reduce with the classic bug, a chunk index mixed up: in the
reduce-scatter each rank adds what it received into the chunk it just sent
(chunks[send]) instead of the chunk it received (chunks[recv]). Every call still meets
its match, so nothing hangs; the result is wrong, and Ringside shows the first step
where a rank's buffer departs from what all_reduce requires: the very first.

    ringside up --ranks 4 --algorithms examples/tutorial_ring_bug.py
"""

import torch
import torch.distributed as dist

from ringside.worker_agent.user import traced


@traced("all_reduce", "tutorial_ring_bug")
def tutorial_ring_bug(buf, rank, size):
    chunks = buf.chunk(size)  # views of the buffer: what is sent and written is read from them
    right, left = (rank + 1) % size, (rank - 1) % size
    for s in range(size - 1):  # reduce-scatter: chunk rank+1 ends complete here
        send, recv = (rank - s - 1) % size, (rank - s - 2) % size
        incoming = torch.empty_like(chunks[recv])
        works = [dist.isend(chunks[send], right), dist.irecv(incoming, left)]
        for work in works:
            work.wait()
        chunks[send].add_(incoming)  # the bug: should be chunks[recv]
    for s in range(size - 1):  # all-gather: pass the finished chunks round
        send, recv = (rank - s) % size, (rank - s - 1) % size
        works = [dist.isend(chunks[send], right), dist.irecv(chunks[recv], left)]
        for work in works:
            work.wait()

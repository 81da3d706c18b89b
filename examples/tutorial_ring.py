"""A ring all_reduce written as a course teaches it, with torch.distributed's own
isend and irecv: the buffer is cut into one chunk per rank; P-1 times each rank
passes a chunk to its right neighbour, which adds it to its own (reduce-scatter),
then P-1 times each passes a finished chunk on, which is copied (all-gather).

Ringside runs it on the real ranks, records every call, rebuilds the steps it made
(they are the built-in ring's) and animates them with the real values.

    ringside up --ranks 4 --algorithms examples/tutorial_ring.py
"""

import torch
import torch.distributed as dist

from ringside.worker_agent.user import traced


@traced("all_reduce", "tutorial_ring")
def tutorial_ring(buf, rank, size):
    chunks = buf.chunk(size)  # views of the buffer: what is sent and written is read from them
    right, left = (rank + 1) % size, (rank - 1) % size
    for s in range(size - 1):  # reduce-scatter: chunk rank+1 ends complete here
        send, recv = (rank - s - 1) % size, (rank - s - 2) % size
        incoming = torch.empty_like(chunks[recv])
        works = [dist.isend(chunks[send], right), dist.irecv(incoming, left)]
        for work in works:
            work.wait()
        chunks[recv].add_(incoming)
    for s in range(size - 1):  # all-gather: pass the finished chunks round
        send, recv = (rank - s) % size, (rank - s - 1) % size
        works = [dist.isend(chunks[send], right), dist.irecv(chunks[recv], left)]
        for work in works:
            work.wait()

"""A ring all_reduce with the classic bug: in the all-gather each rank passes on the
segment it received in this step instead of the one it finished in the step before,
so the checker refuses it before anything runs, naming the rank and the chunk.

    ringside up --ranks 4 --algorithms examples/broken_ring.py   # listed, and refused when run
"""

from ringside.worker_agent.user import algorithm, reduce, send, step


@algorithm("all_reduce", "broken_ring", pieces=lambda p, chunks: p)
def broken_ring(p, root, chunks):
    steps = [
        step("reduce-scatter", [reduce(r, (r + 1) % p, (r - s) % p) for r in range(p)]) for s in range(p - 1)
    ]
    # the bug: (r - s) % p, where the all-gather must pass on (r + 1 - s) % p
    steps += [step("all-gather", [send(r, (r + 1) % p, (r - s) % p) for r in range(p)]) for s in range(p - 1)]
    return steps

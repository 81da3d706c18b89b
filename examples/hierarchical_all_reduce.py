"""A two-level all_reduce, as on a cluster of nodes with two ranks each: reduce inside
every node to its leader, a ring all_reduce among the leaders (the only traffic that
crosses nodes), then every leader hands the result to its node.

    ringside up --ranks 4 --algorithms examples/hierarchical_all_reduce.py
"""

from ringside.worker_agent.user import algorithm, reduce, send, step

PER_NODE = 2


def nodes_of(p):
    """Ranks per node: two where the world splits evenly into pairs, else one node of all."""
    return PER_NODE if p % PER_NODE == 0 else p


@algorithm("all_reduce", "hierarchical", pieces=lambda p, chunks: (p // nodes_of(p)) * chunks, layout="grid")
def hierarchical(p, root, chunks):
    k = nodes_of(p)
    leaders = list(range(0, p, k))
    m = len(leaders)
    everything = range(m * chunks)
    segment = lambda i: range((i % m) * chunks, (i % m + 1) * chunks)  # noqa: E731  (leader i's share)
    steps = [
        step(
            "node reduce",
            [reduce(r, r - r % k, c) for r in range(p) if r % k for c in everything],
            "inside every node, each rank adds its buffer into its node leader's",
        )
    ]
    for s in range(m - 1):  # ring reduce-scatter, then all-gather, among the leaders
        steps.append(
            step(
                "leader reduce-scatter",
                [reduce(leaders[i], leaders[(i + 1) % m], c) for i in range(m) for c in segment(i - s)],
                "every leader passes a segment to the next leader, which adds it",
            )
        )
    for s in range(m - 1):
        steps.append(
            step(
                "leader all-gather",
                [send(leaders[i], leaders[(i + 1) % m], c) for i in range(m) for c in segment(i + 1 - s)],
                "every leader passes a finished segment on to the next leader",
            )
        )
    steps.append(
        step(
            "node broadcast",
            [send(r - r % k, r, c) for r in range(p) if r % k for c in everything],
            "every leader hands the result to the ranks of its node",
        )
    )
    return steps

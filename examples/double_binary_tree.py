"""all_reduce over two binary trees at once, as NCCL does: each tree carries half of
the buffer, up (reduce) and down (broadcast). The second tree numbers the ranks in
reverse, so most ranks that are leaves of one tree are inner nodes of the other and
every rank's links carry about the same load.

    ringside up --ranks 4 --algorithms examples/double_binary_tree.py
"""

from ringside.worker_agent.user import algorithm, reduce, send, step


def depth(v):
    return (v + 1).bit_length() - 1


@algorithm("all_reduce", "double_binary_tree", pieces=lambda p, chunks: 2 * chunks, layout="tree")
def double_binary_tree(p, root, chunks):
    trees = [lambda v: v, lambda v: p - 1 - v]  # tree position v -> rank, for tree 0 and tree 1
    halves = [range(0, chunks), range(chunks, 2 * chunks)]
    deepest = depth(p - 1)
    steps = []
    for d in range(deepest, 0, -1):
        steps.append(
            step(
                "reduce",
                [
                    reduce(rank(v), rank((v - 1) // 2), c)
                    for rank, half in zip(trees, halves)
                    for v in range(p)
                    if depth(v) == d
                    for c in half
                ],
                f"in both trees, every rank at depth {d} adds its half into its parent's",
            )
        )
    for d in range(1, deepest + 1):
        steps.append(
            step(
                "broadcast",
                [
                    send(rank((v - 1) // 2), rank(v), c)
                    for rank, half in zip(trees, halves)
                    for v in range(p)
                    if depth(v) == d
                    for c in half
                ],
                f"in both trees, every rank at depth {d - 1} sends the result down to its children",
            )
        )
    return steps

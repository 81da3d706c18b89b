"""nccl-tests' #wrong: the elements of a rank's output that are off the collective's definition
(collectives/, from every rank's input) by more than verify.py's tolerance."""

from __future__ import annotations

import numpy as np

from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.run_shape import peer_of
from ringside.worker_agent.core.vocabulary import ITEMSIZE

# -c rebuilds every rank's input on each rank (P x size for all_reduce): past this, N/A
CHECK_CAP = 2 << 30


def expected(spec: RunSpec, me: int, p: int):
    """This rank's output by the collective's definition, from every rank's input (a tensor, or
    None where the rank has no output)."""
    import torch

    from ringside.worker_agent.rank.runner import torch_input

    collective, cpu = get(spec.collective, spec.servers), torch.device("cpu")
    inputs = []
    for rank in range(p):  # as the ranks hold them: in the run's dtype (numpy has no bfloat16)
        x = torch_input(spec, rank, p, cpu)
        inputs.append((x.float() if x.dtype == torch.bfloat16 else x).numpy())
    want = collective.reference(inputs, collective.op(spec), spec.root, peer_of(spec, list(range(p))))[me]
    return None if want is None else torch.from_numpy(np.ascontiguousarray(want))


def reference_bytes(spec: RunSpec, p: int) -> int:
    """What expected() holds on each rank: every rank's input."""
    collective = get(spec.collective, spec.servers)
    blocks = sum(len(collective.input_blocks(r, p, spec.root)) for r in range(p))
    return blocks * collective.count(spec) * ITEMSIZE[collective.dtype(spec)]


def count_wrong(spec: RunSpec, me: int, p: int, output, want=None) -> int:
    """Elements of this rank's `output` off the collective's definition (nccl-tests' #wrong);
    `want`: expected(spec, me, p), if already made."""
    from ringside.worker_agent.rank.verify import wrong_elements

    want = expected(spec, me, p) if want is None else want
    if output is None or want is None:  # a native barrier leaves nothing to check
        return 0
    got = output.cpu()
    return wrong_elements(get(spec.collective).reduces, got, want.to(got.dtype), p)

"""Verification against native: exact where it must be, a tolerance for float reductions,
and the first differing positions for a viewer to see in red."""

from __future__ import annotations

import torch

from ringside.worker_agent.rank.verify import compare


def test_a_difference_is_reported_with_its_positions():
    v = compare(True, torch.tensor([1.0, 2.0, 3.0, 4.0]), torch.tensor([1.0, 2.5, 3.0, 9.0]), 4)
    assert not v.verified and v.max_diff == 5.0 and v.mismatches == ((1, 2.0, 2.5), (3, 4.0, 9.0))


def test_floats_within_tolerance_pass_and_copies_must_be_exact():
    a = torch.tensor([1.0, 2.0], dtype=torch.float32)
    nudged = a + torch.tensor([1e-7, 0.0])
    assert compare(True, nudged, a, 4).verified
    assert not compare(False, nudged, a, 4).verified  # moving data changes no bit
    assert compare(True, torch.tensor([float("inf")]), torch.tensor([float("inf")]), 2).verified
    assert not compare(False, torch.tensor([1, 2]), torch.tensor([1, 2, 3]), 2).verified

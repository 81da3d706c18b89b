"""What a run may ask of the ranks, pure (validation.py): a rank reports at most MAX_RANK_CHUNKS
chunks, a buffer is capped at what four local ranks hold, and a count at what the store holds."""

from __future__ import annotations

import pytest

from ringside.worker_agent.core.protocol import MAX_RANK_CHUNKS, RunSpec
from ringside.worker_agent.core.validation import MAX_BUFFER_BYTES, SpecError, validate

MiB = 1 << 20


def test_a_run_cut_into_more_chunks_than_a_rank_reports_is_refused():
    with pytest.raises(SpecError) as refused:
        validate(RunSpec(collective="all_to_all", algorithm="pairwise", count=1024, chunks=1024), 16, "gloo")
    assert refused.value.field == "chunks" and str(MAX_RANK_CHUNKS) in refused.value.message
    validate(RunSpec(collective="all_to_all", algorithm="pairwise", count=1024, chunks=1024), 8, "gloo")


def test_the_buffer_cap_is_what_four_local_ranks_can_hold():
    """At the cap, 16 bytes a byte of buffer per rank (bench/peak_memory.py measured up to 16.3) and a rank's
    own 350 MiB: four ranks within 6 GiB. Past the cap, refused naming it."""
    assert 4 * (350 * MiB + 16 * MAX_BUFFER_BYTES) < 6 << 30
    validate(RunSpec(collective="all_reduce", algorithm="ring", count=MAX_BUFFER_BYTES // 4), 4, "gloo")
    with pytest.raises(SpecError) as refused:
        validate(
            RunSpec(collective="all_reduce", algorithm="ring", count=MAX_BUFFER_BYTES // 4 + 1), 4, "gloo"
        )
    assert (
        refused.value.field == "count"
        and f"over the cap of {MAX_BUFFER_BYTES} (64 MiB) on gloo" in refused.value.message
    )
    validate(RunSpec(collective="all_reduce", algorithm="ring", count=MAX_BUFFER_BYTES // 4 + 1), 4, "nccl")


def test_a_count_past_what_the_store_holds_is_refused_even_where_the_collective_takes_none():
    """The fuzz found it: a barrier of 2^63 elements was accepted, and its figures could not be stored."""
    for count in (1 << 63, -(1 << 63) - 1, 10**40):
        with pytest.raises(SpecError) as refused:
            validate(RunSpec(collective="barrier", count=count), 4, "gloo")
        assert refused.value.field == "count"
    validate(RunSpec(collective="barrier", count=8), 4, "gloo")

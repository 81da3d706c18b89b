"""Inputs typed in per rank (a lesson's, the seed's own tensors): each rank starts from its
list, and a list that does not fit the collective is refused naming the rank."""

from __future__ import annotations

import pytest

from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.inputs import numpy_input
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.validation import SpecError, validate

pytestmark = pytest.mark.unit

# the English note's reduce_scatter on 3 ranks: rank r holds (r+1)·[1, 2] to the powers 1, 2, 3
POWERS = [[(r + 1) ** j * i**j for j in (1, 2, 3) for i in (1, 2)] for r in range(3)]


def test_each_rank_starts_from_its_typed_list():
    spec = RunSpec(collective="reduce_scatter", count=2, inputs=POWERS, group=[0, 1, 2])
    validate(spec, 4, "gloo")
    given = [numpy_input(spec, r, 4) for r in range(3)]
    assert given[1].tolist() == [2, 4, 4, 16, 8, 64]
    summed = get("reduce_scatter").reference(given, "SUM", 0, 1)
    assert [s.tolist() for s in summed] == [[6, 12], [14, 56], [36, 288]], "the note's printed output"


def test_broadcast_takes_the_roots_list_alone():
    spec = RunSpec(collective="broadcast", count=5, inputs=[[1, 2, 3, 4, 5], [], []], group=[0, 1, 2])
    validate(spec, 3, "gloo")
    assert numpy_input(spec, 0, 3).tolist() == [1, 2, 3, 4, 5] and numpy_input(spec, 2, 3).size == 0


BAD = [
    (
        dict(collective="all_reduce", count=2, inputs=[[1, 2]] * 3),
        "one list per rank of the group (4), not 3",
    ),
    (
        dict(collective="all_reduce", count=2, inputs=[[1, 2]] * 3 + [[1]]),
        "rank 3's input takes 2 values; 1 given",
    ),
    (
        dict(collective="broadcast", count=1, inputs=[[1], [0], [], []]),
        "rank 1's input takes 0 values (its buffer is only received: give []); 1 given",
    ),
    (dict(collective="all_reduce", count=1, dtype="int32", inputs=[[0.5]] * 4), "not an integer"),
    (dict(collective="all_reduce", count=1, dtype="float16", inputs=[[4096]] * 4), "below 2048"),
    (dict(collective="barrier", inputs=[[1]] * 4), "takes none"),
]


@pytest.mark.parametrize("fields,words", BAD)
def test_a_list_that_does_not_fit_is_refused_naming_the_rank(fields, words):
    with pytest.raises(SpecError) as info:
        validate(RunSpec(**fields), 4, "gloo")
    assert info.value.field == "inputs" and words in info.value.message

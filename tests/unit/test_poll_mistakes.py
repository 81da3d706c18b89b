"""A holds question's wrong choices are the mistakes a student makes, worked out from the run and the
simulator, named, and picked so that the choices alone do not give the right one away: over a dozen
questions on the lecture's collectives and algorithms, a student who reads only the choices (the value
most of them hold at each place; the choice nearest all the others) does no better than chance."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from fake_runs import LECTURE, ran
from polls_in_process import Lecture

from ringside.server.polls.mistakes import Mistake, buffer_after, shown
from ringside.server.polls.questions import PollSpec, answer
from ringside.server.runs.run import new_run
from ringside.server.runs.service import PLANNED
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.validation import validate

# (collective, algorithm, ranks, rank asked, step asked, the run's other fields): ring and tree, every
# kind of collective asked, as a lecture runs them (a buffer of P blocks small enough to show whole, a
# broadcast cut into pieces so that it arrives piece by piece)
DOZEN = [
    ("all_reduce", "ring", 4, 1, 1, {}),
    ("all_reduce", "ring", 4, 2, 4, {}),
    ("all_reduce", "ring", 8, 5, 3, {}),
    ("all_reduce", "tree", 4, 0, 0, {}),
    ("all_reduce", "tree", 8, 1, 2, {}),
    ("broadcast", "ring", 4, 2, 2, {"chunks": 4}),
    ("broadcast", "binomial_tree", 8, 5, 2, {"chunks": 4}),
    ("scatter", "binomial_tree", 8, 2, 1, {"count": 1}),
    ("scatter", "binomial_tree", 4, 1, 0, {"count": 2}),
    ("reduce_scatter", "ring", 4, 1, 1, {"count": 2}),
    ("reduce_scatter", "ring", 8, 6, 4, {"count": 1}),
    ("all_to_all", "pairwise", 4, 1, 1, {"count": 2}),
]


def asked(collective: str, algorithm: str, world: int, rank: int, step: int, fields: dict):
    """The choices (right first) and mistakes of a holds question of a run made as its ranks would."""
    spec = RunSpec(**{**LECTURE, "collective": collective, "algorithm": algorithm, **fields})
    validate(spec, world, "gloo")
    run = ran(new_run(PLANNED, spec, "gloo", world))
    found = answer(PollSpec(question="holds", rank=rank, step=step), run, {})
    return [found.right, *found.wrong], found.mistakes


def values(choice: str) -> list[str]:
    return choice.removesuffix(" …").split(" · ")


def share(right_wins: bool, winners: int) -> float:
    """The right one's chance of being a guess made at random among the winners."""
    return right_wins / winners


def majority(choices: list[str]) -> float:
    rows = [values(c) for c in choices]
    places = [Counter(col) for col in itertools.zip_longest(*rows)]
    agree = [sum(p[v] == max(p.values()) for p, v in zip(places, row, strict=False)) for row in rows]
    return share(agree[0] == max(agree), agree.count(max(agree)))


def medoid(choices: list[str]) -> float:
    rows = [values(c) for c in choices]
    apart = [sum(x != y for b in rows for x, y in itertools.zip_longest(a, b)) for a in rows]
    return share(apart[0] == min(apart), apart.count(min(apart)))


def closest(choices: list[str]) -> float:
    rows = [[float(v) for v in values(c)] for c in choices]
    apart = [sum(abs(x - y) for b in rows for x, y in zip(a, b, strict=True)) for a in rows]
    return share(apart[0] == min(apart), apart.count(min(apart)))


@pytest.fixture(scope="module")
def dozen():
    return [asked(*q) for q in DOZEN]


@pytest.mark.parametrize("guess", [majority, medoid, closest])
def test_reading_only_the_choices_finds_the_answer_no_more_often_than_chance(dozen, guess):
    hits = sum(guess(choices) for choices, _ in dozen)
    chance = sum(1 / len(choices) for choices, _ in dozen)
    assert hits <= chance, f"{guess.__name__} found {hits:g} of {len(dozen)}; chance {chance:.2f}"


def test_the_wrong_choices_are_distinct_and_each_names_its_mistake(dozen):
    for (choices, mistakes), question in zip(dozen, DOZEN, strict=True):
        # at least three: where more would set the right one between the others, fewer are offered
        assert len(choices) >= 3, (question, choices)
        assert len(set(choices)) == len(choices), (question, choices)
        assert len(mistakes) == len(choices) - 1 and all(isinstance(m, Mistake) for m in mistakes), question
    kinds = {m.kind for _, mistakes in dozen for m in mistakes}
    assert {"early", "late", "rank", "op", "mirrored"} <= kinds, kinds


def test_each_mistake_is_what_it_says():
    """One step early is the rank's buffer after the step before; a rank's is that rank's."""
    spec = RunSpec(**{**LECTURE, "algorithm": "ring"})
    run = ran(new_run(PLANNED, spec, "gloo", 4))
    found = answer(PollSpec(question="holds", rank=1, step=2), run, {})
    for words, mistake in zip(found.wrong, found.mistakes, strict=True):
        assert mistake is not None
        if mistake.kind in ("early", "late"):
            assert words == shown(buffer_after(run, 1, mistake.step or 0))
        if mistake.kind == "rank":
            assert words == shown(buffer_after(run, mistake.rank or 0, 2))
        if mistake.kind == "op":
            assert (mistake.op, mistake.run_op) in {("MAX", "SUM"), ("PRODUCT", "SUM")}


def test_the_mistakes_reach_no_page_before_the_reveal(tmp_path):
    hall = Lecture(tmp_path / "runs.db")
    try:
        ring = hall.runs.pressed(algorithm="ring")
        poll = hall.ask(run_id=ring.id, question="holds", rank=2, step=2)
        told = hall.feed.of("poll")[-1]
        record = hall.polls.book.find(poll.id)
        assert record is not None and len(record.mistakes) == len(poll.choices), "kept with the answer"
        for seen in (poll, told.poll, told.for_room().poll, hall.visibility.poll(record, presenter=False)):
            assert seen.mistakes == [], "which choice names no mistake would say which is right"
        hall.polls.voting.close(poll.id)
        assert hall.visibility.poll(record, presenter=False).mistakes == []
        revealed = hall.polls.voting.reveal(poll.id)
        room = hall.visibility.poll(record, presenter=False)
        for shown_poll in (revealed, room):
            right = shown_poll.answers[0]
            assert shown_poll.mistakes[right] is None
            assert all(m is not None for i, m in enumerate(shown_poll.mistakes) if i != right)
    finally:
        hall.stop()

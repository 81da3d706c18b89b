"""Deny by default (server/door/audience.py): every message type a viewer's socket can carry says who
may hear it, the fan-out refuses one that does not, and a run's held copy carries none of the
fields marked as an answer where they are defined."""

from __future__ import annotations

import importlib
import pkgutil
from typing import ClassVar, Literal

import pytest
from pydantic import BaseModel

import ringside.server
from ringside.server.door.audience import Answer, Audience, Undeclared, declared, held_copy, marked
from ringside.server.polls.mistakes import Mistake
from ringside.server.polls.poll import Poll, PollState
from ringside.server.polls.questions import Question
from ringside.server.polls.visibility import withheld, withheld_summary
from ringside.server.runs.figures import Departure, LinkBytes, RunTraffic
from ringside.server.runs.run import Choice, Prediction, RankResult, RankStep, Run, RunSummary, new_run
from ringside.server.runs.wavefront import Perturbed
from ringside.server.viewers.fanout import Fanout
from ringside.worker_agent.core.protocol import CallTime, RunSpec, Timings

QUESTIONS: tuple[Question, ...] = ("holds", "busiest_link", "bottleneck", "faster", "custom")


def every_model() -> set[type[BaseModel]]:
    for module in pkgutil.walk_packages(ringside.server.__path__, "ringside.server."):
        importlib.import_module(module.name)
    found, todo = set(), [BaseModel]
    while todo:
        for kind in todo.pop().__subclasses__():
            if kind not in found:
                found.add(kind)
                todo.append(kind)
    return {k for k in found if k.__module__.startswith("ringside.server.")}


def test_every_message_type_a_viewer_can_hear_declares_its_audience():
    """A message is a model with a `type`: each of the server's says who may hear it, with what its
    audience needs (a held one names the runs it concerns)."""
    messages = {k for k in every_model() if "type" in k.model_fields}
    names = {k.__name__ for k in messages}
    assert {"PollMessage", "StepMessage", "WavefrontMessage", "PracticeMessage"} <= names
    undeclared = []
    for kind in messages:
        try:
            declared(kind)
        except Undeclared as e:
            undeclared.append(str(e))
    assert not undeclared, undeclared


class Whispered(BaseModel):
    type: Literal["whispered"] = "whispered"


def test_the_fan_out_refuses_a_message_that_declares_no_audience():
    fanout = Fanout(limit=4)
    with pytest.raises(Undeclared, match="Whispered declares no audience"):
        fanout.publish(Whispered())  # refused with no viewer there too: a test that has none fails


def test_a_held_message_that_names_no_run_is_refused():
    class Unnamed(BaseModel):
        audience: ClassVar[Audience] = Audience.HELD
        type: Literal["unnamed"] = "unnamed"

    with pytest.raises(Undeclared, match="concerns"):
        Fanout(limit=4).publish(Unnamed())


def answered_run() -> Run:
    """A run that has run, every field marked as an answer set to something other than its blank."""
    run = new_run("r-000001", RunSpec(collective="all_reduce", algorithm="ring", count=8), "gloo", 4)
    for step in run.steps:
        step.ranks = {"0": RankStep(t0=step.step, t1=step.step + 0.5)}
    assert run.display is not None and run.display.formula is not None
    run.display.formula.measured = 24
    return run.model_copy(
        update={
            "started_at": 1.0,
            "finished_at": 2.0,
            "results": {"0": RankResult(timings=Timings(iterations=[0.5]))},
            "verified": True,
            "time": 0.5,
            "algbw": 1.0,
            "busbw": 1.5,
            "traffic": RunTraffic(
                sent={"0": 8}, received={"0": 8}, total=16, busiest_link=LinkBytes(src=0, dst=1, bytes=8)
            ),
            "calls": {"0": [CallTime(name="send", peer=1, line="a.py:1", posted=0, waited=0, done=1)]},
            "perturbed": Perturbed(predicted_extra_s=0.1),
            "choice": Choice(asked={}, algorithm="ring", chunks=1, label="ring", why="fastest"),
            "prediction": Prediction(time=0.4, measured=0.5, source="fit"),
            "departure": Departure(step=1, rank=2, chunk=0, words="rank 2's chunk 0 went wrong at step 2"),
        }
    )


def marks_in(model: BaseModel, path: str = "") -> list[tuple[str, Answer, BaseModel]]:
    """(where, mark, owner) of every marked field in `model` and the models it holds."""
    found = []
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        mark = next((m for m in info.metadata if isinstance(m, Answer)), None)
        if mark is not None:
            found.append((f"{path}{name}", mark, model))
        values = value.values() if isinstance(value, dict) else value if isinstance(value, list) else [value]
        for i, v in enumerate(values):
            if isinstance(v, BaseModel):
                found += marks_in(v, f"{path}{name}[{i}].")
    return found


def test_every_marked_field_of_a_run_is_set_in_the_run_tested():
    """A new marked field is set here too, so the tests below see it blanked."""
    marks = marks_in(answered_run())
    unset = [w for w, _, owner in marks if getattr(owner, w.rsplit(".", 1)[-1]) in (None, {}, [])]
    assert not unset, f"set {unset} in answered_run()"
    assert {w for w, _, _ in marks if "." not in w} == marked(Run)


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("step", [None, 2])
def test_no_marked_answer_reaches_a_held_copy(question, step):
    run = answered_run()
    poll = Poll(id="p-000001", run_id=run.id, question=question, step=step, text="?", created_at=0)
    held = held_copy(run, poll)
    for where, mark, owner in marks_in(held):
        blank = type(owner).model_fields[where.rsplit(".", 1)[-1]].get_default()
        if mark.hides(poll, owner):
            assert getattr(owner, where.rsplit(".", 1)[-1]) == blank, f"{where} reached the room ({question})"
    read = withheld(run, poll)
    assert read["held_for"] == poll.id and read["time"] is None and read["results"] == {}
    kept = step if question == "holds" and step is not None else 0
    assert [bool(s["ranks"]) for s in read["steps"]] == [i < kept for i in range(len(run.steps))], (
        "only a question of what a rank holds shows the steps before the one it asks about"
    )


def test_what_each_question_keeps_and_blanks_beyond_the_common_answers():
    run = answered_run()

    def read(question):
        return withheld(run, Poll(id="p", run_id=run.id, question=question, text="?", created_at=0))

    assert read("holds")["choice"] is not None and read("faster")["choice"] is None, "auto's predictions"
    # the lecturer's own question may ask anything of its run: every mark holds
    own = read("custom")
    assert own["choice"] is None and own["perturbed"] is None and own["display"]["formula"] is None
    assert read("holds")["perturbed"] is not None and read("faster")["perturbed"] is None
    assert read("busiest_link")["display"]["formula"] is None, "a question of bytes: the formula's count"
    formula = read("holds")["display"]["formula"]
    assert formula["value"] == run.display.formula.value and formula["measured"] is None
    assert run.time == 0.5 and run.display.formula.measured == 24, "the run itself is left whole"


def test_a_held_line_in_a_list_has_none_of_the_summarys_marked_fields():
    summary = answered_run().summary().model_dump(mode="json")
    held = withheld_summary(summary)
    assert marked(RunSummary) == {"time", "algbw", "busbw", "verified", "started_at", "finished_at"}
    assert all(held[name] is None for name in marked(RunSummary)) and held["id"] == summary["id"]
    assert held["collective"] == "all_reduce" and summary["time"] == 0.5


def answered_poll(question: Question, state: PollState) -> Poll:
    """A poll with every field marked as its answer set, as a bug that set them early would."""
    poll = Poll(
        id="p-000001", run_id="", question=question, text="?", choices=["a", "b"], state=state, created_at=0
    )
    marks = {name for name, _, _ in marks_in(poll)}
    assert marks == marked(Poll) == {"answers", "mistakes", "number", "tolerance", "typed_right"}
    return poll.model_copy(
        update={"answers": [1], "mistakes": [Mistake(kind="own"), None], "number": 6.0, "tolerance": 1.0,
                "typed_right": 2}
    )  # fmt: skip


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("state", [PollState.OPEN, PollState.CLOSED])
def test_no_marked_answer_of_a_poll_reaches_the_room_before_its_reveal(question, state):
    room = answered_poll(question, state).for_room()
    assert room is not None
    left = {w: getattr(room, w) for w in marked(Poll) if getattr(room, w) not in (None, [])}
    assert not left, f"{left} reached the room ({question}, {state.value})"
    revealed = answered_poll(question, PollState.REVEALED).for_room()
    assert revealed is not None and revealed.answers == [1] and revealed.tolerance == 1.0

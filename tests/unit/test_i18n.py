"""Every caption that a built-in algorithm writes is shown in Korean and Chinese: the page translates
captions by template (frontend/js/i18n/i18n.js), so a new or changed caption without its templates fails
here, with the caption named. Schedules at several world sizes, roots, pieces and parameter-server
shard counts, in global ranks that differ from the schedule's; and the traced lesson's captions."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest
from node_script import node_json

from ringside.server.model import routes
from ringside.server.polls.mistakes import CONFUSED, Kind, Mistake
from ringside.worker_agent.core import predict as pm
from ringside.worker_agent.core.algorithms import algorithms, build
from ringside.worker_agent.core.algorithms.parameter_server import formula
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.schedule import ScheduleError
from ringside.worker_agent.core.validation import SpecError, validate
from ringside.worker_agent.user.rebuild import _caption, _phase

ROOT = Path(__file__).resolve().parents[2]
SIZES = (1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16)


def built_in_steps() -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(phase, caption) of every step of every built-in schedule over SIZES, as a run stores it; and
    the (collective, algorithm) pairs that were built."""
    steps, seen = set(), set()
    for record in algorithms():
        if not record.built or record.user:
            continue
        for p in filter(record.fits, SIZES):
            for root in {0, 1 % p, p - 1}:
                for chunks in (1, 3):
                    for servers in (None, 1, 2, 3) if record.collective == "parameter_server" else (None,):
                        try:
                            schedule = build(record.collective, record.name, p, root, chunks, servers)
                        except (ScheduleError, ValueError):  # a world or pieces it does not take
                            continue
                        doc = schedule.to_doc([3 * r + 2 for r in range(p)])
                        steps.update((s.phase, s.caption) for s in doc.steps)
                        seen.add((record.collective, record.name))
    return steps, seen


def traced_steps() -> set[tuple[str, str]]:
    """What rebuild.py writes for a traced run's step: the lines that sent, received and wrote."""
    lines = [
        {("p2p.py:27", "p2p.py:33", "p2p.py:33", False): None},
        {
            ("lesson.py:9", "lesson.py:12", "lesson.py:14", True): None,
            ("lesson.py:10", "lesson.py:12", "lesson.py:15", False): None,
        },
    ]
    return {(_phase(ls), _caption(ls).format()) for ls in lines}


def missed(
    steps: set[tuple[str, str]],
    texts: list[str] = (),
    predictions: list[dict] = (),
    mistakes: list[dict] = (),
) -> dict[str, list[str]]:
    payload = {
        "captions": sorted(steps),
        "texts": list(texts),
        "predictions": list(predictions),
        "mistakes": list(mistakes),
    }
    return node_json("i18n-cover.mjs", payload)


def test_every_built_in_caption_is_translated_in_every_language():
    steps, seen = built_in_steps()
    assert seen == {(r.collective, r.name) for r in algorithms() if r.built and not r.user}, (
        "every built-in schedule was built"
    )
    left = missed(steps | traced_steps())
    assert set(left) == {"ko", "zh"}
    for lang, captions in left.items():
        assert captions == [], f"{len(captions)} captions left in English in {lang}, e.g. {captions[:3]}"


def test_every_formulas_line_under_the_stage_is_translated():
    """The formula line says what its formula counts (algorithms/formulas.py, parameter_server.py)."""
    whats = {r.formula.what for r in algorithms() if r.formula}
    whats.add(formula(1024, 4, 1)["what"])
    lines = [f"(P-1)·N = 1.5 KiB {what}" for what in sorted(whats)]
    lines += ["(N = 16 B, P = 4) · measured 24 B", "(N = 16 B, P = 4) · measured when the run ends"]
    left = missed(set(), lines)
    assert left == {"ko": [], "zh": []}


def test_every_prediction_says_where_its_numbers_come_from_in_every_language():
    """The prediction panel's words under a preset (its links, its sources, NCCL's choice) and under
    this cluster's fit, as predict.js writes them from the server's answer."""
    answers = [
        {
            "origin": {"kind": "preset", "name": name, "per_node": per_node},
            "params": preset.to_json(),
            "native": {"source": routes.nccl_choice(preset, "all_reduce")},
        }
        for name, preset in pm.PRESETS.items()
        for per_node in (1, 8)
    ]
    fit = pm.DEFAULT
    answers.append(
        {
            "origin": {"kind": "cluster"},
            "params": {"alpha": fit.alpha, "beta": fit.beta, "gamma": fit.gamma, "source": fit.source},
        }
    )
    assert missed(set(), predictions=answers) == {"ko": [], "zh": []}


def test_why_a_method_cannot_cut_its_buffer_is_translated():
    """What the compare view and a refused run say of a count the method cannot cut (validation.py):
    in each language, with the method's name and count= kept as they are."""
    spec = RunSpec(collective="all_reduce", algorithm="ring", count=1, chunks=2, dtype="float32")
    with pytest.raises(SpecError) as refused:
        validate(spec, 5, "gloo")
    for lang, shown in missed(set(), [refused.value.message]).items():
        done = [item.split(" -> ", 1)[1] for item in shown]
        assert all(
            d != "null" and not re.search("[A-Za-z]{2,}", d.replace("ring", "").replace("count", ""))
            for d in done
        ), (
            lang,
            done,
        )


def test_every_mistake_a_wrong_choice_is_revealed_as_is_said_in_every_language():
    """A holds question's reveal says what each wrong choice got wrong (lecture/poll-card.js): every
    kind of mistake (server/polls/mistakes.py), every op mistaken for another."""
    said = [Mistake(kind=kind, rank=3, step=2) for kind in get_args(Kind) if kind != "op"]
    said += [Mistake(kind="op", op=op, run_op=run_op) for run_op, ops in CONFUSED.items() for op in ops]
    assert missed(set(), mistakes=[m.model_dump() for m in said]) == {"ko": [], "zh": []}


def test_a_caption_no_template_knows_fails_the_check():
    """The check itself: a user's caption, and a built-in one with a word changed, are caught."""
    left = missed(
        {
            ("exchange", "every rank swaps its buffer with a friend"),
            ("reduce", "every rank sends its buffer to rank 2, which adds them"),
        }
    )
    assert all(len(captions) == 2 for captions in left.values()), left
    assert all(len(lines) == 1 for lines in missed(set(), ["(P-1)·N = 1 KiB over the rainbow"]).values())

"""What a request for a run, a training or the straggler demo is refused for, in-process (the app as
`ringside serve` builds it, in_app.py): a body that names a key twice or writes an integer of
thousands of digits; a number written as a string or a boolean; an option the world of four ranks
cannot take (auto's, a perturbation's, the parameter server's S), each 422 naming its field, and
nothing queued. The numbers the page and the CLI send pass."""

from __future__ import annotations

import argparse
import asyncio
import json

import pytest
from in_app import served

from ringside.worker_agent.core.algorithms import parameter_server as ps
from ringside.worker_agent.spec_args import SPEC_FLAGS, chunks, spec_from_args

PS = "parameter_server"

JSON = {"Content-Type": "application/json"}


def refused(tmp_path, ranks: int, asks: list[tuple[str, str, object]]) -> list[tuple[int, dict]]:
    """(status, body) of each (method, path, body) asked of an app with `ranks` ranks joined; a body
    of bytes is sent as it is."""

    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            if ranks:
                s.ranks(ranks)
            said = []
            for method, path, body in asks:
                if isinstance(body, bytes):
                    said.append(await s.call(method, path, content=body, headers=JSON))
                else:
                    said.append(await s.call(method, path, body))
            return said

    return asyncio.run(scenario())


def test_a_body_that_names_a_key_twice_or_an_integer_of_thousands_of_digits_is_refused(tmp_path):
    bodies = [
        (b'{"collective": "all_reduce", "collective": "broadcast"}', "names 'collective' twice"),
        (b'{"collective": "all_reduce", "count": ' + b"9" * 4300 + b"}", "more than 40 digits"),
        (b'{"collective": "all_reduce", "count": ' + b"9" * 41 + b"}", "more than 40 digits"),
    ]
    for (status, answer), (_, why) in zip(
        refused(tmp_path, 0, [("POST", "/api/runs", body) for body, _ in bodies]), bodies
    ):
        assert status == 422 and answer["detail"]["field"] == "body" and why in answer["detail"]["message"], (
            answer
        )


@pytest.mark.parametrize(
    "ask, field",
    [
        ({"root": True}, "root"),
        ({"group": [False, 1]}, "group.0"),
        ({"count": "16"}, "count"),
        ({"count": "١٦"}, "count"),
        ({"chunks": "١٦"}, "chunks"),
        ({"chunks": "4"}, "chunks"),
        ({"count": 16.0}, "count"),
        ({"seed": True}, "seed"),
        ({"verify": 1}, "verify"),
        ({"timeout": "30"}, "timeout"),
        ({"iterations": "2"}, "iterations"),
        ({"perturb": {"hang": {"rank": True, "step": 0}}}, "perturb.hang.rank"),
        ({"perturb": {"straggler": {"rank": 1, "delay_s": "0.1"}}}, "perturb.straggler.delay_s"),
    ],
)
def test_a_number_is_a_json_number(tmp_path, ask, field):
    """A boolean is not a rank, and a string of digits (any script's) is not a count: 422 naming the field."""
    [(status, answer)] = refused(
        tmp_path, 0, [("POST", "/api/runs", {"collective": "all_reduce", "algorithm": "ring", **ask})]
    )
    assert status == 422 and answer["detail"]["field"] == field, answer


def test_json_numbers_as_the_page_and_the_cli_send_them_pass_the_types(tmp_path):
    """What the page's form sends (Number() of every numeric field) reaches the cluster's check (503: no ranks
    here)."""
    ask = {
        "collective": "all_reduce",
        "algorithm": "ring",
        "count": 16,
        "root": 0,
        "group": [0, 1],
        "chunks": 2,
        "seed": 3,
        "iterations": 2,
        "warmup": 0,
        "verify": True,
        "timeout": 30,
        "perturb": {"straggler": {"rank": 1, "delay_s": 1}},
    }
    [(status, answer)] = refused(tmp_path, 0, [("POST", "/api/runs", ask)])
    assert status == 503 and answer["detail"]["field"] == "group", answer
    assert (
        spec_from_args(
            argparse.Namespace(
                **{
                    **dict.fromkeys(SPEC_FLAGS),
                    "spec": None,
                    "group": "0,1",
                    "collective": "all_reduce",
                    "count": 16,
                    "chunks": chunks("auto"),
                    "timeout": 5.0,
                }
            )
        ).count
        == 16
    )


@pytest.mark.parametrize(
    "ask, field",
    [
        ({"steps": "10"}, "steps"),
        ({"hidden": True}, "hidden"),
        ({"lr": "0.5"}, "lr"),
        ({"sync_every": 2.0}, "sync_every"),
    ],
)
def test_a_training_number_is_a_json_number(tmp_path, ask, field):
    [(status, answer)] = refused(tmp_path, 0, [("POST", "/api/trainings", ask)])
    assert status == 422 and answer["detail"]["field"] == field, answer


def total_runs(tmp_path, ranks: int, asks: list[tuple[str, str, object]]) -> tuple[int, list, int]:
    """The runs kept before, (status, body) of each ask, and the runs kept after, on an app with `ranks`
    ranks joined."""

    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            s.ranks(ranks)
            before = await s.total()
            said = [await s.call(method, path, body) for method, path, body in asks]
            return before, said, await s.total()

    return asyncio.run(scenario())


@pytest.mark.parametrize(
    "spec,field",
    [
        ({"collective": "all_reduce", "algorithm": "auto", "root": 7}, "root"),
        ({"collective": "all_reduce", "algorithm": "auto", "count": 0}, "count"),
        ({"collective": "all_reduce", "algorithm": "auto", "chunks": 0}, "chunks"),
        ({"collective": "all_reduce", "algorithm": "native", "chunks": "auto"}, "chunks"),
        ({"collective": "all_reduce", "algorithm": "ring", "chunks": "many"}, "chunks"),
    ],
)
def test_bad_auto_runs_are_refused_naming_the_field(tmp_path, spec, field):
    _, [(status, body)], _ = total_runs(tmp_path, 4, [("POST", "/api/runs", spec)])
    assert status == 422 and body["detail"]["field"] == field, body


def test_bad_perturbations_get_422_naming_the_field_and_queue_nothing(tmp_path):
    ring = {"collective": "all_reduce", "algorithm": "ring", "count": 16}
    cases = [
        ({"straggler": {"rank": 9, "delay_s": 0.1}}, "perturb.straggler.rank"),
        ({"straggler": {"rank": 1, "delay_s": 60}}, "perturb.straggler.delay_s"),
        ({"slow_link": {"a": 2, "b": 2, "bytes_per_s": 1e6}}, "perturb.slow_link.b"),
        ({"slow_link": {"a": 0, "b": 1, "bytes_per_s": 1}}, "perturb.slow_link.bytes_per_s"),
        ({"hang": {"rank": 1, "step": 6}}, "perturb.hang.step"),
        ({"hang": {"rank": 1, "step": 0, "when": "now"}}, "perturb.hang.when"),
    ]
    native_hang = {"collective": "all_reduce", "count": 16, "perturb": {"hang": {"rank": 1, "step": 0}}}
    before, said, after = total_runs(
        tmp_path,
        4,
        [("POST", "/api/runs", {**ring, "perturb": perturb}) for perturb, _ in cases]
        + [
            ("POST", "/api/runs", native_hang),
            ("POST", "/api/perturb/demo", {"straggler": {"rank": 7, "delay_s": 0.1}}),
        ],
    )
    for (status, body), (perturb, field) in zip(said, cases):
        assert status == 422 and body["detail"]["field"] == field, (perturb, body)
    status, body = said[-2]
    assert (
        status == 422 and body["detail"]["field"] == "perturb.hang" and "native" in body["detail"]["message"]
    )
    status, body = said[-1]
    assert status == 422 and body["detail"]["field"] == "perturb.straggler.rank"
    assert after == before
    assert json.dumps(body).count("rank 7") == 1


def test_a_bad_s_gets_a_422_naming_the_field_and_nothing_runs(tmp_path):
    cases = [
        ({"servers": 0}, "servers"),
        ({"servers": 4}, "servers"),
        ({"servers": -1}, "servers"),
        ({"servers": 3, "count": 8}, "count"),
    ]
    before, said, after = total_runs(
        tmp_path,
        4,
        [("POST", "/api/runs", {"collective": PS, "algorithm": ps.NAME, **body}) for body, _ in cases]
        + [("POST", "/api/runs", {"collective": "broadcast", "servers": 1})],
    )
    for (status, answer), (body, field) in zip(said, cases):
        assert status == 422 and answer["detail"]["field"] == field, (body, answer)
    status, answer = said[-1]
    assert status == 422 and answer["detail"]["field"] == "servers"
    assert after == before

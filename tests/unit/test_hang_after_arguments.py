"""What a hang threshold may be, however it is given: `ringside serve --hang-after` (and `up`, which
shares serve's options) for every job the server watches, `ringside.watch --hang-after` and
`ringside.watch(hang_after=)` for one job. Outside 0.25 s to an hour it is refused in one line
before anything starts."""

from __future__ import annotations

import argparse
import json

import pytest

from ringside.server import serve
from ringside.worker_agent import cli
from ringside.worker_agent.core.watch_protocol import WatchHello, hang_after_of
from ringside.worker_agent.watch import __main__ as launcher
from ringside.worker_agent.watch import uplink

REFUSED = ["0", "-1", "0.1", "3601", "nan", "inf", "soon"]


@pytest.mark.parametrize("given", REFUSED)
def test_a_threshold_out_of_its_bounds_is_refused_in_one_line(given):
    with pytest.raises(ValueError) as refused:
        hang_after_of(given)
    assert "\n" not in str(refused.value) and given in str(refused.value)


@pytest.mark.parametrize("command", ["serve", "up"])
@pytest.mark.parametrize("given", ["0", "-2", "1e9"])
def test_serve_and_up_refuse_a_threshold_out_of_bounds(command, given, capsys):
    with pytest.raises(SystemExit) as exit:
        cli.main([command, "--hang-after", given])
    assert exit.value.code == 2
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert said.endswith(f"argument --hang-after: must be from 0.25 to 3600 seconds, not {given}"), said


def test_the_servers_threshold_is_a_second_unless_given():
    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    assert serve.settings_from(parser.parse_args([])).hang_after == 1.0
    assert serve.settings_from(parser.parse_args(["--hang-after", "10"])).hang_after == 10.0


def test_the_launcher_takes_a_jobs_threshold_before_the_program_and_refuses_a_bad_one(capsys):
    options = launcher.parse(["--hang-after", "10", "train.py", "--hang-after", "x"])
    assert options["hang_after"] == 10.0 and options["args"] == ["--hang-after", "x"]  # the program's own
    assert launcher.parse(["--hang-after=2.5", "-m", "pkg.train"])["hang_after"] == 2.5
    with pytest.raises(SystemExit) as exit:
        launcher.parse(["--hang-after", "0", "train.py"])
    assert exit.value.code == "ringside.watch: --hang-after must be from 0.25 to 3600 seconds, not 0"


class Socket:
    """A server's socket, as a reporter's uplink sees it: what was sent on it."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def send(self, text: str) -> None:
        self.sent.append(text)


@pytest.mark.parametrize("hang_after", [None, 10.0])
def test_a_hello_carries_a_threshold_only_where_the_job_set_one(hang_after, monkeypatch):
    """A reporter whose job sets none leaves the field out: an older server, which forbids fields it
    does not know, takes its hello still. One out of bounds is refused where it is parsed."""
    socket = Socket()
    monkeypatch.setattr(uplink, "connect", lambda *a, **k: socket)
    hello = WatchHello(
        job="k",
        rank=0,
        world_size=1,
        host="h",
        pid=1,
        launcher="torchrun",
        backend="gloo",
        started_ns=1,
        hang_after_s=hang_after,
    )
    uplink.Uplink("http://127.0.0.1:1", None).send(hello)
    sent = json.loads(socket.sent[0])
    assert sent.get("hang_after_s") == hang_after and ("hang_after_s" in sent) == (hang_after is not None)
    with pytest.raises(ValueError):
        WatchHello.model_validate({**hello.model_dump(), "hang_after_s": 0})

"""`--notify` (server/watched/notify.py) in-process: the events a watched job's hangs make, said to a
receiver behind httpx's MockTransport (no socket), its backoff's sleeps recorded rather than slept;
the service telling it of a hang as its tick finds one; which URLs a start refuses."""

from __future__ import annotations

import argparse
import asyncio
import json

import httpx
import pytest
from matched import Clock, joined
from test_watch_metrics import Heard, one, rank_3_stopped, said

from ringside.server.config import Settings
from ringside.server.db.database import Database
from ringside.server.serve import REFUSED, add_arguments, server_for, settings_from
from ringside.server.watched import hangs, notify
from ringside.server.watched.notify import BACKOFF_S, TRIES, Notifier, event_of, url_problem
from ringside.server.watched.service import Watching
from ringside.server.watched.store import WatchStore
from ringside.worker_agent.core.watch_protocol import WatchBye
from ringside.worker_agent.rank.local import free_port

PAGE = "http://ringside.example:8000"
URL = "http://receiver.example/hook"


class Receiver:
    """A webhook's receiver: answers each POST with the next of `statuses` (the last one ever after), or
    raises a connection error for None; keeps each event it was sent."""

    def __init__(self, *statuses: int | None):
        self.statuses, self.events, self.slept = list(statuses), [], []
        self.got = asyncio.Event()
        self.want = 1

    def answer(self, request: httpx.Request) -> httpx.Response:
        self.events.append(json.loads(request.content))
        if len(self.events) >= self.want:
            self.got.set()
        status = self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]
        if status is None:
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(status)

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)

    def notifier(self, most: int = 256) -> Notifier:
        client = httpx.AsyncClient(transport=httpx.MockTransport(self.answer))
        return Notifier(URL, PAGE, client, most=most, sleep=self.sleep)


def delivered(receiver: Receiver, event: dict) -> tuple[bool, Notifier]:
    async def main() -> tuple[bool, Notifier]:
        notifier = receiver.notifier()
        try:
            return await notifier.deliver(event), notifier
        finally:
            await notifier.close()

    return asyncio.run(main())


def test_a_receiver_that_fails_twice_is_tried_again_with_backoff_and_takes_the_event():
    receiver = Receiver(500, None, 200)
    taken, notifier = delivered(receiver, {"job": "j-1", "kind": "hang"})
    assert taken and (notifier.sent, notifier.failed) == (1, 0)
    assert receiver.events == [{"job": "j-1", "kind": "hang"}] * 3
    assert receiver.slept == [BACKOFF_S, 2 * BACKOFF_S]


@pytest.mark.parametrize(("status", "tries"), [(503, TRIES), (400, 1)])
def test_a_receiver_that_keeps_failing_is_given_up_on_and_one_that_refuses_is_not_tried_again(status, tries):
    receiver = Receiver(status)
    taken, notifier = delivered(receiver, {"job": "j-1", "kind": "hang"})
    assert not taken and (notifier.sent, notifier.failed) == (0, 1)
    assert len(receiver.events) == tries


class Endless(httpx.AsyncByteStream):
    """A body that never ends: what of it the notifier reads is counted."""

    def __init__(self) -> None:
        self.read = 0

    async def __aiter__(self):
        while True:
            self.read += 1
            yield b"x" * 65536


def sent_to(handler, monkeypatch) -> tuple[bool, list[float]]:
    """Whether one event was taken by a receiver answering as `handler` does, and the backoffs."""
    monkeypatch.setattr(notify, "POST_WITHIN_S", 0.05)
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async def main() -> bool:
        client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        notifier = Notifier(URL, PAGE, client, sleep=sleep)
        try:
            return await notifier.deliver({"job": "j-1", "kind": "hang"})
        finally:
            await notifier.close()

    return asyncio.run(main()), slept


def test_a_receiver_s_body_is_never_read_and_one_that_never_answers_is_given_up_on(monkeypatch):
    body = Endless()
    taken, _ = sent_to(lambda request: httpx.Response(200, stream=body), monkeypatch)
    assert taken and body.read <= 1, "a body of any length holds no memory: the status is all"

    async def silent(request: httpx.Request) -> httpx.Response:
        await asyncio.Event().wait()  # answers nothing, ever
        raise AssertionError("unreachable")

    taken, slept = sent_to(silent, monkeypatch)
    assert not taken and len(slept) == TRIES - 1, "each try ends at POST_WITHIN_S, then the next"


def test_past_its_bound_the_queue_drops_the_oldest_and_counts_it_and_sends_the_rest_in_order():
    async def main() -> tuple[Receiver, Notifier]:
        receiver = Receiver(200)
        notifier = receiver.notifier(most=3)
        for n in range(5):
            notifier.put({"job": f"j-{n}", "kind": "hang"})  # returns at once: nothing is sent yet
        assert (len(notifier.queue), notifier.dropped) == (3, 2)
        receiver.want = 3
        task = asyncio.create_task(notifier.run())
        await asyncio.wait_for(receiver.got.wait(), 10)
        task.cancel()
        await notifier.close()
        return receiver, notifier

    receiver, notifier = asyncio.run(main())
    assert [e["job"] for e in receiver.events] == ["j-2", "j-3", "j-4"]
    lines = "\n".join(notifier.metrics())
    assert 'ringside_notify_events_total{outcome="dropped"} 2' in lines
    assert 'ringside_notify_events_total{outcome="sent"} 3' in lines


def test_a_hang_and_its_end_are_events_naming_the_late_rank_the_collective_and_the_page():
    watched = rank_3_stopped(Clock())
    hang, words = hangs.hang_change(watched)
    began = event_of(watched, None, hang, words, PAGE)
    assert {k: began[k] for k in ("job", "kind", "ranks", "waiting", "collective", "link")} == {
        "job": "j-000001",
        "kind": "hang",
        "ranks": [3],
        "waiting": [0, 1, 2],
        "collective": {"op": "all_reduce", "group": "0", "seq": 3, "dtype": "float32", "count": 10},
        "link": f"{PAGE}/?job=j-000001",
    }
    assert began["lines"][0] == "ranks 0, 1, 2 wait in all_reduce #3 (10 float32)", began["lines"]
    assert began["lines"][1].startswith("rank 3 last reported #1"), began["lines"]
    assert began["text"] == f"Ringside: j-000001 () hang: {'; '.join(began['lines'])} {PAGE}/?job=j-000001"

    said(watched, 3, one(2), one(3, count=10), pending={})
    over, words = hangs.hang_change(watched)
    ended = event_of(watched, hang, over, words, PAGE)
    assert (ended["kind"], ended["ranks"]) == ("resolved", [3])
    assert ended["lines"][0].startswith("rank 3 caught up: all_reduce #3 went on after"), ended["lines"]


def test_ranks_that_disagree_are_a_desync_event():
    watched = joined(4, Clock())
    for rank in range(4):
        said(watched, rank, one(9).model_copy(update={"op": "broadcast" if rank == 2 else "allreduce"}))
    hang, words = hangs.hang_change(watched)
    event = event_of(watched, None, hang, words, PAGE)
    assert (event["kind"], event["ranks"], event["collective"]["seq"]) == ("desync", [2], 9)


def test_the_service_tells_of_a_hang_as_its_tick_finds_it_and_as_the_job_ends_in_it(tmp_path):
    told = []
    database = Database(tmp_path / "runs.db")
    try:
        watching = Watching(WatchStore(database), Heard())
        watching.hang_changed = lambda *change: told.append(change)
        watched = rank_3_stopped(Clock())
        watching.store.save(watched.job, new=True)
        watching.live["k"] = watched  # as join holds it, on the test's clock
        watching.check(summarise=False)
        watching.check(summarise=False)  # the same hang, longer: not told again
        assert len(told) == 1
        job, old, hang, words = told[0]
        assert job is watched and old is None and hang.late == [3] and words == hang.words
        for rank in range(4):  # the backend's timeout ends the waiting ranks; rank 3 is killed
            if rank < 3:
                watched.bye(WatchBye(rank=rank, exit_code=1, error="RuntimeError: timed out"))
            watched.left(rank)
        watching.check(summarise=False)
    finally:
        database.close()
    assert len(told) == 2 and not watching.live
    job, old, hang, words = told[1]
    assert old.late == [3] and hang is None
    ended = event_of(job, old, hang, words, PAGE)
    assert (ended["kind"], ended["ranks"]) == ("resolved", [3])
    assert ended["lines"] == ["all_reduce #3 never completed: rank 3 went; ranks 0, 1, 2 ended"]


@pytest.mark.parametrize(
    ("url", "refused"),
    [
        ("https://hooks.example/T0/B0?x=1", False),
        ("http://127.0.0.1:9000/hook", False),
        ("ftp://hooks.example/hook", True),
        ("hooks.example/hook", True),
        ("http:///hook", True),
    ],
)
def test_only_an_http_or_https_url_with_a_host_takes_events(url, refused):
    problem = url_problem(url)
    assert (problem is not None) == refused, problem
    if refused:
        assert problem.startswith(f"--notify {url}: ") and "\n" not in problem


def test_a_start_given_a_url_that_cannot_take_events_is_refused_in_one_line(tmp_path, capsys):
    settings = Settings(port=free_port(), db=tmp_path / "runs.db", notify="ftp://hooks.example/hook")
    with pytest.raises(SystemExit) as stopped:
        server_for(settings)
    assert stopped.value.code == REFUSED  # docs/operate.md: Exit status
    assert capsys.readouterr().err.splitlines() == [
        "error: --notify ftp://hooks.example/hook: give an http:// or https:// URL with a host"
    ]
    assert not settings.db.exists(), "refused before the store is opened"


def test_the_url_comes_from_the_environment_where_not_given_and_the_flag_wins(monkeypatch):
    monkeypatch.setenv("RINGSIDE_NOTIFY", "https://hooks.example/secret")
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert settings_from(parser.parse_args([])).notify == "https://hooks.example/secret"
    assert settings_from(parser.parse_args(["--notify", URL])).notify == URL


def test_a_script_named_as_a_mention_is_text_in_a_chat():
    assert notify.chat("<!channel> & <https://x|y>") == "&lt;!channel&gt; &amp; &lt;https://x|y&gt;"

"""What a watched job says (its hangs and events) is phrases, which the page renders in its own language
(frontend/js/i18n/phrases.js): every phrase the server can say has its words in English, Korean and
Chinese, with the same arguments; and for hangs and events a real matching makes, fed the reports its
ranks would send, the server's English text is the page's English rendering of its phrases, and the
Korean and Chinese renderings leave no English word but identifiers."""

from __future__ import annotations

import re
from pathlib import Path

from matched import Clock, joined
from node_script import node_json

from ringside.server.watched import hangs, rank_waits, words
from ringside.server.watched.bounds import Bounds
from ringside.server.watched.live import LiveWatchedJob
from ringside.server.watched.record import Hang
from ringside.worker_agent.core.watch_protocol import Issued, Link, P2PWait, WatchBye, WatchReport

ROOT = Path(__file__).resolve().parents[2]
# kept as they are in every language: the calls' names, units, and "rank" as the Chinese note writes it
KEPT = {"ko": {"send", "recv", "MB"}, "zh": {"send", "recv", "MB", "rank"}}


def one(seq: int, op: str = "allreduce", count: int = 1000, count_out: int | None = None, dtype="float32"):
    return Issued(group="0", seq=seq, op=op, dtype=dtype, count=count, count_out=count_out, t_ns=5 + seq)


def said(watched: LiveWatchedJob, rank: int, *issued: Issued, **fields) -> None:
    watched.report(WatchReport(rank=rank, t_ns=10, issued=list(issued), **fields))


def heard(watched: LiveWatchedJob, clock: Clock, ranks) -> None:
    for rank in ranks:
        watched.presence.heard[rank] = clock.t


def checked(watched: LiveWatchedJob) -> Hang:
    hangs.hang_change(watched)
    assert watched.job.hang is not None
    return watched.job.hang


def a_stopped_rank() -> list[Hang]:
    """Ranks 0, 1, 3 in all_reduce #3, rank 2 stopped after #2 (late, then silent); then it goes on."""
    clock = Clock()
    watched = joined(4, clock)
    for rank in range(4):
        said(watched, rank, one(2), pending={}, where=f"train.py:{40 + rank}")
    for rank in (0, 1, 3):
        said(watched, rank, one(3), pending={"0": 3}, where=f"train.py:{50 + rank}")
    clock.t += rank_waits.HANG_S + 0.5
    late = checked(watched)
    clock.t += rank_waits.SILENT_S
    heard(watched, clock, (0, 1, 3))
    silent = checked(watched)
    said(watched, 2, one(3), pending={})
    hangs.hang_change(watched)
    return [late, silent, *watched.job.events]


def a_silence() -> list:
    """Rank 1 says nothing while the others go on, nothing open; then it reports again."""
    clock = Clock()
    watched = joined(3, clock)
    for rank in range(3):
        said(watched, rank, one(1), pending={}, where="loop.py:9")
    clock.t += rank_waits.SILENT_S + 0.5
    heard(watched, clock, (0, 2))
    hang = checked(watched)
    said(watched, 1, where="loop.py:9")
    hangs.hang_change(watched)
    return [hang, *watched.job.events]


def a_deadlock() -> list:
    """Four ranks each blocked in a receive from its left, none of which has sent."""
    watched = joined(4, Clock())
    for rank in range(4):
        left = (rank - 1) % 4
        wait = P2PWait(peer=left, send=False, nth=1, count=1024, dtype="float32", t_ns=1)
        said(
            watched,
            rank,
            where=f"ring.py:{20 + rank}",
            waits=[wait],
            links=[Link(peer=left, receives_total=1, sends_total=0)],
        )
    return [checked(watched)]


def mismatches() -> list:
    """Rank 2 all-reduces another size; an all_to_all whose ranks put in more than they take out."""
    sizes = joined(4, Clock())
    for rank in range(4):
        said(sizes, rank, one(7, count=2000 if rank == 2 else 1000))
    splits = joined(2, Clock())
    for rank in range(2):
        said(splits, rank, one(1, "all_to_all", 100, 90))
    return [checked(sizes), checked(splits)]


def a_large_wait() -> list:
    """64 ranks, 40 of them scattered and late to a collective the others issued."""
    clock = Clock()
    watched = joined(64, clock)
    late = set(range(0, 40, 2)) | set(range(44, 60))
    for rank in range(64):
        said(watched, rank, one(1), pending={})
        if rank not in late:
            said(watched, rank, one(2), pending={"0": 2})
    clock.t += rank_waits.HANG_S + 0.5
    return [checked(watched)]


def endings_and_bounds() -> list:
    """Ranks that end each way, one that goes without a goodbye, the job's end; what a job may not keep."""
    watched = joined(4, Clock())
    for rank, (code, error) in enumerate(
        [(1, "ValueError: boom"), (143, "SIGTERM"), (0, None), (1, "timeout")]
    ):
        watched.bye(WatchBye(rank=rank, exit_code=code, error=error))
    bounds = Bounds(4, watched.note)
    bounds.screen(WatchReport(rank=0, t_ns=1, links=[Link(peer=9, sent=8, sends=1)]))
    for rank in range(4):
        watched.left(rank)
    assert watched.ended(0.0)
    return list(watched.job.events)


def every_said() -> list[tuple[str, list[words.Phrase]]]:
    said_ = [
        *a_stopped_rank(),
        *a_silence(),
        *a_deadlock(),
        *mismatches(),
        *a_large_wait(),
        *endings_and_bounds(),
    ]
    return [(one.text, one.words) for one in said_]


def node_said(phrases: list[list[words.Phrase]]) -> dict:
    return node_json("phrases-cover.mjs", {"words": [[p.model_dump() for p in w] for w in phrases]})


SLOTS = re.compile(r"\{(\w+),?\}")


def test_every_phrase_the_server_says_has_its_words_in_english_korean_and_chinese():
    tables = node_said([])["tables"]
    assert tables["en"] == words.ENGLISH, "the page's English is the server's"
    for lang in ("ko", "zh"):
        assert sorted(tables[lang]) == sorted(words.ENGLISH), lang
        for key, english in words.ENGLISH.items():
            assert sorted(SLOTS.findall(tables[lang][key])) == sorted(SLOTS.findall(english)), (lang, key)


def test_the_servers_english_is_the_pages_and_korean_and_chinese_keep_no_english():
    said_ = every_said()
    keys = {key for _, w in said_ for p in w for key in keys_of(p)}
    assert {
        "last_reported",
        "said_nothing",
        "deadlock",
        "disagree_why",
        "splits_disagree",
        "caught_up",
    } <= keys
    assert {"reports_again", "ranks_more", "stopped_by", "peer_beyond", "job_failed"} <= keys
    rendered = node_said([w for _, w in said_])["rendered"]
    assert rendered["en"] == [text for text, _ in said_]
    for lang in ("ko", "zh"):
        for text, shown in zip([t for t, _ in said_], rendered[lang], strict=True):
            assert "{" not in shown, shown
            left = [w for w in english_words(shown) if w not in KEPT[lang]]
            # what a rank raised is its own words, in its language, and a signal is its name
            assert not [w for w in left if w not in ("ValueError", "boom", "timeout", "SIGTERM")], (
                lang,
                text,
                shown,
                left,
            )


def keys_of(phrase: words.Phrase) -> set[str]:
    """The phrase's key and its arguments' keys."""
    inner = [a for v in phrase.args.values() for a in (v if isinstance(v, list) else [v])]
    return {phrase.key}.union(*(keys_of(a) for a in inner if isinstance(a, words.Phrase)))


def english_words(text: str) -> list[str]:
    """Words of two or more Latin letters that are not identifiers (all_reduce, float32, train.py:40)."""
    tokens = re.findall(r"[A-Za-z0-9][A-Za-z0-9_.:+\-]*", text)
    return [
        t
        for t in (t.strip(".:-+") for t in tokens)
        if not re.search(r"[_\d]|\w\.\w", t) and len(re.sub(r"[^A-Za-z]", "", t)) >= 2
    ]


def test_a_job_an_older_server_kept_shows_its_events_by_their_text():
    from ringside.server.watched.record import WatchedJob

    old = {
        "id": "j-1",
        "key": "k",
        "started_at": 1,
        "t0_ns": 1,
        "world_size": 2,
        "backend": "gloo",
        "script": "x",
    }
    job = WatchedJob.model_validate({**old, "events": [[1.5, "rank 1 ended"]]})
    assert [(e.t, e.text, e.words) for e in job.events] == [(1.5, "rank 1 ended", [])]

"""`ringside serve --notify URL`: each watched job's hang, desync (ranks that disagree) and deadlock,
and the end of each, POSTed to URL as one JSON event, for a chat channel's webhook or an on-call
tool's. The watch's tick only queues an event (`Notifier.hang_changed`); a task of its own sends
them, retrying a failed POST with backoff, so a receiver that is slow or down never holds the event
loop. The queue is bounded: past QUEUE events the oldest is dropped, and counted on /metrics.

An event: {"job", "script", "kind" (hang, desync, deadlock or resolved), "ranks" (the ranks to
blame: the ones the others wait for, the odd ones of a desync, the cycle of a deadlock), "waiting",
"collective" ({"op", "group", "seq", "dtype", "count"}; op "send" or "recv" and seq -1 for a send or
receive; null for a silence), "lines" (the verdict in English, a line a phrase), "link" (the job's
page, without a token: who opens it gives theirs), "text" (all of it in a line, the field chat
webhooks read)}."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable

import httpx

from ringside.server.cluster.metrics import exposition
from ringside.server.watched.live import LiveWatchedJob
from ringside.server.watched.record import Hang
from ringside.server.watched.words import Phrase, english

log = logging.getLogger("ringside.server")
QUEUE = 256  # events waiting to be sent; past it the oldest is dropped
TRIES = 4  # a POST tried this many times, waiting BACKOFF_S, then twice as long each time again
BACKOFF_S = 1.0
POST_WITHIN_S = 10.0  # each of a POST's connect, write and wait for its answer may take this long
MAX_RANKS = 256  # ranks an event names in each list; a job of thousands says the rest in its lines
RETRIED = {408, 425, 429}  # besides 5xx: a receiver that asks to be tried again
KINDS = {"wait": "hang", "silent": "hang", "mismatch": "desync", "deadlock": "deadlock"}


def url_problem(url: str) -> str | None:
    """Why `url` cannot take events, in words; None if it can (an http or https URL with a host)."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as e:
        return f"--notify {url}: not a URL ({e})"
    if parsed.scheme not in ("http", "https") or not parsed.host:
        return f"--notify {url}: give an http:// or https:// URL with a host"
    return None


def event_of(
    watched: LiveWatchedJob, old: Hang | None, hang: Hang | None, words: list[Phrase], page: str
) -> dict:
    """The event for a hang that began (`hang`), changed, or ended (`hang` None: `old` was)."""
    job = watched.job
    about = hang or old
    assert about is not None, "hang_change says only what began or ended"
    collective = None
    if about.op:
        collective = {
            "op": about.op,
            "group": watched.group_label(about.group) if about.group else "",
            "seq": about.seq,
            "dtype": about.dtype,
            "count": about.count,
        }
    kind = KINDS[hang.kind] if hang is not None else "resolved"
    lines = [english([phrase]) for phrase in words]
    link = f"{page}/?job={job.id}"
    return {
        "job": job.id,
        "script": job.script,
        "kind": kind,
        "ranks": about.late[:MAX_RANKS],
        "waiting": about.waiting[:MAX_RANKS],
        "collective": collective,
        "lines": lines,
        "link": link,
        "text": f"Ringside: {job.id} ({chat(job.script)}) {kind}: {chat('; '.join(lines))} {link}",
    }


class Notifier:
    """Events for one URL: queued by the watch's tick, sent by `run` (a task) one at a time, in order."""

    def __init__(
        self,
        url: str,
        page: str,
        client: httpx.AsyncClient | None = None,
        most: int = QUEUE,
        backoff_s: float = BACKOFF_S,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ):
        self.url, self.page, self.most, self.backoff_s, self.sleep = url, page, most, backoff_s, sleep
        self.client = client or httpx.AsyncClient(timeout=POST_WITHIN_S)
        self.queue: deque[dict] = deque()
        self.ready = asyncio.Event()
        self.sent = self.failed = self.dropped = 0

    def hang_changed(
        self, watched: LiveWatchedJob, old: Hang | None, hang: Hang | None, words: list[Phrase]
    ) -> None:
        self.put(event_of(watched, old, hang, words, self.page))

    def put(self, event: dict) -> None:
        """Queued, the oldest dropped past `most`; never waits."""
        if len(self.queue) >= self.most:
            self.queue.popleft()
            self.dropped += 1
        self.queue.append(event)
        self.ready.set()

    async def run(self) -> None:
        """Until cancelled: each queued event sent, oldest first."""
        while True:
            while not self.queue:
                self.ready.clear()
                await self.ready.wait()
            await self.deliver(self.queue.popleft())

    async def deliver(self, event: dict) -> bool:
        """POST `event`, tried up to TRIES times while the receiver fails in a way worth trying again."""
        why = ""
        for attempt in range(TRIES):
            if attempt:
                await self.sleep(self.backoff_s * 2 ** (attempt - 1))
            try:
                status = await self.post(event)
            except httpx.HTTPError as e:
                why = f"{type(e).__name__}: {e}"
                continue
            except asyncio.TimeoutError:
                why = f"no whole answer within {POST_WITHIN_S:g} s"
                continue
            if 200 <= status < 300:
                self.sent += 1
                return True
            why = f"HTTP {status}"
            if status < 500 and status not in RETRIED:
                break  # the receiver refuses this event: trying it again would change nothing
        self.failed += 1
        log.warning("--notify: the %s event of job %s was not taken (%s)", event["kind"], event["job"], why)
        return False

    async def post(self, event: dict) -> int:
        """The receiver's status for `event`, its body never read (a receiver that answers a long one
        holds no memory), the whole exchange within POST_WITHIN_S (one that trickles holds no queue)."""
        return await asyncio.wait_for(self._status(event), POST_WITHIN_S)

    async def _status(self, event: dict) -> int:
        async with self.client.stream("POST", self.url, json=event) as answer:
            return answer.status_code

    async def close(self) -> None:
        await self.client.aclose()

    def metrics(self) -> list[str]:
        """Its lines on /metrics."""
        return [
            *exposition(
                "ringside_notify_events_total",
                "counter",
                "Watched jobs' events for --notify since the server started, by outcome: sent (taken), "
                f"failed (not taken after {TRIES} tries, or refused), dropped (the oldest of {QUEUE} "
                "waiting, dropped for a new one).",
                [
                    ('{outcome="sent"}', self.sent),
                    ('{outcome="failed"}', self.failed),
                    ('{outcome="dropped"}', self.dropped),
                ],
            ),
            *exposition(
                "ringside_notify_queued",
                "gauge",
                "Events waiting to be sent to --notify.",
                [("", len(self.queue))],
            ),
        ]


def chat(words: str) -> str:
    """Words a job's ranks chose (its script's name), as a chat's webhook shows them and no more: the
    <, > and & that Slack and Mattermost read as a mention or a link escaped."""
    return words.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

"""A running job's Flight Recorder, read from torch.distributed.debug's server (start_debug_server on
every rank): no relaunch. Its page on rank 0 (port 25999 by default) lists in the job's TCPStore
where each rank's worker server listens; each worker serves its recorder's JSON (`fr_trace_json`) and
its threads' Python stacks (`dump_traceback`). Ringside asks every worker itself, each within
ASK_WITHIN_S: the page asks them all and waits for the slowest, up to a minute for a stopped one.
Only workers on the debug server's own host, or a host the user named, are asked (workers.py); no
answer is followed elsewhere (a redirect is refused), and each is read up to MAX_BYTES within
ANSWER_WITHIN_S.

`snapshot` is the job's dumps at one moment (what `ringside open --print URL` judges). `Bridge`
reports the job live to a server: a reporter per rank over /ws/watch, as ringside.watch's are, fed
from each poll; a rank whose worker does not answer says nothing, and the server names the silence
as it names a stopped rank's; one whose worker refuses the connection is gone."""

from __future__ import annotations

import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

from websockets.sync.client import ClientConnection, connect

from ringside.watch.flight import FlightReader
from ringside.worker_agent.core.protocol import socket_url
from ringside.worker_agent.core.watch_protocol import WatchHello

from .dumps import MAX_BYTES, DumpError, RankDump, parse
from .reports import LIBRARIES, Groups, backend_of, job_key, report
from .workers import Worker, listed, page_url

ASK_WITHIN_S = 2.0  # a worker's answer: a stopped process's is never coming
ANSWER_WITHIN_S = 10.0  # all of an answer, however slowly it comes
POLL_S = 1.0
FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<name>\S+)')


class Gone(Exception):
    """A worker that refused the connection: its process has ended."""


def workers(url: str, allowed: Iterable[str] = ()) -> dict[int, Worker]:
    """Each rank's worker server, as the debug server's page lists the job's store (workers.py)."""
    try:
        page = _get(page_url(url, "/tcpstore"), 10.0, post=False).decode(errors="replace")
    except (OSError, Gone) as e:
        raise DumpError(f"cannot read torch.distributed.debug's server at {url} ({e})") from None
    found = listed(page, url, allowed)
    if not found:
        raise DumpError(f"{url}: no worker listed (is it torch.distributed.debug's server, on rank 0?)")
    return found


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer, not an address to follow: it would lead past the hosts checked."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def _get(url: str, within: float, post: bool = True) -> bytes:
    request = urllib.request.Request(url, data=b"" if post else None, method="POST" if post else "GET")
    try:
        with _OPENER.open(request, timeout=within) as answer:
            return _body(answer, url)
    except urllib.error.URLError as e:
        if isinstance(e.reason, ConnectionRefusedError):
            raise Gone(str(e.reason)) from None
        raise


def _body(answer, url: str) -> bytes:
    """An answer whole, up to MAX_BYTES and within ANSWER_WITHIN_S; OSError past either."""
    deadline, chunks, size = time.monotonic() + ANSWER_WITHIN_S, [], 0
    while chunk := answer.read1(1 << 16):
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_BYTES:
            raise OSError(f"{url} answered more than {MAX_BYTES >> 20} MiB")
        if time.monotonic() > deadline:
            raise OSError(f"{url} took more than {ANSWER_WITHIN_S:.0f} s to answer")
    return b"".join(chunks)


def ask(worker: Worker, handler: str) -> bytes:
    return _get(worker.url(handler), ASK_WITHIN_S)


def main_line(traceback: str) -> str | None:
    """The main thread's innermost line outside libraries, from faulthandler's dump of every thread:
    the thread whose outermost frame is a script's (`<module>`), else the oldest thread, which
    faulthandler lists last (a job run with -m starts in runpy); never the worker server's own."""
    threads = [FRAME.findall(b) for b in traceback.split("\n\n") if not b.startswith("Current thread")]
    threads = [frames for frames in threads if frames]
    main = next((frames for frames in threads if frames[-1][2] == "<module>"), threads[-1] if threads else [])
    for file, line, _ in main:
        if not file.startswith("<") and not any(lib in file for lib in LIBRARIES):
            return f"{file.rsplit('/', 1)[-1]}:{line}"[:300]  # the protocol's bound, whatever the stacks hold
    return None


def snapshot(url: str, allowed: Iterable[str] = ()) -> list[RankDump]:
    """Every rank's recorder now, from those that answer."""
    found = workers(url, allowed)
    with ThreadPoolExecutor(min(32, len(found))) as pool:
        answers = list(pool.map(lambda rank: _read(rank, found[rank]), sorted(found)))
    return [a for a in answers if isinstance(a, RankDump)]


def _read(rank: int, worker: Worker) -> RankDump | Exception:
    try:
        dump = parse(ask(worker, "fr_trace_json"), f"rank {rank}'s worker {worker.origin}")
        return RankDump(rank, worker.origin, dump, time.time_ns())
    except (OSError, Gone, DumpError) as e:
        return e


class Bridge:
    """The job reported live to a Ringside server, a socket per rank, until every worker is gone or
    `stopping` is set."""

    def __init__(
        self, url: str, found: dict[int, Worker], server: str, token: str | None, stopping: threading.Event
    ):
        """`found`: the job's workers, as `workers` read them from the debug server at `url`."""
        self.url, self.server, self.token, self.stopping = url, server, token, stopping
        self.found = dict(found)
        self.world = max(self.found) + 1
        self.readers = {rank: FlightReader() for rank in self.found}
        self.sockets: dict[int, ClientConnection] = {}
        self.groups = Groups()

    def run(self) -> None:
        with ThreadPoolExecutor(min(32, len(self.found))) as pool:
            while self.found and not self.stopping.is_set():
                began = time.monotonic()
                polled = dict(zip(self.found, pool.map(self._poll, self.found)))
                self._report(polled)
                self.stopping.wait(max(0.0, POLL_S - (time.monotonic() - began)))
        for ws in self.sockets.values():
            ws.close()

    def _poll(self, rank: int) -> tuple[RankDump, str | None] | Exception:
        dump = _read(rank, self.found[rank])
        if isinstance(dump, Exception):
            return dump
        try:
            where = main_line(ask(self.found[rank], "dump_traceback").decode(errors="replace"))
        except (OSError, Gone):
            where = None
        return dump, where

    def _report(self, polled: dict[int, tuple[RankDump, str | None] | Exception]) -> None:
        answered = {rank: got for rank, got in polled.items() if not isinstance(got, Exception)}
        issued = {rank: self.readers[rank].take(dump.dump) for rank, (dump, _) in answered.items()}
        for rank, (dump, _) in answered.items():
            self.groups.learn(rank, dump.dump, issued[rank])
        if not self.sockets:
            self._hello([dump.dump for dump, _ in answered.values()])
        members = self.groups.changed()
        for rank, got in polled.items():
            if isinstance(got, Gone):  # its process ended: its socket goes, as the rank's own would
                self.found.pop(rank)
                self.sockets.pop(rank).close()
            elif rank in answered:
                dump, where = answered[rank]
                said = report(
                    rank,
                    issued[rank],
                    self.readers[rank],
                    members,
                    self.groups.names(members),
                    t_ns=time.time_ns(),
                    where=where,
                )
                for one in said:
                    self.sockets[rank].send(one.model_dump_json())

    def _hello(self, dumps: list[dict]) -> None:
        """Every rank joins at the first poll (one that did not answer is silent from the start)."""
        key, backend = job_key("debug", self.url), backend_of(dumps)
        # the job's clock starts at the oldest collective the rings still hold
        started = min(
            (e["time_created_ns"] for d in dumps for e in d.get("entries", ())), default=time.time_ns()
        )
        for rank, worker in self.found.items():
            hello = WatchHello(
                job=key,
                rank=rank,
                world_size=self.world,
                host=worker.host or "unknown",
                pid=0,
                launcher="debug_server",
                backend=backend,
                script=self.url[:200],
                started_ns=started,
                mechanisms=["flight_recorder"],
            )
            headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
            ws = connect(socket_url(self.server, "/ws/watch"), additional_headers=headers, open_timeout=10)
            ws.send(hello.model_dump_json())
            self.sockets[rank] = ws

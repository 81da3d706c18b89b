"""`ringside open PATH...`: a job's Flight Recorder dumps, judged as a watched job is, after the fact.

PATH is a folder or files of per-rank dumps as torch writes them (pickled, as the watchdog writes
TORCH_FR_DUMP_TEMP_FILE and the rank; or JSON), or the address of torch.distributed.debug's server on
a running job. The verdict is printed; the job is then shown in the page: on a running server with
--server (the worker token, as a watched job's ranks use), else on a server started here on loopback,
as `ringside up` does, until Ctrl-C. --print only prints. The exit status says whether a hang was
found (1) or not (0); 2 is a refusal (the dumps, the server), said in one line on stderr, whatever
the files hold: what they may cost is bounded as they are read (dumps.py), and a debug page's
workers are asked only on the debug server's own host, or one named with --allow-host (workers.py)."""

from __future__ import annotations

import argparse
import os
import sys
import threading
import urllib.request
from collections.abc import Callable
from pathlib import Path

from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from ringside.server.postmortem.judge import judged, verdict
from ringside.worker_agent.core.dump_protocol import DumpedRank, DumpsHello, DumpsOpened
from ringside.worker_agent.core.protocol import socket_url
from ringside.worker_agent.core.watch_protocol import MAX_JOB_WORLD

from . import debug_server
from .dumps import DumpError, read_paths
from .reports import opened

ANSWER_WITHIN_S = 120.0  # the server judges a job of many ranks before it answers
# what reading data may raise where no check said why first: a refusal all the same, never exit 1
UNREADABLE = (
    ValueError,
    TypeError,
    LookupError,
    AttributeError,
    ArithmeticError,
    RecursionError,
    MemoryError,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="folders or files of per-rank Flight Recorder dumps (pickle or JSON; the rank is the "
        "name's last number), or torch.distributed.debug's server on a running job (http://HOST:25999)",
    )
    parser.add_argument(
        "--allow-incomplete-ranks",
        action="store_true",
        help="open the dumps though some ranks left none (as fr_trace's flag does)",
    )
    parser.add_argument(
        "--world-size",
        type=int,
        help="the job's ranks, where the dumps cannot say (gloo's name no groups: the highest rank's "
        "dump says it, unless that rank left none)",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST",
        help="ask a debug page's workers on this host too (again for more): by default only those on "
        "the debug server's own host are asked, and a page listing others is refused",
    )
    parser.add_argument("--print", action="store_true", help="print the verdict and exit; serve nothing")
    parser.add_argument(
        "--server", help="add the job to this running server (http://HOST:8000) instead of starting one"
    )
    parser.add_argument(
        "--token",
        default=os.environ.get("RINGSIDE_WORKER_TOKEN"),
        help="with --server: its worker token (default: $RINGSIDE_WORKER_TOKEN)",
    )
    parser.add_argument(
        "--port", type=int, default=8000, help="the local server's port (default %(default)s)"
    )
    parser.add_argument("--db", type=Path, help="the local server's SQLite file (default: ringside serve's)")


def main(args: argparse.Namespace) -> int:
    if args.world_size is not None and not 1 <= args.world_size <= MAX_JOB_WORLD:
        return refused(f"--world-size must be 1 to {MAX_JOB_WORLD:,}, the largest job Ringside watches")
    live = args.paths[0].startswith(("http://", "https://"))
    if live and len(args.paths) > 1:
        return refused("one debug server's address, or folders and files of dumps: not both")
    if live and not args.print:
        return _live(args)
    try:
        dumps = debug_server.snapshot(args.paths[0], args.allow_host) if live else read_paths(args.paths)
        if not dumps:
            raise DumpError(f"no worker of {args.paths[0]} answered")
        said, ranks = opened(dumps, " ".join(args.paths), args.world_size, args.allow_incomplete_ranks)
        w = judged("-", said, ranks) if args.print else None
    except DumpError as e:
        return refused(str(e))
    except UNREADABLE as e:  # what the checks (fields.py) should have said first: still one line
        first = str(e).partition("\n")[0][:200]
        return refused(f"{' '.join(args.paths)[:200]}: cannot be read as dumps ({type(e).__name__}: {first})")
    if w is not None:
        print(verdict(w), flush=True)
        return 1 if w.job.hang else 0
    if args.server:
        return _shown(args.server, args.token, said, ranks)
    return _local(args, lambda url, token, _: _shown(url, token, said, ranks))


def refused(text: str) -> int:
    """Exit status 2, and why in one line: a file's name or a page's text may hold a newline."""
    line = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)
    print(f"ringside open: error: {line}", file=sys.stderr, flush=True)
    return 2


def send(server: str, token: str | None, said: DumpsHello, ranks: list[DumpedRank]) -> DumpsOpened:
    """The dumps to a server over /ws/dumps, and its answer; DumpError saying why it refused them."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with connect(socket_url(server, "/ws/dumps"), additional_headers=headers, open_timeout=10) as ws:
            ws.send(said.model_dump_json())
            for rank in ranks:
                ws.send(rank.model_dump_json())
            return DumpsOpened.model_validate_json(ws.recv(timeout=ANSWER_WITHIN_S))
    except InvalidStatus as e:
        status = e.response.status_code
        need = (
            ": it needs the worker token (--token or $RINGSIDE_WORKER_TOKEN)" if status in (401, 403) else ""
        )
        raise DumpError(f"the server at {server} answered {status}{need}") from None
    except ConnectionClosed as e:
        reason = e.rcvd.reason if e.rcvd else "the connection closed"
        raise DumpError(f"the server at {server} refused the dumps: {reason}") from None
    except (OSError, TimeoutError) as e:
        raise DumpError(f"cannot reach the server at {server} ({e})") from None


def _shown(server: str, token: str | None, said: DumpsHello, ranks: list[DumpedRank]) -> int:
    try:
        answer = send(server, token, said, ranks)
    except DumpError as e:
        return refused(str(e))
    print(answer.verdict)
    print(f"job {answer.job}: {server.rstrip('/')}/?job={answer.job}", flush=True)
    return 1 if answer.hang else 0


def _live(args: argparse.Namespace) -> int:
    """The job behind a debug server, reported live: to --server, or to a server started here."""
    url = args.paths[0]
    try:  # before any server starts: a page refused ends the command
        found = debug_server.workers(url, args.allow_host)
    except DumpError as e:
        return refused(str(e))

    def bridge(server: str, token: str | None, stopping: threading.Event | None = None) -> int:
        stopping = stopping or threading.Event()
        ranks = debug_server.Bridge(url, found, server, token, stopping)
        print(f"reporting {ranks.world} ranks of {url} to {server}: its page shows the job live", flush=True)
        try:
            ranks.run()
        except (InvalidStatus, ConnectionClosed, OSError) as e:
            return refused(f"the server at {server} ({type(e).__name__}: {e})")
        except KeyboardInterrupt:
            stopping.set()
        return 0

    if args.server:
        return bridge(args.server, args.token)
    return _local(args, bridge)


def _local(args: argparse.Namespace, show: Callable[[str, str, threading.Event], int]) -> int:
    """A server on loopback (as `ringside up` starts one), `show(url, worker token, stopping)` once it
    answers, until Ctrl-C."""
    from ringside.server import serve
    from ringside.server.config import Settings, default_db

    settings = Settings(port=args.port, db=args.db or default_db())
    server = serve.server_for(settings)
    stopping = threading.Event()

    def then() -> None:
        while not _answers(settings.url):
            if stopping.wait(0.1):
                return
        print(f"Ringside: {settings.url}/ (Ctrl-C stops it; the job is kept in {settings.db})", flush=True)
        show(settings.url, settings.worker_token, stopping)

    thread = threading.Thread(target=then, daemon=True)
    thread.start()
    try:
        server.run()
    finally:
        stopping.set()
        thread.join(timeout=5)
    return 0


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/api/health", timeout=1):
            return True
    except OSError:
        return False

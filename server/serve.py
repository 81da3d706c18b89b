"""`ringside serve`: the server alone; workers join it from anywhere with
`ringside worker --server URL` (under torchrun, on any number of nodes)."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import signal
import socket
import ssl
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import uvicorn
from fastapi import FastAPI

from ringside.server.app import create_app
from ringside.server.config import DEFAULT_HOST, DEFAULT_PORT, WILDCARDS, Settings, default_db
from ringside.server.db.opening import StoreError, check
from ringside.server.door.auth import host_name, watches
from ringside.server.door.transport import protocols
from ringside.server.lessons.reading import LessonError
from ringside.server.operate import tokens
from ringside.server.operate.retention import Keep
from ringside.server.watched.notify import url_problem
from ringside.worker_agent.core.algorithms import algorithm_of, build
from ringside.worker_agent.core.watch_protocol import hang_after_of
from ringside.worker_agent.user.user_algorithms import load

if TYPE_CHECKING:
    from ringside.worker_agent.rank.launch import LocalWorkers

# Ctrl-C waits this long for open requests, then cuts them: a stalled client cannot hold the server up
SHUTDOWN_WITHIN_S = 5
REFUSED = 2  # the exit status of a start refused for what it was given (docs/operate.md: Exit status)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help="interface to listen on (default %(default)s; anything else exposes a server "
        "that makes workers run code)",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name the server answers to besides localhost and --host, such as a proxy's "
        "(repeatable); requests for any other name are refused, against DNS rebinding",
    )
    parser.add_argument(
        "--lecture",
        action="store_true",
        help="for a lecture hall: listen on this machine's network addresses (as --host "
        "0.0.0.0) with a viewer token, and print the audience link that carries it; the "
        "presenter's page shows it as a QR code (key K)",
    )
    parser.add_argument(
        "--lesson",
        type=Path,
        metavar="FILE",
        help="a lesson file (TOML) for key U to step through, checked before the server starts "
        "(default: the seed lecture's, built in)",
    )
    parser.add_argument(
        "--open-viewing",
        action="store_true",
        help="beyond loopback, let anyone who can reach the server watch without a token "
        "(default: a viewer token is made and the audience link carries it)",
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument(
        "--db", type=Path, default=None, help=f"SQLite file for the runs (default {default_db()})"
    )
    parser.add_argument(
        "--viewer-token",
        default=os.environ.get("RINGSIDE_VIEWER_TOKEN"),
        help="require this token to watch (default: none on loopback; beyond it, "
        "one is made and printed unless --open-viewing)",
    )
    parser.add_argument(
        "--viewer-queue",
        type=positive,
        default=Settings.viewer_queue,
        help="messages a viewer may fall behind before it is dropped (default %(default)s)",
    )
    parser.add_argument(
        "--lost-after",
        type=seconds,
        default=Settings.lost_after,
        help="seconds of silence before a rank is shown lost (default %(default)s)",
    )
    parser.add_argument(
        "--hang-after",
        type=hang_after,
        default=Settings.hang_after,
        metavar="SECONDS",
        help="seconds a watched job's ranks wait on others before it is named a hang (default "
        "%(default)s; a job may set its own: ringside.watch --hang-after)",
    )
    parser.add_argument(
        "--world-hold",
        type=nonnegative,
        default=Settings.world_hold,
        help="seconds a whole world whose ranks have all gone is held for them: ranks of "
        "another world size are refused meanwhile, so none can take the cluster over "
        "while they restart (default %(default)s)",
    )
    parser.add_argument(
        "--headers-within",
        type=seconds,
        default=Settings.headers_within,
        help="seconds a client may take to send a request's headers before its connection is "
        "closed (default %(default)s)",
    )
    parser.add_argument(
        "--message-within",
        type=seconds,
        default=Settings.message_within,
        help="seconds a websocket message, once begun, may take to arrive whole before its "
        "connection is closed (default %(default)s: a rank's largest frame on a slow "
        "link)",
    )
    parser.add_argument(
        "--ping-every",
        type=seconds,
        default=Settings.ping_every,
        help="seconds between the pings a websocket is sent; one that has answered none "
        "within as long again is dropped (default %(default)s)",
    )
    parser.add_argument(
        "--access-log",
        metavar="FILE",
        help="where the access log goes: a line for each request that changes something and each "
        "websocket, who (the kind of token) from where (default: beside the store, as "
        "runs-access.log beside runs.db; - for stderr)",
    )
    parser.add_argument(
        "--access-log-bytes",
        type=positive,
        default=Settings.access_log_bytes,
        help="the access log is rotated past this size (default %(default)s)",
    )
    parser.add_argument(
        "--access-log-keep",
        type=positive,
        default=Settings.access_log_keep,
        help="rotated access logs kept beside it, FILE.1 the newest (default %(default)s)",
    )
    parser.add_argument(
        "--keep-runs",
        type=positive,
        metavar="N",
        help="keep the newest N runs, pruning older ones at start and nightly (default: keep all)",
    )
    parser.add_argument(
        "--keep-days",
        type=days,
        metavar="D",
        help="keep no run older than D days, pruning at start and nightly (default: keep all)",
    )
    parser.add_argument(
        "--certfile",
        type=Path,
        metavar="FILE",
        help="serve HTTPS (and wss) with this certificate, PEM (its chain after it); the links "
        "and the audience's QR code say https. Workers trust it as they trust any site, or "
        "from RINGSIDE_SERVER_CA=FILE",
    )
    parser.add_argument(
        "--keyfile", type=Path, metavar="FILE", help="the certificate's private key (default: in --certfile)"
    )
    parser.add_argument(
        "--token-file",
        type=Path,
        metavar="FILE",
        help="write the tokens to FILE (mode 0600) and print its path in their place (default: printed "
        "on a terminal; anywhere else, such as a journal, written beside the store as runs-tokens.env)",
    )
    parser.add_argument(
        "--notify",
        metavar="URL",
        default=os.environ.get("RINGSIDE_NOTIFY"),
        help="POST each watched job's hang, desync and deadlock, and its end, to this http(s) URL as "
        "JSON (docs/watch.md: Alerts); a webhook's secret URL may come from $RINGSIDE_NOTIFY instead, "
        "out of ps",
    )
    parser.add_argument(
        "--algorithms",
        action="append",
        default=[],
        metavar="FILE",
        help="a file of your own algorithms (Python, or MSCCL's XML) to offer beside the "
        "built-in ones; repeatable. Workers load the same files (ringside worker "
        "--algorithms FILE)",
    )


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def nonnegative(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, not {value}")
    return value


def days(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 days, not {value}")
    return value


def seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, not {value}")
    return value


def hang_after(text: str) -> float:
    try:
        return hang_after_of(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def settings_from(args: argparse.Namespace) -> Settings:
    """Tokens come from the environment when set (so restarts keep them), else fresh ones."""
    allow = tuple(host_name(n) or n.lower() for n in args.allow_host)  # a name, even if given as name:port
    host = WILDCARDS[0] if args.lecture and args.host == DEFAULT_HOST else args.host  # a hall reaches it
    settings = Settings(
        host=host,
        port=args.port,
        db=args.db or default_db(),
        viewer_token=args.viewer_token,
        viewer_queue=args.viewer_queue,
        lost_after=args.lost_after,
        hang_after=args.hang_after,
        world_hold=args.world_hold,
        allow_hosts=allow,
        headers_within=args.headers_within,
        message_within=args.message_within,
        ping_every=args.ping_every,
        open_viewing=args.open_viewing,
        access_log=args.access_log,
        access_log_bytes=args.access_log_bytes,
        access_log_keep=args.access_log_keep,
        keep_runs=args.keep_runs,
        keep_days=args.keep_days,
        certfile=args.certfile,
        keyfile=args.keyfile,
        lesson=args.lesson,
        token_file=args.token_file,
        notify=args.notify,
    )
    settings.presenter_token = os.environ.get("RINGSIDE_PRESENTER_TOKEN", settings.presenter_token)
    settings.worker_token = os.environ.get("RINGSIDE_WORKER_TOKEN", settings.worker_token)
    return settings


def port_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
            return True
        except OSError:
            return False


class Server(uvicorn.Server):
    """uvicorn, minus re-raising Ctrl-C / SIGTERM after its graceful shutdown: the caller
    (`ringside up`) still has workers to stop, and a clean stop is not a crash."""

    def __init__(self, app: FastAPI, config: uvicorn.Config):
        super().__init__(config)
        self.served = app

    def handle_exit(self, sig, frame) -> None:
        dispatcher = getattr(self.served.state, "dispatcher", None)
        # before uvicorn closes the workers' sockets: a run cut short is interrupted, not failed
        if dispatcher is not None:
            dispatcher.stopping = True
        super().handle_exit(sig, frame)

    @contextlib.contextmanager
    def capture_signals(self):
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {s: signal.signal(s, self.handle_exit) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)


def server_for(settings: Settings, local: LocalWorkers | None = None) -> Server:
    """`local`: the ranks `ringside up` started, which the server may resize (cluster/resize.py)."""
    if not port_free(settings.host, settings.port):
        raise SystemExit(
            f"error: port {settings.port} on {settings.host} is in use; choose another with --port"
        )
    problem = tls_problem(settings)
    if problem:
        raise SystemExit(f"error: {problem}")
    problem = url_problem(settings.notify) if settings.notify is not None else None
    if problem:  # a wrong argument: refused as the store is (exit 2)
        print(f"error: {problem}", file=sys.stderr, flush=True)
        raise SystemExit(REFUSED)
    bounds = protocols(
        settings.headers_within,
        settings.message_within,
        settings.ping_every,
        functools.partial(watches, settings=settings),
    )
    try:  # before any link is printed: the one line names the file and the fix
        check(settings.db)
        app = create_app(settings, local)
    except (StoreError, LessonError) as e:
        print(f"error: {e}", file=sys.stderr, flush=True)
        raise SystemExit(REFUSED) from None
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level="warning",
        # a client is the address it connects from: uvicorn took X-Forwarded-For from any client on
        # loopback, so a script on this machine named itself in the access log and to the vote's bound
        proxy_headers=False,
        **bounds,
        lifespan="on",
        timeout_graceful_shutdown=SHUTDOWN_WITHIN_S,
        ssl_certfile=settings.certfile,
        ssl_keyfile=settings.keyfile,
        access_log=False,  # its lines held the query, and a link's query holds a token: access.py logs
    )
    return Server(app, config)


def tls_problem(settings: Settings) -> str | None:
    """What keeps the certificate and key from serving TLS, in words; None if they can (or none is given)."""
    if settings.certfile is None:
        return "--keyfile needs --certfile" if settings.keyfile is not None else None
    for flag, path in (("--certfile", settings.certfile), ("--keyfile", settings.keyfile)):
        if path is not None and not path.is_file():
            return f"{flag} {path}: no such file"
    given = f"--certfile {settings.certfile}" + (f" --keyfile {settings.keyfile}" if settings.keyfile else "")
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(settings.certfile, settings.keyfile)
    except ssl.SSLError as e:  # before OSError, which it is
        return f"{given}: not a certificate and its key ({e.reason or e})"
    except OSError as e:
        return f"{given}: {e.strerror or e}"
    return None


def tokens_shown(settings: Settings) -> tokens.Shown:
    """The tokens as the start prints them, written to their file first where they go to one (a start
    refused in one line if it cannot be written)."""
    file = tokens.token_file(settings, sys.stdout.isatty() and sys.stderr.isatty())
    if file is not None:
        try:
            tokens.write(settings, file)
        except OSError as e:
            print(
                f"error: token file {file}: {e.strerror or e}; give another with --token-file",
                file=sys.stderr,
            )
            raise SystemExit(REFUSED) from None
    return tokens.shown(settings, file)


def warn_if_exposed(settings: Settings, shown: tokens.Shown) -> None:
    """Beyond loopback, say so where it cannot be missed, and give the links others use."""
    if settings.loopback:
        return
    where = "every network interface" if settings.host in WILDCARDS else settings.host
    watching = (
        "anyone who can reach it may watch (--open-viewing): host names, pids and every run"
        if settings.viewer_token is None
        else "watching needs the viewer token, which the links below carry"
    )
    lines = [
        f"WARNING: Ringside is listening on {settings.host} ({where}), not only on this machine.",
        "  The presenter token lets its holder run code on every worker; the worker token lets its",
        f"  holder join as a rank. Keep both secret; {watching}.",
        "  Keep the server, and a cluster's ranks, on a private network "
        '(docs/security.md: "Listening beyond loopback").',
        "  Others open:",
        *(
            [f"    {settings.audience_url(url, shown.viewer)}" for url in settings.public_urls()]
            or ["    (this machine has no network address)"]
        ),
    ]
    bar = "=" * max(map(len, lines))
    print("\n".join([bar, *lines, bar]), file=sys.stderr, flush=True)


def retention(settings: Settings) -> str:
    keep = Keep(settings.keep_runs, settings.keep_days)
    return f"; pruned at start and nightly to {keep}" if keep.bounded else ""


def access_log_said(settings: Settings) -> str:
    return "stderr" if settings.access_log_path == "-" else settings.access_log_path


def join_command(
    settings: Settings, token: str, module: str = "ringside.worker_agent", program: str = ""
) -> str:
    """How torchrun starts `module` on other nodes (workers, or ringside.watch beside a user's
    `program`): the worker token (as shown: tokens.py) and an address they can reach."""
    reach = (settings.public_urls() or [settings.url])[0]
    return f"RINGSIDE_WORKER_TOKEN={token} torchrun --nproc-per-node=N -m {module} --server {reach}{program}"


def load_algorithms(paths: list[str], world_size: int | None = None) -> None:
    """Load users' algorithm files into this process and list what they add; with a world
    size, whether each passes its checks there. A file that does not load stops the start."""
    for path in paths:
        try:
            added = load(path)
        except Exception as e:  # the user's file: whatever it raised, said plainly
            raise SystemExit(f"error: --algorithms {path}: {type(e).__name__}: {e}") from None
        for collective, name in added:
            verdict = ""
            if algorithm_of(collective, name).traced:
                verdict = ": send/recv code, traced when it runs"
            elif world_size is not None:
                try:
                    build(collective, name, world_size)
                    verdict = f": checked for {world_size} ranks"
                except ValueError as e:
                    verdict = f": refused for {world_size} ranks: {e}"
            print(f"  algorithm {collective}/{name} from {path}{verdict}", flush=True)


def started(settings: Settings, shown: tokens.Shown) -> list[str]:
    """What `serve` says once it is ready to listen: the links, how ranks and jobs join, where things go."""
    lines = [
        f"Ringside server: {settings.url}",
        *([f"  tokens:     {shown.where()}"] if shown.file else []),
        f"  presenter:  {settings.presenter_url(shown.presenter)}",
        f"  audience:   {settings.audience_url(token=shown.viewer)}",
        f"  workers:    {join_command(settings, shown.worker)}",
        f"  your job:   {join_command(settings, shown.worker, 'ringside.watch', ' train.py ARGS')}",
    ]
    if "RINGSIDE_WORKER_TOKEN" not in os.environ:  # made now: a restart makes another, which refuses the
        # ranks already running (workers, watched jobs: they run on unwatched) instead of finding them again
        keep = (
            f"RINGSIDE_WORKER_TOKEN={shown.worker}" if shown.file is None else f"the tokens in {shown.file}"
        )
        lines.append(
            f"  restarts:   restart it with {keep} in its environment, or the ranks running then are refused"
        )
    return [
        *lines,
        f"  runs kept in {settings.db}{retention(settings)}",
        f"  access log: {access_log_said(settings)}",
    ]


def main(args: argparse.Namespace) -> int:
    load_algorithms(args.algorithms)
    settings = settings_from(args)
    server = server_for(settings)
    shown = tokens_shown(settings)
    warn_if_exposed(settings, shown)
    print("\n".join(started(settings, shown)), flush=True)
    server.run()
    return 0 if server.started else 1


if __name__ == "__main__":
    sys.exit(main(argparse.Namespace()))

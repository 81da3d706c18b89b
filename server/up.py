"""`ringside up`: the server and N local workers (each a real rank), in one command.

Ready once every rank has said hello; prints the presenter URL with its
token, as Jupyter does. Ctrl-C (or SIGTERM) stops the server and every
worker, leaving no process behind.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import urllib.request
import webbrowser

from ringside.server import serve
from ringside.server.config import Settings
from ringside.server.operate.tokens import Shown
from ringside.worker_agent.clients.trust import context_for
from ringside.worker_agent.rank.launch import LocalWorkers

MAX_RANKS = 16  # a laptop's: every rank is a process, and they share its cores


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-n", "--ranks", type=int, default=4, help="local ranks to start (default %(default)s)"
    )
    parser.add_argument(
        "--max-ranks",
        type=int,
        default=MAX_RANKS,
        help="the most ranks the page (or a lesson's stage) may grow the world to, in place; at least "
        "--ranks (default %(default)s)",
    )
    parser.add_argument(
        "--nodes",
        type=int,
        default=1,
        help="lay the ranks out as this many nodes (node0, node1, ...), each with its local ranks, as "
        "torchrun numbers them on several machines (default %(default)s)",
    )
    parser.add_argument(
        "--backend", choices=("gloo", "nccl"), help="default: nccl when every local rank has a GPU, else gloo"
    )
    parser.add_argument("--open", action="store_true", help="open the presenter page in a browser when ready")
    serve.add_arguments(parser)


def live_ranks(url: str, ca: str | None = None) -> int:
    try:
        with urllib.request.urlopen(f"{url}/api/health", timeout=1, context=context_for(url, ca)) as r:
            return json.load(r)["live_ranks"]
    except OSError:
        return -1


def links(settings: Settings, lecture: bool, shown: Shown) -> list[str]:
    """The lines `up` says once its ranks are ready: who opens what, the worker token, where runs go
    (each token as `shown`: itself on a terminal, else its name in the tokens' file)."""
    return [
        *([f"  tokens: {shown.where()}"] if shown.file else []),
        f"  presenter (can run collectives): {settings.presenter_url(shown.presenter)}",
        f"  audience (watch only):           {settings.audience_url(token=shown.viewer)}",
        *(
            f"  audience, from other machines:   {settings.audience_url(url, shown.viewer)}"
            for url in settings.public_urls()
        ),
        *(
            ["  students open that link, or scan it: K on the presenter's page shows it as a QR code"]
            if lecture
            else []
        ),
        f"  worker token (what joins as a rank needs it): RINGSIDE_WORKER_TOKEN={shown.worker}",
        f"  runs kept in {settings.db}{serve.retention(settings)}",
        f"  access log: {serve.access_log_said(settings)}; Ctrl-C stops everything",
    ]


def main(args: argparse.Namespace) -> int:
    if args.ranks < 1:
        print("error: ranks: must be at least 1", flush=True)
        return 2
    if args.nodes < 1 or args.ranks % args.nodes:
        print(f"error: nodes: {args.ranks} ranks do not split into {args.nodes} equal nodes", flush=True)
        return 2
    if args.max_ranks < 1:
        print("error: max-ranks: must be at least 1", flush=True)
        return 2
    serve.load_algorithms(args.algorithms, args.ranks)
    settings = serve.settings_from(args)
    ca = str(settings.certfile.resolve()) if settings.certfile else None  # the ranks trust what it serves
    workers = LocalWorkers(
        args.ranks,
        settings.url,
        settings.worker_token,
        args.backend,
        algorithms=args.algorithms,
        server_ca=ca,
        nodes=args.nodes,
        max_ranks=args.max_ranks,
    )
    server = serve.server_for(settings, workers)  # the server may resize the world of its own ranks
    shown = serve.tokens_shown(settings)
    serve.warn_if_exposed(settings, shown)
    stopping = threading.Event()

    def supervise() -> None:
        began = time.monotonic()
        workers.start()  # now, not once the server is up: importing torch takes longest, and workers retry
        while live_ranks(settings.url, ca) < args.ranks:
            if stopping.wait(0.1):
                return
        said = f"Ringside is up: {args.ranks} ranks ready in {time.monotonic() - began:.1f} s"
        print("\n".join([said, *links(settings, args.lecture, shown)]), flush=True)  # at once: read as one
        if args.open:
            webbrowser.open(settings.presenter_url())
        workers.watch(stopping)

    supervisor = threading.Thread(target=supervise, daemon=True)
    supervisor.start()
    try:
        server.run()
    finally:
        stopping.set()
        supervisor.join(timeout=10)
        workers.stop()
    return 0

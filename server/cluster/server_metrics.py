"""The server's own state on /metrics, beside the runs' (metrics.py): connections open by kind
and by address against the caps, connections refused by reason, open files against the
limit, memory, CPU, the event loop's lag, how long the store's writes take to land, the runs
retention has pruned and the access log's lines dropped.

Named as Prometheus names things: a `ringside_` prefix, `_total` on counters, base units
(seconds, bytes). The process's own figures mirror the names of Prometheus' process collector
(`process_open_fds` is `ringside_process_open_fds`).

Labels stay few. A hall behind NAT is one address, a hall without it hundreds: every scrape
says how many addresses hold how many connections (a handful of ranges), and only the
presenter's scrape also names the TOP_ADDRESSES that hold the most (the addresses of who is
watching are not the audience's to read)."""

from __future__ import annotations

import asyncio
import resource
import threading
from collections import Counter

import psutil
from starlette.requests import HTTPConnection

from ringside.server.cluster.metrics import Histogram, exposition, labels
from ringside.server.door.files import Caps
from ringside.server.door.transport import Held

LAG_EVERY_S = 0.5  # how often the loop's lag is measured: a sleep of this long, and how late it woke
LAG_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0)  # seconds
WRITE_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 30.0)  # seconds
TOP_ADDRESSES = 10
# the ranges `ringside_client_addresses` counts addresses in, by the connections each holds
HOLDING = ((1, 1), (2, 3), (4, 15), (16, 63), (64, 255), (256, None))
# transport.py's kinds of connection: a request's, a socket's by its route
KINDS = ("http", "viewer", "worker", "watch", "dumps", "other")


class Timings:
    """A histogram observed from another thread (the store's writer) and read on the loop."""

    def __init__(self, bounds: tuple[float, ...]):
        self.lock = threading.Lock()
        self.histogram = Histogram(bounds)

    def observe(self, seconds: float) -> None:
        with self.lock:
            self.histogram.observe(seconds)

    def samples(self) -> list[tuple[str, float]]:
        with self.lock:
            return self.histogram.samples("")


class ServerMetrics:
    """What the server measures of itself as it goes (the loop's lag, the store's writes); the rest
    is read when scraped."""

    def __init__(self) -> None:
        self.lag = Histogram(LAG_BUCKETS)
        self.store_writes = Timings(WRITE_BUCKETS)
        self.process = psutil.Process()

    async def watch_lag(self) -> None:
        """Until cancelled: sleep LAG_EVERY_S, and count how much later than that the loop woke."""
        loop = asyncio.get_running_loop()
        while True:
            began = loop.time()
            await asyncio.sleep(LAG_EVERY_S)
            self.lag.observe(max(0.0, loop.time() - began - LAG_EVERY_S))


def holding(by_address: Counter[str]) -> list[tuple[str, int]]:
    """How many addresses hold how many connections, in the HOLDING ranges."""
    found = []
    for low, high in HOLDING:
        n = sum(1 for held in by_address.values() if held >= low and (high is None or held <= high))
        found.append((f"{low}+" if high is None else str(low) if low == high else f"{low}-{high}", n))
    return found


def render(
    m: ServerMetrics,
    held: Held,
    refused: Counter[str],
    caps: Caps,
    waiting_writes: int,
    pruned: int,
    dropped: int,
    presenter: bool,
) -> str:
    """`held`, `refused`, `caps`: the door's (transport.seen); `waiting_writes`: writes given to the
    store and not landed; `pruned`: runs retention deleted; `dropped`: access log lines dropped;
    `presenter`: whether the scrape carries the presenter's token (then addresses are named)."""
    lines: list[str] = []

    def metric(name: str, kind: str, help_text: str, samples: list[tuple[str, float]]) -> None:
        lines.extend(exposition(name, kind, help_text, samples))

    kinds = {**dict.fromkeys(KINDS, 0), **held.by_kind}
    metric(
        "ringside_connections_open",
        "gauge",
        "Connections from clients open now, by kind: http (a request's), viewer, worker, watch or dumps "
        "(a websocket, by its route), other (a websocket to no route).",
        [(f"{{{labels(kind=k)}}}", kinds[k]) for k in sorted(kinds)],
    )
    metric(
        "ringside_connections_limit",
        "gauge",
        "Connections all clients may hold at once.",
        [("", caps.in_all)],
    )
    metric(
        "ringside_connections_per_address_limit",
        "gauge",
        "Connections one client address may hold at once.",
        [("", caps.per_address)],
    )
    metric(
        "ringside_connections_per_address_max",
        "gauge",
        "The most connections any one client address holds now.",
        [("", max(held.by_address.values(), default=0))],
    )
    metric(
        "ringside_hall_pages_per_address_limit",
        "gauge",
        "Audience pages (a viewer's socket whose token lets it watch) one client address may hold at once "
        "as a hall behind one address, beyond its per-address limit.",
        [("", caps.hall)],
    )
    metric(
        "ringside_hall_pages_per_address_max",
        "gauge",
        "The most audience pages any one client address holds now as a hall (among its connections).",
        [("", max(held.hall.values(), default=0))],
    )
    metric(
        "ringside_client_addresses",
        "gauge",
        "Client addresses holding connections now, by how many each holds.",
        [(f"{{{labels(holding=r)}}}", n) for r, n in holding(held.by_address)],
    )
    if presenter:
        metric(
            "ringside_connections_by_address",
            "gauge",
            f"Connections open now from each of the {TOP_ADDRESSES} client addresses that hold the most "
            "(the presenter's scrape only).",
            [(f"{{{labels(address=a)}}}", n) for a, n in held.by_address.most_common(TOP_ADDRESSES)],
        )
    metric(
        "ringside_connections_refused_total",
        "counter",
        "Connections closed unserved since the server started, by reason: past a cap (per_address, "
        "in_all), a deadline (headers_late, message_late, ping_unanswered), a websocket frame refused "
        "(frame_too_large, not_utf8, bad_frame).",
        [(f"{{{labels(reason=r)}}}", n) for r, n in sorted(refused.items())],
    )
    with m.process.oneshot():
        fds, memory, cpu = m.process.num_fds(), m.process.memory_info(), m.process.cpu_times()
        started = m.process.create_time()
    metric("ringside_process_open_fds", "gauge", "Open file descriptors.", [("", fds)])
    metric(
        "ringside_process_max_fds",
        "gauge",
        "The open-file limit (the soft one, as raised at start).",
        [("", resource.getrlimit(resource.RLIMIT_NOFILE)[0])],
    )
    metric("ringside_process_resident_memory_bytes", "gauge", "Resident memory.", [("", memory.rss)])
    metric(
        "ringside_process_cpu_seconds_total",
        "counter",
        "CPU time spent, user and system.",
        [("", cpu.user + cpu.system)],
    )
    metric(
        "ringside_process_start_time_seconds",
        "gauge",
        "When the process started, in seconds since the Unix epoch.",
        [("", started)],
    )
    metric(
        "ringside_event_loop_lag_seconds",
        "histogram",
        f"How late the event loop woke from a sleep of {LAG_EVERY_S:g} s, measured every time: what any "
        "request or socket waited at that moment besides its own work.",
        m.lag.samples(""),
    )
    metric(
        "ringside_store_write_seconds",
        "histogram",
        "From a write given to the store's writer until it is in the file (a file held locked by "
        "another process makes it long).",
        m.store_writes.samples(),
    )
    metric(
        "ringside_store_writes_waiting",
        "gauge",
        "Writes given to the store and not landed.",
        [("", waiting_writes)],
    )
    metric(
        "ringside_runs_pruned_total",
        "counter",
        "Runs deleted by retention (--keep-runs, --keep-days) since the server started.",
        [("", pruned)],
    )
    metric(
        "ringside_access_log_dropped_total",
        "counter",
        "Access log lines dropped because the disk fell behind, since the server started.",
        [("", dropped)],
    )
    return "\n".join(lines) + "\n"


async def server_metrics_of(conn: HTTPConnection) -> ServerMetrics:
    return conn.app.state.server_metrics

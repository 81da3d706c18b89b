"""Prometheus text exposition: runs by state and collective; histograms of step latency (by
collective, algorithm and the host the rank ran on), of a run's time and of its bus bandwidth
(by collective and algorithm); the last busbw of each collective; ranks by host and status.

Labels stay few: collectives and algorithms are the registered ones, hosts come from the
cluster's ranks, and past MAX_HOSTS distinct hosts since the server started the rest count
under host="other". Histograms count since the server started, as Prometheus counters go.

Nothing here reads a stored run: the store counts its runs as it saves them, and
`Metrics` is told of each run that ends done (runs/service.py), so a scrape costs the same
with ten runs stored or a hundred thousand."""

from __future__ import annotations

import bisect
import math
from collections.abc import Set as AbstractSet

from starlette.requests import HTTPConnection

from ringside.server.runs.run import Run

BUCKETS = (1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0, 10.0)  # seconds: a step on a rank, a run
# bytes per second: 1 MB/s .. 1 TB/s
BUSBW_BUCKETS = (1e6, 1e7, 1e8, 3e8, 1e9, 3e9, 1e10, 3e10, 1e11, 3e11, 1e12)
MAX_HOSTS = 64
OTHER_HOST = "other"


class Histogram:
    """One labelled series: counts per bucket (not cumulative; the last is +Inf), sum and count."""

    def __init__(self, bounds: tuple[float, ...]):
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        if math.isfinite(value):  # one NaN would stick in the sum
            self.counts[bisect.bisect_left(self.bounds, value)] += 1
            self.sum += value

    def samples(self, labels: str) -> list[tuple[str, float]]:
        cumulative = [sum(self.counts[: i + 1]) for i in range(len(self.counts))]
        sep = "," if labels else ""
        return [(f'_bucket{{{labels}{sep}le="{b:g}"}}', n) for b, n in zip(self.bounds, cumulative)] + [
            (f'_bucket{{{labels}{sep}le="+Inf"}}', cumulative[-1]),
            (f"_sum{{{labels}}}" if labels else "_sum", self.sum),
            (f"_count{{{labels}}}" if labels else "_count", cumulative[-1]),
        ]


class Metrics:
    """The histograms (since the server started) and the last busbw of each collective (kept
    across restarts: store.last_busbw)."""

    def __init__(self, last_busbw: dict[str, float]):
        self.last_busbw = dict(last_busbw)
        self.steps: dict[tuple[str, str, str], Histogram] = {}  # (collective, algorithm, host)
        self.runs: dict[tuple[str, str], Histogram] = {}  # (collective, algorithm): a run's time
        self.busbw: dict[tuple[str, str], Histogram] = {}  # (collective, algorithm)
        self.hosts: set[str] = set()

    def host(self, name: str) -> str:
        """The host label: the host's name, or OTHER_HOST past MAX_HOSTS of them."""
        if name in self.hosts or len(self.hosts) < MAX_HOSTS:
            self.hosts.add(name)
            return name
        return OTHER_HOST

    def observe(self, run: Run) -> None:
        """A run that ended done."""
        collective, algorithm = run.spec.collective, run.spec.algorithm
        for step in run.steps:
            for rank, t in step.ranks.items():
                place = run.places.get(rank)
                key = (collective, algorithm, self.host(place.host if place else ""))
                self.steps.setdefault(key, Histogram(BUCKETS)).observe(t.t1 - t.t0)
        if run.time is not None:
            self.runs.setdefault((collective, algorithm), Histogram(BUCKETS)).observe(run.time)
        if run.busbw is not None:
            self.last_busbw[collective] = run.busbw
            self.busbw.setdefault((collective, algorithm), Histogram(BUSBW_BUCKETS)).observe(run.busbw)


def label(value: str) -> str:
    """A label value as the text format writes it: backslash, double quote and newline escaped."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def labels(**pairs: str) -> str:
    return ",".join(f'{k}="{label(v)}"' for k, v in pairs.items())


def exposition(name: str, kind: str, help_text: str, samples: list[tuple[str, float]]) -> list[str]:
    """One metric in the text format: its HELP and TYPE lines, then a line per (labels, value)."""
    # every digit: a count past a million, a busbw in bytes per second, must not round
    return [
        f"# HELP {name} {help_text}",
        f"# TYPE {name} {kind}",
        *(
            f"{name}{labels} {value if isinstance(value, int) else repr(float(value))}"
            for labels, value in samples
        ),
    ]


def render(
    m: Metrics,
    counts: dict[tuple[str, str], int],
    ranks: list[dict],
    queued: int,
    withheld: AbstractSet[str] = frozenset(),
) -> str:
    """`counts`: stored runs by (state, collective); `ranks`: the cluster's; `queued`: jobs waiting;
    `withheld`: collectives whose counts, times and bandwidths are left out (a poll holds runs of them)."""
    lines: list[str] = []

    def metric(name: str, kind: str, help_text: str, samples: list[tuple[str, float]]) -> None:
        lines.extend(exposition(name, kind, help_text, samples))

    def histograms(name: str, help_text: str, series: dict[tuple, Histogram], names: tuple[str, ...]) -> None:
        metric(
            name,
            "histogram",
            help_text,
            [
                s
                for key, h in sorted(series.items())
                if key[0] not in withheld
                for s in h.samples(labels(**dict(zip(names, key))))
            ],
        )

    metric(
        "ringside_runs",
        "gauge",
        "Stored runs by state and collective.",
        [
            (f'{{state="{s}",collective="{c}"}}', n)
            for (s, c), n in sorted(counts.items())
            if c not in withheld
        ],
    )
    histograms(
        "ringside_step_seconds",
        "Duration of a step on a rank, in runs that ended done since the server started, "
        "by collective, algorithm and the rank's host.",
        m.steps,
        ("collective", "algorithm", "host"),
    )
    histograms(
        "ringside_run_seconds",
        "A run's time (its slowest rank's median iteration), in runs that ended done since "
        "the server started.",
        m.runs,
        ("collective", "algorithm"),
    )
    histograms(
        "ringside_busbw_bytes_per_second",
        "Bus bandwidth of runs that ended done since the server started (nccl-tests' busbw).",
        m.busbw,
        ("collective", "algorithm"),
    )
    metric(
        "ringside_last_busbw_bytes_per_second",
        "gauge",
        "Bus bandwidth of the last finished run of each collective.",
        [(f'{{collective="{c}"}}', v) for c, v in sorted(m.last_busbw.items()) if c not in withheld],
    )
    statuses: dict[tuple[str, str], int] = {}
    for rank in ranks:
        for status in ("idle", "busy", "lost"):
            statuses.setdefault((rank["host"], status), 0)
        statuses[(rank["host"], rank["status"])] += 1
    metric(
        "ringside_ranks",
        "gauge",
        "Ranks by host and status.",
        [(f"{{{labels(host=h, status=s)}}}", n) for (h, s), n in sorted(statuses.items())],
    )
    metric("ringside_queue_length", "gauge", "Runs waiting to run.", [("", queued)])
    return "\n".join(lines) + "\n"


async def metrics_of(conn: HTTPConnection) -> Metrics:
    return conn.app.state.metrics

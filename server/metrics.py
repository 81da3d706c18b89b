"""Prometheus text exposition: runs by state and collective, step latency,
bus bandwidth of the last run of each collective, ranks by status.

Nothing here reads a stored run: the store counts its runs as it saves them, and
`Metrics` is told of each run that ends done (hub.py), so a scrape costs the same
with ten runs stored or a hundred thousand."""

from __future__ import annotations

import bisect
import math

from .runs import Run

BUCKETS = (1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0, 10.0)


class Metrics:
    """The step-duration histogram (since the server started, as Prometheus counters go)
    and the last busbw of each collective (kept across restarts: store.last_busbw)."""

    def __init__(self, last_busbw: dict[str, float]):
        self.last_busbw = dict(last_busbw)
        self.buckets = [0] * (len(BUCKETS) + 1)  # per bucket, not cumulative; the last is +Inf
        self.sum = 0.0

    def observe(self, run: Run) -> None:
        """A run that ended done."""
        for step in run.steps:
            for t in step.ranks.values():
                if math.isfinite(seconds := t.t1 - t.t0):  # ranks report t0 and t1: one NaN would stick in the sum
                    self.buckets[bisect.bisect_left(BUCKETS, seconds)] += 1
                    self.sum += seconds
        if run.busbw is not None:
            self.last_busbw[run.spec.collective] = run.busbw


def render(hub) -> str:
    lines: list[str] = []

    def metric(name: str, kind: str, help_text: str, samples: list[tuple[str, float]]) -> None:
        lines.extend([f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"])
        # every digit: a count past a million, a busbw in bytes per second, must not round
        lines.extend(f"{name}{labels} {value if isinstance(value, int) else repr(float(value))}" for labels, value in samples)

    m: Metrics = hub.metrics
    metric("ringside_runs", "gauge", "Stored runs by state and collective.",
           [(f'{{state="{s}",collective="{c}"}}', n) for (s, c), n in sorted(hub.store.counts().items())])
    cumulative = [sum(m.buckets[:i + 1]) for i in range(len(m.buckets))]
    metric("ringside_step_seconds", "histogram", "Duration of a step on a rank, in runs that ended done since the server started.",
           [(f'_bucket{{le="{b:g}"}}', n) for b, n in zip(BUCKETS, cumulative)]
           + [('_bucket{le="+Inf"}', cumulative[-1]), ("_sum", m.sum), ("_count", cumulative[-1])])
    metric("ringside_last_busbw_bytes_per_second", "gauge", "Bus bandwidth of the last finished run of each collective.",
           [(f'{{collective="{c}"}}', v) for c, v in sorted(m.last_busbw.items())])
    statuses: dict[str, int] = {"idle": 0, "busy": 0, "lost": 0}
    for rank in hub.cluster.to_json()["ranks"]:
        statuses[rank["status"]] += 1
    metric("ringside_ranks", "gauge", "Ranks by status.", [(f'{{status="{s}"}}', n) for s, n in statuses.items()])
    metric("ringside_queue_length", "gauge", "Runs waiting to run.", [("", len(hub.dispatcher.queue))])
    return "\n".join(lines) + "\n"

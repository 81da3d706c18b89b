"""Prometheus text exposition: runs by state and collective, step latency,
bus bandwidth of the last run of each collective, ranks by status."""

from __future__ import annotations

import bisect

BUCKETS = (1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0, 10.0)


def render(hub) -> str:
    lines: list[str] = []

    def metric(name: str, kind: str, help_text: str, samples: list[tuple[str, float]]) -> None:
        lines.extend([f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"])
        lines.extend(f"{name}{labels} {value:g}" for labels, value in samples)

    counts = hub.store.counts()
    metric("ringside_runs", "gauge", "Stored runs by state and collective.",
           [(f'{{state="{s}",collective="{c}"}}', n) for (s, c), n in sorted(counts.items())])
    recent = hub.store.finished()
    durations = [t.t1 - t.t0 for run in recent for step in run.steps for t in step.ranks.values()]
    buckets = [0] * len(BUCKETS)
    for d in durations:
        i = bisect.bisect_left(BUCKETS, d)
        for j in range(i, len(BUCKETS)):
            buckets[j] += 1
    metric("ringside_step_seconds", "histogram", "Duration of a step on a rank, over the last 500 finished runs.",
           [(f'_bucket{{le="{b:g}"}}', n) for b, n in zip(BUCKETS, buckets)]
           + [('_bucket{le="+Inf"}', len(durations)), ("_sum", sum(durations)), ("_count", len(durations))])
    last: dict[str, float] = {}
    for run in reversed(recent):  # oldest first, so the newest of each collective wins
        if run.busbw is not None:
            last[run.spec.collective] = run.busbw
    metric("ringside_last_busbw_bytes_per_second", "gauge", "Bus bandwidth of the last finished run of each collective.",
           [(f'{{collective="{c}"}}', v) for c, v in sorted(last.items())])
    statuses: dict[str, int] = {"idle": 0, "busy": 0, "lost": 0}
    for rank in hub.cluster.to_json()["ranks"]:
        statuses[rank["status"]] += 1
    metric("ringside_ranks", "gauge", "Ranks by status.", [(f'{{status="{s}"}}', n) for s, n in statuses.items()])
    metric("ringside_queue_length", "gauge", "Runs waiting to run.", [("", len(hub.queue))])
    return "\n".join(lines) + "\n"

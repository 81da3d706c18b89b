"""A run as Chrome Trace Event JSON (opens in Perfetto or chrome://tracing):
a track per rank, named "rank r · host · local rank l" and grouped by host, a slice per
step, a flow arrow per transfer. Every rank's times count from the barrier that let its
first timed iteration go, so the ranks' tracks line up: a step at its t0, a native call at
the time its iteration began."""

from __future__ import annotations

from ringside.server.runs.run import Run

US = 1e6


def chrome_trace(run: Run) -> dict:
    events: list[dict] = []
    by_host = sorted(
        run.group, key=lambda r: (run.places[str(r)].host, r) if str(r) in run.places else ("", r)
    )
    for order, rank in enumerate(by_host):
        events.append(
            {
                "ph": "M",
                "name": "process_name",
                "pid": rank,
                "tid": 0,
                "args": {"name": process_name(run, rank)},
            }
        )
        events.append(
            {"ph": "M", "name": "process_sort_index", "pid": rank, "tid": 0, "args": {"sort_index": order}}
        )
    if run.steps:
        _steps(run, events)
    else:
        _iterations(run, events)
    spec = run.spec
    return {
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "metadata": {
            "run": run.id,
            "collective": spec.collective,
            "algorithm": spec.algorithm,
            "count": spec.count,
            "dtype": spec.dtype,
            "backend": run.backend,
        },
    }


def _steps(run: Run, events: list[dict]) -> None:
    flow = 0
    for step in run.steps:
        times = step.ranks
        for rank, t in times.items():
            events.append(
                {
                    "ph": "X",
                    "name": f"step {step.step}: {step.phase}",
                    "cat": step.phase,
                    "pid": int(rank),
                    "tid": 0,
                    "ts": t.t0 * US,
                    "dur": max(t.t1 - t.t0, 0) * US,
                    "args": {"caption": step.caption},
                }
            )
        for src, dst, chunk, into, reduce in step.transfers:
            s, d = times.get(str(src)), times.get(str(dst))
            if src == dst or s is None or d is None:
                continue
            flow += 1
            name = f"chunk {chunk} -> {into}" + (" (reduce)" if reduce else "")
            events.append(
                {
                    "ph": "s",
                    "id": flow,
                    "name": name,
                    "cat": "transfer",
                    "pid": src,
                    "tid": 0,
                    "ts": s.t0 * US,
                }
            )
            events.append(
                {
                    "ph": "f",
                    "bp": "e",
                    "id": flow,
                    "name": name,
                    "cat": "transfer",
                    "pid": dst,
                    "tid": 0,
                    "ts": d.t1 * US,
                }
            )


def process_name(run: Run, rank: int) -> str:
    """rank 3 · node-b · local rank 1 (a run kept before places were: rank 3)."""
    place = run.places.get(str(rank))
    return f"rank {rank}" if place is None else f"rank {rank} · {place.host} · local rank {place.local_rank}"


def _iterations(run: Run, events: list[dict]) -> None:
    """A native run has no steps: one slice per timed iteration, at the time it began on its rank
    (a run kept before ranks reported their starts: laid end to end)."""
    for rank, result in run.results.items():
        timings, at = result.timings, 0.0
        starts = timings.starts if len(timings.starts) == len(timings.iterations) else None
        for i, seconds in enumerate(timings.iterations):
            begin = starts[i] if starts is not None else at
            events.append(
                {
                    "ph": "X",
                    "name": f"{run.spec.collective} (native) #{i}",
                    "cat": "native",
                    "pid": int(rank),
                    "tid": 0,
                    "ts": begin * US,
                    "dur": seconds * US,
                }
            )
            at = begin + seconds

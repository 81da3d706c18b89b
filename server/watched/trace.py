"""A watched job as Chrome Trace Event JSON (opens in Perfetto or chrome://tracing), its
tracks named as a run's are (runs/trace.py)."""

from __future__ import annotations

from ringside.server.runs.trace import US
from ringside.server.watched.record import WatchedCollective, WatchedJob


def job_trace(job: WatchedJob, collectives: list[WatchedCollective]) -> dict:
    """A watched job: a process per rank named with its host, and each collective as an async
    slice on its rank (DDP's buckets overlap in flight, which thread slices may not): from when
    the rank issued it for as long as the backend timed it, or, untimed (gloo), until the last
    rank issued it, which is how long this rank waited there at least."""
    events: list[dict] = []
    for order, info in enumerate(sorted(job.ranks.values(), key=lambda r: (r.host, r.rank))):
        name = f"rank {info.rank} · {info.host} · local rank {info.local_rank}"  # as a run's ranks are named
        events.append({"ph": "M", "name": "process_name", "pid": info.rank, "tid": 0, "args": {"name": name}})
        events.append(
            {
                "ph": "M",
                "name": "process_sort_index",
                "pid": info.rank,
                "tid": 0,
                "args": {"sort_index": order},
            }
        )
    for c in collectives:
        args = {
            "group": c.group,
            "seq": c.seq,
            "count": c.count,
            "dtype": c.dtype,
            "bytes": c.bytes,
            "lag_s": c.lag_s,
            "last_rank": c.last_rank,
            **({"bucket": c.bucket.index} if c.bucket else {}),
        }
        last = max(c.issued.values(), default=0.0)
        for rank, t in c.issued.items():
            end = t + c.durations[rank] if rank in c.durations else max(last, t)
            # a process-local id: a plain "id" is global to Perfetto, which would put every rank's slice of
            # this collective on one track of the first rank's process
            slice_ = {
                "name": f"{c.op} #{c.seq}",
                "cat": f"group {c.group}",
                "id2": {"local": f"{c.group}:{c.seq}"},
                "pid": int(rank),
                "tid": 0,
            }
            events += [
                {**slice_, "ph": "b", "ts": t * US, "args": args},
                {**slice_, "ph": "e", "ts": end * US},
            ]
    return {
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "metadata": {
            "job": job.id,
            "script": job.script,
            "backend": job.backend,
            "world_size": job.world_size,
        },
    }

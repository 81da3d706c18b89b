"""Watched jobs on /metrics, for an alert on a hang: each job's collectives seen and missed, whether it
hangs now (0 or 1), and while it hangs, what and whom the hang names and for how long.

Labels stay few: a series names a job by its id (`job_id`: Prometheus gives `job` to the scrape's own
job) and its script, and only the jobs watched now (at most service.MAX_LIVE) and the ENDED_SHOWN
that ended last since the server started are shown. A hang's ranks are said in one label each
(`late`, `waiting`) as runs of ranks ("0-3,5"), at most MAX_RUNS runs and the rest counted ("+4090"):
a job of thousands of ranks makes one short series.

No straggler score is shown: the watch names the last rank of each collective (its `last_rank` and
`lag_s`, in the API), and scores no rank over many."""

from __future__ import annotations

from dataclasses import dataclass

from ringside.server.cluster.metrics import exposition, labels
from ringside.server.watched.live import LiveWatchedJob
from ringside.server.watched.record import Hang
from ringside.server.watched.words import runs

ENDED_SHOWN = 8  # jobs that ended, shown after they end (their last figures, hung 0)
MAX_RUNS = 8  # runs of ranks a hang's label names; more are counted


@dataclass(frozen=True)
class JobFigures:
    """What /metrics says of one job."""

    id: str
    script: str
    collectives: int
    missed: int
    hang: Hang | None

    @classmethod
    def of(cls, watched: LiveWatchedJob) -> JobFigures:
        job = watched.job
        missed = max((r.missed for r in job.ranks.values()), default=0)
        return cls(job.id, job.script, job.matched, missed, job.hang)


def rank_runs(ranks: list[int]) -> str:
    """Ranks as a label says them: runs ("0-3,5"), the first MAX_RUNS of them, the rest counted ("+12")."""
    spans = runs(sorted(ranks))
    shown = spans[:MAX_RUNS]
    said = ",".join(str(a) if a == b else f"{a}-{b}" for a, b in shown)
    more = len(ranks) - sum(b - a + 1 for a, b in shown)
    return f"{said},+{more}" if more else said


def render(jobs: list[JobFigures]) -> list[str]:
    """The watched jobs' lines: `jobs` those watched now, then those that ended last."""
    lines: list[str] = []

    def metric(name: str, kind: str, help_text: str, samples: list[tuple[str, float]]) -> None:
        lines.extend(exposition(name, kind, help_text, samples))

    def job(j: JobFigures) -> str:
        return labels(job_id=j.id, script=j.script)

    metric(
        "ringside_watched_collectives_total",
        "counter",
        "Collectives a watched job's ranks were seen to issue, matched across its ranks.",
        [(f"{{{job(j)}}}", j.collectives) for j in jobs],
    )
    metric(
        "ringside_watched_collectives_missed_total",
        "counter",
        "Collectives of a watched job not seen: a rank's Flight Recorder overwrote them before they were "
        "read (the most any one rank missed).",
        [(f"{{{job(j)}}}", j.missed) for j in jobs],
    )
    metric(
        "ringside_watched_hung",
        "gauge",
        "1 while a watched job hangs (a wait, a silence, a desync or a deadlock), else 0.",
        [(f"{{{job(j)}}}", int(j.hang is not None)) for j in jobs],
    )
    hung = [j for j in jobs if j.hang is not None]
    metric(
        "ringside_watched_hang_info",
        "gauge",
        "1 for each watched job's hang now: its kind, what it waits in (group, op, seq), the ranks to blame "
        "(late) and the ranks that wait on them (waiting).",
        [(f"{{{job(j)},{hang_labels(j.hang)}}}", 1) for j in hung if j.hang is not None],
    )
    metric(
        "ringside_watched_hang_seconds",
        "gauge",
        "How long a watched job's hang has lasted.",
        [(f"{{{job(j)}}}", j.hang.since_s) for j in hung if j.hang is not None],
    )
    return lines


def hang_labels(hang: Hang) -> str:
    return labels(
        kind=hang.kind,
        group=hang.group,
        op=hang.op,
        seq=str(hang.seq),
        late=rank_runs(hang.late),
        waiting=rank_runs(hang.waiting),
    )

"""A store seeded with many runs, as a server saves them (through RunStore, done ones with their
figures), each run's time made by the cost model from known alpha and beta: for the tests of what
reads cost as the history grows, of retention, and of a store from before figures were kept."""

from __future__ import annotations

from ringside.server.db.database import Database
from ringside.server.dispatch.job import JobState
from ringside.server.model import costs as model
from ringside.server.runs.run import new_run
from ringside.server.runs.store import RunStore
from ringside.worker_agent.core.protocol import RunSpec

ALPHA, BETA = 40e-6, 2e-9
SHAPES = [
    RunSpec(collective="all_reduce", algorithm="ring", count=4096),
    RunSpec(collective="all_reduce", algorithm="tree", count=1024),
    RunSpec(collective="all_gather", algorithm="ring", count=256),
    RunSpec(collective="broadcast", algorithm="native", count=64),
]


def seed(db, n: int, readable: int = 0) -> dict[tuple[str, str], int]:
    """n runs through the Store API, as a server saves them (done ones with their figures),
    then every body but the newest `readable` made unreadable: a read that parses one of
    them answers 500. Returns the runs by (state, collective)."""
    store, counts = RunStore(Database(db)), {}
    templates = [new_run("r-0", spec, "gloo", 4) for spec in SHAPES]
    for i in range(n):
        run = templates[i % len(templates)].model_copy(update={"id": f"r-{i + 1:06d}"})
        run.state = JobState.FAILED if i % 10 == 3 else JobState.DONE
        if run.state == JobState.DONE:
            steps, nbytes = (
                model.features(run.spec.collective, run.spec.algorithm, 4, 0, 1, run.spec.count, 4)
                if run.schedule
                else (0, 0)
            )
            run.time, run.busbw = steps * ALPHA + nbytes * BETA or 1e-3, float(i + 1)
        store.save(run)
        if run.state == JobState.DONE:
            store.add_figures(run, model.row_of(run))
        shape = (run.state.value, run.spec.collective)
        counts[shape] = counts.get(shape, 0) + 1
    store.database.flush()  # every write in the file before the reads and the raw SQL below
    store.db.execute("UPDATE runs SET body = 'unreadable' WHERE seq <= ?", (n - readable,))
    store.database.close()
    return counts

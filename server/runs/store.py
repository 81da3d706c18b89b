"""Every run, kept in one SQLite file: the Run's JSON, written whenever the run
changes state. A server that stops mid-run finds that run `running` when it
starts again and marks it `interrupted`: never lost, never silent.

Reads must not cost more as the history grows (a lecturer's store holds thousands
of runs): the count of runs by state and collective is kept in memory, and a run
that ends `done` leaves one small row in `figures` (its busbw, and the cost model's
features and time), so /metrics and /api/model never read a run's body.

Until a write has landed, reads see it from memory (`Latest`): the file is written by a
thread of its own (db/writer.py)."""

from __future__ import annotations

import re
from collections import Counter, OrderedDict
from collections.abc import Callable

from starlette.requests import HTTPConnection

from ringside.server.db.database import Database
from ringside.server.db.writer import Latest
from ringside.server.dispatch.job import JobState
from ringside.server.model import costs
from ringside.server.runs.run import Run

READ_CACHE = 16  # runs kept parsed (a full capture's is a few MB at most)


class RunStore:
    """The runs' table, and `figures`: a small row for each run that ended done."""

    def __init__(self, database: Database):
        self.database, self.db, self.writer = database, database.db, database.writer
        self._counts = Counter(
            {
                (s, c): n
                for s, c, n in self.db.execute(
                    "SELECT state, collective, COUNT(*) FROM runs GROUP BY state, collective"
                )
            }
        )
        self.latest = Latest()  # run id -> (state, body, summary) given to the writer, not yet landed
        self.states: dict[str, str] = {}  # the state last saved of each run not yet ended
        self.parsed: OrderedDict[str, tuple[Run, str]] = OrderedDict()  # read(): the runs read lately
        if database.new_figures:  # a store from before figures were kept: its last done runs, once
            for run in self.finished(costs.FIT_WINDOW):
                self.add_figures(run, costs.row_of(run))
            database.flush()  # read back at once, by the fit and the metrics

    def save(self, run: Run, landed: Callable[[], None] | None = None) -> None:
        """Give the run to the writer; `landed` is called (in the writer's thread) once it is in the file."""
        key = (run.state.value, run.spec.collective)
        old = self.states.pop(run.id, None) or self._stored_state(run.id)
        body, summary = run.model_dump_json(), run.summary().model_dump_json()
        # UPDATE, not an upsert: an upsert takes a new AUTOINCREMENT number even when it
        # updates, so seq ran three times faster than the ids
        write = (
            (
                "INSERT INTO runs (id, state, collective, created_at, body, summary) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (run.id, *key, run.created_at, body, summary),
            )
            if old is None
            else (
                "UPDATE runs SET state = ?, body = ?, summary = ? WHERE id = ?",
                (key[0], body, summary, run.id),
            )
        )
        forget = self.latest.put(run.id, (key[0], body, summary))

        def done() -> None:
            forget()
            if landed is not None:
                landed()

        self.writer.put([write], done)
        if old is not None:
            self._counts[(old, key[1])] -= 1
        self._counts[key] += 1
        if not run.state.ended:
            self.states[run.id] = key[0]

    def _stored_state(self, run_id: str) -> str | None:
        row = self.db.execute("SELECT state FROM runs WHERE id = ?", (run_id,)).fetchone()
        return row[0] if row else None

    def add_figures(self, run: Run, row: tuple | None) -> None:
        """The small row of a run that ended done; `row` is model.row_of(run) (None: no measured time)."""
        unmeasured = (run.spec.algorithm, len(run.group), *(None,) * 5)
        algorithm, ranks, size, steps, nbytes, reduced, seconds = row[1:] if row else unmeasured
        self.writer.put(
            [
                (
                    "INSERT OR REPLACE INTO figures (seq, collective, busbw, algorithm, ranks, size, "
                    "steps, bytes, reduced, time, count, dtype) "
                    "SELECT seq, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM runs WHERE id = ?",
                    (
                        run.spec.collective,
                        run.busbw,
                        algorithm,
                        ranks,
                        size,
                        steps,
                        nbytes,
                        reduced,
                        seconds,
                        run.spec.count,
                        run.spec.dtype,
                        run.id,
                    ),
                )
            ]
        )

    def get(self, run_id: str) -> Run | None:
        read = self.read(run_id)
        return read[0] if read else None

    def read(self, run_id: str) -> tuple[Run, str] | None:
        """The run and its JSON as stored. The last READ_CACHE runs read are kept parsed, for as long
        as the stored JSON is the same: a hall's pages ask for the same run at once, and a parameter
        server's full capture (150 KB) took 20 ms a read to parse and as long to write out again."""
        given = self.latest.get(run_id)
        if given is not None:
            body = given[1]
        else:
            row = self.db.execute("SELECT body FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                return None
            body = row[0]
        cached = self.parsed.get(run_id)
        if cached is None or cached[1] != body:
            cached = self.parsed[run_id] = (Run.model_validate_json(body), body)
            while len(self.parsed) > READ_CACHE:
                self.parsed.popitem(last=False)
        self.parsed.move_to_end(run_id)
        return cached

    def page(self, limit: int, offset: int) -> tuple[list[tuple[str, str]], int]:
        """(id, RunSummary JSON) of the newest runs, and how many are stored. The offset is
        walked in the narrow seq index, not over the rows."""
        newest = "SELECT seq FROM runs INDEXED BY runs_by_seq ORDER BY seq DESC LIMIT ? OFFSET ?"
        rows = self.db.execute(
            f"SELECT seq, id, summary FROM runs WHERE seq IN ({newest}) ORDER BY seq DESC", (limit, offset)
        ).fetchall()
        page = []
        for seq, run_id, summary in rows:
            given = self.latest.get(run_id)  # newer than the file's
            page.append((run_id, given[2] if given else summary or self._summarise(seq)))
        return page, self.total()

    def _summarise(self, seq: int) -> str:
        """The summary of a run stored before summaries were kept: made once, then kept."""
        body = self.db.execute("SELECT body FROM runs WHERE seq = ?", (seq,)).fetchone()[0]
        summary = Run.model_validate_json(body).summary().model_dump_json()
        self.writer.put([("UPDATE runs SET summary = ? WHERE seq = ?", (summary, seq))])
        return summary

    def last_number(self) -> int:
        """The number in the newest run's id (r-000042: 42), 0 for an empty store. Ids, not
        seq: a store written before save() stopped burning seq numbers has seq far ahead."""
        row = self.db.execute("SELECT id FROM runs ORDER BY seq DESC LIMIT 1").fetchone()
        digits = re.search(r"(\d+)$", row[0]) if row else None
        return int(digits.group(1)) if digits else 0

    def unfinished(self) -> list[Run]:
        rows = self.db.execute(
            "SELECT body FROM runs WHERE state IN (?, ?) ORDER BY seq",
            (JobState.QUEUED.value, JobState.RUNNING.value),
        ).fetchall()
        return [Run.model_validate_json(r[0]) for r in rows]

    def forget(self, gone: list[tuple[str, str]]) -> None:
        """Runs deleted from the file (retention: operate/retention.py), by state and collective."""
        for key in gone:
            self._counts[key] -= 1

    def counts(self) -> dict[tuple[str, str], int]:
        return {key: n for key, n in self._counts.items() if n}

    def total(self) -> int:
        return sum(self._counts.values())

    def finished(self, limit: int) -> list[Run]:
        """The last `limit` runs that ended `done`, oldest first (bodies: for filling `figures` once)."""
        rows = self.db.execute(
            "SELECT body FROM runs WHERE state = ? ORDER BY seq DESC LIMIT ?", (JobState.DONE.value, limit)
        ).fetchall()
        return [Run.model_validate_json(r[0]) for r in reversed(rows)]

    def newest_done(
        self,
        collective: str,
        algorithm: str,
        count: int | None = None,
        dtype: str | None = None,
        ranks: int | None = None,
    ) -> Run | None:
        """The newest run of this collective by this algorithm that ended done (and, if given, of
        this count, dtype and many ranks): the first row down `figures`' index of specs, one body read."""
        shape = [("f.ranks", ranks), ("f.count", count), ("f.dtype", dtype)]
        where = "".join(f" AND {column} = ?" for column, v in shape if v is not None)
        row = self.db.execute(  # newest first down the index; the first that matches ends the walk
            "SELECT r.body FROM figures f JOIN runs r ON r.seq = f.seq "
            f"WHERE f.collective = ? AND f.algorithm = ?{where} ORDER BY f.seq DESC LIMIT 1",
            (collective, algorithm, *[v for _, v in shape if v is not None]),
        ).fetchone()
        return Run.model_validate_json(row[0]) if row else None

    def done_of_shape(
        self, collective: str, algorithm: str, count: int, dtype: str, ranks: int, limit: int
    ) -> list[Run]:
        """The newest `limit` runs of this shape that ended done, newest first."""
        rows = self.db.execute(
            "SELECT r.body FROM figures f JOIN runs r ON r.seq = f.seq WHERE f.collective = ? "
            "AND f.algorithm = ? AND f.ranks = ? AND f.count = ? AND f.dtype = ? ORDER BY f.seq DESC LIMIT ?",
            (collective, algorithm, ranks, count, dtype, limit),
        ).fetchall()
        return [Run.model_validate_json(r[0]) for r in rows]

    def fit_rows(self, limit: int) -> list[tuple]:
        """The cost model's rows (model.Row's fields), oldest first: the last `limit` done stepwise
        runs and the last `limit` done native ones."""
        rows = []
        for kind in ("steps IS NOT NULL", "steps IS NULL"):
            rows += self.db.execute(
                "SELECT seq, collective, algorithm, ranks, size, steps, bytes, reduced, "
                f"time FROM figures WHERE size IS NOT NULL AND {kind} "
                "ORDER BY seq DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [r[1:] for r in sorted(rows)]

    def last_busbw(self) -> dict[str, float]:
        """Bus bandwidth of the newest done run of each collective that has one (read once, at start)."""
        return dict(
            self.db.execute(
                "SELECT collective, busbw FROM figures WHERE seq IN (SELECT MAX(seq) "
                "FROM figures WHERE busbw IS NOT NULL GROUP BY collective)"
            )
        )


async def run_store_of(conn: HTTPConnection) -> RunStore:
    return conn.app.state.run_store

"""Fuzz the server from outside, long: hypothesis strategies for the bodies of POST /api/runs
and .../cancel, the query strings of the GET endpoints, frames on the viewer websocket and on
the worker websocket (with the worker token), against `ringside up --ranks 2` (real ranks),
plus fuzzed run events from a scripted rank on a `ringside serve` of its own. Prints how
many inputs were tried, 5xx answers, crashes (a server gone, a handler closing with 1011, a
traceback in its log), group restarts (rank pids that changed) and accepted specs whose run
did not end done and verified. tests/test_fuzz.py runs the same strategies briefly.

    .venv/bin/python bench/fuzz.py [--inputs 100000] [--seed N]
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import signal
import sys
import tempfile
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from ringside.worker_agent.clients.harness import WORKER_TOKEN, Up, start_serve, start_up
from ringside.worker_agent.core.algorithms import CUSTOM, NATIVE, algorithm_of, algorithms
from ringside.worker_agent.core.collectives import COLLECTIVES
from ringside.worker_agent.core.predict import stepwise
from ringside.worker_agent.core.protocol import PROTOCOL_VERSION

# --- strategies ------------------------------------------------------------------

WILD = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
EDGE_INTS = st.sampled_from([-1, 0, 2**31, 2**63, 10**30, 1 << 28])


def often(good, bad=WILD):
    """Mostly `good` (so that many specs pass), sometimes anything."""
    return st.one_of(good, good, good, good, bad)


ALGORITHM_NAMES = sorted({a.name for a in algorithms() if a.built} | {NATIVE, CUSTOM})
SCHEDULES = st.fixed_dictionaries(
    {
        "steps": st.lists(
            st.fixed_dictionaries(
                {
                    "transfers": st.lists(
                        often(st.tuples(*[st.integers(-1, 3)] * 4, st.integers(0, 1))), max_size=4
                    )
                },
                optional={"phase": often(st.text(max_size=8))},
            ),
            max_size=4,
        )
    },
    optional={"pieces": often(st.integers(0, 3)), "layout": often(st.sampled_from(["ring", "tree", "star"]))},
)
# valid timeouts start at 1 s: below that a real run can time out, and a rank that times out
# breaks the group by design (test_fuzz.py says so on its own)
SPEC_FIELDS = {
    "collective": often(st.sampled_from(list(COLLECTIVES))),
    "algorithm": often(st.sampled_from(ALGORITHM_NAMES)),
    "count": often(st.integers(1, 64) | EDGE_INTS),
    "dtype": often(st.sampled_from(["int32", "int64", "float16", "bfloat16", "float32", "float64"])),
    "op": often(st.sampled_from(["SUM", "PRODUCT", "MIN", "MAX", "AVG", "BAND", "BOR", "BXOR"])),
    "root": often(st.integers(-1, 2)),
    "peer": often(st.none() | st.integers(-1, 2)),
    "group": often(st.none() | st.lists(st.integers(-1, 2), max_size=3)),
    "pattern": often(st.sampled_from(["rank", "index", "random_int", "random_float"])),
    "seed": often(st.integers(-1, 2**64)),
    "capture": often(st.sampled_from(["full", "summary", "none"])),
    "chunks": often(st.integers(0, 4) | st.just(1025)),
    "iterations": often(st.integers(0, 3) | st.just(10_001)),
    "warmup": often(st.integers(-1, 2)),
    "verify": often(st.booleans()),
    "timeout": often(st.sampled_from([10.0, 30.0, 3600.0, 0.0, -1.0, 3601.0, math.nan, math.inf])),
    "schedule": often(st.none() | SCHEDULES),
}
ANY_BODIES = st.fixed_dictionaries(
    {"collective": SPEC_FIELDS["collective"]},
    optional={k: v for k, v in SPEC_FIELDS.items() if k != "collective"},
)


def plausible(collective: str):
    """Bodies the page might send for this collective, in a world of 2: many are accepted and run."""
    return st.fixed_dictionaries(
        {"collective": st.just(collective), "algorithm": st.sampled_from([NATIVE, *stepwise(collective)])},
        optional={
            "count": st.integers(1, 64),
            "dtype": SPEC_FIELDS["dtype"],
            "op": SPEC_FIELDS["op"],
            "root": st.integers(0, 1),
            "peer": st.integers(0, 1),
            "group": st.sampled_from([[0, 1], [1, 0], [0], [1]]),
            "chunks": st.integers(1, 3),
            "iterations": st.integers(1, 3),
            "warmup": st.integers(0, 1),
            "capture": SPEC_FIELDS["capture"],
            "pattern": SPEC_FIELDS["pattern"],
            "verify": st.booleans(),
            "seed": st.integers(0, 2**63 - 1),
            "timeout": st.floats(10, 60),
        },
    )


RUN_BODIES = st.one_of(st.sampled_from(list(COLLECTIVES)).flatmap(plausible), ANY_BODIES)
RAW_BODIES = st.one_of(
    st.binary(max_size=64),
    WILD.map(lambda v: json.dumps(v).encode()),
    RUN_BODIES.map(lambda b: json.dumps(b).encode()[:-1]),  # cut short
    st.integers(1, 100_000).map(lambda depth: b"[" * depth + b"]" * depth),  # deeper than parsers go
    st.integers(1, 6000).map(lambda digits: b'{"collective": "all_reduce", "count": ' + b"9" * digits + b"}"),
    st.just(b'{"collective": "all_reduce", "algorithm": "\xff\xfe"}'),  # not UTF-8
)
RUN_IDS = st.one_of(
    st.sampled_from(["r-000001", "r-999999", "..", "%2e%2e", "r-000001/../x"]), st.text(max_size=20)
)


def query(params: dict) -> str:
    return urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})


QUERY_VALUE = st.one_of(
    st.none(),
    st.integers(-2, 40).map(str),
    EDGE_INTS.map(str),
    st.text(max_size=10),
    st.sampled_from(["1e3", "nan", "inf", "-0", "0x10", " 4"]),
)
GET_PATHS = st.one_of(
    st.builds(lambda limit, o: f"/api/runs?{query({'limit': limit, 'offset': o})}", QUERY_VALUE, QUERY_VALUE),
    RUN_IDS.map(lambda i: f"/api/runs/{urllib.parse.quote(i, safe='')}"),
    RUN_IDS.map(lambda i: f"/api/runs/{urllib.parse.quote(i, safe='')}/trace"),
    st.fixed_dictionaries(
        {},
        optional={
            "collective": often(st.sampled_from(list(COLLECTIVES)), st.text(max_size=8)),
            "algorithm": often(st.sampled_from(ALGORITHM_NAMES), st.text(max_size=8)),
            "world_size": st.one_of(
                st.integers(-1, 64).map(str), st.sampled_from(["362", "363", "1024", "1025", "2", "x"])
            ),
            "chunks": st.one_of(st.integers(0, 8).map(str), st.sampled_from(["1024", "1025", "64"])),
            "count": QUERY_VALUE,
            "dtype": QUERY_VALUE,
            "root": QUERY_VALUE,
            "alpha": QUERY_VALUE,
            "beta": QUERY_VALUE,
        },
    ).map(lambda q: f"/api/model?{query(q)}"),
    st.sampled_from(["/api/health", "/api/cluster", "/api/catalog", "/metrics", "/api/runs", "/"]).flatmap(
        lambda p: QUERY_VALUE.map(lambda v: p if v is None else f"{p}?x={urllib.parse.quote(v)}")
    ),
)
EVENT_TYPES = [
    "hello",
    "heartbeat",
    "run_started",
    "step",
    "run_finished",
    "run_cancelled",
    "error",
    "ping",
    "nonsense",
]
STATES = st.lists(
    st.fixed_dictionaries(
        {"chunk": often(st.integers(-1, 4))},
        optional={
            "preview": often(st.lists(st.integers(-3, 3) | st.floats(), max_size=3)),
            "sum": often(st.floats()),
            "values": often(st.none() | st.lists(st.floats(), max_size=3)),
        },
    ),
    max_size=3,
)
EVENT_FIELDS = {
    "v": often(st.just(PROTOCOL_VERSION), st.integers() | WILD),
    "rank": often(st.integers(-1, 2)),
    "world_size": often(st.integers(0, 3) | EDGE_INTS),
    "local_rank": often(st.integers(-1, 2)),
    "host": often(st.text(max_size=8)),
    "pid": often(st.integers(-1, 2**31)),
    "backend": often(st.sampled_from(["gloo", "nccl"])),
    "device": st.just("cpu"),
    "torch_version": st.just("fuzz"),
    "step": often(st.integers(-1, 8) | st.just(10**9)),
    "t0": often(st.floats()),
    "t1": often(st.floats()),
    "states": often(STATES),
    "inputs": often(STATES),
    "output": often(STATES),
    "verified": often(st.none() | st.booleans()),
    "message": often(st.text(max_size=20)),
    "timings": often(st.fixed_dictionaries({"iterations": st.lists(st.floats(), max_size=3)})),
    "done": often(st.integers(-1, 3)),
    "total": often(st.integers(-1, 3)),
    "group_rank": often(st.integers(-1, 2)),
}
ANY_EVENTS = st.fixed_dictionaries({"type": often(st.sampled_from(EVENT_TYPES))}, optional=EVENT_FIELDS)


def event(kind: str, **needed):
    """An event of this type from rank 0 with its fields mostly right; "SPEC" stands for the run's spec."""
    fields = {
        "type": st.just(kind),
        "v": often(st.just(PROTOCOL_VERSION)),
        "rank": often(st.just(0)),
        **needed,
    }
    return st.fixed_dictionaries(
        fields, optional={k: v for k, v in EVENT_FIELDS.items() if k not in fields and k in OPTIONAL[kind]}
    )


OPTIONAL = {
    "run_started": {"inputs"},
    "step": {"states"},
    "run_finished": {"output", "verified"},
    "error": set(),
    "run_cancelled": set(),
    "heartbeat": set(),
}
EVENTS = st.one_of(
    ANY_EVENTS,
    event("run_started", group_rank=often(st.just(0)), spec=often(st.just("SPEC"))),
    event("step", step=EVENT_FIELDS["step"], t0=EVENT_FIELDS["t0"], t1=EVENT_FIELDS["t1"]),
    event("run_finished", timings=EVENT_FIELDS["timings"]),
    event("error", message=EVENT_FIELDS["message"]),
    event("run_cancelled", done=EVENT_FIELDS["done"], total=EVENT_FIELDS["total"]),
    event("heartbeat"),
)
FRAMES = st.lists(
    st.one_of(
        EVENTS.map(json.dumps),
        WILD.map(json.dumps),
        st.text(max_size=30),
        st.binary(max_size=30),
        st.just('{"type":"ping"}'),
    ),
    min_size=1,
    max_size=4,
)

# --- what happens to them ----------------------------------------------------------

SERVER_ERROR = 1011  # a websocket handler that raised


@dataclass
class Tally:
    inputs: Counter = field(default_factory=Counter)  # by kind
    frames: int = 0
    five_xx: list = field(default_factory=list)  # (input, status)
    crashes: list = field(default_factory=list)  # what was seen
    accepted: list = field(default_factory=list)  # run ids from up
    # accepted runs that did not end done and verified (or cancelled)
    failures: list = field(default_factory=list)

    def report(self, restarts: int) -> str:
        return (
            f"inputs {sum(self.inputs.values())} "
            f"({', '.join(f'{k} {n}' for k, n in sorted(self.inputs.items()))}); websocket frames "
            f"{self.frames}; 5xx {len(self.five_xx)}; crashes {len(self.crashes)}; group restarts "
            f"{restarts}; accepted specs {len(self.accepted)}, not done and "
            f"verified {len(self.failures)}"
        )


class Fuzz:
    """Feeds inputs to a real `ringside up` (and, for run events, a scripted rank on a
    `ringside serve`), and tallies what went wrong. Nothing here raises on a finding."""

    def __init__(self, up: Up, serve: Up | None = None):
        self.up, self.serve, self.tally = up, serve, Tally()
        self.pids = self.rank_pids()
        self.cancelled: set[str] = set()

    def rank_pids(self) -> dict[int, int]:
        return {r["rank"]: r["pid"] for r in self.up.cluster()["ranks"] if r["status"] != "lost"}

    def request(
        self, method: str, path: str, body: bytes | None = None, server: Up | None = None
    ) -> int | None:
        server = server or self.up
        conn = http.client.HTTPConnection(server.url.split("//")[1], timeout=60)
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {server.presenter}"}
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            status = response.status
        except (OSError, http.client.HTTPException) as e:
            status = None
            self.tally.crashes.append((method, path, repr(e)[:200]))
        finally:
            conn.close()
        if status is not None and status >= 500:
            self.tally.five_xx.append((method, path, (body or b"")[:200], status))
        return status

    def post_run(self, body: bytes) -> None:
        self.tally.inputs["POST /api/runs"] += 1
        conn = http.client.HTTPConnection(self.up.url.split("//")[1], timeout=60)
        try:
            headers = {"Content-Type": "application/json", "Authorization": f"Bearer {self.up.presenter}"}
            conn.request("POST", "/api/runs", body=body, headers=headers)
            response = conn.getresponse()
            answer = response.read()
            if response.status >= 500:
                self.tally.five_xx.append(("POST", "/api/runs", body[:200], response.status))
            elif response.status == 202:
                self.tally.accepted.append((json.loads(answer)["id"], body[:300]))
                self.keep_up()
        except (OSError, http.client.HTTPException) as e:
            self.tally.crashes.append(("POST", "/api/runs", repr(e)[:200]))
        finally:
            conn.close()

    def keep_up(self, most: int = 8) -> None:
        """At most `most` accepted runs waiting: the queue does not grow without bound."""
        for run_id, _ in self.tally.accepted[-most - 1 :: -1][:1]:
            self.ended(run_id)

    def ended(self, run_id: str, timeout: float = 120) -> dict | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status, run = self.up.call("GET", f"/api/runs/{run_id}")
            if status == 200 and run["state"] not in ("queued", "running"):
                return run
            time.sleep(0.02)
        return None

    def cancel(self, run_id: str | None, body: bytes) -> None:
        self.tally.inputs["POST cancel"] += 1
        if run_id is None and self.tally.accepted:  # one of ours: cancelling a real run must be clean too
            run_id = self.tally.accepted[-1][0]
            self.cancelled.add(run_id)
        self.request("POST", f"/api/runs/{urllib.parse.quote(run_id or 'r-000001', safe='')}/cancel", body)

    def get(self, path: str) -> None:
        self.tally.inputs["GET"] += 1
        self.request("GET", path)

    def frames(self, path: str, frames: list, then: str, server: Up | None = None) -> int | None:
        """Send the frames, then `then` (which must get the connection closed); the close code."""
        server = server or self.up
        self.tally.frames += len(frames) + 1
        try:
            with connect(server.ws_url(path), max_size=None, open_timeout=30, close_timeout=5) as ws:
                for frame in [*frames, then]:
                    ws.send(frame)
                while True:
                    ws.recv(timeout=30)
        except ConnectionClosed as e:
            code = e.rcvd.code if e.rcvd else None
        except (OSError, TimeoutError) as e:
            self.tally.crashes.append((path, frames, repr(e)[:200]))
            return None
        if code == SERVER_ERROR or code is None:
            self.tally.crashes.append((path, frames, f"closed with {code}"))
        return code

    def viewer(self, frames: list) -> None:
        self.tally.inputs["viewer frames"] += 1
        self.frames("/ws", frames, "not a ping")

    def worker(self, frames: list) -> None:
        """A worker connection beside the real ranks: it may say anything, it must not join."""
        self.tally.inputs["worker frames"] += 1
        self.frames(f"/ws/worker?token={WORKER_TOKEN}", frames, "not json")

    def events(self, events: list) -> None:
        """A scripted rank (world of 1, on `serve`) is sent a run and answers with fuzzed events
        for it, then a plain finish; the server must keep answering every read about it."""
        self.tally.inputs["run events"] += 1
        serve = self.serve
        hello = {
            "v": PROTOCOL_VERSION,
            "type": "hello",
            "rank": 0,
            "world_size": 1,
            "host": "fuzz",
            "pid": 1,
            "backend": "gloo",
            "device": "cpu",
            "torch_version": "fuzz",
        }
        try:
            with connect(
                serve.ws_url(f"/ws/worker?token={WORKER_TOKEN}"), max_size=None, open_timeout=30
            ) as ws:
                ws.send(json.dumps(hello))
                deadline = time.monotonic() + 10
                while (
                    status := self.post(
                        serve, {"collective": "all_reduce", "algorithm": "ring", "count": 4, "timeout": 1.0}
                    )
                )[0] == 503:
                    if time.monotonic() > deadline:
                        raise TimeoutError("the scripted rank was not taken in")
                    # lost after 1 s of silence
                    ws.send(json.dumps({"v": PROTOCOL_VERSION, "type": "heartbeat", "rank": 0}))
                    time.sleep(0.02)
                run_id = status[1]["id"]
                command = json.loads(ws.recv(timeout=30))
                for sent in events:
                    spec = {"spec": command["spec"]} if sent.get("spec") == "SPEC" else {}
                    ws.send(json.dumps({"run_id": command["run_id"], **sent, **spec}))
                self.tally.frames += len(events)
                ws.send(
                    json.dumps(
                        {
                            "v": PROTOCOL_VERSION,
                            "type": "run_finished",
                            "rank": 0,
                            "run_id": command["run_id"],
                            "timings": {"iterations": [0.001]},
                        }
                    )
                )
                deadline = time.monotonic() + 30
                while serve.call("GET", f"/api/runs/{run_id}")[1].get("state") in ("queued", "running"):
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"{run_id} did not end")
                    time.sleep(0.01)
        except ConnectionClosed:
            return  # a malformed event closes the rank's socket: fine, its run fails (is checked below)
        except (OSError, TimeoutError) as e:
            self.tally.crashes.append(("events", events, repr(e)[:200]))
            return
        for path in (
            f"/api/runs/{run_id}",
            f"/api/runs/{run_id}/trace",
            "/api/runs?limit=5",
            "/metrics",
            "/api/model?collective=all_reduce&algorithm=ring",
        ):
            self.request("GET", path, server=serve)

    def post(self, server: Up, spec: dict) -> tuple[int, dict]:
        return server.call("POST", "/api/runs", spec)

    @staticmethod
    def _verifies(spec: dict) -> bool:
        """Whether a run that asked to be verified has a verdict: native is the reference, and a
        collective that moves no data of the run's has nothing to compare."""
        return (
            spec["verify"]
            and not algorithm_of(spec["collective"], spec["algorithm"]).reference
            and COLLECTIVES[spec["collective"]].payload
        )

    def finish(self) -> int:
        """Check every accepted run's end, the server and the ranks; the number of group restarts."""
        for run_id, body in self.tally.accepted:
            run = self.ended(run_id)
            if run is None:
                self.tally.failures.append((run_id, body, "did not end"))
            elif run["state"] == "cancelled" and run_id in self.cancelled:
                continue
            elif (
                run["state"] != "done"
                or run["verified"] is False
                or (run["verified"] is None and self._verifies(run["spec"]))
            ):
                self.tally.failures.append((run_id, body, run["state"], run["verified"], run["error"]))
        for server in filter(None, (self.up, self.serve)):
            if server.proc.poll() is not None:
                self.tally.crashes.append(("server", server.url, f"exited {server.proc.returncode}"))
            elif self.request("GET", "/api/health", server=server) != 200:
                self.tally.crashes.append(("server", server.url, "/api/health did not answer 200"))
            log = server.log_text()
            if "Traceback" in log:
                self.tally.crashes.append(("log", server.url, log[log.index("Traceback") :][:2000]))
        now = self.rank_pids()
        return sum(1 for rank, pid in self.pids.items() if now.get(rank) != pid)


# (a run id, or None: one of ours), the body
CANCELS = st.tuples(st.none() | RUN_IDS, RAW_BODIES | st.just(b""))
EVENT_LISTS = st.lists(EVENTS, min_size=1, max_size=4)
INPUTS = st.one_of(
    st.tuples(st.just("run"), RUN_BODIES.map(lambda b: json.dumps(b).encode())),
    st.tuples(st.just("run"), RAW_BODIES),
    st.tuples(st.just("cancel"), CANCELS),
    st.tuples(st.just("get"), GET_PATHS),
    st.tuples(st.just("viewer"), FRAMES),
    st.tuples(st.just("worker"), FRAMES),
    st.tuples(st.just("events"), EVENT_LISTS),
)


def feed(fuzz: Fuzz, kind: str, payload) -> None:
    if kind == "run":
        fuzz.post_run(payload)
    elif kind == "cancel":
        fuzz.cancel(*payload)
    elif kind == "get":
        fuzz.get(payload)
    elif kind == "viewer":
        fuzz.viewer(payload)
    elif kind == "worker":
        fuzz.worker(payload)
    elif fuzz.serve is not None:
        fuzz.events(payload)


def run(fuzz: Fuzz, inputs: int, seed_value: int | None = None) -> None:
    """`inputs` examples drawn from INPUTS, fed one by one; no shrinking, no stopping on a finding."""

    @settings(
        max_examples=inputs,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(INPUTS)
    def one(example):
        feed(fuzz, *example)

    if seed_value is not None:
        one = seed(seed_value)(one)
    one()


def peak_rss(pid: int) -> int:
    """The process's high-water mark of resident memory (VmHWM), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def mib(n: int) -> str:
    return f"{n / 2**20:.0f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--inputs", type=int, default=100_000)
    parser.add_argument("--seed", type=int)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so that `finally` stops the servers and the ranks
    tmp = Path(tempfile.mkdtemp(prefix="ringside-fuzz-"))
    up = start_up(tmp, ranks=2, env={"RINGSIDE_WORKER_TOKEN": WORKER_TOKEN})
    serve = start_serve(tmp, "--lost-after", "1")
    began = time.monotonic()
    try:
        fuzz = Fuzz(up, serve)
        run(fuzz, args.inputs, args.seed)
        restarts = fuzz.finish()
        rss = [peak_rss(server.proc.pid) for server in (up, serve)]
    finally:
        up.stop()
        serve.stop()
    t = fuzz.tally
    print(
        f"# {time.monotonic() - began:.0f} s; logs in {tmp}; peak RSS: up's server "
        f"{mib(rss[0])}, serve's {mib(rss[1])}"
    )
    print(t.report(restarts))
    for name, found in (("5xx", t.five_xx), ("crashes", t.crashes), ("not done and verified", t.failures)):
        for item in found[:10]:
            print(f"  {name}: {item}")


if __name__ == "__main__":
    main()

"""Property-based fuzzing of the server from outside, with a bounded budget (bench/fuzz.py
runs the same strategies for 100,000 inputs): bodies of POST /api/runs and .../cancel, query
strings of the GET endpoints, frames on /ws and /ws/worker, and run events from a scripted
rank. Against `ringside up --ranks 2` (real ranks) and a `ringside serve` for the scripted
rank: never a 5xx, never a crash or a traceback, every accepted spec's run ends done and
verified, and the ranks are the same processes at the end (no group restart)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from server_helpers import WORKER_TOKEN, start_serve, start_up

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import fuzz as F  # bench/fuzz.py: the strategies and the checks

pytestmark = pytest.mark.slow  # fuzz-style: runs in CI and the README's command, not on every edit


def brief(n: int) -> settings:
    return settings(
        max_examples=n,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.generate],
    )


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fuzz")
    up = start_up(tmp, ranks=2, env={"RINGSIDE_WORKER_TOKEN": WORKER_TOKEN})
    serve = start_serve(tmp, "--lost-after", "5")
    yield F.Fuzz(up, serve)
    up.stop()
    serve.stop()


def clean(fuzz: F.Fuzz, feed) -> None:
    """Feed one input; no 5xx and no crash came of it (each reported with its input)."""
    t = fuzz.tally
    seen = len(t.five_xx), len(t.crashes)
    feed()
    assert (len(t.five_xx), len(t.crashes)) == seen, (t.five_xx[seen[0] :], t.crashes[seen[1] :])


@brief(1200)
@given(body=F.RUN_BODIES)
# an op given to a collective that reduces nothing
@example(body={"collective": "all_gather", "algorithm": "ring", "count": 8, "dtype": "float32", "op": "AVG"})
@example(body={"collective": "broadcast", "algorithm": "flat", "count": 8, "dtype": "int32", "op": "AVG"})
@example(body={"collective": "gather", "algorithm": "native", "group": [0], "peer": 1})  # found by this suite
def test_run_bodies(fuzz, body):
    clean(fuzz, lambda: fuzz.post_run(json.dumps(body).encode()))


@brief(300)
@given(body=F.RAW_BODIES)
def test_raw_bodies(fuzz, body):
    clean(fuzz, lambda: fuzz.post_run(body))


@brief(200)
@given(payload=F.CANCELS)
def test_cancel(fuzz, payload):
    clean(fuzz, lambda: fuzz.cancel(*payload))


@brief(800)
@given(path=F.GET_PATHS)
@example(path="/api/model?collective=all_reduce&algorithm=ring&world_size=256&chunks=64")
def test_get_queries(fuzz, path):
    clean(fuzz, lambda: fuzz.get(path))


@brief(240)
@given(frames=F.FRAMES)
def test_viewer_frames(fuzz, frames):
    clean(fuzz, lambda: fuzz.viewer(frames))


@brief(300)
@given(frames=F.FRAMES)
@example(
    frames=[
        json.dumps(
            {
                "v": F.PROTOCOL_VERSION,
                "type": "hello",
                "rank": 0,
                "world_size": 2,
                "host": "h",
                "pid": 1,
                "backend": "gloo",
                "device": "cpu",
                "torch_version": "x",
            }
        )
    ]
)
def test_worker_frames_beside_real_ranks(fuzz, frames):
    clean(fuzz, lambda: fuzz.worker(frames))


@brief(300)
@given(events=F.EVENT_LISTS)
# found by bench/fuzz.py
@example(events=[{"v": F.PROTOCOL_VERSION, "type": "step", "rank": 0, "step": 10**9, "t0": 0, "t1": 1}])
@example(events=[{"v": F.PROTOCOL_VERSION, "type": "step", "rank": 0, "step": -1, "t0": 0, "t1": 1}])
@example(
    events=[{"v": F.PROTOCOL_VERSION, "type": "step", "rank": 0, "step": 0, "t0": float("nan"), "t1": 1}]
)  # trace: 500
@example(
    events=[
        {
            "v": F.PROTOCOL_VERSION,
            "type": "run_finished",
            "rank": 0,
            "timings": {"iterations": [float("inf")]},
        }
    ]
)
@example(
    events=[
        {
            "v": F.PROTOCOL_VERSION,
            "type": "step",
            "rank": 0,
            "step": 0,
            "t0": -1.7976931348623157e308,
            "t1": 0,
        }
    ]
)
def test_run_events_from_a_scripted_rank(fuzz, events):
    clean(fuzz, lambda: fuzz.events(events))


def test_afterwards_every_accepted_run_was_right_and_the_group_is_the_same(fuzz):
    restarts = fuzz.finish()
    t = fuzz.tally
    print(t.report(restarts))
    assert len(t.accepted) >= 10, "too few specs were accepted to say anything about runs"
    assert not t.failures and not t.crashes and not t.five_xx, (t.failures[:5], t.crashes[:3], t.five_xx[:3])
    assert restarts == 0, f"the group was restarted: ranks {fuzz.pids} are now {fuzz.rank_pids()}"

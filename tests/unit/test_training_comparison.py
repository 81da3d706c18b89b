"""Trainings compared (server/trainings/comparison.py): each method's loss curve and what each
rank moved a step, the spread between the curves, and a refusal, naming what differs, of
trainings that did not learn the same data."""

from __future__ import annotations

import pytest

from ringside.server.dispatch.job import JobState
from ringside.server.trainings.comparison import compare
from ringside.server.trainings.training import Training, TrainRank, TrainRow, new_training
from ringside.worker_agent.core.protocol import TrainSpec
from ringside.worker_agent.core.validation import SpecError
from ringside.worker_agent.training.rules import PARAMETER_SERVER

P, N = 4, 1000  # ranks; bytes of the model's gradient


def trained(number: int, losses: list[float], moved, **spec) -> Training:
    """A finished training of `losses`, rank r moving moved(r, step) = (sent, received) bytes a step."""
    t = new_training(f"t-{number:06d}", TrainSpec(steps=len(losses), **spec), "gloo", P)
    for k, loss in enumerate(losses):
        ranks = {
            str(r): TrainRank(
                compute_s=0.001, comm_s=0.001, bytes_sent=moved(r, k)[0], bytes_received=moved(r, k)[1]
            )
            for r in range(P)
        }
        t.steps.append(
            TrainRow(
                step=k,
                loss=loss,
                accuracy=0.5,
                compute_s=0.001,
                comm_s=0.001,
                busiest_link_bytes=None,
                ranks=ranks,
            )
        )
    t.state = JobState.DONE
    return t


def ring(r, k):
    return (2 * (P - 1) * N // P, 2 * (P - 1) * N // P)


def server(r, k):  # S = 1: rank 0 takes every worker's push and serves every pull
    return ((P - 1) * N, (P - 1) * N) if r == 0 else (N, N)


def test_methods_side_by_side_with_their_curves_and_traffic():
    native = trained(1, [2.3, 1.9, 1.5], lambda r, k: (None, None))
    by_ring = trained(2, [2.3, 1.9 + 3e-7, 1.5], ring, method="ring")
    ps = trained(3, [2.3, 1.9, 1.5 - 1e-7], server, method=PARAMETER_SERVER, servers=1)
    c = compare([native, by_ring, ps])
    assert [m.method for m in c.methods] == ["native", "ring", f"{PARAMETER_SERVER} S=1"]
    assert [m.training for m in c.methods] == ["t-000001", "t-000002", "t-000003"]
    assert c.methods[1].losses == [2.3, 1.9 + 3e-7, 1.5]
    assert c.loss_spread == pytest.approx(3e-7)
    assert c.world_size == P and c.steps == 3 and c.seed == 0
    unknown, rings, servers = c.methods
    assert unknown.busiest is None and unknown.total_sent is None
    assert all(r.sent is None and r.received is None for r in unknown.ranks)
    assert [r.sent for r in rings.ranks] == [1500] * P and rings.total_sent == P * 1500
    assert servers.servers == 1 and [r.server for r in servers.ranks] == [True, False, False, False]
    assert servers.busiest is not None and servers.busiest.rank == 0 and servers.busiest.received == 3 * N
    assert servers.busiest.received > max(r.received or 0 for r in rings.ranks), (
        "the parameter server's server takes in more a step than any rank of a ring"
    )


def test_a_steps_bytes_are_averaged_over_the_steps():
    c = compare([trained(1, [1.0, 1.0], lambda r, k: (100 * (k + 1), 50)), trained(2, [1.0, 1.0], ring)])
    assert c.methods[0].ranks[0].sent == 150 and c.methods[0].ranks[0].received == 50


def test_a_diverged_step_is_left_out_of_the_spread():
    c = compare(
        [trained(1, [1.0, float("inf")], ring), trained(2, [1.25, float("inf")], ring, method="tree")]
    )
    assert c.loss_spread == 0.25


@pytest.mark.parametrize(
    "second, says",
    [
        ({"hidden": 32}, "hidden 32"),
        ({"seed": 7}, "seed 7"),
        ({"lr": 0.1}, "lr 0.1"),
        ({"batch": 32}, "batch 32"),
    ],
)
def test_trainings_of_other_data_are_refused_naming_what_differs(second, says):
    with pytest.raises(SpecError) as e:
        compare([trained(1, [1.0], ring), trained(2, [1.0], ring, method="tree", **second)])
    assert e.value.field == "ids" and says in e.value.message and "t-000002" in e.value.message


def test_too_few_unfinished_or_repeated_trainings_are_refused():
    done = trained(1, [1.0], ring)
    with pytest.raises(SpecError, match="2 to"):
        compare([done])
    with pytest.raises(SpecError, match="twice"):
        compare([done, done])
    running = trained(2, [1.0], ring, method="tree")
    running.state = JobState.RUNNING
    with pytest.raises(SpecError, match="t-000002 is running"):
        compare([done, running])
    other_steps = trained(3, [1.0, 1.0], ring, method="tree")
    with pytest.raises(SpecError, match="steps 2"):
        compare([done, other_steps])

"""Data-parallel training on real gloo ranks: every gradient sync does the same
mathematics (the batch's mean gradient, one SGD step), so every method reaches the same
weights, all-reduce keeps every rank's weights identical at every step, a parameter
server's links carry what the chapter says, and the loss falls."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch
from distributed import run_ranks, unwrap

from ringside.worker_agent.core.protocol import TrainSpec
from ringside.worker_agent.core.validation import SpecError
from ringside.worker_agent.training.rules import (
    PARAMETER_SERVER,
    check,
    methods,
    parameters,
)

P, HIDDEN, STEPS = 4, 32, 40
N_BYTES = parameters(HIDDEN) * 4  # float32 weights and gradients
LOSS_BELOW, WITHIN = 0.5, 40  # the stated promise: the batch loss falls below 0.5 within 40 steps


def train_every_method(world, specs: list[str]) -> list[dict]:
    """On every rank, each spec in turn: after every step, whether every rank that should
    hold the same weights does (an all_gather of the weights), and the final weights."""
    import torch.distributed as dist

    from ringside.worker_agent.training.trainer import Trainer

    out = []
    for text in specs:
        spec = TrainSpec.model_validate_json(text)
        trainer = Trainer(spec, world.rank, world.world_size)
        agreed = []

        def compare(record, trainer=trainer, agreed=agreed, spec=spec):
            everyone = [torch.empty_like(trainer.weights) for _ in range(world.world_size)]
            dist.all_gather(everyone, trainer.weights)
            holders = [
                r for r in range(world.world_size) if spec.method != PARAMETER_SERVER or r >= spec.servers
            ]
            agreed.append(all(torch.equal(everyone[r], everyone[holders[0]]) for r in holders))

        records = trainer.run(compare)
        # not a tensor: its
        out.append(
            {
                "weights": trainer.weights.numpy().copy(),
                "agreed": agreed,
                "records": records,
                # storage would cross the queue as a file descriptor the exiting rank takes with it
                "worker": trainer.sync.worker is not None,
            }
        )
    return out


@pytest.fixture(scope="module")
def trained():
    specs = [TrainSpec(method=m, hidden=HIDDEN, steps=STEPS) for m in methods() if m != PARAMETER_SERVER]
    specs += [TrainSpec(method=PARAMETER_SERVER, servers=s, hidden=HIDDEN, steps=STEPS) for s in range(1, P)]
    results = unwrap(run_ranks(train_every_method, P, [s.model_dump_json() for s in specs]))
    return specs, results


def test_every_rank_that_trains_holds_the_same_weights_after_every_step(trained):
    specs, results = trained
    for i, spec in enumerate(specs):
        assert all(results[0][i]["agreed"]), f"{spec.method} S={spec.servers}: weights differ after some step"
        assert len(results[0][i]["agreed"]) == STEPS


def test_a_parameter_server_and_every_all_reduce_reach_the_same_weights(trained):
    specs, results = trained
    reference = results[0][0]["weights"]  # native all_reduce on rank 0
    assert abs(reference).sum() > 0
    for i, spec in enumerate(specs):
        worker = next(rank for rank in range(P) if results[rank][i]["worker"])
        diff = abs(results[worker][i]["weights"] - reference).max()
        assert diff < 1e-4, f"{spec.method} S={spec.servers} ends {diff} away from native all_reduce"


def test_the_loss_falls_below_the_stated_threshold(trained):
    specs, results = trained
    for i, spec in enumerate(specs):
        parts = [r for rank in range(P) for r in results[rank][i]["records"][:WITHIN] if r.samples]
        by_step: dict[int, list] = {}
        for r in parts:
            by_step.setdefault(r.step, []).append(r)
        losses = [
            sum(r.loss * r.samples for r in rs) / sum(r.samples for r in rs)
            for _, rs in sorted(by_step.items())
        ]
        assert losses[0] > 2.0, "an untrained model guesses among 10 classes"
        assert min(losses) < LOSS_BELOW, f"{spec.method}: best batch loss {min(losses):.3f} in {WITHIN} steps"


def test_each_parameter_server_link_carries_p_minus_s_times_n_over_s(trained):
    specs, results = trained
    for i, spec in enumerate(specs):
        if spec.method != PARAMETER_SERVER:
            continue
        s = spec.servers
        shard = -(-parameters(HIDDEN) // s) * 4  # the model padded to S equal shards of float32
        for rank in range(P):
            record = results[rank][i]["records"][-1]
            if rank < s:  # a server: its shard out to every worker (pull), every worker's push in
                assert record.bytes_sent == record.bytes_received == (P - s) * shard, (s, rank)
            else:  # a worker: the whole weights in, its whole gradient out
                assert record.bytes_sent == record.bytes_received == s * shard, (s, rank)


def test_ring_moves_what_its_formula_says(trained):
    specs, results = trained
    i = next(k for k, s in enumerate(specs) if s.method == "ring")
    records = [results[rank][i]["records"][0] for rank in range(P)]
    # 2·(N/P)·(P-1) per rank: exactly in all, and per rank within a chunk's rounding (N is not a
    # multiple of P)
    received = sum(r.bytes_received for r in records)
    assert sum(r.bytes_sent for r in records) == 2 * (P - 1) * N_BYTES == received
    for r in records:
        assert abs(r.bytes_sent - 2 * (P - 1) * N_BYTES / P) <= 2 * (P - 1) * 4


@pytest.mark.parametrize(
    "field, change, words",
    [
        ("servers", {"method": PARAMETER_SERVER, "servers": 4}, "1 to 3"),
        ("servers", {"method": PARAMETER_SERVER, "servers": 0}, "leaving at least one worker"),
        ("lr", {"lr": 0.0}, "above 0"),
        ("lr", {"lr": -1}, "above 0"),
        ("steps", {"steps": 10**6}, "1 to"),
        ("hidden", {"hidden": 10**5}, "1 to"),
        ("batch", {"batch": 10**5}, "to"),
        ("batch", {"method": PARAMETER_SERVER, "servers": 1, "batch": 2}, "one sample per worker"),
        ("method", {"method": "carrier_pigeon"}, "not a way"),
    ],
)
def test_bad_training_input_names_its_field(field, change, words):
    with pytest.raises(SpecError) as e:
        check(TrainSpec(**change), P)
    assert e.value.field == field and words in e.value.message


def test_the_command_compares_methods_and_refuses_bad_input():
    cmd = [
        sys.executable,
        "-m",
        "ringside.worker_agent.cli",
        "train",
        "-n",
        "3",
        "--steps",
        "5",
        "--hidden",
        "8",
    ]
    done = subprocess.run([*cmd, "--compare"], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:3] == ["method", "step", "ms"]
    assert {line.split()[0] for line in lines[1:]} >= {"native", "ring", PARAMETER_SERVER}
    assert any("S=2" in line for line in lines), "P-1 servers are compared too"
    bad = subprocess.run(
        [*cmd, "--method", PARAMETER_SERVER, "--servers", "3"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2 and "servers" in bad.stderr and "Traceback" not in bad.stderr

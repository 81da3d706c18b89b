"""parameter_server schedules, and what they move as the chapter writes it.

The chapter's synchronous step: pull weights (fan-out: every server sends its shard of
the weights to every worker), push gradients (fan-in: every worker sends each shard of
its gradient to that shard's server), aggregate and update (each server folds the
gradients into its weights). The fan-in reduces straight into the server's weights, so
aggregating and updating happen as the pushes land: the push step is the server's own
step, and its caption says so. Buffer layout and servers: collectives/parameter_server.py.
"""

from __future__ import annotations

from fractions import Fraction

from ..collectives.parameter_server import ParameterServer
from ..schedule import Transfer, pipelined, rank
from . import formulas
from .captions import narrated
from .registry import Built, register

NAME = "pull_push"


@register("parameter_server", NAME, layout="servers")
def pull_push(p: int, root: int = 0, chunks: int = 1, servers: int = 1) -> Built:
    """Pull then push, each one step (pipelined over `chunks` pieces per shard): a server's
    link carries (P-S)·N/S each way, a worker's N each way."""
    if not 1 <= servers <= p:
        raise ValueError(f"servers must be between 1 and the world size, {p}, not {servers}")
    ps = ParameterServer(servers)
    hosts, workers = ps.server_ranks(p, root), ps.workers(p, root)
    pull = [Transfer(s, w, j, j, False) for j, s in enumerate(hosts) for w in workers]
    push = [Transfer(w, s, servers + j, j, True) for w in workers for j, s in enumerate(hosts)]
    rounds = (
        [
            narrated("pull", _pull_caption(hosts), pull),
            narrated("push", _push_caption(hosts), push),
        ]
        if workers
        else []
    )
    return Built(chunks, pipelined(rounds, chunks))


def _pull_caption(hosts: list[int]) -> str:
    if len(hosts) == 1:
        return f"pull weights (fan-out): the server, {rank(hosts[0])}, sends the weights to every worker"
    return "pull weights (fan-out): every server sends its shard of the weights to every worker"


def _push_caption(hosts: list[int]) -> str:
    if len(hosts) == 1:
        return (
            "push gradients (fan-in), aggregate and update (under SUM, w ← w − η·Σg): every worker "
            f"sends −η·g (η = 1) to the server, {rank(hosts[0])}, which combines each with the weights "
            "as it lands"
        )
    return (
        "push gradients (fan-in), aggregate and update (under SUM, w ← w − η·Σg): every worker sends "
        "each shard of −η·g (η = 1) to that shard's server, which combines it with its shard of the "
        "weights"
    )


# --- the traffic formulas, for one run's N and P ------------------------------


def formula(model_bytes: int, p: int, servers: int) -> formulas.Evaluated | None:
    """The parameter server's formula for this run, shaped as formulas.evaluate's answer:
    {formula, what, measure, unit, unit_bytes, value}. N is the model's bytes; each server's
    link carries (P-S)·N/S out (pull) and as much in (push): (P-1)·N with one server. Every
    server moves the same, so formulas.measured reads it at the root, the first server."""
    value = Fraction((p - servers) * model_bytes, servers)
    if value.denominator != 1:
        return None
    text = "(P-1)·N" if servers == 1 else "(P-S)·N/S"
    return {
        "formula": text,
        "what": "sent by each server (and as much received)",
        "measure": formulas.SENT_ROOT,
        "unit": "N",
        "unit_bytes": model_bytes,
        "value": int(value),
    }


def measured_by_servers(servers: list[int], sent: dict[int, int], received: dict[int, int]) -> int | None:
    """What a run measured of that formula: the bytes every server sent, when each sent and
    received that same amount (else None: the formula does not describe the run)."""
    amounts = {sent.get(s) for s in servers} | {received.get(s) for s in servers}
    return amounts.pop() if len(amounts) == 1 else None


# The all_reduce algorithms the chapter sets beside the parameter server.
BESIDE = ("ring", "tree", "master_worker")


def formulas_beside(model_bytes: int, p: int, servers: int) -> dict[str, formulas.Evaluated | None]:
    """Every formula of the chapter's comparison for the same N and P: the parameter server's
    and all_reduce's by ring, tree and master-worker (formulas.py's, as the stage shows them),
    keyed by algorithm; None where a formula has no exact value here."""
    out = {NAME: formula(model_bytes, p, servers)}
    for algorithm in BESIDE:
        out[algorithm] = formulas.evaluate("all_reduce", algorithm, model_bytes, p)
    return out

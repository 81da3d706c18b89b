"""Everything a bench runs, on every rank together: where every rank runs (nccl-tests' "Using
devices"), nccl-tests' table of torch's own call (nccl_runs), then Ringside's algorithms against
native (sweep) for each (dtype, op) pair a run's spec takes, when any algorithm but native is
asked for."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ringside.bench.nccl_runs import results
from ringside.bench.plan import compared, on_pair, pairs
from ringside.bench.sweep import SWEEP_DEFAULTS, sweep
from ringside.worker_agent.core.algorithms import NATIVE


def run(
    world,
    flags: dict,
    names: list[str],
    size_list: list[int],
    between: Callable[[int, int], None] | None = None,
) -> tuple[dict, list[dict], list[dict]]:
    """(setting, nccl-tests' results, Ringside's rows); the setting is the backend and every rank's
    device. `between(done, total)`: as sweep() calls it, counted over both tables."""
    a = argparse.Namespace(**{**SWEEP_DEFAULTS, **flags})
    setting = {"backend": world.backend, "torch": torch_version(), "devices": devices(world)}
    kept, _ = pairs(a, world.backend)
    ours = [pair for pair in kept if compared(pair)] if set(names) - {NATIVE} else []
    first = len(kept) * len(size_list)
    total = first + len(ours) * len(size_list) * len(names)
    done = _offset(between, 0, total)
    found = results(world, a, kept, size_list, done)
    rows: list[dict] = []
    for pair in ours:
        done = _offset(between, first + len(rows), total)
        rows += sweep(world, vars(on_pair(a, pair)), names, size_list, done)
    return setting, found, rows


def torch_version() -> str:
    import torch

    return torch.__version__


def devices(world) -> list[dict]:
    """Every rank's process and device, in rank order, on every rank."""
    import torch
    import torch.distributed as dist

    d = world.device
    if d.type == "cuda":
        props = torch.cuda.get_device_properties(d)
        ids = (getattr(props, f"pci_{part}_id", 0) for part in ("domain", "bus", "device"))
        mine = {"index": d.index, "bus": "{:04x}:{:02x}:{:02x}".format(*ids), "name": props.name}
    else:
        mine = {"index": -1, "bus": "cpu", "name": "CPU"}
    mine = {"rank": world.rank, "host": world.host, "pid": world.pid, **mine}
    everyone: list[dict] = [{}] * world.world_size  # all_gather_object fills in each rank's
    dist.all_gather_object(everyone, mine)
    return everyone


def _offset(between: Callable[[int, int], None] | None, offset: int, total: int):
    if between is None:
        return None
    return lambda done, _: between(offset + done, total)

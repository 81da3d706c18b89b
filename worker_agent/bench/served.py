"""A served bench on this rank (`ringside bench --server`): the bench's own run (run.py), which
gathers every rank's numbers on every rank, then one event. Rank 0's carries the tables; the
others' only say they are done. Before each size, and every few iterations within one, the ranks
ask each other whether any was told to cancel, outside the timed part, so all stop at the same
point."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.distributed as dist

from ringside.bench.run import run
from ringside.worker_agent.core.protocol import (
    BenchCommand,
    BenchFinished,
    BenchResult,
    BenchRow,
    BenchSetting,
    ErrorEvent,
    Message,
    RunCancelled,
)
from ringside.worker_agent.core.validation import SpecError
from ringside.worker_agent.rank.process_group import World
from ringside.worker_agent.rank.runner import RunFailed, failure_reason


class Stopped(Exception):
    """The ranks agreed to stop the bench (a cancel)."""


def bench_and_report(
    world: World, command: BenchCommand, emit: Callable[[Message], None], stop: Callable[[], bool]
) -> None:
    """Run the sweep and report it; raises SpecError (every rank alike, the group fine) or RunFailed
    (said first as an ErrorEvent naming this rank; the group is broken)."""

    def between(done: int, total: int) -> None:
        if _anyone(world, stop()):
            raise Stopped(done, total)

    try:
        flags = {**command.spec.model_dump(exclude={"only"}), "backend": world.backend}
        setting, results, rows = run(world, flags, command.algorithms, command.sizes, between)
    except Stopped as e:
        done, total = e.args
        emit(RunCancelled(run_id=command.run_id, rank=world.rank, done=done, total=total))
        return
    except SpecError:
        raise
    except Exception as e:  # a peer died or timed out mid-sweep: report it; the group is broken
        message = f"rank {world.rank}: bench failed: {failure_reason(e, world.timeout)}"
        world.broken()  # before the report, as runner.py says
        emit(ErrorEvent(run_id=command.run_id, rank=world.rank, message=message))
        raise RunFailed(message) from e
    if world.rank == 0:
        emit(
            BenchFinished(
                run_id=command.run_id,
                rank=0,
                setting=BenchSetting(**setting),
                results=[BenchResult(**r) for r in results],
                rows=[BenchRow(**row) for row in rows],
            )
        )
    else:
        emit(BenchFinished(run_id=command.run_id, rank=world.rank))


def _anyone(world: World, mine: bool) -> bool:
    """Whether any rank wants to stop: one element's all_reduce."""
    flag = torch.tensor([float(mine)], dtype=torch.float64, device=world.device)
    dist.all_reduce(flag, dist.ReduceOp.MAX)
    return bool(flag.item())

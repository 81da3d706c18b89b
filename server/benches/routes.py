"""/api/bench: nccl-tests' table of the connected cluster (`ringside bench --server`): start one
(the presenter), read it until it has ended and carries its table, cancel it. Its service lives
in service.py."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Path

from ringside.server.benches.service import Bench, Benches, benches_of
from ringside.server.door.auth import need_presenter
from ringside.server.door.errors import found
from ringside.worker_agent.core.protocol import BenchSpec

router = APIRouter(prefix="/api/bench")
present = Depends(need_presenter)  # its numbers hold the cluster: the presenter's, as runs are
BenchId = Path(max_length=40)


@router.post("", status_code=202, dependencies=[present])
async def post_bench(spec: BenchSpec, benches: Benches = Depends(benches_of)) -> dict:
    bench = await benches.submit(spec)
    return {
        "id": bench.id,
        "state": bench.state,
        "algorithms": bench.algorithms,
        "sizes": bench.sizes,
        "skipped": bench.skipped,
    }


@router.get("/{bench_id}", dependencies=[present], response_model=Bench)
async def get_bench(bench_id: str = BenchId, benches: Benches = Depends(benches_of)) -> Bench:
    return found(benches.find(bench_id), "bench", bench_id)


@router.post("/{bench_id}/cancel", dependencies=[present], response_model=Bench)
async def cancel_bench(bench_id: str = BenchId, benches: Benches = Depends(benches_of)) -> Bench:
    return found(benches.cancel(bench_id), "bench", bench_id)

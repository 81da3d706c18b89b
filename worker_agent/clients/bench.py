"""`ringside bench --server URL`: the bench on a server's connected cluster (server/benches/).
The server plans it and refuses bad flags before any rank hears of it; every rank runs the sweep;
the merged tables come back here and are printed as the local bench prints its own (report.py).
Ctrl-C cancels it: the ranks stop together within a few iterations."""

from __future__ import annotations

import argparse
import sys
import time

from pydantic import ValidationError

from ringside.bench.report import report
from ringside.worker_agent.clients.http_call import call
from ringside.worker_agent.core.protocol import BenchSpec

POLL_S = 0.2
ENDED = ("done", "failed", "cancelled", "interrupted")
# local flags a served bench takes from the cluster instead: its ranks, its backend, its algorithms
NOT_SERVED = {"ranks": "--ranks", "backend": "--backend", "algorithms": "--algorithms"}


def spec_of(args: argparse.Namespace) -> BenchSpec:
    """The flags as the server takes them; raises ValueError naming a flag that does not apply."""
    for name, flag in NOT_SERVED.items():
        if getattr(args, name):
            raise ValueError(
                f"{flag} does not apply with --server: the cluster's ranks run the bench, "
                "with their backend and the algorithms they loaded"
            )
    return BenchSpec(
        collective=args.collective,
        only=args.only.split(",") if args.only else None,
        min_bytes=args.min_bytes,
        max_bytes=args.max_bytes,
        factor=args.factor,
        step=args.step,
        iterations=args.iterations,
        warmup=args.warmup,
        check=args.check,
        op=args.op,
        dtype=args.dtype,
        root=args.root,
        average=args.average,
        blocking=args.blocking,
    )


def said(body: dict) -> str:
    detail = body.get("detail", body) if isinstance(body, dict) else body
    return f"{detail.get('field')}: {detail.get('message')}" if isinstance(detail, dict) else str(detail)


def wait(base: str, token: str | None, bench_id: str) -> dict:
    """The bench once it has ended; Ctrl-C asks the server to cancel it, then waits for that."""
    while True:
        try:
            status, body = call("GET", f"{base}/api/bench/{bench_id}", token)
            if status != 200:
                raise RuntimeError(f"{bench_id}: {said(body)}")
            if body["state"] in ENDED:
                return body
            time.sleep(POLL_S)
        except KeyboardInterrupt:
            print(f"cancelling {bench_id}...", file=sys.stderr, flush=True)
            call("POST", f"{base}/api/bench/{bench_id}/cancel", token)


def main(args: argparse.Namespace) -> int:
    try:
        spec = spec_of(args)
    except ValidationError as e:
        err = e.errors()[0]
        print(f"error: {'.'.join(map(str, err['loc']))}: {err['msg']}", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    base = args.server.rstrip("/")
    try:
        status, body = call("POST", f"{base}/api/bench", args.token, spec.model_dump())
        if status != 202:
            print(f"error: {said(body)}", file=sys.stderr)
            return 2
        for why in body["skipped"]:
            print(f"skipped: {why}", file=sys.stderr)
        ended = wait(base, args.token, body["id"])
    except OSError as e:
        print(f"error: cannot reach {base}: {e}", file=sys.stderr)
        return 1
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if ended["state"] != "done":
        print(
            f"error: {ended['id']} {ended['state']}" + (f": {ended['error']}" if ended["error"] else ""),
            file=sys.stderr,
        )
        return 1
    return report(ended["setting"], ended["results"], ended["rows"], args)

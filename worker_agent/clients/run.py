"""`ringside run`: trigger a run on a server from a terminal, wait for it, and
print its result table and the URL that shows it."""

from __future__ import annotations

import argparse
import os
import sys
import time

from pydantic import ValidationError

from ringside.server.dispatch.job import JobState
from ringside.server.runs.run import Run
from ringside.worker_agent.clients.http_call import call
from ringside.worker_agent.spec_args import add_spec_arguments, first_error, spec_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", default=os.environ.get("RINGSIDE_SERVER", "http://127.0.0.1:8000"))
    parser.add_argument(
        "--token",
        default=os.environ.get("RINGSIDE_PRESENTER_TOKEN"),
        help="the presenter token (default: $RINGSIDE_PRESENTER_TOKEN)",
    )
    parser.add_argument("--no-wait", action="store_true", help="print the run id and return at once")
    add_spec_arguments(parser)


def table(run: Run) -> str:
    spec = run.spec
    lines = [
        f"run {run.id}: {spec.collective}/{spec.algorithm} count={spec.count} {spec.dtype} on ranks "
        f"{run.group}: {run.state}"
    ]
    if run.error:
        lines.append(f"error: {run.error}")
    lines.append(
        f"{'rank':>5} {'median us':>10} {'sent B':>10} {'received B':>11} {'verified':>9} {'checksum':>21}"
    )
    for rank, r in sorted(run.results.items(), key=lambda kv: int(kv[0])):
        its = sorted(r.timings.iterations)
        median = its[len(its) // 2] * 1e6 if its else float("nan")
        lines.append(
            f"{rank:>5} {median:>10.1f} {r.bytes_sent:>10} {r.bytes_received:>11} "
            f"{str(r.verified):>9} {str(r.checksum):>21}"
        )
    if run.time is not None:
        lines.append(
            f"time {run.time * 1e6:.1f} us (slowest rank, median), algbw {gbps(run.algbw)} "
            f"GB/s, busbw {gbps(run.busbw)} GB/s"
        )
    return "\n".join(lines)


def gbps(bandwidth: float | None) -> str:
    """Bytes/s in GB/s; "-" for none (a run whose median iteration timed at 0 s has no bandwidth)."""
    return "-" if bandwidth is None else f"{bandwidth / 1e9:.3f}"


def main(args: argparse.Namespace) -> int:
    try:
        spec = spec_from_args(args)
    except (ValidationError, ValueError) as e:
        print(f"error: {first_error(e)}", file=sys.stderr)
        return 2
    base = args.server.rstrip("/")
    try:
        status, body = call("POST", f"{base}/api/runs", args.token, spec.model_dump())
    except OSError as e:
        print(f"error: cannot reach {base}: {e}", file=sys.stderr)
        return 1
    if status != 202:
        detail = body.get("detail", body)
        print(
            f"error: {detail.get('field', '')}: {detail.get('message', detail)}"
            if isinstance(detail, dict)
            else f"error: {detail}",
            file=sys.stderr,
        )
        return 2
    run_id = body["id"]
    if args.no_wait:
        print(run_id)
        return 0
    while not (
        run := Run.model_validate(call("GET", f"{base}/api/runs/{run_id}", args.token)[1])
    ).state.ended:
        time.sleep(0.1)
    print(table(run))
    print(f"see it: {base}/?run={run_id}")
    return 0 if run.state == JobState.DONE else 1

"""One server watching a job of thousands of ranks: a synthetic job (worker_agent/clients/
synthetic_job.py) of 1,024 and 4,096 ranks, 8 a node, each rank a websocket of its own speaking the
watch protocol as ringside.watch's reporter does (its hello, a report every --interval s with what
it issued, or as seldom as a reporter paces a job of that size), from a few processes, an all_reduce
of the world every 1/--rate s. Then one rank stops (as a SIGSTOPped rank: silent just before a
collective) while the others issue that collective and wait in it.

Measured, for each size:

- hang named: seconds from the stop until GET /api/watched names the stopped rank, and only it, late;
- server CPU: the server process's CPU time over wall time (/proc/PID/stat) in steady state, the
  job's ranks all reporting and the page open on it; and the share of that window its main thread
  was ready to run but waited for a core (/proc/PID/schedstat): past a few percent, the machine,
  not the server, set how late the hang was named;
- a report: the server's CPU time over the whole run (handshakes, hellos, reports, hang checks,
  the store, the page's requests) over the reports the ranks sent, which a loaded machine does
  not change as it changes the share;
- page fps: requestAnimationFrame callbacks a second in Chromium (1280x720) with the jobs panel open
  on the job, while it runs and while it hangs.

Prints figures; asserts nothing.

    .venv/bin/python bench/many_ranks.py [--ranks 1024 4096] [--rate 10] [--interval 0.5] [--procs 4]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import tempfile
import time
import uuid
from pathlib import Path

from ringside.worker_agent.clients.harness import WORKER_TOKEN, launch_chromium, start_serve
from ringside.worker_agent.clients.synthetic_job import Plan, run_ranks

STEADY_S = 10.0  # the window in steady state over which CPU and fps are measured
HANG_WITHIN_S = 30.0  # given up on after this

# requestAnimationFrame callbacks for `ms` ms: frames a second, and the longest gap between two
FPS = """async (ms) => {
  const stamps = []; let on = true;
  const loop = (t) => { stamps.push(t); if (on) requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
  await new Promise((done) => setTimeout(done, ms));
  on = false;
  const gaps = stamps.slice(1).map((t, i) => t - stamps[i]);
  return { fps: (stamps.length - 1) / ((stamps.at(-1) - stamps[0]) / 1000), worst: Math.max(...gaps) };
}"""


def cpu_s(pid: int) -> float:
    """The process's user and system CPU time so far (seconds)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def settled_cpu_s(pid: int, within: float = 60.0) -> float:
    """The process's CPU time once it stops growing (a server behind its reports reads the rest)."""
    last, deadline = -1.0, time.monotonic() + within
    while time.monotonic() < deadline and cpu_s(pid) != last:
        last = cpu_s(pid)
        time.sleep(1.0)
    return cpu_s(pid)


def waited_s(pid: int) -> float:
    """How long the process's main thread has been ready to run and waited for a core (seconds)."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9


def get(up, path: str) -> dict:
    status, body = up.call("GET", path)
    if status != 200:
        raise RuntimeError(f"GET {path}: {status} {body}")
    return body


def asked(up, path: str) -> dict | None:
    """GET path; None from a server too busy to answer in time (asked again)."""
    try:
        return get(up, path)
    except OSError:
        return None


def wait_for(what, within: float, every: float = 0.05):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        value = what()
        if value:
            return value
        time.sleep(every)
    return None


def measure(world: int, args, browser) -> dict:
    up = start_serve(Path(tempfile.mkdtemp()))
    started = cpu_s(up.proc.pid)
    try:
        warm = 10.0 + world / 50  # every rank connected (and the page open) before the job issues
        t0 = time.time() + warm
        stop_at = int((2 + STEADY_S + 3) * args.rate)  # from t0
        plan = Plan(
            world=world,
            key=uuid.uuid4().hex[:16],
            t0=t0,
            rate=args.rate,
            interval=args.interval,
            stop_rank=world // 2 + 3,
            stop_at=stop_at,
        )
        until = plan.stop_time + HANG_WITHIN_S + 5
        shares = [range(i, world, args.procs) for i in range(args.procs)]
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(args.procs) as pool:
            running = pool.starmap_async(run_ranks, [(up.url, WORKER_TOKEN, plan, s, until) for s in shares])
            job = wait_for(lambda: (asked(up, "/api/watched") or {}).get("jobs"), warm + 60)[0]
            page.goto(f"{up.url}/?token={up.presenter}&job={job['id']}", timeout=300_000)
            page.wait_for_function(
                f"() => window.ringside.watched.shown?.ranks.length === {world}", timeout=(warm + 120) * 1000
            )
            time.sleep(max(0.0, t0 + 2 - time.time()))  # issuing, every rank
            before, waited, wall = cpu_s(up.proc.pid), waited_s(up.proc.pid), time.monotonic()
            running_fps = page.evaluate(FPS, STEADY_S * 1000)
            span = time.monotonic() - wall
            cpu = (cpu_s(up.proc.pid) - before) / span
            starved = (waited_s(up.proc.pid) - waited) / span
            shown = asked(up, f"/api/watched/{job['id']}?limit=1")
            connected = sum(r["connected"] for r in shown["ranks"]) if shown else -1  # -1: too busy to say
            time.sleep(max(0.0, plan.stop_time - time.time()))
            stopped = plan.stop_time

            def named():
                jobs = asked(up, "/api/watched?limit=200")
                hang = jobs["jobs"][0].get("hang") if jobs else None
                return hang if hang and hang["late"] == [plan.stop_rank] else None

            hang = wait_for(named, HANG_WITHIN_S)
            named_s = time.time() - stopped if hang else None
            hanging_fps = page.evaluate(FPS, 3000)
            page.close()
            counts = running.get(timeout=until - time.time() + 60)
            all_told = settled_cpu_s(up.proc.pid) - started
    finally:
        up.proc.kill()
    return {
        "world": world,
        "every": plan.every,
        "connected": connected,
        "refused": sum(len(c.refused) for c in counts),
        "reports": sum(c.reports for c in counts),
        "named_s": named_s,
        "hang": hang,
        "cpu": cpu,
        "per_report_us": all_told / max(1, sum(c.reports for c in counts)) * 1e6,
        "starved": starved,
        "fps": running_fps,
        "fps_hang": hanging_fps,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ranks", type=int, nargs="+", default=[1024, 4096])
    parser.add_argument("--rate", type=float, default=10.0, help="collectives a second, each rank")
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between a rank's reports")
    parser.add_argument("--procs", type=int, default=4, help="processes the ranks are spread over")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    results = []
    with sync_playwright() as p:
        browser = launch_chromium(p)
        for world in args.ranks:
            results.append(measure(world, args, browser))
        browser.close()
    print(
        f"synthetic jobs, 8 ranks a node, an all_reduce every {1 / args.rate:.2f} s, a report every "
        f"{args.interval} s a rank or as seldom as a reporter paces the job, from {args.procs} processes; "
        "page at 1280x720"
    )
    heads = ("ranks", "reports", "connected", "hang named", "server CPU", "a report", "waited", "page fps")
    heads += ("(hanging)",)
    print(" ".join(f"{h:>{w}}" for h, w in zip(heads, (6, 9, 9, 11, 11, 9, 7, 9, 9))))
    for r in results:
        named = f"{r['named_s']:.2f} s" if r["named_s"] is not None else "never"
        print(
            f"{r['world']:>6} {r['every']:>5.2f} s {r['connected']:>9} {named:>11} {r['cpu']:>7.2f} cores "
            f"{r['per_report_us']:>6.0f} µs {r['starved']:>6.0%} {r['fps']['fps']:>9.1f} "
            f"{r['fps_hang']['fps']:>9.1f}"
        )
        if r["refused"]:
            print(f"       {r['refused']} ranks could not connect")
        if r["hang"]:
            print(f"       {r['hang']['text'][:160]}")
    print(f"machine load after: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("reports sent: " + ", ".join(str(r["reports"]) for r in results))
    print("worst frame gap: " + ", ".join(f"{r['fps']['worst']:.0f} ms" for r in results))


if __name__ == "__main__":
    main()

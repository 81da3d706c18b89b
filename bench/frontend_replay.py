"""Building a live run's frames in headless Chromium, the old way and the new: a 64-rank,
500-step run whose ranks report step after step, as the page receives them.

- old: replay the whole run from scratch each time a step is complete (what the player did
  on every live step): quadratic in the steps;
- new: extend the frames by the step just completed (replay.js `extend`): linear.

The run is a ring: at step k every rank reduces one chunk into its right neighbour's, and
each rank reports the chunk it received. Only the frames are timed, not the drawing.
Prints figures; asserts nothing.

    .venv/bin/python bench/frontend_replay.py [--ranks 64] [--steps 500] [--values 4] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
from pathlib import Path

from ringside.worker_agent.clients.harness import launch_chromium

FRONTEND = Path(__file__).resolve().parent.parent / "frontend"
ORIGIN = "http://ringside.bench"  # answered by the route below, not a server
PAGE = '<!doctype html><script type="importmap">{"imports": {"rs/": "/js/"}}</script>'

# Feed the reports one by one; after each step's last one, build the frames `way`. Returns the
# milliseconds spent building frames (not making the reports) and how many there are.
MEASURE = """async ({ ranks, steps, values, way }) => {
  const { replay, extend, firstFrame } = await import("rs/stage/replay.js");
  const group = [...Array(ranks).keys()];
  const data = (rank, chunk, step) => Array.from({ length: values }, (_, i) => rank + chunk + step + i);
  const run = {
    group, chunk_bounds: group.map((c) => [c * values, (c + 1) * values]),
    inputs: Object.fromEntries(group.map((r) => [r,
      group.map((c) => ({ chunk: c, values: data(r, c, -1) }))])),
    input_chunks: Object.fromEntries(group.map((r) => [r, group])),
    steps: Array.from({ length: steps }, (_, k) => ({
      step: k, phase: "ring", caption: "", ranks: {},
      transfers: group.map((r) => {
        const c = (r - k + steps * ranks) % ranks;
        return [r, (r + 1) % ranks, c, c, 1];
      }),
    })),
  };
  let frames = [firstFrame(run)], ms = 0;
  for (let k = 0; k < steps; k++) {
    for (const r of group) {
      const chunk = (r - 1 - k + steps * ranks) % ranks;
      run.steps[k].ranks[r] = { t0: k, t1: k + 0.5, states: [{ chunk, values: data(r, chunk, k) }] };
    }
    const t0 = performance.now();
    if (way === "old") frames = replay(run);
    else extend(frames, run);
    ms += performance.now() - t0;
  }
  return { ms, frames: frames.length };
}"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--values", type=int, default=4, help="values per chunk (a chunk per rank)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of the new way to take the median of")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    def serve(route):
        path = route.request.url.removeprefix(ORIGIN)
        if path == "/":
            return route.fulfill(body=PAGE, content_type="text/html")
        route.fulfill(path=FRONTEND / path.lstrip("/"), content_type="text/javascript")

    def ms(way, steps):
        figures = pages[way].evaluate(
            MEASURE, {"ranks": args.ranks, "steps": steps, "values": args.values, "way": way}
        )
        assert figures["frames"] == steps + 1
        return figures["ms"]

    sizes = sorted({args.steps // 4, args.steps // 2, args.steps})
    rows = []
    with sync_playwright() as p:
        browser = launch_chromium(p)
        # A page (and so a heap) for each way: the old way's garbage does not slow the new.
        pages = {way: browser.new_context().new_page() for way in ("old", "new")}
        for page in pages.values():
            page.route(f"{ORIGIN}/**", serve)
            page.goto(f"{ORIGIN}/")
        ms("new", args.steps)  # compiled before it is timed
        for steps in sizes:
            # The new way is quick enough to take the median of a few; the old one is not.
            rows.append(
                (steps, ms("old", steps), statistics.median(ms("new", steps) for _ in range(args.repeat)))
            )
        version = browser.version
        browser.close()
    print(
        f"a live run's frames, {args.ranks} ranks x {args.ranks} chunks of {args.values} "
        f"values, Chromium {version}"
    )
    print(
        f"{'steps':>6} {'old: replay all (ms)':>21} {'per step':>9} {'new: extend (ms)':>17} "
        f"{'per step':>9} {'old / new':>10}"
    )
    for steps, old, new in rows:
        print(f"{steps:6} {old:21.1f} {old / steps:9.3f} {new:17.1f} {new / steps:9.3f} {old / new:10.1f}")
    # The last two sizes: a ring's first `ranks` steps are cheaper (its chunks' origins still grow).
    (s0, old0, new0), (s1, old1, new1) = rows[-2], rows[-1]
    print(f"{s1 / s0:g}x the steps: old {old1 / old0:.1f}x the time, new {new1 / new0:.1f}x")
    print(f"machine load while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()

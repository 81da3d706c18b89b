"""The page in headless Chromium against a real `ringside up`: the animation's frame rate on a
ring all_reduce of 16 ranks with 16 chunks (requestAnimationFrame callbacks per second while
steps play at 1x), and the page's first paint on localhost. Prints figures; asserts nothing.

    .venv/bin/python bench/frontend_fps.py [--ranks 16] [--steps 8] [--present] [--lang ko]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from ringside.worker_agent.clients.harness import launch_chromium, start_up

# Play `steps` steps at 1x from the inputs while a separate requestAnimationFrame loop stamps
# every frame the page draws: frames per second, and the longest gap between two frames. Long
# tasks (over 50 ms of the page's own script) tell a slow page from a machine too busy to draw.
PLAY = """async (steps) => {
  const { player, stage, state } = window.ringside;
  player.pause(); state.live = false; player.speed = 1; player.go(-1);
  const long = [];
  const observer = new PerformanceObserver((list) => long.push(...list.getEntries().map((e) => e.duration)));
  observer.observe({ type: "longtask" });
  const stamps = []; let on = true;
  const loop = (t) => { stamps.push(t); if (on) requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
  const counted = stage.frameCount, t0 = performance.now();
  for (let i = 0; i < steps; i++) await player.forward();
  const elapsed = performance.now() - t0;
  on = false;
  observer.disconnect();
  const gaps = stamps.slice(1).map((t, i) => t - stamps[i]);
  return { ticks: stage.frameCount - counted, elapsed, gaps, long };
}"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ranks", type=int, default=16)
    parser.add_argument("--steps", type=int, default=8, help="steps to play (each 1.4 s at 1x)")
    parser.add_argument("--present", action="store_true", help="in lecture mode (the stage is larger)")
    parser.add_argument("--loads", type=int, default=5, help="page loads to time the first paint over")
    parser.add_argument(
        "--lang",
        choices=("en", "ko", "zh"),
        default="en",
        help="the page's language (ko, zh: words and captions translated as they change)",
    )
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    up = start_up(Path(tempfile.mkdtemp()), ranks=args.ranks, timeout=300)
    try:
        run = up.run(collective="all_reduce", algorithm="ring", count=args.ranks * 4, capture="full")
        query = f"?run={run['id']}&lang={args.lang}" + ("&present=1" if args.present else "")
        with sync_playwright() as p:
            browser = launch_chromium(p)
            paints = []
            for _ in range(args.loads):
                page = browser.new_page(viewport={"width": 1280, "height": 720})
                page.goto(f"{up.url}/{query}")
                page.wait_for_function(
                    f"() => window.ringside.player.run && window.ringside.player.run.id === '{run['id']}'"
                )
                entries = dict(
                    page.evaluate("performance.getEntriesByType('paint').map(e => [e.name, e.startTime])")
                )
                ready = page.evaluate("performance.now()")
                paints.append((entries.get("first-paint"), entries.get("first-contentful-paint"), ready))
                last = page
            figures = last.evaluate(PLAY, min(args.steps, len(run["steps"])))
            browser.close()
    finally:
        up.stop()
    chunks = len(run["chunk_bounds"])
    elapsed = figures["elapsed"] / 1000
    gaps = sorted(figures["gaps"])
    print(
        f"ring all_reduce, {args.ranks} ranks x {chunks} chunks, "
        f"{'lecture mode' if args.present else 'default view'}, 1280x720, page in {args.lang}"
    )
    print(f"  stage ticks: {figures['ticks']} in {elapsed:.2f} s = {figures['ticks'] / elapsed:.1f} fps")
    print(
        f"  frames drawn: {len(gaps) + 1}, median gap {statistics.median(gaps):.1f} ms, "
        f"p95 {gaps[int(0.95 * (len(gaps) - 1))]:.1f} ms, worst {gaps[-1]:.1f} ms"
    )
    print(
        f"  long tasks (page script over 50 ms): {len(figures['long'])}, {sum(figures['long']):.0f} ms in all"
    )
    print(f"  machine load while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    fp, fcp, ready = (statistics.median(x for x in col if x is not None) for col in zip(*paints))
    print(
        f"  first paint {fp:.0f} ms, first contentful paint {fcp:.0f} ms, run on stage {ready:.0f} ms "
        f"(median of {args.loads} loads)"
    )


if __name__ == "__main__":
    main()

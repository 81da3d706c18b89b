"""The page in headless Chromium: animation frame rate of a 16-rank ring all_reduce with
16 chunks (requestAnimationFrame callbacks per second while steps play), first paint on
localhost, and the size of the project's own JS and CSS. Prints figures; asserts nothing.

    .venv/bin/python bench/frontend.py [--ranks 16]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser import ARGS, CHROMIUM  # noqa: E402
from server_helpers import start_up  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=16)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    own = sum(p.stat().st_size for p in (ROOT / "frontend").rglob("*") if p.suffix in (".js", ".css", ".html"))
    up = start_up(Path(tempfile.mkdtemp()), ranks=args.ranks, timeout=300)
    try:
        run = up.run(collective="all_reduce", algorithm="ring", count=args.ranks * 4, capture="full")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(f"{up.url}/?run={run['id']}")
            page.wait_for_function(f"() => window.ringside.player.run && window.ringside.player.run.id === '{run['id']}'")
            paint = page.evaluate("performance.getEntriesByType('paint').map(e => [e.name, e.startTime])")
            page.evaluate("window.ringside.player.pause(); window.ringside.player.go(-1); window.ringside.stage.frameCount = 0")
            start = time.perf_counter()
            page.evaluate("(async () => { for (let i = 0; i < 6; i++) await window.ringside.player.forward(); })()")
            elapsed = time.perf_counter() - start
            frames = page.evaluate("window.ringside.stage.frameCount")
            browser.close()
    finally:
        up.stop()
    print(f"ring all_reduce, {args.ranks} ranks x {args.ranks} chunks: {frames} animation frames in {elapsed:.2f} s "
          f"= {frames / elapsed:.1f} fps over 6 steps")
    for name, ms in paint:
        print(f"{name}: {ms:.0f} ms")
    print(f"project JS + CSS + HTML: {own / 1024:.1f} KiB (plotly.js is served from the installed package)")


if __name__ == "__main__":
    main()

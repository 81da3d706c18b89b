"""How long a phone-sized audience page takes to show the step the presenter's page moved
to: a real `ringside up` (4 gloo ranks), the presenter's page in lecture mode at 1280x720
and an audience page at 390x844 in one Chromium, the presenter stepping a ring all_reduce
forward and back by keys. Each page logs its player's changes on one clock
(tests/lecture_clock.py); prints p50, p90 and max. Asserts nothing.

    .venv/bin/python bench/presenter_lag.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from ringside.worker_agent.clients.harness import launch_chromium, start_up

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from lecture_clock import install, lag


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5, help="times through the run, forward and back")
    args = parser.parse_args()
    up = start_up(Path(tempfile.mkdtemp()), ranks=4)
    try:
        run = up.run(
            collective="all_reduce",
            algorithm="ring",
            count=4,
            capture="full",
            pattern="digits",
            dtype="int32",
        )
        steps = len(run["steps"])
        with sync_playwright() as p:
            browser = launch_chromium(p)
            presenter = browser.new_page(viewport={"width": 1280, "height": 720})
            presenter.goto(f"{up.url}/?token={up.presenter}&present=1&run={run['id']}&step=-1")
            presenter.wait_for_function(f"window.ringside?.player?.run?.id === '{run['id']}'")
            audience = browser.new_page(viewport={"width": 390, "height": 844})
            audience.goto(f"{up.url}/")
            audience.wait_for_function(f"window.ringside?.player?.run?.id === '{run['id']}'")
            install(presenter, audience)
            lags = []
            for _ in range(args.rounds):
                for k in range(steps):
                    lags.append(
                        lag(
                            presenter,
                            audience,
                            lambda: presenter.keyboard.press("ArrowRight"),
                            f"(r, s) => s === {k}",
                        )
                    )
                for k in range(steps - 2, -2, -1):
                    lags.append(
                        lag(
                            presenter,
                            audience,
                            lambda: presenter.keyboard.press("ArrowLeft"),
                            f"(r, s) => s === {k}",
                        )
                    )
            browser.close()
    finally:
        up.stop()
    lags.sort()
    print(
        f"presenter step -> audience step, {len(lags)} moves: p50 {statistics.median(lags):.0f} ms, "
        f"p90 {lags[int(0.9 * len(lags))]:.0f} ms, max {lags[-1]:.0f} ms"
    )


if __name__ == "__main__":
    main()

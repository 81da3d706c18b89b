"""Chromium for the page tests (see harness.launch_chromium); they skip cleanly where
there is no Chromium. And what the page tests share: the auto-waiting assertions' timeout,
long enough for a busy machine, and moving a page's player to a step."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ringside.worker_agent.clients.harness import CHROMIUM, launch_chromium

try:
    from playwright.sync_api import expect
except ImportError:  # the page tests skip
    pass
else:
    expect.set_options(timeout=15_000)


# The fonts a page is drawn in: this machine's, or its faces swapped (fonts/swapped.conf), so that
# a layout that assumes one font's widths or heights fails here as on another machine.
# RINGSIDE_FONTS=swapped (or the path of a fontconfig file) runs every page test in that set.
FONT_SETS = {"image": None, "swapped": str(Path(__file__).parent / "fonts" / "swapped.conf")}


def fonts_file(fonts: str | None = None) -> str | None:
    """The fontconfig file of `fonts` (FONT_SETS' name or a file's path), by default $RINGSIDE_FONTS's;
    None: this machine's own."""
    name = fonts or os.environ.get("RINGSIDE_FONTS", "image")
    if name in FONT_SETS:
        return FONT_SETS[name]
    if not Path(name).is_file():
        raise ValueError(f"RINGSIDE_FONTS={name!r}: one of {', '.join(FONT_SETS)}, or a fontconfig file")
    return str(Path(name).resolve())


def browser_or_skip(playwright, fonts: str | None = None):
    """Chromium drawing in the font set `fonts` (fonts_file), by default the one asked for."""
    if not os.path.exists(CHROMIUM):
        pytest.skip("no Chromium here: apt-get install chromium (CI does)")
    return Instrumented(launch_chromium(playwright, fonts_file(fonts)))


class Instrumented:
    """The browser, whose pages let the tests' own probes run: Playwright evaluates a string
    predicate (wait_for_function) with eval, which the server's Content-Security-Policy refuses
    a page. The policy itself is tested on pages opened with bypass_csp=False."""

    def __init__(self, browser):
        self.browser = browser

    def new_page(self, **options):
        return self.browser.new_page(**{"bypass_csp": True, **options})

    def new_context(self, **options):
        return self.browser.new_context(**{"bypass_csp": True, **options})

    def __getattr__(self, name):
        return getattr(self.browser, name)


def go(page, step: int) -> None:
    """The page's player at `step` (-1: the inputs), its stage drawn there."""
    page.evaluate(f"window.ringside.player.go({step})")
    page.wait_for_function(f"window.ringside.player.step === {step} && !window.ringside.stage.pending")

"""Chromium for the page tests (see harness.launch_chromium); they skip cleanly where
there is no Chromium. And what the page tests share: the auto-waiting assertions' timeout,
long enough for a busy machine, moving a page's player to a step, and waiting until the page's
observers have been told whether an element is in view, switching a page's language as a hand does, and
the screenshots a person looks at (RINGSIDE_SHOTS)."""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from ringside.worker_agent.clients.harness import CHROMIUM, launch_chromium

try:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect
except ImportError:  # the page tests skip
    PlaywrightError = Exception
else:
    expect.set_options(timeout=15_000)


# The fonts a page is drawn in: this machine's; Debian's Noto faces (fonts/noto.conf), as a Korean
# or Chinese student's desktop draws; or this machine's faces swapped (fonts/swapped.conf), so that a
# layout that assumes one font's widths or heights fails here as on another machine.
# RINGSIDE_FONTS=noto (or swapped, or the path of a fontconfig file) runs every page test in that set.
FONTS = Path(__file__).parent / "fonts"
FONT_SETS = {"image": None, "noto": str(FONTS / "noto.conf"), "swapped": str(FONTS / "swapped.conf")}
# What a set needs installed (fc-list's family names), and where it comes from.
FONTS_NEEDED = {
    "noto": (("Noto Sans Mono", "Noto Sans CJK KR"), "apt-get install fonts-noto-mono fonts-noto-cjk"),
}


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
    families, install = FONTS_NEEDED.get(fonts or os.environ.get("RINGSIDE_FONTS", "image"), ((), ""))
    if missing := [f for f in families if f not in installed_families()]:
        pytest.skip(f"fonts {', '.join(missing)} are not installed: {install} (CI does)")
    return Instrumented(launch_chromium(playwright, fonts_file(fonts)))


class Chromium:
    """Playwright's driver and one Chromium, started for the first page test that asks and kept until
    stop(): the page modules a test process runs in a row share them."""

    def __init__(self):
        self.playwright = None
        self.chromium = None

    def driver(self):
        if self.playwright is None:
            sync_api = pytest.importorskip("playwright.sync_api")
            self.playwright = sync_api.sync_playwright().start()
        return self.playwright

    def browser(self):
        if self.chromium is None:
            self.chromium = browser_or_skip(self.driver())
        return self.chromium

    def stop(self) -> None:
        """The browser closed and the driver stopped, the driver even where closing a crashed browser
        raises: a driver left running keeps its event loop the thread's running one."""
        chromium, self.chromium = self.chromium, None
        playwright, self.playwright = self.playwright, None
        try:
            if chromium is not None:
                chromium.close()
        finally:
            if playwright is not None:
                playwright.stop()


def installed_families() -> set[str]:
    """Every font family fontconfig knows here (none without fc-list)."""
    try:
        listed = subprocess.run(["fc-list", ":", "family"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return set()
    return {name.strip() for line in listed.splitlines() for name in line.split(",")}


class Instrumented:
    """The browser, whose pages let the tests' own probes run: Playwright evaluates a string
    predicate (wait_for_function) with eval, which the server's Content-Security-Policy refuses
    a page. The policy itself is tested on pages opened with bypass_csp=False.

    Its contexts are handed out again (`tab`, `give_back`): a fresh context costs a page about
    1.5 CPU-s more on a 2-core machine, its empty cache making it fetch and compile every module
    again. One comes back as a new one would be but for that cache: its pages closed, its routes,
    cookies and permissions dropped, online again, and every origin its pages went to told to
    forget what it stored. A context that cannot be cleaned is closed instead. Its pages ask for
    less motion, as a system set so does: a step lands without its chunks flying (stage.js), which
    spares the machine a frame each 16 ms of every step on every page; a test of the flight asks
    for it (page.emulate_media)."""

    def __init__(self, browser):
        self.browser = browser
        self.free: list = []  # contexts given back, each with one blank page
        self.origins: dict = {}  # context -> the origins its pages went to

    def new_page(self, **options):
        return self.browser.new_page(**{"bypass_csp": True, **options})

    def new_context(self, **options):
        return self.browser.new_context(**{"bypass_csp": True, **options})

    def tab(self, viewport: tuple[int, int]):
        """A page of a context no other page of the test shares (each has its own storage)."""
        if self.free:
            context = self.free.pop()
            page = context.pages[0]
        else:
            context = self.new_context(reduced_motion="reduce")
            self.origins[context] = set()
            context.on("page", lambda p: self._track(context, p))
            page = context.new_page()
        page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
        return page

    def _track(self, context, page) -> None:
        def went(frame) -> None:
            url = urlsplit(frame.url)
            if frame.parent_frame is None and url.scheme in ("http", "https"):
                self.origins[context].add(f"{url.scheme}://{url.netloc}")

        page.on("framenavigated", went)

    def give_back(self, context) -> None:
        try:
            for page in context.pages:
                page.close()
            context.unroute_all(behavior="ignoreErrors")
            context.set_offline(False)
            context.clear_cookies()
            context.clear_permissions()
            blank = context.new_page()
            cdp = context.new_cdp_session(blank)
            for origin in self.origins[context]:
                cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
            cdp.detach()
        except PlaywrightError:
            self.origins.pop(context, None)
            with contextlib.suppress(PlaywrightError):
                context.close()
            return
        self.origins[context].clear()
        self.free.append(context)

    def __getattr__(self, name):
        return getattr(self.browser, name)


def ready_for_keys(page, up) -> None:
    """The presenter's page ready for its keys: the catalog in, and the run it opens on (the last
    that ended, where one did) on the stage. A key pressed before that run comes changes the pick
    under it, and the strip names the run that came last."""
    ran = up.call("GET", "/api/runs?limit=1")[1]["total"] > 0
    page.wait_for_function(
        "window.ringside.state.presenter && window.ringside.controls.catalog"
        + (" && window.ringside.player.run && !window.ringside.player.run.preview" if ran else "")
    )


def screenshot(page, path: Path) -> None:
    """The page as drawn, to `path`, where RINGSIDE_SHOTS is set: a screenshot is for a person to look
    at and no test reads it, and each costs a paint and a PNG (0.3 s on a loaded machine)."""
    if os.environ.get("RINGSIDE_SHOTS"):
        path.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(path))


def go(page, step: int) -> None:
    """The page's player at `step` (-1: the inputs), its stage drawn there."""
    page.evaluate(f"window.ringside.player.go({step})")
    page.wait_for_function(f"window.ringside.player.step === {step} && !window.ringside.stage.pending")


def observed(page, element_id: str) -> None:
    """Returns once the page's own IntersectionObservers of `element_id` (those observing it now) have
    been told whether it is in view: an observer made after them is told in the same task, after them."""
    page.evaluate(
        """id => new Promise((told) => {
          const seen = new IntersectionObserver(() => { seen.disconnect(); told(); });
          seen.observe(document.getElementById(id));
        })""",
        element_id,
    )


# resolves once the page has drawn a frame after this one: what its tasks changed meanwhile is shown
PAINTED = "() => new Promise((drawn) => requestAnimationFrame(() => requestAnimationFrame(drawn)))"


def switch_language(page, lang: str) -> None:
    """The header's picker set to `lang`, as a hand would use it (lecture mode may hide the header),
    returning once the page is in it."""
    page.evaluate(
        "l => { const s = document.getElementById('lang'); s.value = l;"
        " s.dispatchEvent(new Event('change')); }",
        lang,
    )
    # looked for on a timer, not each animation frame: a frame waits for the page to be painted in its
    # new language, and a check reads its layout alone
    page.wait_for_function(
        "l => document.documentElement.lang === l", arg="zh-CN" if lang == "zh" else lang, polling=10
    )

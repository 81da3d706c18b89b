"""A fresh lecturer's walk through the seed lecture, in a real Chromium against `ringside up` with
4 gloo ranks: the barrier's title names the int64 its flags travel in (its bytes are 8 a
message)."""

from __future__ import annotations

import pytest
from browser import go
from server_helpers import start_up

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

PROJECTOR = (1280, 720)
LECTURE = {"capture": "full", "pattern": "digits", "iterations": 1, "warmup": 0}


@pytest.fixture(scope="module")
def up(tmp_path_factory):
    server = start_up(tmp_path_factory.mktemp("lecture-walk"), ranks=4)
    yield server
    server.stop()


def open_run(page_for, up, run, viewport=PROJECTOR, present=True):
    page = page_for(f"{up.url}/?token={up.presenter}&run={run['id']}" + ("&present=1" if present else ""),
                    viewport=viewport)
    page.wait_for_function(f"window.ringside.player.run?.id === '{run['id']}' && "
                           "window.ringside.player.run.state === 'done'", timeout=60_000)
    page.evaluate("window.ringside.player.pause()")
    return page


def test_the_barrier_names_the_int64_its_flags_travel_in(up, page_for):
    run = up.run(collective="barrier", algorithm="dissemination", count=1, **LECTURE)
    assert run["state"] == "done" and run["display"]["itemsize"] == 8, run["error"]
    page = open_run(page_for, up, run)
    expect(page.locator("#run-title")).to_contain_text("barrier · BOR · dissemination · 4 ranks · 1 × int64")
    go(page, len(run["steps"]) - 1)  # two messages of 8 B each way
    expect(page.locator("#stage text.bytes").first).to_have_text("↑16 ↓16 B")

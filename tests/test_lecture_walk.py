"""A fresh lecturer's walk through the seed lecture, in a real Chromium against `ringside up` with
4 gloo ranks: the barrier's title names the int64 its flags travel in (its bytes are 8 a
message); S after a bitwise all_reduce opens the parameter server on SUM, the update its caption
writes (w ← w − η·Σg)."""

from __future__ import annotations

import re

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


def test_s_after_a_bitwise_all_reduce_opens_the_parameter_server_on_sum(up, page_for):
    page = page_for(f"{up.url}/?token={up.presenter}&present=1", viewport=PROJECTOR)
    page.wait_for_function("window.ringside.state.presenter && window.ringside.controls.catalog")
    names = page.evaluate("window.ringside.controls.catalog.collectives.map(c => c.name)")
    page.keyboard.press(str((names.index("all_reduce") + 1) % 10))
    pick = page.locator("#pick")
    expect(pick).to_have_text(re.compile(r"^all_reduce · "))
    for _ in range(len(page.evaluate("window.ringside.controls.catalog.ops"))):
        if " · BXOR · " in pick.inner_text():
            break
        page.keyboard.press("o")
        page.wait_for_function("document.getElementById('pick').textContent.includes(' · ')")
    expect(pick).to_contain_text(" · BXOR · ")
    page.keyboard.press("s")
    expect(pick).to_have_text(re.compile(r"^parameter_server · pull_push · .* · SUM · "))
    with page.expect_response(lambda r: r.url.endswith("/api/runs") and r.request.method == "POST") as posted:
        page.keyboard.press("r")
    run = up.wait(posted.value.json()["id"])
    assert run["spec"]["op"] == "SUM" and run["state"] == "done", run["spec"]
    expect(page.locator("#run-title")).to_contain_text("parameter_server · SUM · pull_push")

"""The audience side of a lecture, in a real Chromium against a real `ringside up` with gloo
ranks: phones follow the presenter's run, step, playing and speed (and may detach and come
back with one tap), and an earlier run it opens with no GET of their own; only the
presenter's token leads; a sweep stays off every stage; an exported run opens in lecture mode
and fits a phone; the Perfetto button hands the trace over the way Perfetto documents, and
says so when Perfetto cannot be reached."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from browser import go
from lecture_clock import first, install, lag, mark
from server_helpers import messages, start_serve
from test_frontend_browser import expected_values, stage_values
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

P = 4
PHONE, PROJECTOR = (390, 844), (1280, 720)
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "lecture"


pytestmark = pytest.mark.cluster(ranks=P)


def on_run(page, run_id: str) -> None:
    page.wait_for_function(f"() => window.ringside?.player?.run?.id === '{run_id}'", timeout=30_000)


def viewer_snapshot(up, token: str | None = None) -> dict:
    with connect(up.ws_url("/ws") + (f"?token={token}" if token else "")) as ws:
        return next(m for m in messages(ws.recv(timeout=10)) if m["type"] == "snapshot")


def presenter_view(up, test: Callable[[dict | None], bool], within_s: float = 30) -> dict | None:
    """The presenter's view as a joining viewer is told it, once `test` holds for it: asked again at
    once until then, each ask a round trip to the server."""
    deadline = time.monotonic() + within_s
    while not test(view := viewer_snapshot(up)["presenter"]):
        assert time.monotonic() < deadline, f"the server still holds {view}"
    return view


def refused(up, frame: dict | str, token: str | None = None) -> tuple[int, str]:
    """Send one frame on a viewer socket: (close code, reason)."""
    with connect(up.ws_url("/ws") + (f"?token={token}" if token else "")) as ws:
        ws.recv(timeout=10)  # the snapshot
        ws.send(frame if isinstance(frame, str) else json.dumps(frame))
        try:
            while True:
                ws.recv(timeout=10)
        except Exception:  # noqa: BLE001 - the close ends the loop
            return ws.close_code, ws.close_reason


def test_the_audience_follows_the_presenter_and_may_detach(up, page_for):
    run = up.run(collective="all_reduce", algorithm="ring", count=4, capture="full", pattern="rank")
    last = len(run["steps"]) - 1
    presenter = page_for(f"{up.url}/?token={up.presenter}&present=1&run={run['id']}&step={last}")
    on_run(presenter, run["id"])
    presenter.wait_for_function(f"window.ringside.player.step === {last}")
    audience = page_for(f"{up.url}/", viewport=PHONE)
    on_run(audience, run["id"])
    audience.wait_for_function(f"window.ringside.player.step === {last}")  # a late joiner: from its snapshot
    expect(audience.locator("#role")).to_contain_text("following the presenter")
    expect(audience.locator("#follow-presenter")).to_be_hidden()
    install(presenter, audience)
    key = presenter.keyboard.press

    # The presenter steps back to step 2: the phone shows step 2, and the run's buffers at it.
    for _ in range(last - 2):
        key("ArrowLeft")
    lag(presenter, audience, lambda: key("ArrowLeft"), "(run, step) => step === 1")
    expect(audience.locator("#step-label")).to_have_text(f"step 2 / {last + 1}")
    audience.wait_for_function("!window.ringside.stage.pending")
    assert stage_values(audience) == expected_values(run, 1)

    # Play, pause and speed, mirrored.
    presenter.keyboard.press("+")
    audience.wait_for_function(
        "window.ringside.player.speed === 2 && document.getElementById('speed').value === '2'"
    )
    lag(presenter, audience, lambda: key(" "), "(run, step, playing) => playing")
    expect(audience.locator("#play")).to_have_text("❚❚")
    # it plays on, a step at a time, with the presenter
    audience.wait_for_function("window.ringside.player.step >= 2")
    lag(presenter, audience, lambda: key(" "), "(run, step, playing) => !playing")
    step = presenter.evaluate("window.ringside.player.step")
    audience.wait_for_function(f"window.ringside.player.step === {step}")

    # The phone's own navigation detaches it; the presenter's moves no longer move it.
    audience.click("#back")
    audience.wait_for_selector("#follow-presenter", state="visible")
    mine = step - 1
    audience.wait_for_function(f"window.ringside.player.step === {mine}")
    expect(audience.locator("#role")).to_have_text("audience")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    audience.screenshot(path=str(ARTIFACTS / "phone-detached.png"))
    presenter.keyboard.press("ArrowLeft")
    presenter.keyboard.press("ArrowLeft")
    target = max(-1, step - 2)
    presenter.wait_for_function(f"window.ringside.player.step === {target}")
    audience.wait_for_function(f"window.ringside.state.view.step === {target}")  # heard, not followed
    assert audience.evaluate("window.ringside.player.step") == mine
    # One tap, and it follows again, at the presenter's step.
    audience.click("#follow-presenter")
    audience.wait_for_function(f"window.ringside.player.step === {target}")
    expect(audience.locator("#role")).to_contain_text("following the presenter")
    lag(presenter, audience, lambda: key("ArrowRight"), f"(run, step) => step === {target + 1}")
    expect(audience.locator("#follow-presenter")).to_be_hidden()


def test_a_phone_shows_the_earlier_run_the_presenter_opens_without_fetching_it(up, page_for):
    """The run comes with the view that opens it, once for the whole hall: a phone fetches nothing. It is
    long enough to leave in frames made once, uncompressed where the browser agreed compression."""
    earlier = up.run(collective="broadcast", algorithm="ring", count=1024, capture="full", pattern="rank")
    later = up.run(collective="all_reduce", algorithm="ring", count=4, capture="full", pattern="rank")
    presenter = page_for(f"{up.url}/?token={up.presenter}&present=1&run={later['id']}")
    on_run(presenter, later["id"])
    audience = page_for(f"{up.url}/", viewport=PHONE)
    on_run(audience, later["id"])
    fetched: list[str] = []
    audience.on("request", lambda r: fetched.append(r.url) if f"/api/runs/{earlier['id']}" in r.url else None)
    opened = page_for(f"{up.url}/?token={up.presenter}&present=1&run={earlier['id']}")  # the presenter's
    on_run(opened, earlier["id"])
    on_run(audience, earlier["id"])
    expect(audience.locator("#role")).to_contain_text("following the presenter")
    expect(audience.locator("#run-title")).to_contain_text("broadcast")
    assert fetched == [], fetched
    assert audience.evaluate("window.ringside.player.run.inputs['0'].length") > 0
    assert len(json.dumps(earlier)) > 16 << 10


def test_only_the_presenters_token_leads_the_view(up, page_for):
    run = up.run(collective="broadcast", algorithm="ring", count=2, capture="full", pattern="rank")
    presenter = page_for(f"{up.url}/?token={up.presenter}&run={run['id']}&step=0")
    on_run(presenter, run["id"])
    audience = page_for(f"{up.url}/", viewport=PHONE)
    audience.wait_for_function(
        f"window.ringside.player.run?.id === '{run['id']}' && window.ringside.player.step === 0"
    )
    before = viewer_snapshot(up)["presenter"]
    assert before == {"type": "presenter", "run_id": run["id"], "step": 0, "playing": False, "speed": 1.0}
    install(audience)
    since = mark(audience)

    forged = {"type": "presenter", "run_id": run["id"], "step": 2, "playing": True, "speed": 5}
    code, reason = refused(up, forged)
    assert code == 1008 and "presenter token" in reason
    # The presenter's own socket still gets a clear answer for a frame it could not have meant.
    code, reason = refused(up, {**forged, "step": "two"}, token=up.presenter)
    assert code == 1007 and "step" in reason
    code, reason = refused(up, {**forged, "step": 99}, token=up.presenter)
    assert code == 1007 and "step" in reason and "3 steps" in reason
    code, reason = refused(up, {**forged, "speed": 1e9}, token=up.presenter)
    assert code == 1007 and "speed" in reason
    assert refused(up, "x" * 600, token=up.presenter)[0] == 1003
    # past a viewer's frame: refused by its length
    assert refused(up, "x" * 5000, token=up.presenter)[0] == 1009
    assert viewer_snapshot(up)["presenter"] == before, "nothing changed"
    # The presenter's next step reaches the phone after anything the server sent it before: until
    # then the phone stayed where it was.
    presenter.keyboard.press("ArrowRight")
    first(audience, since, "(run, step) => step === 1")
    moves = audience.evaluate(f"window.changes.slice({since}).map(([t, run, step, play]) => [step, play])")
    assert set(map(tuple, moves[: moves.index([1, False])])) <= {(0, False)}, moves
    # The presenter's page gone, a late joiner follows nobody (the view is not left to go stale).
    presenter.close()
    presenter_view(up, lambda view: view is None)


def test_a_viewer_token_watches_but_does_not_lead(tmp_path):
    """Where watching takes a viewer token, that token's socket hears the view and cannot set it."""
    serve = start_serve(tmp_path, "--viewer-token", "viewer-token-for-tests")
    try:
        frame = {"type": "presenter", "run_id": "r-000001", "step": 0, "playing": False, "speed": 1}
        code, reason = refused(serve, frame, token="viewer-token-for-tests")
        assert code == 1008 and "presenter token" in reason
        assert viewer_snapshot(serve, "viewer-token-for-tests")["presenter"] is None
        with pytest.raises(InvalidStatus):  # no token at all: not even a snapshot
            connect(serve.ws_url("/ws"))
    finally:
        serve.stop()


def test_a_sweep_stays_off_every_stage(up, page_for):
    shown = up.run(collective="all_gather", algorithm="ring", count=2, capture="full", pattern="rank")
    presenter = page_for(f"{up.url}/?token={up.presenter}&run={shown['id']}")
    on_run(presenter, shown["id"])
    audience = page_for(f"{up.url}/", viewport=PHONE)
    on_run(audience, shown["id"])
    with connect(up.ws_url("/ws")) as ws:
        ws.recv(timeout=10)
        # What the Sweep button runs (sweep.js), for a quick collective.
        ids = presenter.evaluate("""import('rs/panels/sweep.js').then(m => m.runSweep('barrier',
            window.ringside.controls.catalog.collectives.find(c => c.name === 'barrier').algorithms, 'int32',
            new Set(['done', 'failed', 'cancelled', 'interrupted']), () => {}))
            .then(runs => runs.map(r => r.id))""")
        heard = []
        while not any(m["type"] == "run_ended" and m["run"]["id"] == ids[-1] for m in heard):
            heard += messages(ws.recv(timeout=60))
    for run_id in ids:
        run = up.call("GET", f"/api/runs/{run_id}")[1]
        assert run["spec"]["purpose"] == "sweep" and run["state"] == "done"
    live = [
        m
        for m in heard
        if m["type"] in ("run_started", "step") and (m.get("run_id") or m["run"]["id"]) in ids
    ]
    assert live == [], "a sweep's runs are not pushed to viewers as live runs"
    for page in (presenter, audience):
        assert page.evaluate("window.ringside.player.run.id") == shown["id"], "the stage kept its run"


def test_the_sweep_button_reports_in_its_own_panel(up, page_for):
    page = page_for(f"{up.url}/?token={up.presenter}")
    page.wait_for_selector("#collectives button")
    expect(page.locator("#role")).to_have_text("presenter")
    page.click("button[data-collective=barrier]")
    page.click("#sweep-run")
    page.wait_for_function(
        "document.getElementById('sweep-progress').textContent.includes('charted')", timeout=120_000
    )
    expect(page.locator("#sweep-panel #sweep-progress")).to_be_visible()
    assert page.evaluate("window.ringside.player.run?.spec.purpose") != "sweep"


def test_a_phone_reads_digits_at_least_as_large_as_the_projector(up, page_for):
    run = up.run(collective="all_reduce", algorithm="ring", count=4, capture="full", pattern="rank")
    projector = page_for(f"{up.url}/?token={up.presenter}&present=1&run={run['id']}&step=2")
    projector.wait_for_function(
        f"window.ringside.player.run?.id === '{run['id']}' && window.ringside.player.step === 2"
    )
    phone = page_for(f"{up.url}/", viewport=PHONE)
    phone.wait_for_function(
        f"window.ringside.player.run?.id === '{run['id']}' && window.ringside.player.step === 2"
    )
    digit = """() => { const t = [...document.querySelectorAll('#stage g.cell text.value')]
                         .find(t => t.textContent.trim());
                       return t.getBoundingClientRect().height / window.innerWidth; }"""
    on_phone, on_projector = phone.evaluate(digit), projector.evaluate(digit)
    assert on_phone >= on_projector, (
        f"a digit is {on_phone:.4f} of a phone's width, {on_projector:.4f} of the projector's"
    )
    assert phone.evaluate("document.getElementById('stage').getBoundingClientRect().width") >= 0.95 * PHONE[0]
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE[0]


def test_an_exported_run_opens_in_lecture_mode_with_the_keys_and_fits_a_phone(up, page_for, tmp_path):
    run = up.run(collective="all_reduce", algorithm="ring", count=4, capture="full", pattern="rank")
    page = page_for(f"{up.url}/?run={run['id']}")
    on_run(page, run["id"])
    exported = tmp_path / "run.html"
    exported.write_text(
        page.evaluate("import('rs/export/export.js').then(m => m.standalone(window.ringside.player.run))")
    )
    offline = page_for(exported.as_uri())
    offline.wait_for_function("window.ringside?.player?.run")
    present = re.compile(r"\bpresent\b")
    expect(offline.locator("body")).to_have_class(present)
    expect(offline.locator("aside")).to_be_hidden()
    offline.locator("#stage").click()
    offline.keyboard.press("ArrowRight")
    offline.wait_for_function("window.ringside.player.step === 0 && !window.ringside.stage.pending")
    expect(offline.locator("#step-label")).to_have_text(f"step 1 / {len(run['steps'])}")
    offline.keyboard.press(" ")
    offline.wait_for_function("window.ringside.player.playing")
    offline.keyboard.press(" ")
    offline.keyboard.press("l")
    expect(offline.locator("body")).not_to_have_class(present)
    expect(offline.locator("aside")).to_be_visible()
    offline.keyboard.press("l")
    expect(offline.locator("body")).to_have_class(present)
    phone = page_for(exported.as_uri(), viewport=PHONE)
    phone.wait_for_function("window.ringside?.player?.run")
    width = phone.evaluate("document.getElementById('stage').getBoundingClientRect().width")
    assert width > 300, f"the exported stage is {width} px wide on a phone"
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    go(phone, len(run["steps"]) - 1)
    assert stage_values(phone) == expected_values(run, len(run["steps"]) - 1)


STAND_IN = """<!doctype html><title>stand-in for ui.perfetto.dev</title><script>
window.addEventListener('message', (e) => {
  if (e.data === 'PING') e.source.postMessage('PONG', '*');
  else if (e.data && e.data.perfetto) {
    window.got = e.data.perfetto;
    document.title = 'got ' + e.data.perfetto.buffer.byteLength;
  }
});</script>"""


def test_the_perfetto_button_hands_the_trace_over_or_says_it_cannot(up, page_for):
    run = up.run(collective="all_reduce", algorithm="ring", count=4, capture="full")
    # Chromium logs a postMessage to a window not (yet) at Perfetto's origin: the handshake's way.
    page = page_for(f"{up.url}/?run={run['id']}", allow=["postMessage"])
    on_run(page, run["id"])
    trace = f"/api/runs/{run['id']}/trace"
    expect(page.locator("#trace"), "the download stays").to_have_attribute("href", trace)
    # Here Perfetto cannot be reached: the page says so, plainly.
    with page.expect_popup() as popup:
        page.click("#perfetto")
    assert popup.value.url.startswith("https://ui.perfetto.dev") or popup.value.url in (
        "about:blank",
        "chrome-error://chromewebdata/",
    )
    page.wait_for_function(
        "document.getElementById('perfetto-status').dataset.state === 'slow'", timeout=15_000
    )
    expect(page.locator("#perfetto-status")).to_contain_text("unreachable")
    popup.value.close()
    page.wait_for_function(
        "document.getElementById('perfetto-status').dataset.state === 'failed'", timeout=15_000
    )
    # Where it answers (a page in its place that speaks its PING/PONG), the trace arrives whole.
    page.context.route(
        "https://ui.perfetto.dev/**",
        lambda route: route.fulfill(status=200, content_type="text/html", body=STAND_IN),
    )
    with page.expect_popup() as popup:
        page.click("#perfetto")
    page.wait_for_function(
        "document.getElementById('perfetto-status').dataset.state === 'opened'", timeout=15_000
    )
    got = popup.value.evaluate("new TextDecoder().decode(window.got.buffer)")
    assert json.loads(got) == up.call("GET", f"/api/runs/{run['id']}/trace")[1]
    assert run["id"] in popup.value.evaluate("window.got.title")

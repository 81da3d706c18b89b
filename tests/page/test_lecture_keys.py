"""The seed lessons lecture mode reaches from the keys alone, in a real Chromium at 1280x720 against
`ringside up --nodes 2` with 8 gloo ranks: a barrier run (digit, R, End) draws every rank's arrival
and wait as the ranks recorded them, and the release at the slowest's arrival."""

from __future__ import annotations

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

P, NODES = 8, 2
pytestmark = pytest.mark.cluster(ranks=P, flags=["--nodes", str(NODES)])
RUN = "window.ringside.player.run"


def seconds(s: float) -> str:
    """format.js's seconds()."""
    return f"{s:.2f} s" if s >= 1 else f"{s * 1e3:.2f} ms" if s >= 1e-3 else f"{s * 1e6:.1f} µs"


@pytest.fixture(scope="module")
def lecture(up, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 720}, bypass_csp=True)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{up.url}/?token={up.presenter}&present=1&lang=en")
    page.wait_for_function("window.ringside.state.presenter && window.ringside.controls.catalog")
    yield page
    page.close()
    assert errors == []


def test_a_barrier_shows_each_ranks_arrival_and_the_release_at_the_slowest(up, lecture):
    page = lecture
    names = page.evaluate("window.ringside.controls.catalog.collectives.map(c => c.name)")
    page.keyboard.press(str((names.index("barrier") + 1) % 10))
    page.wait_for_function("window.ringside.controls.picked()[0] === 'barrier'")
    with page.expect_response(lambda r: r.url.endswith("/api/runs") and r.request.method == "POST") as posted:
        page.keyboard.press("r")
    run_id = posted.value.json()["id"]
    page.wait_for_function(f"{RUN}?.id === '{run_id}' && {RUN}.state === 'done'", timeout=60_000)
    page.keyboard.press("End")  # paused, at the end
    page.wait_for_function(
        "!window.ringside.stage.pending && document.querySelectorAll('#stage line.release').length"
    )
    run = up.wait(run_id)
    assert run["spec"]["perturb"]["stagger"] == {"delay_s": 0.1}  # the catalog's, as data in the run
    arrived = {r: run["steps"][0]["ranks"][str(r)]["t0"] for r in run["group"]}
    left = {r: run["steps"][-1]["ranks"][str(r)]["t1"] for r in run["group"]}
    # every rank at its own time, a stagger apart; all leave once the slowest has come. Each rank's
    # times are its own clock's, started as a barrier let it go (on shared cores ranks part by tens
    # of ms), so waits are compared, not one rank's times with another's: the slowest waits least,
    # the first most, about the whole stagger
    assert all(arrived[r + 1] - arrived[r] > 0.05 for r in range(P - 1)), arrived
    slowest = max(arrived, key=arrived.get)
    waited = {r: left[r] - arrived[r] for r in arrived}
    assert waited[slowest] < 0.1 and min(waited, key=waited.get) == slowest, waited
    assert waited[0] > (P - 1) * 0.1 / 2, waited

    cells = page.evaluate("""() => [...document.querySelectorAll('#stage g.cell:not(.unused)')].map((g) => {
        const t = g.querySelector('text.value'), said = g.querySelector('text.lane-said');
        const px = (e) => parseFloat(e.getAttribute('font-size')) * e.getScreenCTM().a;
        return { rank: +g.dataset.rank, arrived: +g.dataset.arrived, left: +g.dataset.left,
          release: +g.dataset.release, slowest: +g.dataset.slowest, first: t.textContent, px: px(t),
          second: said?.textContent ?? '', px2: said ? px(said) : 0, last: g.classList.contains('slowest'),
          line: g.querySelector('line.release')?.getBoundingClientRect().left ?? null,
          edge: g.querySelector('rect.edge').getBoundingClientRect().left };
    })""")
    assert sorted(c["rank"] for c in cells) == list(range(P))
    for c in cells:
        r = c["rank"]
        assert (c["arrived"], c["left"]) == (arrived[r], left[r])  # the recorded times, not the page's
        assert c["first"] == f"arrived {seconds(arrived[r])}"
        waited = "last to arrive: all released" if r == slowest else f"waited {seconds(left[r] - arrived[r])}"
        assert c["second"] == waited
        assert (c["release"], c["slowest"], c["last"]) == (arrived[slowest], slowest, r == slowest)
        assert min(c["px"], c["px2"]) >= 18 - 0.05, c
    # the release: one line at the slowest's arrival in every lane, as far along each
    spots = [c["line"] - c["edge"] for c in cells]
    assert max(spots) - min(spots) < 1, spots

    page.keyboard.press("Home")  # before the first step: arrivals only, no release yet
    page.wait_for_function("!document.querySelector('#stage line.release')")
    expect(page.locator(f"#stage g.cell[data-rank='{slowest}'] text.value")).to_have_text(
        f"arrived {seconds(arrived[slowest])}"
    )

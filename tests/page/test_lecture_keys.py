"""The seed lessons lecture mode reaches from the keys alone, in a real Chromium at 1280x720 against
`ringside up --nodes 2` with 8 gloo ranks: a barrier run (digit, R, End) draws every rank's arrival
and wait as the ranks recorded them, and the release at the slowest's arrival; B lays the cluster
out as nodes with each rank's node, local rank and global rank and the world size; Z sets spawn
against launcher, with the variables each sets and what this cluster's ranks were given."""

from __future__ import annotations

import pytest
from browser import ready_for_keys

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
    ready_for_keys(page, up)
    yield page
    page.close()
    assert errors == []


def test_a_barrier_shows_each_ranks_arrival_and_the_release_at_the_slowest(up, lecture):
    page = lecture
    names = page.evaluate("window.ringside.controls.catalog.collectives.map(c => c.name)")
    page.keyboard.press(str((names.index("barrier") + 1) % 10))
    page.wait_for_function("window.ringside.controls.picked()[0] === 'barrier'")
    # the strip says what R will show: the ranks' arrivals, not a buffer's data
    strip = page.inner_text("#pick-spec")
    said = "ranks arrive 100.00 ms apart: each waits for the last"
    assert strip == f"barrier · dissemination · {P} ranks · {said}", strip
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


def test_b_shows_each_ranks_node_local_rank_and_global_rank(up, lecture):
    page = lecture
    page.keyboard.press("b")
    hosts = page.locator("#hosts")
    expect(hosts).to_be_visible()
    shown = page.evaluate("""() => [...document.querySelectorAll('#hosts .node')].map((n) => [n.dataset.host,
        [...n.querySelectorAll('li')].map((li) => [+li.dataset.rank, +li.dataset.local,
          li.querySelector('.global').textContent, li.querySelector('.local').textContent])])""")
    ranks = sorted(up.cluster()["ranks"], key=lambda r: r["rank"])
    per_node = P // NODES
    assert shown == [
        [
            f"node{n}",
            [
                [r, r % per_node, f"global rank {r}", f"local rank {r % per_node}"]
                for r in range(n * per_node, (n + 1) * per_node)
            ],
        ]
        for n in range(NODES)
    ]
    assert [(r["host"], r["local_rank"]) for r in ranks] == [
        (f"node{r // per_node}", r % per_node) for r in range(P)
    ]
    expect(hosts.locator(".world")).to_have_text(f"world size {P} = {NODES} nodes × {per_node} ranks a node")
    expect(hosts.locator("dt")).to_have_text(["Node", "Global rank", "Local rank", "World size"])
    page.keyboard.press("b")
    expect(hosts).to_be_hidden()


def test_z_shows_spawn_against_launcher_with_what_this_clusters_ranks_were_given(up, lecture):
    page = lecture
    page.keyboard.press("z")
    box = page.locator("#launchers")
    expect(box).to_be_visible()
    expect(box.locator(".ways th[data-way]")).to_have_count(2)
    expect(
        box.locator(".ways td[data-way=launcher]").filter(has_text="it sets them for each rank")
    ).to_contain_text("RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE GROUP_RANK MASTER_ADDR MASTER_PORT")
    expect(box.locator(".ways td[data-way=spawn]").filter(has_text="you set them")).to_contain_text(
        "MASTER_ADDR MASTER_PORT WORLD_SIZE"
    )
    # `ringside up` starts a function in each of its processes, as spawn does
    expect(box.locator(".how")).to_have_text("this cluster: started by ringside up · the spawn way")
    expect(box.locator(".ways th.this")).to_have_attribute("data-way", "spawn")
    ranks = sorted(up.cluster()["ranks"], key=lambda r: r["rank"])
    given = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#launchers .given tr')]
        .map((tr) => [tr.dataset.variable, [...tr.querySelectorAll('td')].map((td) => td.textContent)]))""")
    assert given == {
        "RANK": [str(r["rank"]) for r in ranks],
        "LOCAL_RANK": [str(r["local_rank"]) for r in ranks],
        "WORLD_SIZE": [str(P)] * P,
        "LOCAL_WORLD_SIZE": [str(r["local_world_size"]) for r in ranks],
        "GROUP_RANK": [str(r["rank"] // (P // NODES)) for r in ranks],
    }
    expect(box.locator(".met")).to_contain_text(ranks[0]["master"])
    page.keyboard.press("Escape")
    expect(box).to_be_hidden()

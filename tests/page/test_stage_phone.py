"""The stage on a phone that follows the presenter (390x844) and on the projector (1280x720), in
a real Chromium against real `ringside up` clusters of gloo ranks: on the phone the ranks stand
in a column that uses its height, their names, bytes and the arithmetic at 12 px or more and
digits as large for the screen as the projector's; on both, no label covers another label, a
rank's header or a value, for every layout shape; the perturbation demo's root keeps its bytes."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import go, screenshot
from server_helpers import start_up

playwright_api = pytest.importorskip("playwright.sync_api")

PHONE, PROJECTOR = (390, 844), (1280, 720)
LEAST_PX = 12
QUICK = {"capture": "full", "iterations": 1, "warmup": 0}
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "phone"

SEEN = """() => {
    const q = (s) => [...document.querySelectorAll(s)];
    const box = (e) => e.getBoundingClientRect();
    const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    const px = (t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
    const least = (ts) => (ts.length ? Math.min(...ts.map(px)) : null);
    const labels = [...q('#stage .arith'), ...q('#stage .perturb-label')];
    const heads = q('#stage text.name, #stage text.bytes');
    const values = q('#stage g.cell:not(.unused) text.value').filter((t) => t.textContent);
    const covered = [];
    labels.forEach((l, i) => {
        for (const o of [...labels.slice(i + 1), ...heads, ...values])
            if (hit(box(l), box(o))) covered.push(`${l.textContent} covers ${o.textContent}`);
    });
    const cards = q('#stage .card rect.frame').map(box), stage = box(document.getElementById('stage'));
    const inside = (p, c) => c.left < p.x && p.x < c.right && c.top < p.y && p.y < c.bottom;
    const middle = (path) => { // an arrow's middle, on the page
        const at = path.getPointAtLength(path.getTotalLength() / 2);
        return new DOMPoint(at.x, at.y).matrixTransform(path.getScreenCTM());
    };
    const hidden = q('#stage path.arrow').filter((a) => cards.some((c) => inside(middle(a), c)))
        .map((a) => `${a.dataset.src}->${a.dataset.dst}`);
    return { covered, labels: labels.length, names: least(q('#stage text.name')),
             bytes: least(q('#stage text.bytes')), arith: least(q('#stage .arith text')),
             digits: least(values) / innerWidth, shown: q('#stage text.bytes').length,
             rows: new Set(cards.map((c) => Math.round(c.top))).size, cards: cards.length,
             narrowest: Math.min(...cards.map((c) => c.width)) / stage.width,
             tall: stage.height / stage.width, across: document.querySelector('#stage').viewBox.baseVal.width,
             hidden };
}"""


@pytest.fixture(scope="module")
def clusters(tmp_path_factory):
    """clusters(n) -> a `ringside up` of n ranks, started on first use and shared by the module."""
    started = {}

    def get(n):
        if n not in started:
            started[n] = start_up(tmp_path_factory.mktemp(f"phone{n}"), ranks=n)
            started[n].wait_ranks(n)
        return started[n]

    yield get
    for server in started.values():
        server.stop()


def heard(presenter, run_id: str) -> None:
    """Wait for the presenter's page to have followed a live run to its end (every message of it handled)."""
    presenter.wait_for_function(
        f"window.ringside.player.run?.id === '{run_id}' && window.ringside.player.run.state === 'done'"
    )


def frames(presenter, run_id: str) -> int:
    """The run on the presenter's page, paused: how many frames it has (the steps, and AVG's division)."""
    return presenter.evaluate(f"""fetch('/api/runs/{run_id}').then((r) => r.json()).then((run) => {{
        const p = window.ringside.player;
        if (p.run.id !== run.id) p.load(run);
        p.pause();
        return p.available();
    }})""")


def show(presenter, phone, run_id: str, step: int) -> tuple[dict, dict]:
    """The presenter's page at `step` of the run, the phone following it: what each sees."""
    go(presenter, step)
    phone.wait_for_function(
        f"""window.ringside.player.run?.id === '{run_id}'
                                && window.ringside.player.step === {step}
                                && !window.ringside.stage.pending""",
        timeout=15_000,
    )
    return presenter.evaluate(SEEN), phone.evaluate(SEEN)


def assert_readable(run: dict, step: int, projector: dict, phone: dict) -> None:
    where = f"{run['spec']['collective']} {run['spec']['algorithm']} P={len(run['group'])} step {step}"
    for seen, size in ((projector, "projector"), (phone, "phone")):
        assert seen["covered"] == [], f"{where} on the {size}: {seen['covered']}"
    assert projector["across"] == 1200 and phone["across"] < 1200, (
        "the projector keeps its landscape stage; the phone has its own"
    )
    assert phone["rows"] == phone["cards"] and phone["tall"] > 1.3, (
        f"{where}: the phone stacks its ranks down its height: {phone}"
    )
    assert phone["narrowest"] > 0.55, f"{where}: cards take most of the phone's width"
    assert phone["hidden"] == [], f"{where}: arrows behind the phone's cards: {phone['hidden']}"
    for kind in ("names", "bytes", "arith"):
        assert phone[kind] is None or phone[kind] >= LEAST_PX, (
            f"{where}: {kind} at {phone[kind]:.1f} px on the phone"
        )
    assert phone["shown"] == len(run["group"]), f"{where}: every rank's bytes on the phone"
    assert phone["digits"] >= projector["digits"], (
        f"{where}: digits smaller for the screen than the projector's"
    )


CASES = {  # cluster size -> runs covering every shape the server hands out, 2 to 8 ranks
    4: [
        dict(collective="all_reduce", algorithm="ring", count=4, pattern="rank"),
        dict(collective="all_reduce", algorithm="tree", count=4, pattern="rank", op="AVG", dtype="float32"),
        dict(collective="reduce", algorithm="flat", count=2, pattern="rank", group=[1, 2, 3], root=2),
        dict(collective="all_gather", algorithm="recursive_doubling", count=2, pattern="rank", group=[0, 3]),
    ],
    8: [
        dict(collective="all_reduce", algorithm="recursive_doubling", count=2, pattern="index"),
        dict(collective="all_reduce", algorithm="tree", count=8, pattern="rank"),
        dict(collective="all_reduce", algorithm="master_worker", count=2, pattern="rank"),
    ],
}


@pytest.mark.parametrize("ranks", sorted(CASES))
def test_every_shape_reads_on_a_phone_and_no_label_covers_anything(clusters, page_for, ranks):
    up = clusters(ranks)
    presenter = page_for(f"{up.url}/?token={up.presenter}&present=1", viewport=PROJECTOR)
    phone = page_for(f"{up.url}/", viewport=PHONE)
    for spec in CASES[ranks]:
        run = up.run(**spec, **QUICK)
        labelled = 0
        heard(presenter, run["id"])
        for step in range(frames(presenter, run["id"])):
            projector_seen, phone_seen = show(presenter, phone, run["id"], step)
            assert_readable(run, step, projector_seen, phone_seen)
            labelled += phone_seen["labels"]
        reducing = [s for s in run["steps"] if any(t[4] for t in s["transfers"])]
        assert labelled >= len(reducing), "the phone says every reduction's arithmetic"
        name = f"{spec['algorithm']}_{len(run['group'])}"
        screenshot(phone, ARTIFACTS / f"{name}_phone.png")
        screenshot(presenter, ARTIFACTS / f"{name}_projector.png")
    phone.keyboard.press("End")  # the player's last step, not the page's foot
    assert phone.evaluate("window.scrollY") == 0


def test_the_perturbation_demos_root_keeps_its_bytes_and_the_straggler_its_label(clusters, page_for):
    up = clusters(4)
    presenter = page_for(f"{up.url}/?token={up.presenter}&present=1", viewport=PROJECTOR)
    presenter.wait_for_selector("#perturb-demo", state="attached")
    phone = page_for(f"{up.url}/", viewport=PHONE)
    with presenter.expect_response(lambda r: r.url.endswith("/api/perturb/demo")) as answer:
        presenter.keyboard.press("d")
    ids = [r["id"] for r in answer.value.json()["runs"]]
    heard(presenter, ids[-1])
    runs = [up.call("GET", f"/api/runs/{run_id}")[1] for run_id in ids]
    for run in runs:
        for step in range(frames(presenter, run["id"])):
            projector_seen, phone_seen = show(presenter, phone, run["id"], step)
            for seen in (projector_seen, phone_seen):
                assert seen["covered"] == [], f"{run['spec']['algorithm']} step {step}: {seen['covered']}"
                assert seen["labels"] >= 1, "the straggler's label is on the stage"
            root = (
                presenter.evaluate("""() => {
                const card = document.querySelector('#stage .card.root');
                const frame = card.querySelector('rect.frame').getBoundingClientRect();
                const text = [...document.querySelectorAll('#stage text.bytes')].find((t) => {
                    const b = t.getBoundingClientRect();
                    return b.top >= frame.top - 5 && b.bottom <= frame.bottom && b.left >= frame.left
                        && b.right <= frame.right;
                });
                return { text: text?.textContent ?? null,
                         sent: +card.querySelector('.bar.sent').dataset.bytes,
                         received: +card.querySelector('.bar.received').dataset.bytes,
                         root: card.dataset.rank };
            }""")
                if run["layout"]["root"] is not None
                else None
            )
            if root:  # on a projector, one unit said once where both share it: "↑48 ↓40 B"
                sent, received = size(root["sent"]), size(root["received"])
                same = sent.split()[1] == received.split()[1]
                assert root["text"] == (
                    f"↑{sent.split()[0]} ↓{received}" if same else f"↑{sent} ↓{received}"
                ), f"step {step}: the root's bytes: {root}"
            assert phone_seen["bytes"] >= LEAST_PX and phone_seen["shown"] == len(run["group"])
        screenshot(phone, ARTIFACTS / f"demo_{run['spec']['algorithm']}_phone.png")
        screenshot(presenter, ARTIFACTS / f"demo_{run['spec']['algorithm']}_projector.png")
    assert any(run["layout"]["root"] is not None for run in runs), "the demo has a rooted run (its tree)"


def size(n: int) -> str:
    """What the page writes for n bytes (format.js bytes)."""
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB"

"""Pick on the page, in a real Chromium against `ringside up`: an auto run's title says what it
chose and why; the prediction panel draws every curve from a preset and lists its crossovers. The
choice: tests/unit/test_auto_pick.py; the served run's record of it: tests/served/test_auto_served.py."""

from __future__ import annotations

from ringside.worker_agent.core import predict as pm


def test_the_page_shows_the_choice_and_predicts_at_scale(up, page_for):
    """Real Chromium: an auto run's title says what it chose and why; the prediction panel draws
    both curves from a preset and lists its crossovers."""
    run = up.run(collective="all_reduce", algorithm="auto", count=512)
    page = page_for(f"{up.url}/?token={up.presenter}&run={run['id']}", viewport=(1280, 900))
    page.wait_for_function("document.getElementById('run-title').textContent.includes('auto →')")
    assert page.get_attribute("#run-title", "title") == run["choice"]["why"]
    assert run["choice"]["why"] in page.inner_text("#traffic")
    page.wait_for_selector("#predict-form select[name=preset] option[value=net-100gbps]", state="attached")
    page.select_option("#predict-form select[name=collective]", "all_reduce")
    assert not page.is_visible("#predict-form input[name=per_node]")  # the cluster's fit: one level
    page.select_option("#predict-form select[name=preset]", "net-100gbps")
    assert page.input_value("#predict-form input[name=per_node]") == "1"  # the preset's own
    page.fill("#predict-form input[name=per_node]", "8")
    page.fill("#predict-form input[name=p]", "64")
    page.click("#predict-form button[type=submit]")
    page.wait_for_selector("#predict-crossovers li[data-size]", timeout=60_000)
    crossings = page.locator("#predict-crossovers li").all_inner_texts()
    assert crossings and all("beats" in c and "at P=64" in c for c in crossings)
    # every schedule, and native as NCCL would run it, its hover naming tree and ring
    assert page.locator("#predict-size .trace").count() == len(pm.stepwise("all_reduce")) + 1
    assert page.locator("#predict-p .trace").count() == len(pm.stepwise("all_reduce"))
    native = page.evaluate(
        "[...document.getElementById('predict-size').data].find((t) => t.name.startsWith('native')).text"
    )
    assert native[0].startswith("tree") and native[-1].startswith("ring")
    why = page.inner_text("#predict-why")
    assert "IEEE 802.3ba" in why and "NCCL 2.30.7" in why and "8 ranks a node" in why
    assert "14.0 µs Simple" in why

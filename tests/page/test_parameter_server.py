"""The parameter server on the page, in a real Chromium against `ringside up` with four gloo ranks:
the page, which knows no collective, lays the servers above their workers by the run's layout with
the run's values, and the compare view sets the servers' bytes beside the all_reduces'. Its
schedule: tests/unit/test_parameter_server_schedule.py; on real ranks:
tests/ranks/test_parameter_server_ranks.py; through a server: tests/served/test_formulas_served.py."""

from __future__ import annotations

import json

import pytest
from server_helpers import WORKER_TOKEN

from ringside.worker_agent.core.algorithms import parameter_server as ps

PS = "parameter_server"
P = 4

pytestmark = pytest.mark.cluster(ranks=P, env={"RINGSIDE_WORKER_TOKEN": WORKER_TOKEN})


def test_the_page_draws_the_servers_above_their_workers_with_the_runs_values(up, page_for):
    """The page knows no collective: it places the cards by the run's layout and shows, after
    the pull, every worker holding each server's shard."""
    pytest.importorskip("playwright.sync_api")
    run = up.run(
        collective=PS,
        algorithm=ps.NAME,
        servers=2,
        root=1,
        count=8,
        dtype="int32",
        pattern="rank",
        capture="full",
    )
    page = page_for(f"{up.url}/?run={run['id']}&step=0")
    page.wait_for_function(
        f"() => window.ringside.player.run?.id === '{run['id']}' && window.ringside.player.step === 0"
    )
    servers, workers = ["1", "2"], ["0", "3"]
    page.wait_for_function(
        "() => document.querySelector('#stage g.card[data-rank]')?.getBoundingClientRect().height > 0"
    )
    tops = dict(
        page.eval_on_selector_all(
            "#stage svg g.card[data-rank]",
            "cards => cards.map(c => [c.dataset.rank, c.getBoundingClientRect().top])",
        )
    )
    assert max(tops[r] for r in servers) < min(tops[r] for r in workers), tops
    cells = page.eval_on_selector_all(
        "#stage svg g.cell[data-rank][data-chunk]",
        "cells => cells.map(c => [c.dataset.rank, +c.dataset.chunk, c.dataset.values])",
    )
    held = {(rank, chunk): json.loads(values) for rank, chunk, values in cells if values}
    for w in workers:  # shard j came from server j: group rank 1 (values 2) and 2 (values 3)
        assert held[w, 0] == [2] * 4 and held[w, 1] == [3] * 4, held


def test_the_compare_view_sets_the_servers_bytes_beside_the_all_reduces(up, page_for):
    """The chapter's table: for a parameter-server run on stage, its formula and measured bytes
    beside ring's, tree's and master-worker's all_reduce at the same N and P, each equal."""
    run = up.run(collective=PS, algorithm=ps.NAME, servers=1, count=12, dtype="float32")
    for algorithm in ps.BESIDE:
        assert (
            up.run(collective="all_reduce", algorithm=algorithm, count=12, dtype="float32")["state"] == "done"
        )
    expect = pytest.importorskip("playwright.sync_api").expect
    page = page_for(f"{up.url}/?run={run['id']}&step=0")
    page.wait_for_function(f"() => window.ringside.player.run?.id === '{run['id']}'")
    page.keyboard.press("c")
    page.wait_for_selector("#beside tr:nth-child(5)")
    rows = page.eval_on_selector_all(
        "#beside tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
    )
    n = 12 * 4
    want = {
        "parameter server (S=1)": (P - 1) * n,
        "ring": 2 * n * (P - 1) // P,
        "tree": 2 * 2 * n,
        "master_worker": (P - 1) * n,
    }
    got = {r[0]: r for r in rows[1:]}
    assert set(got) == set(want)
    for label, value in want.items():
        assert got[label][3] == f"{value} B" and got[label][4] == f"{value} B ✓", got[label]
    expect(page.locator("#beside")).to_be_visible()
    expect(page.locator("#compare")).to_be_visible()
    # a model of 2 elements cannot be cut into a ring's 4 chunks: the row says why and offers no run
    small = up.run(collective=PS, algorithm=ps.NAME, servers=1, count=2, dtype="float32")
    rows = {r["algorithm"]: r for r in up.call("GET", f"/api/compare/beside?run={small['id']}")[1]["rows"]}
    assert (
        rows["ring"]["spec"] is None
        and "count=2" in rows["ring"]["why"]
        and rows["ring"].get("formula") is None
    )
    assert rows["master_worker"]["spec"]["count"] == 2 and rows["master_worker"]["why"] is None

"""`ringside up --nodes 2`: one machine's ranks laid out as two nodes, as torchrun numbers them
on two machines, so the seeds' terms (node, local rank, global rank, world size) differ and the
stage says them under each rank's name. Ranks that do not split into the nodes are refused:
tests/unit/test_up_arguments.py."""

from __future__ import annotations

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

pytestmark = pytest.mark.cluster(ranks=4, flags=["--nodes", "2"])


def test_each_rank_knows_its_node_local_rank_and_global_rank(up, page_for):
    ranks = {r["rank"]: r for r in up.cluster()["ranks"]}
    assert {r: (x["host"], x["local_rank"], x["local_world_size"]) for r, x in ranks.items()} == {
        0: ("node0", 0, 2),
        1: ("node0", 1, 2),
        2: ("node1", 0, 2),
        3: ("node1", 1, 2),
    }
    run = up.run(collective="all_reduce", algorithm="ring", count=8, capture="full")
    assert run["places"]["3"] == {"host": "node1", "local_rank": 1}
    page = page_for(f"{up.url}/?run={run['id']}")
    terms = page.locator("#stage text.terms[data-rank='3']")
    expect(terms).to_contain_text("local 1")
    expect(terms).to_contain_text("node1")

"""The API's docs page, in a real Chromium against `ringside serve`: it draws, and fetches nothing
from beyond the server."""

from __future__ import annotations

import pytest
from server_helpers import start_serve

expect = pytest.importorskip("playwright.sync_api").expect


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    up = start_serve(tmp_path_factory.mktemp("docs"))  # no ranks: the docs need none
    yield up
    up.stop()


def test_the_api_docs_work_offline(server, page_for):
    page = page_for(f"{server.url}/docs")
    outside = []
    page.route(
        "**/*",
        lambda route: (
            (outside.append(route.request.url), route.abort())
            if not route.request.url.startswith(server.url)
            else route.continue_()
        ),
    )
    page.reload()
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Ringside")
    expect(page.locator(".opblock-summary-path").first).to_be_visible()
    assert outside == [], "nothing is fetched from beyond the server"

"""The page served over https (`--certfile/--keyfile`) in a real Chromium: it opens its socket
as wss, from the page's own protocol, and hears the cluster over it."""

from __future__ import annotations

import pytest
from certificate import self_signed
from server_helpers import start_up

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect


def test_the_page_over_https_watches_over_wss(browser, tmp_path):
    cert, key = self_signed(tmp_path)
    server = start_up(tmp_path, ranks=2, flags=["--certfile", str(cert), "--keyfile", str(key)])
    context = browser.new_context(ignore_https_errors=True)  # the certificate is the test's own
    try:
        page = context.new_page()
        errors, sockets = [], []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("websocket", lambda ws: sockets.append(ws.url))
        assert server.url.startswith("https://")
        page.goto(f"{server.url}/?token={server.presenter}")
        expect(page.locator("#role")).to_have_text("presenter")  # told by the snapshot, over the socket
        assert sockets and all(url.startswith("wss://") for url in sockets)
        assert errors == []
    finally:
        context.close()
        server.stop()

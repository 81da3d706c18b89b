"""Chromium through Playwright, as installed from Debian's packages (Playwright cannot download
browsers here). Tests that need it skip cleanly where there is no /usr/bin/chromium."""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM = os.environ.get("RINGSIDE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]


def browser_or_skip(playwright):
    if not os.path.exists(CHROMIUM):
        pytest.skip("no Chromium here: apt-get install chromium (CI does)")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)

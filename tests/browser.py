"""Chromium for the page tests (see harness.launch_chromium); they skip cleanly where
there is no Chromium."""

from __future__ import annotations

import os

import pytest

from ringside.server.harness import CHROMIUM, launch_chromium


def browser_or_skip(playwright):
    if not os.path.exists(CHROMIUM):
        pytest.skip("no Chromium here: apt-get install chromium (CI does)")
    return launch_chromium(playwright)

"""Fixtures the page tests share: one Chromium per test module, and pages whose console
errors fail the test; and the order modules are handed to the two xdist workers in."""

from __future__ import annotations

import pytest
from browser import browser_or_skip
from netns import interfaces

# The longest modules first (seconds each took on a 2-core machine, longest first), the rest in
# file order: xdist hands a worker the next module when it is free (`--no-loadscope-reorder`),
# so the two workers end together instead of one finishing a long module alone.
LONGEST_FIRST = (
    "test_watch.py",
    "test_frontend_browser.py",
    "test_edges.py",
    "test_server_schema.py",
    "test_stage_lecture.py",
    "test_server_protocol.py",
    "test_fuzz.py",
    "test_frontend_polls.py",
    "test_exposed.py",
    "test_lecture_lessons.py",
    "test_frontend_i18n.py",
    "test_stage_phone.py",
    "test_lecture_audience.py",
    "test_stage.py",
    "test_perturb_served.py",
    "test_training_page.py",
)


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))  # stable: in-module order kept


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = browser_or_skip(p)
        yield b
        b.close()


@pytest.fixture(autouse=True)
def interfaces_calm(request):
    """A page test runs while no bridge comes or goes (netns.py says why)."""
    if "browser" not in request.fixturenames:
        yield
        return
    with interfaces(changing=False):
        yield


@pytest.fixture
def page_for(browser):
    """page_for(url, allow=(), viewport=(1280, 720)) -> a page whose console errors fail the
    test, but for those containing a string in `allow` (Chromium logs every refused request,
    and some tests make one on purpose)."""
    pages, errors = [], []

    def open_page(url, allow=(), viewport=(1280, 720)):
        page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
        page.on(
            "console",
            lambda m: (
                errors.append(m.text) if m.type == "error" and not any(a in m.text for a in allow) else None
            ),
        )
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        pages.append(page)
        return page

    yield open_page
    for page in pages:
        page.close()
    assert errors == [], f"console errors: {errors}"

"""What every kind of test shares: the kind's marker, given by the module's folder; the order
modules are handed to the two xdist workers in; a module's own `ringside up` (`up`); two
nodes on a bridge (`bridge`); and for the page tests one Chromium for the page modules a test
process runs in a row, and pages whose console errors fail the test."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from browser import Chromium
from netns import interfaces, two_nodes
from server_helpers import start_up

TESTS = Path(__file__).resolve().parent
CHROMIUM = Chromium()  # the page tests' browser, shared by the page modules a process runs in a row
# A test's kind is its folder under tests/ (pyproject.toml registers one marker each), heaviest
# first: a page test waits on a browser, a server and ranks; a unit test on none of them.
KINDS = ("page", "served", "ranks", "unit")
LOG_TAIL = 60  # lines of a failed test's server log in its report


def kind_of(path: Path) -> str | None:
    try:
        folder = path.relative_to(TESTS).parts[0]
    except ValueError:  # a test file named from outside tests/
        return None
    return folder if folder in KINDS else None


@functools.cache
def module_order(path: Path) -> tuple:
    """Heavier kinds first, and within a kind the bigger modules (more tests, longer) first:
    xdist hands a worker the next module when it is free (`--no-loadscope-reorder`), so the long
    ones start early and the short unit modules fill in at the end, and the two workers end
    together instead of one finishing a long module alone. Needs no list kept by hand."""
    kind = kind_of(path)
    return (KINDS.index(kind) if kind else len(KINDS), -path.stat().st_size, str(path))


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items):
    for item in items:
        kind = kind_of(item.path)
        if kind:
            item.add_marker(kind)
    items.sort(key=lambda item: module_order(item.path))  # stable: in-module order kept


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test that used the module's `ringside up` carries the end of its log: what the
    server and its ranks said is most of what a failure on a loaded CI machine leaves to read."""
    report = (yield).get_result()
    server = getattr(item, "funcargs", {}).get("up")
    if report.failed and server is not None and server.log is not None:
        lines = server.log_text().splitlines()[-LOG_TAIL:]
        report.sections.append((f"ringside up's log, its last {len(lines)} lines", "\n".join(lines)))


@pytest.fixture(scope="module")
def up(request, tmp_path_factory):
    """The module's own `ringside up`, one for all its tests: 4 ranks, or what the module's
    `pytestmark = pytest.mark.cluster(ranks=..., flags=[...], env={...})` asks for (start_up's
    arguments)."""
    marker = request.node.get_closest_marker("cluster")
    options = {"ranks": 4, **(marker.kwargs if marker else {})}
    server = start_up(tmp_path_factory.mktemp(request.module.__name__), **options)
    try:
        server.wait_ranks(options["ranks"])  # up is ready with every rank; a stage test draws them all
        yield server
    finally:
        server.stop()


@pytest.fixture
def bridge():
    """Two nodes on this host, joined to it by a bridge (netns.py); skips where none can be made."""
    with two_nodes() as net:
        yield net


@pytest.fixture(scope="module")
def playwright():
    """Playwright's driver, kept from one page module to the next (browser.py's Chromium)."""
    return CHROMIUM.driver()


@pytest.fixture(scope="module")
def browser():
    """One Chromium for a test process's page modules in a row: starting and closing one for each of
    some thirty cost seconds each. Each page of a test is a browser context of its own (browser.tab),
    so no page shares another's storage or cookies; a context is handed to a later test cleaned
    (browser.py's Instrumented), its HTTP cache kept, as a browser opened again keeps it."""
    return CHROMIUM.browser()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Chromium stopped before any test but a page test: while Playwright's driver runs, its event loop
    is this thread's running one, and the test's asyncio.run() would be refused. Done here rather than
    in the last page test's teardown, which a failing finalizer (console errors) would cut short; the
    page modules' own fixtures have closed their pages by now."""
    if kind_of(item.path) != "page":
        CHROMIUM.stop()


def pytest_sessionfinish():
    CHROMIUM.stop()


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
        page = browser.tab(viewport)
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
        browser.give_back(page.context)
    assert errors == [], f"console errors: {errors}"

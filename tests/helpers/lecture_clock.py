"""How long an audience page takes to show what the presenter's page shows: each page logs
its player's changes with the time (both pages run in one browser, on one clock). Tests
assert that the audience follows; how fast is measured, and the 500 ms goal is kept, by
bench/presenter_lag.py (a test asserts no wall-clock time)."""

from __future__ import annotations

LOG = """() => {
  window.changes = [];
  const p = window.ringside.player;
  p.addEventListener("change",
    () => window.changes.push([Date.now(), p.run?.id, p.step, p.playing, p.speed]));
}"""


def install(*pages) -> None:
    for page in pages:
        page.evaluate(LOG)


def mark(page) -> int:
    """Where the page's log stands now: later changes come after it."""
    return page.evaluate("window.changes.length")


def first(page, since: int, test: str, timeout: float = 30_000) -> int:
    """The time of the first change after `since` for which `test` holds ((run_id, step, playing,
    speed) => bool), waiting for it to happen."""
    find = (
        f"window.changes.slice({since}).find(([t, run_id, step, playing, speed]) => "
        f"({test})(run_id, step, playing, speed))"
    )
    page.wait_for_function(f"() => !!{find}", timeout=timeout)
    return page.evaluate(f"{find}[0]")


def lag(presenter, audience, act, test: str) -> int:
    """ms from the presenter's page changing as `test` says (after `act`) to the audience's doing so."""
    since = mark(presenter), mark(audience)
    act()
    return first(audience, since[1], test) - first(presenter, since[0], test)

"""The restarts `ringside up` grants its crashing ranks (launch.RestartBudget): so many a window."""

from __future__ import annotations

from ringside.worker_agent.rank.launch import RestartBudget


def test_restarts_are_budgeted_per_window():
    budget = RestartBudget(allowed=3, window_s=600)
    assert [budget.spend(t) for t in (0, 10, 20, 30)] == [True, True, True, False], "a crash loop stops"
    assert budget.free_in(30) == 570
    assert not budget.spend(599) and budget.spend(600), "and goes on once the window lets it"
    assert budget.spend(610) and not budget.spend(611)

"""The bench's numbers (worker_agent/bench/statistics.py): a row's time across ranks as -a says, and
the ratio to native with its interval and mark, which native against itself (A/A) earns at no
more than 5% of sizes however the machine's slow spells fall, while a real difference is marked."""

from __future__ import annotations

import numpy as np
import pytest

from ringside.bench import statistics


def test_times_combine_across_ranks_as_a_says():
    times = np.array([[1.0, 3.0], [4.0, 6.0]])  # [rank, iteration]
    assert [statistics.combined(times, average, 0)[0] for average in range(4)] == [2.0, 3.5, 2.0, 5.0]
    assert statistics.combined(times, 1, 0)[1].tolist() == [2.5, 4.5]
    slowest = statistics.combined(times, 3, 1)  # -z 1 -a 3: each iteration's slowest rank
    assert slowest[0] == 5.0 and slowest[1].tolist() == [4.0, 6.0]


def taking_turns(rng, n: int, spell: float, busy: float = 0.15, skew: float = 0.2, noise: float = 0.1):
    """Two identical runs' seconds over n iterations as the bench takes them: A then B, then B then
    A, ... on a machine that falls into slow spells (2-4x, `spell` turns long on average, a
    `busy` share of the time) and charges the first of each iteration for the ranks' skew."""
    turns, state = 2 * n, False
    slow = np.zeros(turns)
    for t in range(turns):
        state = rng.random() < (1 - 1 / spell if state else busy / spell)
        slow[t] = state
    seconds = np.exp(rng.normal(0, noise, turns)) * (1 + slow * rng.uniform(1, 3, turns))
    seconds[0::2] *= 1 + skew
    first, second = seconds[0::2], seconds[1::2]
    a = np.where(np.arange(n) % 2 == 0, first, second)
    b = np.where(np.arange(n) % 2 == 0, second, first)
    return a, b


@pytest.mark.parametrize(
    "n, spell, busy",
    [(20, 1, 0.15), (20, 6, 0.15), (20, 15, 0.15), (40, 15, 0.15), (20, 10, 0.4), (100, 15, 0.15)],
)
def test_native_against_itself_is_marked_at_no_more_than_5_percent_of_sizes(n, spell, busy):
    """A/A, seeded: 400 sizes each of n iterations, slow spells of every length, a busy machine
    or a quiet one. The bootstrap this replaced marked 13-14% of them."""
    rng = np.random.default_rng(11)
    marked = [statistics.ratio_to(*taking_turns(rng, n, spell, busy)).marked for _ in range(400)]
    assert np.mean(marked) <= 0.05


@pytest.mark.parametrize("n, share", [(20, 0.85), (40, 0.95)])
def test_a_real_difference_is_marked(n, share):
    """The same machine, B truly 1.5x A's time: marked at most sizes, more with more iterations."""
    rng = np.random.default_rng(12)
    marked = []
    for _ in range(200):
        a, b = taking_turns(rng, n, spell=6)
        marked.append(statistics.ratio_to(a * 1.5, b).marked)
    assert np.mean(marked) >= share


def test_a_ratio_is_marked_only_where_its_interval_excludes_one_and_the_flips_agree():
    rng = np.random.default_rng(7)
    native = 1e-3 * (1 + 0.3 * rng.random(40))
    slower = statistics.ratio_to(native * 1.5 * (1 + 0.05 * rng.standard_normal(40)), native)
    noisy = statistics.ratio_to(native * (1 + 0.5 * rng.standard_normal(40)).clip(0.2), native)
    assert slower.low > 1 and slower.p < 0.05 and slower.marked
    assert noisy.low <= 1 <= noisy.high and not noisy.marked
    assert statistics.ratio_to(native * 1.5, native) == statistics.ratio_to(native * 1.5, native)
    for n in (3, 5, 9):  # fewer than two iterations a batch: no interval, rather than a thousandfold one
        few = statistics.ratio_to(native[:n] * 2, native[:n])
        assert few.ratio == pytest.approx(2) and few.low is None and not few.marked
    # the interval alone excludes 1, but too few pairs of turns to tell: 5 pairs, 32 ways, p >= 1/16
    ten = statistics.ratio_to(native[:10] * 1.5, native[:10])
    assert ten.low > 1 and ten.p >= 0.0625 and not ten.marked


def test_one_slow_spell_is_not_a_difference():
    """Eight iterations in a row at twice the time (a busy spell on a shared machine), the rest as
    native's: not marked; as many slow iterations spread over the table are."""
    native = 1e-3 * (1 + 0.3 * np.random.default_rng(7).random(40))
    spell = native.copy()
    spell[10:18] *= 2
    assert not statistics.ratio_to(spell, native).marked
    spread = native.copy()
    spread[::5] *= 2
    assert statistics.ratio_to(spread, native).marked

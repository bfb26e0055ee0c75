"""Ratings: Bradley–Terry Elo and Plackett–Luce recover known strengths; ties, sweeps, anchors,
reproducible bootstrap intervals."""
import math
import random

import pytest

from metro_ai.play import ratings


def _returns_from_order(order, n):
    """Rank-based returns for a finishing order (seat indexes, best first), no ties."""
    ret = [0.0] * n
    for place, seat in enumerate(order):
        ret[seat] = (n - 1 - place) / (n - 1)
    return ret


def _simulate(true_elo, players, deals, seed):
    """Games drawn from the Plackett–Luce model (Bradley–Terry for two players) with the given
    Elo strengths; every set of `players` bots meets on every deal, seats rotated."""
    import itertools
    rng = random.Random(seed)
    w = [10 ** (r / 400) for r in true_elo]
    games = []
    for deal in range(deals):
        for table in itertools.combinations(range(len(true_elo)), players):
            for rot in range(players):
                seats = list(table[rot:] + table[:rot])
                left, order = list(range(players)), []
                while left:
                    pick = rng.choices(left, weights=[w[seats[s]] for s in left])[0]
                    order.append(pick)
                    left.remove(pick)
                games.append({"id": len(games), "deal": deal, "seats": seats,
                              "returns": _returns_from_order(order, players)})
    return games


def test_bradley_terry_recovers_known_elo():
    truth = [1700.0, 1500.0, 1300.0]
    games = _simulate(truth, 2, 150, seed=1)                 # 900 games
    out = ratings.elo(games, ["a", "b", "c"], bootstrap=200, seed=3)
    for row, t in zip(out["rows"], truth):
        assert abs(row["rating"] - t) < 50, (row, t)
        assert row["low"] < row["rating"] < row["high"]
        assert row["low"] - 30 < t < row["high"] + 30
    assert abs(sum(r["rating"] for r in out["rows"]) / 3 - 1500) < 1e-6


def test_plackett_luce_recovers_known_elo_with_four_players():
    truth = [1650.0, 1550.0, 1450.0, 1350.0]
    games = _simulate(truth, 4, 250, seed=2)                 # 1,000 games
    out = ratings.rate(games, ["a", "b", "c", "d"], players=4, bootstrap=100, seed=1)
    assert out["method"].startswith("Plackett-Luce")
    for row, t in zip(out["rows"], truth):
        assert abs(row["rating"] - t) < 50, (row, t)
    mus = [r["rating"] for r in out["openskill"]["rows"]]
    assert mus == sorted(mus, reverse=True)                   # openskill agrees on the order
    assert all(r["low"] < r["rating"] < r["high"] for r in out["openskill"]["rows"])


def test_elo_scale_matches_win_odds():
    # a beats b 10 times in 11: 400*log10(10) = 400 Elo apart, up to the weak prior
    games = [{"deal": d, "seats": [0, 1], "returns": [1.0, 0.0] if d < 1000 else [0.0, 1.0]} for d in range(1100)]
    out = ratings.elo(games, ["a", "b"], bootstrap=0)
    gap = out["rows"][0]["rating"] - out["rows"][1]["rating"]
    assert abs(gap - 400) < 2


def test_ties_sweeps_anchor_and_copies():
    ties = [{"deal": d, "seats": [0, 1], "returns": [0.5, 0.5]} for d in range(20)]
    out = ratings.elo(ties, ["a", "b"], bootstrap=50)
    assert [round(r["rating"], 6) for r in out["rows"]] == [1500.0, 1500.0]
    sweep = [{"deal": d, "seats": [d % 2, 1 - d % 2], "returns": [1.0, 0.0] if d % 2 == 0 else [0.0, 1.0]}
             for d in range(30)]                                   # bot 0 wins every game
    out = ratings.elo(sweep, ["a", "b"], bootstrap=50, anchor="b")
    a, b = out["rows"]
    assert b["rating"] == b["low"] == b["high"] == 1500.0 and b["interval"] == "anchor"
    assert math.isfinite(a["rating"]) and a["rating"] > 1900
    assert a["interval"] == "at-least" and math.isfinite(a["low"]) and a["high"] is None   # no upper limit
    with pytest.raises(ValueError, match="anchor 'zz'"):
        ratings.elo(sweep, ["a", "b"], anchor="zz")
    # copies of one bot at a table: pairs between copies are skipped
    copies = [{"deal": d, "seats": [0, 0, 1], "returns": [1.0, 0.5, 0.0]} for d in range(10)]
    m = ratings.pairwise_matrix(copies, 2)
    assert m[0, 1] == 20 and m[1, 0] == 0 and m[0, 0] == 0


def test_bootstrap_is_seeded_and_unrateable_results_say_why():
    games = _simulate([1600.0, 1500.0, 1400.0], 2, 20, seed=5)
    one = ratings.elo(games, ["a", "b", "c"], bootstrap=100, seed=7)
    two = ratings.elo(games, ["a", "b", "c"], bootstrap=100, seed=7)
    other = ratings.elo(games, ["a", "b", "c"], bootstrap=100, seed=8)
    assert one == two and one != other
    apart = [{"deal": 0, "seats": [0, 1], "returns": [1.0, 0.0]}]   # bot c never played
    out = ratings.rate(apart, ["a", "b", "c"], players=2)
    assert out["rows"] == [] and "do not connect" in out["note"]
    assert ratings.rate([], ["a", "b", "c"], players=3)["rows"] == []


def test_wilson_interval():
    from metro_ai.play.ratings import wilson
    lo, hi = wilson(0.5, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    lo, hi = wilson(1.0, 200)                    # 200 wins of 200: the interval still has width
    assert lo == pytest.approx(0.9812, abs=1e-4) and hi == 1.0
    assert wilson(0.0, 0) == (0.0, 1.0)


def _deals(pattern, deals=30):
    """Every deal the same: `pattern` is a list of (winner, loser) bot pairs, each played in both seats."""
    games = []
    for d in range(deals):
        for w, l in pattern:
            games.append({"deal": d, "seats": [w, l], "returns": [1.0, 0.0]})
            games.append({"deal": d, "seats": [l, w], "returns": [0.0, 1.0]})
    return games


def test_sweeps_give_one_sided_or_no_intervals_not_points():
    # the first tournament of the README's set-up command: a beats b and c in every game, b beats c in every game, so
    # every bootstrap resample is the same and a percentile interval would be a point
    games = _deals([(0, 1), (0, 2), (1, 2)])
    out = ratings.elo(games, ["a", "b", "c"], bootstrap=100, seed=1)
    a, b, c = out["rows"]
    assert a["rating"] > b["rating"] > c["rating"]
    assert (a["interval"], b["interval"], c["interval"]) == ("at-least", "none", "at-most")
    assert a["low"] is not None and a["high"] is None
    assert b["low"] is None and b["high"] is None
    assert c["low"] is None and c["high"] is not None
    anchored = {r["bot"]: r for r in ratings.elo(games, ["a", "b", "c"], bootstrap=100, anchor="b")["rows"]}
    assert [anchored[k]["interval"] for k in "abc"] == ["at-least", "anchor", "at-most"]
    assert ratings.bounds([[0, 3, 3], [0, 0, 3], [0, 0, 0]]) == ["at-least", "none", "at-most"]


def test_a_group_with_mixed_results_keeps_its_gaps_two_sided():
    # a and b trade wins (differently from deal to deal); both beat c every time
    rng = random.Random(4)
    games = []
    for d in range(40):
        for _ in range(3):
            w, l = (0, 1) if rng.random() < 0.6 else (1, 0)
            games.append({"deal": d, "seats": [w, l], "returns": [1.0, 0.0]})
        games += [{"deal": d, "seats": [0, 2], "returns": [1.0, 0.0]}, {"deal": d, "seats": [2, 1], "returns": [0.0, 1.0]}]
    rows = {r["bot"]: r for r in ratings.elo(games, ["a", "b", "c"], bootstrap=100, anchor="a")["rows"]}
    assert rows["b"]["interval"] == "two-sided" and rows["b"]["low"] < rows["b"]["rating"] < rows["b"]["high"]
    assert rows["c"]["interval"] == "at-most" and rows["c"]["low"] is None
    mean = {r["bot"]: r["interval"] for r in ratings.elo(games, ["a", "b", "c"], bootstrap=100)["rows"]}
    assert mean == {"a": "at-least", "b": "at-least", "c": "at-most"}     # the mean includes c's open gap


def test_identical_deals_without_sweeps_have_no_interval():
    # every deal: a and b win one game each, so every resample gives the same ratings
    games = [{"deal": d, "seats": [0, 1], "returns": [1.0, 0.0]} for d in range(20)] + \
            [{"deal": d, "seats": [0, 1], "returns": [0.0, 1.0]} for d in range(20)]
    out = ratings.elo(games, ["a", "b"], bootstrap=50)
    assert [r["interval"] for r in out["rows"]] == ["none", "none"]
    assert all(r["low"] is None and r["high"] is None for r in out["rows"])
    assert any("same rating" in n for n in out["notes"])
    assert [r["interval"] for r in ratings.elo(games, ["a", "b"], bootstrap=0)["rows"]] == [None, None]

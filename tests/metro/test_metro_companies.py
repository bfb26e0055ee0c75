"""Scenario tests of the Metro companies expansion (M11-M19), from the seed's own statements,
with bad input (illegal exchanges, malformed charts, inconsistent saved states), the
observation and determinisation (M18, with a brute-force check of uniformity) and MO-ISMCTS."""
import itertools
import json
import random
from collections import Counter

import pytest

import metro_ai
from metro_ai import IllegalActionError
from metro_ai.engine.errors import DataError, StateFormatError
from metro_ai.engine.metro import data as metro_data
from metro_ai.engine.metro.state import MetroState

from stats import chi2_pvalue

EXCHANGE = 6145


def game(players=2, **options):
    return metro_ai.load_game("metro", players=players, companies=True, **options)


def ex(share, src):
    return EXCHANGE + 2 * share + src


def placements_until(g, seed, stop):
    """Random placements (no exchanges) from deal `seed` until `stop(state)`; None if never."""
    s = g.new_state(seed)
    rng = random.Random(seed)
    while not s.is_terminal():
        if stop(s):
            return s
        s.apply(rng.choice([a for a in s.legal_actions() if a < EXCHANGE]))
    return None


# ---- the chart (M11) ----

def test_shipped_chart_is_the_reconstructed_formula_and_says_so():
    text = metro_data.COMPANY_CHART.read_text()
    assert "reconstructed" in text.lower()
    assert metro_data.load_company_chart() == metro_data.reconstructed_chart()
    stations = sorted(n for c in metro_data.reconstructed_chart() for n in c)
    assert stations == list(range(1, 33))
    assert "RECONSTRUCTED" in metro_ai.registry.game_class("metro").option("company_chart").description
    g = game(3)
    assert g.owners == {k: metro_data.reconstructed_chart()[k] for k in range(8)}


def test_a_user_chart_replaces_the_shipped_one(tmp_path):
    chart = [list(range(4 * k + 1, 4 * k + 5)) for k in range(8)]      # company k: 4k+1..4k+4
    path = tmp_path / "printed.csv"
    path.write_text("company,stations\n" + "".join(f"{k},{' '.join(map(str, c))}\n" for k, c in enumerate(chart)))
    g = game(2, company_chart=str(path))
    assert g.owners[0] == (1, 2, 3, 4) and g.company_chart == str(path)
    s = g.new_state(1)
    rng = random.Random(1)
    while not s.is_terminal():
        s.apply(rng.choice(s.legal_actions()))
    owner = {n: k for k, c in enumerate(chart) for n in c}
    profits = [0] * 8
    for ln in s.lines():
        assert ln["owner"] == owner[ln["station"]]
        profits[ln["owner"]] += ln["points"]
    assert s.profits() == profits


@pytest.mark.parametrize("body,fault", [
    ("company,stations\n" + "".join(f"{k},{4 * k + 1} {4 * k + 2} {4 * k + 3}\n" for k in range(8)), "needs 4 stations"),
    ("company,stations\n" + "".join(f"{k},1 2 3 4\n" for k in range(8)), "already owned"),
    ("company,stations\n" + "".join(f"{k},{4 * k + 1} {4 * k + 2} {4 * k + 3} {4 * k + 4}\n" for k in range(7)), "missing"),
    ("company,stations\n0,a b c d\n", "integers"),
    ("company,stations\n9,1 2 3 4\n", "outside 0..7"),
    ("company,stations\n0,1 2 3 40\n", "outside 1..32"),
    ("colour,stations\n0,1 2 3 4\n", "columns"),
    ("", "no data rows"),
])
def test_a_malformed_chart_is_a_data_error_naming_the_file(tmp_path, body, fault):
    path = tmp_path / "bad_chart.csv"
    path.write_text(body)
    with pytest.raises(DataError, match=fault) as info:
        game(2, company_chart=str(path))
    assert "bad_chart.csv" in str(info.value)


def test_chart_errors_for_missing_and_undecodable_files(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        game(2, company_chart=str(tmp_path / "none.csv"))
    (tmp_path / "bin.csv").write_bytes(b"company,stations\n0,\xff\xfe\n")
    with pytest.raises(DataError, match="UTF-8"):
        game(2, company_chart=str(tmp_path / "bin.csv"))


def test_company_options_need_companies():
    for kw in ({"company_chart": "x.csv"}, {"exchange_limit": 3}):
        with pytest.raises(ValueError, match="needs companies=True"):
            metro_ai.load_game("metro", players=2, **kw)


# ---- the deal and exchanges (M12, M13, M15-M17) ----

@pytest.mark.parametrize("players", range(2, 7))
def test_deal_one_share_of_each_percentage(players):
    s = game(players).new_state(players)
    held = [s.shares(p) for p in range(players)]
    assert all([x & 3 for x in h] == [0, 1, 2, 3] for h in held)
    every = [x for h in held for x in h] + s.face_up() + [x for p in s.piles() for x in p]
    assert sorted(every) == list(range(32))
    assert [len(p) for p in s.piles()] == [7 - players] * 4          # M16
    assert s.scores() == [80] * players         # all companies tied at 0: each worth 8 (M14)
    # the tiles are the base game's deal of the same seed (M15)
    base = metro_ai.load_game("metro", players=players).new_state(players)
    assert s.supply() == base.supply() and [s.hand(p) for p in range(players)] == [base.hand(p) for p in range(players)]


def test_exchange_face_up_and_face_down_and_the_bottom_of_the_pile():
    g = game(3)
    s = g.new_state(5)
    mine = s.shares(0)[1]                  # player 0's 20% share
    up, pile = s.face_up()[1], s.piles()[1]
    s.apply(ex(mine, 0))                   # take the face-up 20% (M13)
    assert s.shares(0)[1] == up and s.face_up()[1] == pile[0]
    assert s.piles()[1] == pile[1:] + [mine]                    # put back at the bottom (M16)
    assert s.current_player == 1 and s.tiles_placed == 0       # a whole turn, no tile
    theirs, pile = s.shares(1)[1], s.piles()[1]
    s.apply(ex(theirs, 1))                 # take the top face-down 20%
    assert s.shares(1)[1] == pile[0] and s.piles()[1] == pile[1:] + [theirs]
    assert s.exchanges_made() == [1, 1, 0]
    assert s.action_to_string(ex(9, 0)) == "exchange 20% (company 2) take face-up"
    assert g.string_to_action("Exchange 40%  (Company 7) take face-down") == ex(31, 1)
    with pytest.raises(ValueError):
        g.string_to_action("exchange 50% (company 1) take face-up")


def test_no_exchange_at_25_profit_is_a_clear_error_leaving_the_state():
    """"Shares can be exchanged only as long as the first scoring marker of any Metro company
    has not reached or exceeded the 25 points space yet" (M13)."""
    g = game(2)
    before = placements_until(g, 3, lambda s: max(s.profits()) < 25 and s.phase == "turn")
    assert any(a >= EXCHANGE for a in before.legal_actions())
    s = placements_until(g, 3, lambda s: max(s.profits()) >= 25 and s.phase == "turn")
    assert s is not None and not s.exchanges_open
    assert all(a < EXCHANGE for a in s.legal_actions())
    text = s.to_json()
    a = ex(s.shares(s.current_player)[0], 0)
    with pytest.raises(IllegalActionError, match="25 profit") as info:
        s.apply(a)
    assert str(a) in str(info.value) and "exchange 10%" in str(info.value)
    assert s.to_json() == text and not s.is_legal(a)


def test_exchange_of_a_share_not_held_after_a_draw_and_past_the_limit_are_refused():
    g = game(2, exchange_limit=1)
    s = g.new_state(2)
    other = s.shares(1)[2]
    text = s.to_json()
    with pytest.raises(IllegalActionError, match="does not hold"):
        s.apply(ex(other, 1))
    with pytest.raises(IllegalActionError, match="does not hold"):
        s.apply(ex(s.face_up()[0], 0))
    assert s.to_json() == text
    s.apply(6144)                         # draw: the drawn tile must be placed (M4)
    with pytest.raises(IllegalActionError, match="drawn"):
        s.apply(ex(s.shares(0)[0], 0))
    s.apply(s.legal_actions()[0])
    s.apply(ex(s.shares(1)[0], 1))         # player 1's one exchange
    s.apply(s.legal_actions()[0])          # player 0 places
    assert not any(a >= EXCHANGE for a in s.legal_actions())
    with pytest.raises(IllegalActionError, match="exchange_limit"):
        s.apply(ex(s.shares(1)[0], 1))


# ---- scoring (M14, M19) ----

def test_tied_companies_share_a_value_and_the_next_is_one_lower():
    """"The company or companies with most profit points... each value 8, with second most
    profit points ... each value 7" (M14); below a tie the values go on down from the top, so the
    least profitable company can be worth more than 1 (M21)."""
    g = game(2)
    tie = lambda s: (sorted(s.profits())[-1] == sorted(s.profits())[-2] > 0
                     and len(set(s.profits())) >= 3)
    s = next(x for x in (placements_until(g, seed, tie) for seed in range(40)) if x is not None)
    profits, values = s.profits(), s.company_values()
    top = max(profits)
    second = max(p for p in profits if p < top)
    assert [values[k] for k in range(8) if profits[k] == top] == [8, 8]
    assert all(values[k] == 7 for k in range(8) if profits[k] == second)
    assert values == [8 - sorted(set(profits), reverse=True).index(p) for p in profits]


def _with_shares(s, held, players):
    """`s` (a companies state) with the players' shares set to `held` (lists of 4 ids), the other
    shares face up or in the piles in id order; every share known to its holder only."""
    obj = json.loads(s.to_json())
    rest = [[x for x in range(i, 32, 4) if x not in {h[i] for h in held}] for i in range(4)]
    obj["shares"] = {"held": held, "face_up": [r[0] for r in rest], "piles": [r[1:] for r in rest]}
    obj["known"] = {"held": [[[p]] * 4 for p in range(players)], "piles": [[[]] * (7 - players)] * 4}
    del obj["scores"]
    return s.game.state_from_json(json.dumps(obj))


def test_majority_bonus_and_its_tie():
    """"The player whose share(s) of a certain company add up to the highest percentage ...
    gains ... a tenth of the company's profit points, rounded down. In case of a tie both players
    gain the full amount" (M14)."""
    g = game(3)
    s = placements_until(g, 4, lambda s: max(s.profits()) >= 20 and s.phase == "turn")
    k = s.profits().index(max(s.profits()))
    c = (k + 1) % 8
    bonus, v = s.profits()[k] // 10, s.company_values()
    # player 0: k's 40%; player 1: k's 10% and 30% (40% too: a tie); player 2: none of k
    held = [[4 * c + 0, 4 * c + 1, 4 * c + 2, 4 * k + 3],
            [4 * k + 0, 4 * ((c + 1) % 8) + 1, 4 * k + 2, 4 * c + 3],
            [4 * ((c + 2) % 8) + 0, 4 * ((c + 2) % 8) + 1, 4 * ((c + 2) % 8) + 2, 4 * ((c + 2) % 8) + 3]]
    t = _with_shares(s, held, 3)
    assert t.profits() == s.profits()

    def value(p):
        return sum((i + 1) * v[x >> 2] for i, x in enumerate(held[p]))

    def bonus_of(p, company):
        tot = [sum(10 * (i + 1) for i, x in enumerate(h) if x >> 2 == company) for h in held]
        return t.profits()[company] // 10 if max(tot) > 0 and tot[p] == max(tot) else 0

    expect = [value(p) + sum(bonus_of(p, co) for co in range(8)) for p in range(3)]
    assert t.scores() == expect
    assert bonus_of(0, k) == bonus_of(1, k) == bonus > 0 and bonus_of(2, k) == 0
    # without the tie (player 1 holds only k's 30%), player 0 alone gets k's bonus
    held[1][0] = 4 * ((c + 3) % 8)
    u = _with_shares(s, held, 3)
    assert u.scores()[0] == t.scores()[0]
    assert u.scores()[1] == value(1) + sum(bonus_of(1, co) for co in range(8))
    assert bonus_of(1, k) == 0


# ---- the loader refuses inconsistent shares ----

def _mutations(players):
    def dup(o):
        o["shares"]["held"][1][0] = o["shares"]["held"][0][0]
    def wrong_pct(o):
        o["shares"]["held"][0][0], o["shares"]["held"][0][1] = o["shares"]["held"][0][1], o["shares"]["held"][0][0]
    def three(o):
        o["shares"]["held"][0].pop()
    def pile_short(o):
        o["shares"]["piles"][2].pop()
    def pile_long(o):
        o["shares"]["piles"][2].append(2)
    def huge(o):
        o["shares"]["face_up"][0] = 10 ** 40
    def not_own(o):
        o["known"]["held"][1][0] = []
    def knower(o):
        o["known"]["piles"][0][0] = [players]
    def limit(o):
        o["exchanges"][0] = 9
    def missing(o):
        del o["shares"]
    def turn(o):
        o["exchanges"][1] += 1
    return [("held", dup), ("held[0][0]", wrong_pct), ("held[0]", three), ("piles[2]", pile_short),
            ("piles[2]", pile_long), ("face_up[0]", huge), ("known.held[1][0]", not_own),
            ("known.piles[0][0]", knower), ("exchanges", limit), ("shares", missing),
            ("current_player", turn)]


@pytest.mark.parametrize("players", [2, 6])
def test_loader_refuses_inconsistent_shares_naming_the_field(players):
    g = game(players)
    s = g.new_state(8)
    s.apply(ex(s.shares(0)[3], 1))
    good = json.loads(s.to_json())
    assert g.state_from_json(json.dumps(good)) == s
    for field, mutate in _mutations(players):
        obj = json.loads(json.dumps(good))
        mutate(obj)
        with pytest.raises(StateFormatError, match=field.replace("[", r"\[").replace("]", r"\]")):
            g.state_from_json(json.dumps(obj))


def test_base_game_states_keep_their_envelope_and_old_states_load():
    g = metro_ai.load_game("metro", players=2)
    obj = json.loads(g.new_state(1).to_json())
    assert obj["options"] == {"players": 2, "orientation": True, "hand_size": 1}
    full = dict(obj, options=g.options)               # the full spelling loads too
    assert g.state_from_json(json.dumps(full)) == g.new_state(1)
    with pytest.raises(StateFormatError, match="options"):
        game(2).state_from_json(json.dumps(obj))       # a base state is not a companies state


# ---- observation and determinisation (M18) ----

def test_observation_hides_companies_put_back_and_others_shares():
    g = game(3)
    s = g.new_state(11)
    up = s.face_up()[2]
    s.apply(ex(s.shares(0)[2], 0))          # player 0 takes the face-up 30%: public
    s.apply(ex(s.shares(1)[0], 1))          # player 1 takes a face-down 10%: theirs only
    o = s.observation(2)
    assert o["holdings"][0] == [None, None, up, None]
    assert o["holdings"][1] == [None] * 4 and o["holdings"][2] == s.shares(2)
    assert "scores" not in o and o["profits"] == [0] * 8
    assert o["pile_known"][2][-1] is None     # player 0's put-back 30%: player 2 never saw it
    assert s.observation(0)["pile_known"][2][-1] is not None      # player 0 knows it
    for seed in range(20):
        d = s.determinize(2, seed)
        assert d.shares(0)[2] == up and d.shares(2) == s.shares(2)
        assert d.observation(2) == o
    assert len({tuple(s.determinize(2, seed).shares(1)) for seed in range(30)}) > 1
    # once player 0 exchanges that 30% again, face down, it is unknown again
    s.apply(s.legal_actions()[0])
    s.apply(ex(s.shares(0)[2], 1))
    assert s.observation(2)["holdings"][0][2] is None
    assert len({s.determinize(2, seed).shares(0)[2] for seed in range(30)}) > 1


def test_determinize_depends_only_on_the_observation():
    g = game(4, hand_size=2, orientation=False)
    s = g.new_state(21)
    rng = random.Random(4)
    for _ in range(30):
        acts = s.legal_actions()
        exs = [a for a in acts if a >= EXCHANGE]
        s.apply(rng.choice(exs if exs and rng.random() < 0.6 else acts))
    for p in range(4):
        twin = s.determinize(p, 77)
        assert twin.observation(p) == s.observation(p)
        assert twin.to_json() != s.to_json()
        for seed in (1, 2, 3):
            assert twin.determinize(p, seed).to_json() == s.determinize(p, seed).to_json()


def _consistent_arrangements(players, observer, pct, events, seen):
    """Every arrangement of pct's 8 shares (held by each player, face up, pile top first) that
    some initial order of the pile (8! of them, each equally likely) leads to through the public
    `events` [(player, pct, src)], among those giving `observer` the observations `seen` (their
    share and the face-up share before and after every event), by brute force."""
    out = set()
    for order in itertools.permutations(range(pct, 32, 4)):
        held = list(order[:players])
        up, pile = order[players], list(order[players + 1:])
        obs = [(held[observer], up)]
        for p, i, src in events:
            if i == pct:
                pile.append(held[p])
                if src == 0:
                    held[p], up = up, pile.pop(0)
                else:
                    held[p] = pile.pop(0)
            obs.append((held[observer], up))
        if obs == seen:
            out.add((tuple(held), up, tuple(pile)))
    return out


@pytest.mark.parametrize("players,plan", [
    (3, [(0, 1), (1, 0), (2, 1), (0, 0), (1, 1)]),
    (2, [(0, 1), (1, 0)]),
    (4, [(0, 0), (1, 1), (2, 1), (3, 0), (0, 1)]),
])
def test_determinize_is_uniform_over_every_consistent_assignment(players, plan):
    """Brute force (M18): replay the public exchanges from all 8! orders of a pile, keep those
    the observer cannot tell apart from what they saw, and compare the sampler's frequencies
    with the uniform distribution over them (chi-square), after exchanges that teach the
    observer some places (a share they put back, one taken face up, one they drew)."""
    observer, pct = 0, 1
    s = game(players).new_state(31)
    events = []
    seen = [(s.shares(observer)[pct], s.face_up()[pct])]
    for p, src in plan:                                    # (player, src), on the 20% pile
        assert s.current_player == p
        s.apply(ex(s.shares(p)[pct], src))
        events.append((p, pct, src))
        seen.append((s.shares(observer)[pct], s.face_up()[pct]))
    truth = (tuple(s.shares(q)[pct] for q in range(players)), s.face_up()[pct], tuple(s.piles()[pct]))
    consistent = _consistent_arrangements(players, observer, pct, events, seen)
    assert truth in consistent and len(consistent) >= 6
    samples = 80 * len(consistent)
    counts = Counter()
    for seed in range(samples):
        d = s.determinize(observer, seed)
        counts[(tuple(d.shares(q)[pct] for q in range(players)), d.face_up()[pct], tuple(d.piles()[pct]))] += 1
    assert set(counts) == consistent          # nothing inconsistent, everything consistent
    expected = samples / len(consistent)
    stat = sum((counts[a] - expected) ** 2 / expected for a in consistent)
    assert chi2_pvalue(stat, len(consistent) - 1) > 1e-4, (stat, len(consistent))


# ---- search: observed actions and MO-ISMCTS (M18) ----

def test_observed_action_keeps_percentage_and_source_only():
    s = game(3).new_state(2)
    a = ex(s.shares(0)[2], 1)
    assert s.observed_action(a, 0) == a
    assert s.observed_action(a, 1) == s.observed_action(a, 2) == ex(2, 1)     # company 0's 30%
    assert s.observed_action(s.legal_actions()[0], 1) == s.legal_actions()[0]


def test_mo_ismcts_trees_merge_opponents_exchanges_of_one_percentage():
    """With public moves the n trees of MO-ISMCTS mirror each other (n times SO-ISMCTS's nodes);
    here the opponents' exchanges of one percentage share a node in the others' trees."""
    s = game(2).new_state(6)
    assert type(s) is MetroState and any(a >= EXCHANGE for a in s.legal_actions())
    limit = metro_ai.Limit(iterations=1500)
    so = metro_ai.make_bot("ismcts", seed=5).analyse(s, limit)
    mo = metro_ai.make_bot("mo-ismcts", seed=5).analyse(s, limit)
    assert mo.chosen in s.legal_actions()
    assert mo.nodes < 2 * so.nodes

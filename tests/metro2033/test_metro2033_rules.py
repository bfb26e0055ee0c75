"""The map in C of Metro 2033's fast engine (engine/metro2033/rules.pyx) against the
pure-Python map (board.py): the G11/G23 army paths (the stations reached for an attack on a hero
against the reference engine's) and the G12 hero reach on random positions, on the positions of
random reference games, and bad input refused."""
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metro_ai.engine.metro2033.board import BOARD, FACTION_ZONES
from metro_ai.engine.metro2033.reference import RefMetro2033Game
from metro_ai.engine.metro2033.rules import Metro2033Map

MAP = Metro2033Map()

owners = st.lists(st.one_of(st.none(), st.integers(0, 5)), min_size=BOARD.n, max_size=BOARD.n)
closed = st.sets(st.sampled_from(FACTION_ZONES), max_size=4)


@settings(max_examples=300, deadline=None)
@given(owner=owners, player=st.integers(0, 5), closed_zones=closed)
def test_army_targets_match_board(owner, player, closed_zones):
    assert MAP.army_targets(owner, player, closed_zones) == BOARD.army_targets(owner, player, closed_zones)


@settings(max_examples=300, deadline=None)
@given(start=st.integers(0, BOARD.n - 1), speed=st.integers(0, 8), closed_zones=closed)
def test_hero_reach_matches_board(start, speed, closed_zones):
    assert MAP.hero_reach(start, speed, closed_zones) == BOARD.hero_reach(start, speed, closed_zones)


def _closed_sets():
    """Every set of faction zones out of play (G6, G22): the closed-zone masks the engine meets."""
    zones = sorted(FACTION_ZONES)
    return [{z for b, z in enumerate(zones) if m >> b & 1} for m in range(1 << len(zones))]


def test_hero_reach_tables_match_board_for_every_closed_set_and_start():
    """G12: the hero distances precomputed per closed-zone mask, for every start and every set
    of zones out of play, at an unbounded speed and at a random one, against board.py's search."""
    rng = random.Random(5)
    for closed_zones in _closed_sets():
        for start in range(BOARD.n):
            for speed in (127, rng.randrange(0, 6)):
                assert MAP.hero_reach(start, speed, closed_zones) == BOARD.hero_reach(start, speed, closed_zones)


def test_army_targets_from_every_single_station_and_closed_set_match_board():
    """G11, G23: an army holding one station (among neutral ones, and among a rival's), for
    every station and every set of zones out of play, against board.py's search."""
    rng = random.Random(6)
    for closed_zones in _closed_sets():
        for s in range(BOARD.n):
            owner = [None] * BOARD.n
            owner[s] = 0
            assert MAP.army_targets(owner, 0, closed_zones) == BOARD.army_targets(owner, 0, closed_zones)
            for i in rng.sample(range(BOARD.n), 20):
                if i != s:
                    owner[i] = 1
            assert MAP.army_targets(owner, 0, closed_zones) == BOARD.army_targets(owner, 0, closed_zones)


def test_the_rulebook_paths_in_c():
    owner = [None] * BOARD.n
    owner[BOARD.station("marksistskaya")] = 0
    names = {BOARD.names[i] for i in MAP.army_targets(owner, 0)}
    assert "paveletskaya_green" in names and "serpuhovskaya_grey" not in names      # G11
    owner = [None] * BOARD.n
    owner[BOARD.station("chehovskaya")] = 2
    assert BOARD.station("ploshad_revolutsii") in MAP.army_targets(owner, 2)
    # G11, G23: an army reaches (for an attack on a hero) the stations it may attack, and Hansa
    # stations, which it may not attack
    assert BOARD.station("arbatskaya_purple") in MAP.army_reach(owner, 2)
    owner = [None] * BOARD.n
    owner[BOARD.station("marksistskaya")] = 0
    reach = {BOARD.names[i] for i in MAP.army_reach(owner, 0)}
    assert {BOARD.names[i] for i in MAP.army_targets(owner, 0)} < reach
    assert {"taganskaya_H", "paveletskaya_H", "paveletskaya_green"} <= reach and "serpuhovskaya_grey" not in reach


def test_positions_of_reference_games_match():
    """Random owners say little about a real game: compare at every army and hero
    decision of random reference games, with the zones out of play."""
    checked = 0
    for seed in range(6):
        n = 2 + seed % 5
        s = RefMetro2033Game(players=n, round_limit=15).new_state(seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            p = s.current_player
            if s.phase == "army":
                assert MAP.army_targets(s.owner, p, s.closed_zones()) == BOARD.army_targets(s.owner, p, s.closed_zones())
                assert MAP.army_reach(s.owner, p, s.closed_zones()) == sorted(s._army_reach(p))    # G11 heroes
                checked += 1
            elif s.phase == "hero_move":
                assert MAP.hero_reach(s.hero_at[p], s.speed(p), s.closed_zones()) == \
                    BOARD.hero_reach(s.hero_at[p], s.speed(p), s.closed_zones())
                checked += 1
            s.apply(rng.choice(s.legal_actions()))
    assert checked > 300


@pytest.mark.parametrize("call, message", [
    (lambda: MAP.army_targets([None] * 3, 0), "78 entries"),
    (lambda: MAP.army_targets([None] * 77 + ["x"], 0), r"owner\[77\]"),
    (lambda: MAP.army_targets([None] * 78, 9), "player must be"),
    (lambda: MAP.army_targets([None] * 78, 0, ["atlantis"]), "unknown zone"),
    (lambda: MAP.army_reach([None] * 3, 0), "78 entries"),
    (lambda: MAP.army_reach([None] * 78, -1), "player must be"),
    (lambda: MAP.hero_reach(78, 1), "start must be"),
    (lambda: MAP.hero_reach(0, -1), "speed must be"),
])
def test_bad_input_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --------------------------------------------------------------------------------------------
# The players' own choices (G10/G11, G29, G31, G33, G38): scenarios in the reference engine, then the
# same positions in the fast engine (on the contract, through the loader), compared move by move.
# --------------------------------------------------------------------------------------------
import json  # noqa: E402

import metro_ai  # noqa: E402
from metro_ai.engine.metro2033 import reference as ref  # noqa: E402
from test_metro2033_fast import fast_twin  # noqa: E402
from test_metro2033_reference import card_id, play, quiet, started, to_phase  # noqa: E402


def twin(r, fields):
    """The fast engine's state at reference state `r`, with r's `fields` copied in."""
    return fast_twin(r, fields=fields)


def both(r, f, *actions):
    """Apply `actions` (texts) to both engines; after each, the same state, legal actions and
    player to move."""
    for text in actions:
        a = r.string_to_action(text)
        r.apply(a)
        f.apply(a)
        fd, rd = json.loads(f.to_json()), json.loads(r.to_json())["state"]
        for k in ("owner", "vp", "army", "res", "quests", "done_quests", "decks", "known", "law", "phase"):
            assert fd[k] == rd[k], (text, k)
        assert f.legal_actions() == r.legal_actions() and f.current_player == r.current_player, text


def test_g10_g33_a_player_keeps_less_strength_than_affordable():
    """ "If you can't or won't pay, disband": with strength 7 and pigs enough for all of it, the
    player may keep 7, 6 or 5 (5 is free); keeping 5 pays nothing (today's engine kept 7)."""
    r = started(["Red Line", "Bandits"])
    assert r.phase == "hire" and r.current_player == 0
    r.army[1], r.res[1] = 7, [9, 0, 9]
    f = twin(r, ("army", "res"))
    both(r, f, "count 0")
    assert r.phase == "upkeep" and r.current_player == 1
    assert r.legal_actions() == [ref.COUNT + k for k in (5, 6, 7)]
    both(r, f, "count 5")
    assert r.army[1] == 5 and r.res[1][0] == 9
    assert r.phase == "hire" and r.pending["max"] == 3            # then hire, up to 8
    both(r, f, "count 0")
    assert r.army[1] == 5 and r.phase == "army"


def test_g10_g33_no_upkeep_decision_at_or_below_the_free_strength():
    for army, pigs in ((5, 9), (4, 0), (8, 0)):
        r = started(["Red Line", "Bandits"])
        r.army[1], r.res[1] = army, [pigs, 0, 0]
        f = twin(r, ("army", "res"))
        both(r, f, "count 0")
        assert r.phase == "army" and r.army[1] == min(army, 5)


def law_look_position():
    """Round 3 (the first law space, G8): the Confederation of 1905 (player 0) to decide whether
    to look at the top two laws."""
    r = started(["Confederation of 1905", "Fourth Reich"])
    r = to_phase(r, "law_look", None, quiet)
    assert r.round == 3 and r.current_player == 0
    return r


def test_g31_the_confederation_declines_to_look_and_the_second_law_stays_unknown():
    r = law_look_position()
    f = twin(r, ())
    g = r.game
    assert r.legal_actions() == [g.fixed(ref.YES), g.fixed(ref.NO)] == f.legal_actions()
    top, second = r.decks["law"][:2]
    both(r, f, "no")
    # the top law goes to the vote unseen before; the second stays in the deck, known to nobody
    assert r.phase == "vote" and r.vote["law"] == top and r.decks["law"][0] == second
    assert str(second) not in r.known
    obs = r.observation(0)
    assert obs["deck_known"]["law"] == [] and obs["deck_sizes"]["law"] == len(g.of_type["law"]) - 1
    # determinize: the Confederation's worlds put any of the unseen laws second
    seconds = {r.determinize(0, seed).decks["law"][0] for seed in range(40)}
    assert len(seconds) > 1 and top not in seconds
    fobs = f.observation(0)
    assert fobs["deck_known"]["law"] == obs["deck_known"]["law"]


def test_g31_the_confederation_looks_and_knows_the_law_put_under():
    r = law_look_position()
    f = twin(r, ())
    top, second = r.decks["law"][:2]
    both(r, f, "yes")
    assert r.phase == "law_peek" and r.legal_actions() == sorted(ref.CARD + c for c in (top, second))
    assert r.observation(1)["pending"]["cards"] == 2                   # the other sees a count
    a = ref.CARD + second
    r.apply(a)
    f.apply(a)
    assert r.vote["law"] == second and r.decks["law"][-1] == top and r.known[str(top)] == [0]
    assert {r.determinize(0, seed).decks["law"][-1] for seed in range(10)} == {top}


def mid_round_quest_position():
    """Round 1, the Red Line's (player 0) hero on Kurskaya (Hansa), holding "Mushroom caves"
    (4 mushrooms) with 3 mushrooms and 2 pigs: not yet fulfilled when its hero moves."""
    r = started(["Red Line", "Bandits"])
    r = to_phase(r, "hero_move", 0, quiet)
    c = card_id("Mushroom caves")
    r.decks["quest"].remove(c)
    r.quests[0] = [c]
    r.res[0] = [2, 3, 0]
    r.hero_at[0] = ref.BOARD.station("kurskaya_H")
    return r, c


def test_g29_a_quest_fulfilled_in_the_hero_action_is_completed_before_the_round_ends():
    r, c = mid_round_quest_position()
    g = r.game
    f = twin(r, ("decks", "quests", "res", "hero_at"))
    assert g.COMPLETE + c not in r.legal_actions()
    both(r, f, "station kurskaya_H", "exchange", "resource pigs", "resource mushrooms", "count 1")
    assert r.res[0] == [1, 4, 0] and r.round == 1
    # G29: fulfilled by the exchange; its holder decides at once, before the Bandits' hero moves
    assert r.phase == "quest_complete" and r.current_player == 0
    assert r.legal_actions() == [g.COMPLETE + c, g.fixed(ref.DONE)]
    vp = r.vp[0]
    both(r, f, "complete Mushroom caves")
    assert r.done_quests[0] == [c] and r.vp[0] == vp + 1 and r.round == 1
    assert r.phase == "hero_move" and r.current_player == 1


def test_g29_a_quest_kept_uncompleted_is_offered_again_and_at_the_round_end():
    r, c = mid_round_quest_position()
    g = r.game
    f = twin(r, ("decks", "quests", "res", "hero_at"))
    both(r, f, "station kurskaya_H", "exchange", "resource pigs", "resource mushrooms", "count 1", "done")
    assert r.phase == "hero_move" and r.current_player == 1
    both(r, f, f"station {ref.BOARD.names[r.hero_at[1]]}", "pass")
    # after the last hero action, before the end of round 1: asked again
    assert r.round == 1 and r.phase == "quest_complete" and r.current_player == 0
    both(r, f, "complete Mushroom caves")
    assert r.vp[0] == 4 and r.round == 2


def test_g38_every_holder_is_asked_at_a_quest_check_done_the_only_choice_when_nothing_holds():
    r, c = mid_round_quest_position()
    g = r.game
    f = twin(r, ("decks", "quests", "res", "hero_at"))
    both(r, f, "station kurskaya_H", "pass")
    # "Mushroom caves" wants 4 mushrooms, its holder has 3: asked all the same, DONE alone legal,
    # and the Bandits (no quest) are not asked
    assert r.phase == "quest_complete" and r.current_player == 0
    assert r.legal_actions() == [g.fixed(ref.DONE)] == f.legal_actions()
    both(r, f, "done")
    assert r.phase == "hero_move" and r.current_player == 1 and r.quests[0] == [c]


def quest_keep_position():
    """Player 0 (Red Line) takes a quest on Kurskaya (Hansa) in round 1, the deck's top two being
    "Mushroom caves" (4 mushrooms: fulfilled, with 5) and "Empire" (8 stations: not)."""
    r = to_phase(started(["Red Line", "Bandits"]), "hero_move", 0, quiet)
    r.res[0] = [5, 5, 5]
    r.hero_at[0] = ref.BOARD.station("kurskaya_H")
    fulfilled, not_yet = card_id("Mushroom caves"), card_id("Empire")
    for c in (not_yet, fulfilled):
        r.decks["quest"].remove(c)
        r.decks["quest"].insert(0, c)
    f = twin(r, ("decks", "res", "hero_at"))
    both(r, f, "station kurskaya_H", "quest")
    assert r.phase == "quest_keep" and r.legal_actions() == sorted(ref.CARD + c for c in (fulfilled, not_yet))
    return r, f, fulfilled, not_yet


def test_g38_the_others_cannot_tell_which_quest_was_kept():
    """Issue #41: keeping the fulfilled quest or the other leads to the same decision (its holder
    asked at the quest check after the hero action, G29), so the Bandits see only which card went
    face up to the discard pile (G27): the observed action names that card."""
    seen = []
    for keep, other in ((0, 1), (1, 0)):
        r, f, *cards = quest_keep_position()
        a = ref.CARD + cards[keep]
        assert r.observed_action(a, 1) == f.observed_action(a, 1) == ref.CARD + cards[other]
        assert r.observed_action(a, 0) == f.observed_action(a, 0) == a
        both(r, f, f"card {r.game.cards[cards[keep]]['name']}")
        assert r.phase == "quest_complete" and r.current_player == 0 and r.discards["quest"] == [cards[other]]
        views = [r.observation(1), f.observation(1)]
        for view in views:
            assert view["quests"] == [] and view["quest_counts"] == [1, 0]
            assert view["discards"]["quest"] == [cards[other]]
            view["discards"]["quest"] = None            # the one difference the rules show (G27)
        seen.append(views)
    assert seen[0] == seen[1]


def test_g29_no_fulfilled_quest_survives_a_round_end_when_its_holder_completes(monkeypatch):
    """A holder who always completes never reaches the end of a round with a quest whose
    condition holds (the rounds' checks: after the events, each army action and each hero
    action)."""
    ends = []
    original = ref.RefMetro2033State._end_round

    def checked(self):
        ends.append(self.round)
        for p in range(self.n):
            assert not [c for c in self.quests[p] if self._quest_ok(p, c)], (self.round, p)
        original(self)
    monkeypatch.setattr(ref.RefMetro2033State, "_end_round", checked)
    import random
    for seed in range(8):
        n = 2 + seed % 5
        s = RefMetro2033Game(players=n, round_limit=20).new_state(seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            acts = s.legal_actions()
            done = [a for a in acts if s.game.COMPLETE <= a < s.game.USE]
            s.apply(done[0] if done else rng.choice(acts))
    assert len(ends) > 50

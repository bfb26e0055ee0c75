"""The Metro 2033 board game's pure-Python reference engine (engine/metro2033/reference.py).

Scenario tests from the rulebook's own examples (G8 doubled first resources, G10 upkeep, G11
attack paths, G15 three-station floor, G18 stage 2, G21 combat cards, G2 victory and ties), then
the contract on random play with hypothesis: games end (G30), listed actions apply and others are
refused without change, same seed same game, JSON round trips, observations hide quests, scouted
threats, combat cards and undisclosed threat declarations (G32), and determinize keeps all that the
player sees and depends only on it and the seed.
"""
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metro_ai.engine.metro2033 import reference as ref
from metro_ai.engine.metro2033.board import BOARD
from metro_ai.engine.metro2033.reference import RefMetro2033Game

GAMES = {n: RefMetro2033Game(players=n) for n in range(2, 7)}


def play(state, *texts):
    for t in texts:
        state.apply(state.string_to_action(t))


def started(factions, heroes=None, seed=0, places=None, game=None):
    """A game (of `game`, default the shipped cards) past the drafts and the hero placement:
    player p drafts factions[p] (G6) and heroes[p], and puts the hero on places[p] (default its
    first home station, G24)."""
    n = len(factions)
    s = (game or GAMES[n]).new_state(seed)
    for p in range(n):
        assert s.phase == "draft_faction" and s.current_player == p
        play(s, f"faction {factions[p]}")
    heroes = heroes or [h for h in ("Ulman", "Khan", "Hunter", "Miller", "Bourbon", "Artyom")][:n]
    for p in reversed(range(n)):
        assert s.phase == "draft_hero" and s.current_player == p
        play(s, f"hero {heroes[p]}")
    for p in range(n):
        assert s.phase == "place_hero"
        home = s._card(s.faction[p])["home"]
        play(s, f"station {(places or home)[p] if places else home[0]}")
    return s


def card_id(name):
    g = GAMES[2]
    return next(c["id"] for c in g.cards if c["name"] == name)


def to_phase(s, phase, player=None, choose=None):
    """Apply `choose(s)` (default: the first legal action) until `phase` (for `player`)."""
    for _ in range(5000):
        if s.phase == phase and (player is None or s.current_player == player):
            return s
        s.apply(choose(s) if choose else s.legal_actions()[0])
    raise AssertionError(f"phase {phase} not reached")


def quiet(s):
    """A policy that only forages, passes, hires nobody and declines: no fight starts."""
    g = s.game
    acts = s.legal_actions()
    for want in (g.fixed(ref.PASS), g.fixed(ref.NO), ref.COUNT, ref.RESOURCE):
        if want in acts:
            return want
    if s.phase == "hero_move":
        return ref.STATION + s.hero_at[s.current_player]
    return acts[0]


# --------------------------------------------------------------------------------------------
# scenarios from the rulebook
# --------------------------------------------------------------------------------------------
def test_g6_draft_order_and_borders():
    s = GAMES[3].new_state(1)
    assert s.phase == "draft_faction" and s.current_player == 0 and len(s.legal_actions()) == 6
    play(s, "faction Bandits")
    # G6: the second pick must border a zone already chosen (Bandits: Arbat, Bauman, Red Line)
    assert {s.action_to_string(a) for a in s.legal_actions()} == {
        "faction Arbat Confederation", "faction Bauman Alliance", "faction Red Line"}
    play(s, "faction Red Line", "faction Fourth Reich")
    assert s.phase == "draft_hero" and s.current_player == 2          # last player, then counter-clockwise
    play(s, "hero Artyom")
    assert s.current_player == 1 and "hero Artyom" not in {s.action_to_string(a) for a in s.legal_actions()}
    play(s, "hero Khan", "hero Hunter")
    assert s.closed_zones() == {"confederation_1905", "bauman_alliance", "arbat_confederation"}


def test_g7_g8_setup_and_first_rounds_doubled_resources():
    s = started(["Red Line", "Bandits"])
    # G7: 3 home stations, 3 VP, army 2; G8: START gives 2 of each to each player (3 producing
    # home stations, one of each resource), plus the faction's starting bonus
    for p, bonus in ((0, [1, 0, 0]), (1, [0, 0, 1])):
        assert [BOARD.names[x] for x in s.stations(p)] == sorted(
            s._card(s.faction[p])["home"], key=BOARD.station)
        assert s.vp[p] == 3 and s.army[p] == 2
        assert s.res[p] == [2 + b for b in bonus]
    assert s.round == 1 and s.phase == "hire" and s.current_player == 0


def test_g10_upkeep_strength_7_with_one_pig_becomes_6():
    s = started(["Red Line", "Bandits"])
    assert s.phase == "hire" and s.current_player == 0
    s.army[1], s.res[1] = 7, [1, 0, 5]
    play(s, "count 0")                     # player 0 hires nobody; player 1's mobilisation runs
    # G10, G33: 7 needs 2 pigs; 1 pig pays for 6 at most: keep 6 or 5 (a decision)
    assert s.phase == "upkeep" and s.current_player == 1
    assert s.legal_actions() == [ref.COUNT + 5, ref.COUNT + 6]
    play(s, "count 6")
    assert s.army[1] == 6 and s.res[1][0] == 0
    assert s.phase == "army" and s.current_player == 0        # nothing to hire with: no decision
    # without a pig there is nothing to decide: 7 becomes 5
    s = started(["Red Line", "Bandits"])
    s.army[1], s.res[1] = 7, [0, 0, 5]
    play(s, "count 0")
    assert s.army[1] == 5 and s.phase == "army" and s.current_player == 0


def test_g10_hire_up_to_eight():
    s = started(["Red Line", "Bandits"])
    assert s.legal_actions() == [ref.COUNT + k for k in range(3)]   # 3 pigs, 2 bullets: up to 2
    s.army[1], s.res[1] = 7, [9, 0, 9]
    play(s, "count 2")
    assert s.army[0] == 4 and s.res[0] == [1, 2, 0]                 # a bullet and a pig each
    # player 1: upkeep of 7 is 2 pigs (kept: G33), then one more soldier reaches the cap of 8
    assert s.phase == "upkeep" and s.legal_actions() == [ref.COUNT + k for k in (5, 6, 7)]
    play(s, "count 7")
    assert s.phase == "hire" and s.current_player == 1 and s.res[1][0] == 7
    assert s.legal_actions() == [ref.COUNT + 0, ref.COUNT + 1]
    play(s, "count 1")
    assert s.army[1] == 8 and s.res[1] == [6, 0, 8]


def test_g11_paths_in_the_engine():
    s = started(["Fourth Reich", "Red Line"])
    s = to_phase(s, "army", 0, quiet)
    texts = {s.action_to_string(a) for a in s.legal_actions()}
    # Chekhovskaya (Reich home) to Ploshchad Revolyutsii (Red Line home) through the Polis stations
    assert "station ploshad_revolutsii" in texts and "station borovitskaya" in texts
    s2 = started(["Bauman Alliance", "Bandits"])
    s2 = to_phase(s2, "army", 0, quiet)
    s2.owner[BOARD.station("marksistskaya")] = 0
    texts = {s2.action_to_string(a) for a in s2.legal_actions()}
    assert "station paveletskaya_green" in texts and "station serpuhovskaya_grey" not in texts


def test_g21_combat_card_example_tie_then_attack_card():
    """G36: army 6 with "Ambush in the tunnels" (+1) against army 5 with "Counter-attack" (+2):
    7 v 7, a tie, nothing happens; against an attack card instead, Ambush gives +3: 9 v 7."""
    for defender_card, expect_tie in (("Counter-attack", True), ("Assault", False)):
        s = started(["Red Line", "Bauman Alliance"])
        s = to_phase(s, "army", 0, quiet)
        target = BOARD.station("kurskaya_purple")            # a Bauman home, next to Ploshchad Rev.
        assert ref.STATION + target in s.legal_actions()
        s.army[0], s.army[1] = 6, 5
        s.hero_at[1] = BOARD.station("baumanskaya")
        s.apply(ref.STATION + target)
        assert s.phase == "combat_pick" and s.current_player == 0
        ambush, other = card_id("Ambush in the tunnels"), card_id(defender_card)
        # deal the example's cards (the rest as dealt): swap them into the two hands
        cb = s.combat
        for side, c in (("att", ambush), ("def", other)):
            if c not in cb["hands"][side]:
                holder = next(lst for lst in (cb["hands"]["att"], cb["hands"]["def"], cb["aside"]) if c in lst)
                holder[holder.index(c)] = cb["hands"][side][0]
                cb["hands"][side][0] = c
        s.apply(ref.CARD + ambush)
        assert s.phase == "combat_pick" and s.current_player == 1
        # G32: the defender does not see the attacker's pick
        assert s.observation(1)["combat"]["picks"]["att"] == 1
        s.apply(ref.CARD + other)
        fight = s.last_fight
        if expect_tie:
            assert fight["strength"] == [7, 7] and fight["result"] == 0
            assert s.owner[target] == 1 and s.army == [6, 5]
        else:
            assert fight["strength"] == [9, 7] and fight["result"] == 1
            assert s.owner[target] is None and s.vp[1] == 2            # G20: the station is lost
            assert s.phase == "capture" and s.current_player == 0       # G14: 1 mushroom to capture
            mushrooms = s.res[0][1]
            play(s, "yes")
            assert s.owner[target] == 0 and s.vp[0] == 4 and s.res[0][1] == mushrooms - 1
            assert s.phase == "free_station" and s.current_player == 1  # G15: left with 2 stations
            s.apply(s.legal_actions()[0])
            assert s.vp[1] == 3 and len(s.stations(1)) == 3


def test_g15_three_station_floor():
    s = started(["Red Line", "Bandits"])
    s = to_phase(s, "army", 0, quiet)
    lost = BOARD.station("teatralnaya")
    s._lose(0, lost)
    s.phase = None                             # run the pushed floor task as the engine would
    s._advance()
    assert s.phase == "free_station" and s.current_player == 0 and s.vp[0] == 2
    opts = [a - ref.STATION for a in s.legal_actions()]
    assert opts and all(BOARD.zone[x] == "red_line" and s.owner[x] is None and BOARD.produces(x) for x in opts)
    s.apply(ref.STATION + opts[0])
    assert len(s.stations(0)) == 3 and s.vp[0] == 3 and s.owner[opts[0]] == 0


def edit(s, owners=None, heroes=None):
    """Change the board of reference state `s`: `owners` maps station names to a player or None
    (VP follow: G2), `heroes` players to the station name their hero stands on."""
    for name, p in (owners or {}).items():
        x = BOARD.station(name)
        if s.owner[x] is not None:
            s.vp[s.owner[x]] -= 1
        if p is not None:
            s.vp[p] += 1
        s.owner[x] = p
    for p, name in (heroes or {}).items():
        s.hero_at[p] = BOARD.station(name)
    return s


# G11 with G23: an army attacks an enemy hero on a station it reaches as it would reach a
# station to attack. Each position: factions, owners, heroes, whether player 0's army may attack
# player 1's hero; the hero stands on a neutral station linked to none of player 0's.
HERO_POSITIONS = {
    # from Chekhovskaya (Reich) through neutral Borovitskaya (Polis) to Arbatskaya (Polis)
    "through_polis": (["Fourth Reich", "Red Line"], {}, {1: "arbatskaya_purple"}, True),
    # the same with Borovitskaya held by the Red Line: a held station is not passed
    "polis_held": (["Fourth Reich", "Red Line"], {"borovitskaya": 1}, {1: "arbatskaya_purple"}, False),
    # from Marksistskaya through Taganskaya and Paveletskaya (Hansa; one Hansa tunnel) to
    # Paveletskaya (green line)
    "through_hansa": (["Bauman Alliance", "Bandits"], {"marksistskaya": 0}, {1: "paveletskaya_green"}, True),
    # Serpukhovskaya (grey line) is two Hansa tunnels away from Marksistskaya
    "two_hansa_tunnels": (["Bauman Alliance", "Bandits"], {"marksistskaya": 0}, {1: "serpuhovskaya_grey"}, False),
}


def hero_position(name):
    """HERO_POSITIONS[name] at player 0's army decision of round 1 (reference engine)."""
    factions, owners, heroes, _ = HERO_POSITIONS[name]
    return edit(to_phase(started(factions), "army", 0, quiet), owners, heroes)


@pytest.mark.parametrize("name", sorted(HERO_POSITIONS))
def test_g11_g23_army_attacks_a_hero_through_neutral_polis_and_hansa(name):
    s = hero_position(name)
    at = s.hero_at[1]
    assert s.owner[at] is None and not any(s.owner[j] == 0 for j, _ in BOARD.links[at])
    offered = HERO_POSITIONS[name][3]
    assert (ref.PLAYER + 1 in s.legal_actions()) == offered
    if offered:
        s.apply(ref.PLAYER + 1)
        assert s.phase == "combat_pick" and s.current_player == 0
        while s.phase == "combat_pick":
            s.apply(s.legal_actions()[0])
        fight = s.last_fight                                        # army against the hero, where it stands
        assert (fight["att_who"], fight["def_who"], fight["defender"], fight["station"]) == ("army", "hero", 1, at)


def below_three_position():
    """Red Line (player 0) down to 2 stations (Okhotny Ryad lost, and no free station then:
    G28), the Bandits' army of 8 against its army of 1, at the Bandits' army decision."""
    s = edit(to_phase(started(["Red Line", "Bandits"]), "army", 1, quiet), {"ohotniy_ryad": None})
    s.army[0], s.army[1] = 1, 8
    return s


def test_g15_never_fewer_than_three_stations():
    """G15: a player already down to 2 stations who loses another takes a free one too."""
    s = below_three_position()
    assert len(s.stations(0)) == 2
    s.apply(ref.STATION + BOARD.station("teatralnaya"))
    while s.phase == "combat_pick":                                 # 8 against at most 1 + 3
        s.apply(s.legal_actions()[0])
    assert s.last_fight["result"] == 1 and len(s.stations(0)) == 1 and s.vp[0] == 1
    if s.phase == "capture":
        play(s, "no")
    assert s.phase == "free_station" and s.current_player == 0
    s.apply(s.legal_actions()[0])
    assert len(s.stations(0)) == 2 and s.vp[0] == 2


def test_g18_stage_two_at_six_vp_and_not_before():
    for vp, stage in ((5, 1), (6, 2)):
        s = started(["Red Line", "Bandits"])
        s.vp[1] = vp
        s = to_phase(s, "hero_act", 1, quiet)
        play(s, "pass")
        assert s.first == 1                                            # G13: token passed left
        if stage == 1:
            assert s.round == 2
            assert s.stage == 1 and s.phase == "hire"
            continue
        assert s.stage == 2 and s.phase == "stage2_equipment" and s.current_player == 1
        assert not s.decks["threat1"] and len([c for c in s.out if s._card(c)["type"] == "threat"]) == 18
        assert s.equipment_limit() == 3
        play(s, s.action_to_string(s.legal_actions()[0]))
        assert s.phase == "stage2_equipment" and s.current_player == 0 and len(s.equipment[1]) == 1
        s.apply(s.legal_actions()[0])
        assert s.round == 2 and len(s.equipment[0]) == 1 and s.phase == "hire"


def test_g2_victory_red_line_nine_and_seat_order():
    s = started(["Red Line", "Bandits"])
    s.vp = [9, 10]
    to_phase(s, "hero_act", 1, quiet)
    play(s, "pass")
    assert s.is_terminal() and s.winner == 0 and s.returns() == [1.0, 0.0]   # G2: Red Line 9, seat 0 first
    s = started(["Bandits", "Red Line"])
    s.vp = [9, 9]
    to_phase(s, "hero_act", 1, quiet)
    play(s, "pass")
    assert s.winner == 1                                                     # 9 is not enough for Bandits
    s = started(["Bandits", "Red Line"])
    for x in BOARD.polis:
        s.owner[x] = 0
    to_phase(s, "hero_act", 1, quiet)
    play(s, "pass")
    assert s.winner == 0                                                     # all four Polis stations


def test_g30_round_limit_ranks_by_vp():
    g = RefMetro2033Game(players=3, round_limit=2)
    s = g.new_state(3)
    while not s.is_terminal():
        s.apply(quiet(s))
    assert s.round == 2 and s.winner is None
    assert sorted(s.returns()) == sorted(
        (sum(s.vp[q] < s.vp[p] for q in range(3)) + 0.5 * sum(s.vp[q] == s.vp[p] for q in range(3) if q != p)) / 2
        for p in range(3))


def test_g9_threat_event_declarations_are_hidden_until_revealed():
    s = started(["Red Line", "Bandits"])
    # round 4 is the first THREAT space (G8)
    assert ref.track_space(4) == ref.track_space(13) == ("threat",) and ref.track_space(11) == ref.track_space(2)
    s = to_phase(s, "declare", None, quiet)
    assert s.round == 4
    first = s.current_player
    s.apply(s.legal_actions()[0])
    other = 1 - first
    assert s.phase == "declare" and s.current_player == other
    assert s.observation(other)["declared"][first] is True        # declared, but not where
    assert s.observation(first)["declared"][first] == s.declared[first]


def test_bad_actions_are_refused_without_change():
    s = started(["Red Line", "Bandits"])
    before = s.to_json()
    for bad in (-1, 10 ** 6, "3", True, ref.STATION + 0):
        with pytest.raises(ValueError):
            s.apply(bad)
    assert s.to_json() == before
    with pytest.raises(ValueError, match="no legal action"):
        s.string_to_action("fly to the moon")


def test_malformed_states_are_refused():
    g = GAMES[2]
    s = started(["Red Line", "Bandits"])
    good = json.loads(s.to_json())
    assert g.state_from_json(s.to_json()).to_json() == s.to_json()
    cases = [
        ("not json", "not JSON"),
        (json.dumps({**good, "players": 3}), "players"),
        (json.dumps({**good, "state": {**good["state"], "army": [2, 99]}}), "field 'army'"),
        (json.dumps({**good, "state": {**good["state"], "law": good["state"]["market"][0]}}), "exactly one place"),
        (json.dumps({**good, "state": {**good["state"], "phase": "dance"}}), "not a decision"),
        (json.dumps({**good, "state": {k: v for k, v in good["state"].items() if k != "vp"}}), "exactly the keys"),
        (json.dumps({**good, "state": {**good["state"], "owner": [5] * 78}}), "field 'owner'"),
        (json.dumps({**good, "state": {**good["state"], "agenda": [["explode", 0]]}}), "field 'agenda'"),
        (json.dumps({**good, "state": {**good["state"], "agenda": [["army", 7]]}}), "names no player"),
        (json.dumps({**good, "state": {**good["state"], "agenda": [["combat_resolve"]]}}), "field 'combat'"),
    ]
    for text, msg in cases:
        with pytest.raises(ValueError, match=msg):
            g.state_from_json(text)


def test_user_card_file(tmp_path):
    from metro_ai.engine.metro2033.cards import DEFAULT_PATH, CardSetError
    doc = json.loads(DEFAULT_PATH.read_text())
    for c in doc["cards"]:
        if c["type"] == "threat":
            c["strength"] = 0                   # every threat beaten by any army
    path = tmp_path / "weak.json"
    path.write_text(json.dumps(doc))
    g = RefMetro2033Game(players=2, cards=path)
    assert all(c["strength"] == 0 for c in g.cards if c["type"] == "threat")
    s = g.new_state(0)
    while not s.is_terminal() and s.round < 3:
        s.apply(s.legal_actions()[0])
    doc["cards"][0]["home"] = ["aeroport"]
    path.write_text(json.dumps(doc))
    with pytest.raises(CardSetError, match="field 'home'"):
        RefMetro2033Game(players=2, cards=path)


# --------------------------------------------------------------------------------------------
# properties over random play
# --------------------------------------------------------------------------------------------
def random_game(n, seed, stop=None, limit=None):
    g = GAMES[n] if limit is None else RefMetro2033Game(players=n, round_limit=limit)
    s = g.new_state(seed)
    rng = random.Random(seed)
    steps = 0
    while not s.is_terminal() and (stop is None or steps < stop):
        s.apply(rng.choice(s.legal_actions()))
        steps += 1
    return s, steps


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 6), seed=st.integers(0, 2 ** 32))
def test_random_play_terminates_and_same_seed_same_game(n, seed):
    s, steps = random_game(n, seed, limit=12)
    assert s.is_terminal() and s.round <= 12 and s.legal_actions() == []
    assert s.current_player == -1 and abs(sum(s.returns()) - n / 2) < 1e-9
    again, steps2 = random_game(n, seed, limit=12)
    assert again.to_json() == s.to_json() and steps2 == steps


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 6), seed=st.integers(0, 2 ** 32), stop=st.integers(0, 900))
def test_listed_actions_apply_and_json_round_trips(n, seed, stop):
    s, _ = random_game(n, seed, stop=stop)
    text = s.to_json()
    back = GAMES[n].state_from_json(text)
    assert back.to_json() == text and back.legal_actions() == s.legal_actions()
    for a in s.legal_actions():
        c = s.clone()
        c.apply(a)                          # every listed action is legal
        assert c.current_player in range(-1, n)
    illegal = next(a for a in range(GAMES[n].num_distinct_actions()) if a not in set(s.legal_actions()))
    with pytest.raises(ValueError):
        s.apply(illegal)
    assert s.to_json() == text


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 6), seed=st.integers(0, 2 ** 32), stop=st.integers(0, 1200), dseed=st.integers(0, 2 ** 32))
def test_observation_hides_and_determinize_keeps_what_the_player_sees(n, seed, stop, dseed):
    s, _ = random_game(n, seed, stop=stop)
    if s.is_terminal():
        return
    for p in range(n):
        obs = s.observation(p)
        json.dumps(obs)
        # hidden: the others' quests, scouted threats and combat cards are counts only
        for q in range(n):
            if q != p:
                assert obs["quest_counts"][q] == len(s.quests[q])
        assert obs["quests"] == s.quests[p] and obs["scouted"] == s.scouted[p]
        d = s.determinize(p, dseed)
        assert d.observation(p) == obs                       # keeps all that p sees
        assert d.legal_actions() or d.is_terminal()
        # depends only on the observation and the seed: from d (same observation) the same world
        assert d.determinize(p, dseed).to_json() == d.to_json()
        # a determinised world plays on
        rng = random.Random(dseed)
        for _ in range(30):
            if d.is_terminal():
                break
            d.apply(rng.choice(d.legal_actions()))


def test_determinize_redeals_what_is_hidden():
    """Across seeds, determinize(p) changes the others' quests or the deck orders that p does not
    know, and never p's own."""
    s, _ = random_game(4, 11, stop=800)          # (at 900 this game has drawn every equipment)
    changed = set()
    for seed in range(20):
        d = s.determinize(0, seed)
        assert d.quests[0] == s.quests[0] and d.scouted[0] == s.scouted[0]
        for key in d.decks:
            if d.decks[key] != s.decks[key]:
                changed.add(key)
    assert {"equipment", "law"} <= changed or {"equipment", "quest"} <= changed


def card_aware(s, rng):
    """A random policy that plays towards VP: completes quests, captures, attacks rather than
    forages, buys and takes quests on Hansa stations, moves towards action; else uniform."""
    g = s.game
    acts = s.legal_actions()
    complete = [a for a in acts if g.COMPLETE <= a < g.USE]
    if complete:
        return complete[0]
    if s.phase == "capture":
        return g.fixed(ref.YES)
    if s.phase in ("hire", "upkeep"):
        return acts[-1]
    if s.phase == "army":
        attacks = [a for a in acts if a < ref.STATION_HERO]
        if attacks and rng.random() < 0.8:
            return rng.choice(attacks)
    if s.phase == "hero_act":
        good = [a for a in acts if a in (g.fixed(ref.ATTACK), g.fixed(ref.QUEST), g.fixed(ref.BUY))]
        if good:
            return rng.choice(good)
    return rng.choice(acts)


@pytest.mark.slow          # a statistical comparison over many whole games
def test_play_towards_vp_wins_more_often_and_lengths_are_reported(capsys):
    """G2, G30: over the same seeds (4-6 players) the card-aware policy ends more games by a G2
    win than uniform play, which mostly reaches the round limit; every game ends by the limit.
    The figures are printed for the report (benches/metro2033_lengths.py runs more games)."""
    wins = {}
    for name, policy in (("uniform", lambda s, rng: rng.choice(s.legal_actions())), ("card-aware", card_aware)):
        wins[name], lengths = 0, []
        for seed in range(12):
            n = 4 + seed % 3
            s = GAMES[n].new_state(seed)
            rng = random.Random(seed)
            steps = 0
            while not s.is_terminal():
                s.apply(policy(s, rng))
                steps += 1
            assert s.round <= GAMES[n].round_limit
            wins[name] += s.winner is not None
            lengths.append((s.round, steps))
        with capsys.disabled():
            print(f"\n  metro2033 {name}, 4-6 players, 12 games: G2 wins {wins[name]}, rounds "
                  f"{sum(r for r, _ in lengths) / 12:.1f}, decisions {sum(k for _, k in lengths) / 12:.0f}")
    assert wins["card-aware"] > wins["uniform"]


# --------------------------------------------------------------------------------------------
# more rules, each on a built position
# --------------------------------------------------------------------------------------------
def at_hero_act(factions, station, player=0, res=(5, 5, 5), heroes=None):
    """Player `player`'s hero action of round 1, the hero moved to `station` (a name)."""
    s = started(factions, heroes)
    s = to_phase(s, "hero_move", player, quiet)
    s.res[player] = list(res)
    s.apply(ref.STATION + s.hero_at[player])
    s.hero_at[player] = BOARD.station(station)
    assert s.phase == "hero_act" and s.current_player == player
    return s


def test_g12_g17_buy_refresh_and_the_equipment_limit():
    s = at_hero_act(["Red Line", "Bandits"], "kurskaya_H")
    play(s, "buy")
    assert s.phase == "buy" and s.game.fixed(ref.REFRESH) in s.legal_actions()
    old = list(s.market)
    play(s, "refresh")                                 # G12: 1 bullet, the whole market renewed
    assert s.res[0][2] == 4 and not set(old) & set(s.market) and set(old) <= set(s.discards["equipment"])
    assert s.game.fixed(ref.REFRESH) not in s.legal_actions()          # once, before buying
    bought = []
    for _ in range(3):
        c = s.market[0]
        s.apply(ref.CARD + c)
        bought.append(c)
    # G17: a third card in stage 1 must be discarded down to 2 at once
    assert s.phase == "discard_equipment" and sorted(s.legal_actions()) == [ref.CARD + c for c in sorted(bought)]
    s.apply(ref.CARD + bought[0])
    assert s.equipment[0] == sorted(bought[1:]) and s.res[0] == [5, 2, 1] and s.phase == "buy"
    assert None not in s.market                        # G27: slots refilled at once
    play(s, "done")
    assert s.phase != "buy"


def test_g12_g16_g29_quests_taken_secretly_completed_by_decision():
    s = at_hero_act(["Red Line", "Bandits"], "kurskaya_H")
    play(s, "quest")
    assert s.phase == "quest_keep" and len(s.legal_actions()) == 2 and s.res[0] == [5, 4, 4]
    assert s.observation(1)["pending"]["cards"] == 2                  # the other sees a count
    keep, other = [a - ref.CARD for a in s.legal_actions()]
    s.apply(ref.CARD + keep)
    assert s.quests[0] == [keep] and s.discards["quest"] == [other]
    assert s.observation(1)["quest_counts"][0] == 1 and s.observation(1)["quests"] == []
    # G16, G29: completing is a decision at the army phase once the condition holds
    g = s.game
    cond = s._card(keep)["condition"]
    s = to_phase(s, "army", 0, quiet)
    s.res[0] = [9, 9, 9]
    s.army[0] = 8
    for st_ in range(BOARD.n):
        if BOARD.produces(st_) and s.owner[st_] is None and BOARD.zone[st_] not in s.closed_zones():
            s.owner[st_] = 0
    s.equipment[0] = [c for c in g.of_type["equipment"] if c not in s.market][:2]
    for c in s.equipment[0]:
        s.decks["equipment"].remove(c)
    assert g.COMPLETE + keep in s._legal(), cond
    vp = s.vp[0]
    s.apply(g.COMPLETE + keep)
    assert s.done_quests[0] == [keep] and s.quests[0] == [] and s.vp[0] == vp + 1
    assert s.observation(1)["done_quests"][0] == [keep]
    # a completed quest's property costs 1 bullet, once a round (G16)
    assert g.USE + keep in s.legal_actions()
    s.apply(g.USE + keep)
    assert s.res[0][2] == 8 and g.USE + keep not in s.legal_actions()


def test_g16_two_quests_of_one_condition_complete_once():
    g = GAMES[2]
    pair = [c for c in g.of_type["quest"] if g.cards[c]["condition"] == {"condition": "army", "count": 7}]
    assert len(pair) == 2
    s = started(["Red Line", "Bandits"])
    s = to_phase(s, "army", 0, quiet)
    for c in pair:
        s.decks["quest"].remove(c)
        s.quests[0].append(c)
    s.army[0] = 7
    assert {g.COMPLETE + c for c in pair} <= set(s.legal_actions())
    s.apply(g.COMPLETE + pair[0])
    assert g.COMPLETE + pair[1] not in s.legal_actions() and g.USE + pair[1] in s.legal_actions()


def test_g12_exchange_one_kind_for_another():
    s = at_hero_act(["Red Line", "Bandits"], "kurskaya_H", res=(0, 4, 1))
    play(s, "exchange")
    assert s.legal_actions() == [ref.RESOURCE + 1, ref.RESOURCE + 2]   # only kinds held
    play(s, "resource mushrooms", "resource pigs")
    assert s.legal_actions() == [ref.COUNT + k for k in range(1, 5)]
    play(s, "count 3")
    assert s.res[0] == [3, 1, 1]


def test_g12_g34_scout_then_put_back_before_a_neutral_attack():
    s = at_hero_act(["Red Line", "Bandits"], "lubyanka")               # neutral: no one holds it
    top = s.decks["threat1"][0]
    play(s, "scout")
    assert s.scouted[0] == [top] and s.observation(1)["scouted"] == [] and s.observation(1)["scouting"][0] == 1
    # the same round: no put-back offered; the next round, before a neutral attack: offered
    s = to_phase(s, "army", 0, quiet)
    assert s.round == 2
    target = next(a for a in s.legal_actions() if a < ref.STATION_HERO and s.owner[a] is None
                  and BOARD.kind[a] != "polis")
    s.apply(target)
    assert s.phase == "scout_return"
    play(s, "yes")
    assert s.last_fight["threat"] == top and s.scouted[0] == []


def test_g34_unused_scouted_threat_goes_under_the_deck_known_to_its_scout():
    s = at_hero_act(["Red Line", "Bandits"], "lubyanka")
    play(s, "scout")
    c = s.scouted[0][0]
    s = to_phase(s, "hero_act", 1, quiet)       # round 1 ends: kept (scouted this round)
    play(s, "pass")
    assert s.scouted[0] == [c]
    while s.round < 3:                          # round 2 ends unused: under the deck
        s.apply(quiet(s))
    assert s.scouted[0] == [] and s.decks["threat1"][-1] == c
    assert [len(s.decks["threat1"]) - 1, c] in s.observation(0)["deck_known"]["threat1"]
    assert s.observation(1)["deck_known"]["threat1"] == []


def test_g4_artyom_fights_either_of_the_top_two():
    s = at_hero_act(["Red Line", "Bandits"], "lubyanka", heroes=["Artyom", "Khan"])
    two = s.decks["threat1"][:2]
    play(s, "attack")
    assert s.phase == "artyom" and sorted(a - ref.CARD for a in s.legal_actions()) == sorted(two)
    assert s.observation(1)["pending"]["cards"] == 2
    s.apply(ref.CARD + two[1])
    assert s.last_fight["threat"] == two[1] and s.decks["threat1"][-1] == two[0]


def test_g14_neutral_polis_defends_at_seven_without_a_threat():
    for army, wins in ((7, False), (8, True)):
        s = started(["Fourth Reich", "Red Line"])     # Reich armies +1 attacking (reconstructed)
        s = to_phase(s, "army", 0, quiet)
        s.army[0] = army - 1
        deck = list(s.decks["threat1"])
        s.apply(ref.STATION + BOARD.station("borovitskaya"))
        assert s.decks["threat1"] == deck                                # no threat drawn
        assert s.last_fight["result"] == (1 if wins else 0)
        assert (s.phase == "capture") == wins


def test_g9_g3_law_votes_count_stations_and_the_confederations_three():
    s = started(["Confederation of 1905", "Fourth Reich"])
    s = to_phase(s, "law_look", None, quiet)            # round 3 is the first law space (G8)
    assert s.round == 3 and s.current_player == 0
    play(s, "yes")                                      # G31: the Confederation looks
    assert s.phase == "law_peek" and s.current_player == 0 and len(s.legal_actions()) == 2
    assert s.observation(1)["pending"]["cards"] == 2
    put, other = [a - ref.CARD for a in s.legal_actions()]
    s.apply(ref.CARD + put)
    assert s.decks["law"][-1] == other and s.vote["law"] == put
    assert s.phase == "vote" and s.pending["votes"] == len(s.stations(s.current_player)) + (3 if s.current_player == 0 else 0)
    voters = {}
    while s.phase == "vote":
        voters[s.current_player] = s.pending["votes"]
        play(s, "no" if s.current_player == 0 else "yes")
    assert voters == {0: 6, 1: 3} or voters == {1: 3, 0: 6}
    assert s.law is None and s.decks["law"][-1] == put        # 3 for, 6 against: under the deck
    assert s.last_vote == {"law": put, "for": 3, "against": 6}


def give(s, p, name):
    """Hand equipment card `name` to player p's hero, from wherever it is (a market slot is
    refilled from the deck), keeping every card in one place."""
    c = card_id(name)
    if c in s.market:
        s.market[s.market.index(c)] = s.decks["equipment"].pop(0)
    else:
        (s.decks["equipment"] if c in s.decks["equipment"] else s.discards["equipment"]).remove(c)
    s.equipment[p].append(c)


def test_g20_hero_against_hero_winner_takes_equipment_loser_wounded():
    s = at_hero_act(["Red Line", "Bandits"], "lubyanka", heroes=["Ulman", "Khan"])
    s.hero_at[1] = BOARD.station("lubyanka")
    # Ulman 3 + Heavy armour 2 + Body armour 1 = 6 against Khan 2 (+ a Lantern, speed only):
    # the combat cards (+0..+3) cannot turn it
    for p, names in ((0, ["Heavy armour", "Body armour"]), (1, ["Lantern"])):
        for name in names:
            give(s, p, name)
    lantern = card_id("Lantern")
    assert ref.PLAYER + 1 in s.legal_actions()
    s.apply(ref.PLAYER + 1)
    while s.phase == "combat_pick":
        s.apply(s.legal_actions()[0])
    assert s.last_fight["result"] == 1
    assert s.wounded[1] and s.phase == "take_equipment" and s.current_player == 0
    assert s.hero_at[1] == BOARD.station(s._card(s.faction[1])["home"][0])     # G25
    s.apply(ref.CARD + lantern)
    # G17: a third card in stage 1: the winner discards down to 2 at once
    assert s.phase == "discard_equipment" and s.equipment[1] == []
    s.apply(ref.CARD + lantern)
    assert lantern in s.discards["equipment"] and len(s.equipment[0]) == 2
    # G25: the wounded hero misses its next hero phase (here, the one later this round)
    moved = set()
    while s.round < 3:
        if s.phase == "hero_move":
            moved.add((s.round, s.current_player))
        s.apply(quiet(s))
    assert (1, 1) not in moved and (2, 1) in moved and not s.wounded[1]
    json.loads(s.to_json()) and s.game.state_from_json(s.to_json())     # still a valid state


def test_g3_tie_winners():
    s = started(["Bauman Alliance", "Bandits"])
    assert s._wins_ties(0, "hero", "attack") and not s._wins_ties(0, "army", "attack")
    assert s._wins_ties(1, "army", "defence") and not s._wins_ties(1, "hero", "defence")
    assert s._outcome(5, 5, True, True) == 0 and s._outcome(5, 5, True, False) == 1
    assert s._outcome(5, 5, False, True) == -1 and s._outcome(6, 5, False, True) == 1


def test_g9_threat_event_reward_and_loss():
    """G9: every player fights the revealed threat at the declared station: a win brings its
    reward, a loss loses the station (and G15's floor follows at once)."""
    for army, wins in ((5, True), (0, False)):
        s = started(["Red Line", "Bandits"])
        s = to_phase(s, "declare", None, quiet)
        deck = s.decks["threat1"]
        weak = next(c for c in deck if s._card(c)["strength"] == 2)
        deck.remove(weak)
        deck.insert(0, weak)                          # a strength-2 threat on top
        s.army = [army, army]
        first = s.current_player
        before, vp = [list(r) for r in s.res], list(s.vp)
        declared = {}
        while s.phase == "declare":
            p = s.current_player
            declared[p] = s.stations(p)[0]
            s.apply(ref.STATION + declared[p])
        assert s.last_threat == weak if wins else s.threat_now == weak
        reward = [0, 0, 0]
        for e in s._card(weak)["reward"]:
            reward[ref.RESOURCES.index(e["resource"])] += e["amount"]
        if wins:
            assert s.vp == vp and s.phase == "hire" and s.current_player == first
            assert s.res == [[b + r for b, r in zip(before[p], reward)] for p in range(2)]
        else:
            assert s.owner[declared[first]] is None and s.vp[first] == vp[first] - 1
            assert s.phase == "free_station" and s.current_player == first


def test_g32_g38_observed_actions_say_exactly_what_a_move_shows():
    """G32, G38: the others see a threat declaration as one at station 0, but the last one as it
    is when a threat card is then drawn at once (the declarations open: G9); the attacker's
    combat-card pick as the first combat card, the defender's as it is (both reveal at once,
    G21); the quest kept as the card that goes face up to the discard pile (G27), the first quest
    card when only one was drawn. The mover sees its own action; every other move is seen as it
    is. (tests/contract/test_contract.py checks that moves seen alike look alike afterwards.)"""
    g = GAMES[3]
    first_combat, first_quest = ref.CARD + min(g.of_type["combat"]), ref.CARD + min(g.of_type["quest"])
    kinds = set()
    for seed in range(4):
        s, _ = random_game(3, seed, stop=0)
        rng = random.Random(seed)
        while not s.is_terminal():
            mover, phase = s.current_player, s.phase
            for a in s.legal_actions():
                if phase == "declare":
                    key = s._threat_key()
                    shown = s.agenda[0][0] == "threat_reveal" and bool(s.decks[key] or s.discards[key])
                    want = a if shown else ref.STATION
                elif phase == "combat_pick":
                    shown = s.pending["side"] == "def"
                    want = a if shown else first_combat
                elif phase == "quest_keep":
                    nxt = s.clone()
                    nxt.apply(a)
                    face_up = nxt.discards["quest"][len(s.discards["quest"]):]
                    shown = bool(face_up)
                    want = ref.CARD + face_up[0] if face_up else first_quest
                else:
                    shown, want = True, a
                kinds.add((phase, shown))
                for p in range(3):
                    assert s.observed_action(a, p) == (a if p == mover else want), (phase, a, p)
            s.apply(rng.choice(s.legal_actions()))
    assert {("declare", False), ("declare", True), ("combat_pick", False), ("combat_pick", True),
            ("quest_keep", True)} <= kinds
    s = GAMES[2].new_state(0)
    with pytest.raises(ValueError):
        s.observed_action(10 ** 6, 0)


def test_g20_g25_defender_chooses_the_hero_who_loses_station_and_is_wounded(tmp_path):
    from metro_ai.engine.metro2033.cards import DEFAULT_PATH
    doc = json.loads(DEFAULT_PATH.read_text())
    bauman = next(c for c in doc["cards"] if c["name"] == "Bauman Alliance")
    bauman["home"] = ["kurskaya_purple", "electrozavodskaya", "baumanskaya"]   # the target first
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(doc))
    s = started(["Red Line", "Bauman Alliance"], heroes=["Ulman", "Miller"],
                game=RefMetro2033Game(players=2, cards=path))
    s = to_phase(s, "army", 0, quiet)
    target = BOARD.station("kurskaya_purple")
    s.hero_at[1] = target
    s.army[0] = 8                      # 8 + a card against Miller 4 + a card (at most +3): a win
    s.apply(ref.STATION + target)
    assert s.phase == "defender" and s.current_player == 1      # G20: his hero stands there
    play(s, "hero")
    while s.phase == "combat_pick":
        s.apply(s.legal_actions()[0])
    assert s.last_fight["def_who"] == "hero" and s.last_fight["result"] == 1
    assert s.owner[target] is None and s.wounded[1]
    # G25: to the first home station still held (the lost one was first)
    assert s.hero_at[1] == BOARD.station("electrozavodskaya")


def invariants(s):
    """What holds after every action: VP = stations held + quests completed (G2, G14, G15, G16);
    the three-station floor (G15) outside its own decision; armies 1..8 once set up (G10, G20);
    resources 0..35; equipment within the limit outside a discard (G17); heroes in play (G6);
    every card in one place (the loader's check)."""
    g = s.game
    closed = s.closed_zones()
    for p in range(s.n):
        if s.faction[p] is None or s.hero_at[p] is None:
            continue
        assert s.vp[p] == len(s.stations(p)) + len(s.done_quests[p])
        if s.phase != "free_station" and not any(t[0] == "free_station" for t in s.agenda):
            assert len(s.stations(p)) >= 3 or not s._free_options(p)
        assert 0 <= s.army[p] <= 8 and all(0 <= r <= 35 for r in s.res[p])
        assert s.round == 0 or s.army[p] >= 1
        if s.phase != "discard_equipment" and not any(t[0] == "discard_equipment" for t in s.agenda):
            assert len(s.equipment[p]) <= s.equipment_limit()
        assert BOARD.zone[s.hero_at[p]] not in closed
    s._check()
    assert len(set(s.market) - {None}) == len([c for c in s.market if c is not None])
    assert all(g.cards[c]["type"] == "equipment" for c in s.market if c is not None)


@pytest.mark.slow          # 20 whole games of the reference; the fast engine's invariants are the contract suite's
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 6), seed=st.integers(0, 2 ** 32), aware=st.booleans())
def test_invariants_hold_after_every_action(n, seed, aware):
    s = GAMES[n].new_state(seed)
    rng = random.Random(seed)
    while not s.is_terminal():
        s.apply(card_aware(s, rng) if aware else rng.choice(s.legal_actions()))
        invariants(s)

"""Quest payments are the player's choice (B5, R2).

A payment is a minimal set of the player's unrotated resources of the quest's class(es) (sum of
counted quantities >= amount, sum - min < amount; the chosen hero's type counts double), paid one
card at a time in increasing id order; a pick with only one possibility is made by the engine.
Here, on hand-made positions drawn by hypothesis: every minimal payment, and nothing else, is
reachable, each by exactly one sequence of picks, on both engines; an illegal pick is refused
and changes nothing; the loader accepts the payment decision only as the rules can reach it.
"""
import itertools
import json

import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from metro_ai import IllegalActionError, StateFormatError
from metro_ai.engine.breakthrough import BreakthroughGame
from breakthrough_positions import ref_to_dict, setup

GAME = BreakthroughGame(players=2)
C = GAME.num_cards
F = 9 * C
PAY = F + 9                       # PAY c = 9*C + 9 + c
FILLER = ["Homemade Cartridges"] * 5

CARDS = [GAME.card(c).kind for c in range(C)]
COPIES = {}
for _card in CARDS:          # card kinds by id
    COPIES[_card.name] = COPIES.get(_card.name, 0) + 1
RESOURCES = sorted({c.name for c in CARDS if c.type == "resource"} - {"Homemade Cartridges"})
STATIONS = sorted({c.name for c in CARDS if c.type == "station"})
HEROES = sorted({c.name for c in CARDS if c.type == "hero"})


def minimal_payments(state, player, quest_card, hero):
    """Every minimal payment (as a frozenset of card ids), by plain enumeration (R2)."""
    q = CARDS[quest_card].quest
    dbl = CARDS[hero].doubles if hero is not None else None
    eligible = {}
    for c, rotated, _ in state.tableau(player):
        card = CARDS[c]
        if card.type == "resource" and not rotated and q.cls in ("trade", card.resource_class):
            eligible[c] = card.quantity * (2 if card.resource_type == dbl else 1)
    out = set()
    for r in range(1, len(eligible) + 1):
        for combo in itertools.combinations(sorted(eligible), r):
            vals = [eligible[c] for c in combo]
            if q.amount <= sum(vals) < q.amount + min(vals):
                out.add(frozenset(combo))
    return out


def _played(s, p):
    """Card ids in p's tableau, on either engine."""
    return {c for c, _, _ in s.tableau(p)} if callable(s.tableau) else set(s.tableau[p])


def payments_reached(state, player):
    """Explore every sequence of picks from a state in phase quest_pay (either engine):
    {payment: how many sequences reach it}."""
    before = _played(state, player)
    out = {}
    stack = [state]
    while stack:
        s = stack.pop()
        if s.phase != "quest_pay":
            paid = frozenset(c for c in before - _played(s, player) if CARDS[c].type == "resource")
            out[paid] = out.get(paid, 0) + 1
            continue
        assert len(s.legal_actions()) >= 2          # a single possibility is never asked
        for a in s.legal_actions():
            assert a >= PAY and s.action_to_string(a).startswith("pay with ")
            t = s.clone()
            t.apply(a)
            stack.append(t)
    return out


@st.composite
def positions(draw):
    """A tableau (a station, up to eight resources, perhaps a hero) and which hero choice to take."""
    station = draw(st.sampled_from(STATIONS))
    names = draw(st.lists(st.sampled_from(RESOURCES), min_size=1, max_size=8))
    names = [n for i, n in enumerate(names) if names[:i + 1].count(n) <= COPIES[n]]
    hero = draw(st.one_of(st.none(), st.sampled_from(HEROES)))
    return [station] + names + ([hero] if hero else []), draw(st.integers(0, 3))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_every_minimal_payment_and_only_those_is_reachable_once(pos):
    tableau, hero_pick = pos
    fast = setup(GAME, [FILLER, []], tableaux=[tableau, []])
    slow = GAME.reference_game().setup([FILLER, []], tableaux=[tableau, []])
    fresh = fast.clone()
    quest = next(c for c, _, _ in fast.tableau(0) if CARDS[c].type == "station")
    a = 5 * C + quest
    if a not in fast.legal_actions():
        event("quest not reachable")
        assert not minimal_payments(fast, 0, quest, None)
        assert all(not minimal_payments(fast, 0, quest, h) for h, _, _ in fast.tableau(0)
                   if CARDS[h].type == "hero")
        return
    for s in (fast, slow):
        s.apply(a)
    hero = None
    if fast.phase == "quest_hero":
        a = fast.legal_actions()[hero_pick % len(fast.legal_actions())]
        hero = a - 6 * C if a < F else None
        for s in (fast, slow):
            s.apply(a)
    want = minimal_payments(fresh, 0, quest, hero)
    assert want
    event(f"{len(want)} minimal payments" if len(want) < 4 else "4+ minimal payments")
    if fast.phase != "quest_pay":                   # a single payment: the quest is one action
        assert len(want) == 1
        assert fast.to_dict()["tableaux"] == ref_to_dict(slow)["tableaux"]
        return
    assert fast.legal_actions() == slow.legal_actions()
    assert fast.pending() == {"kind": "quest_pay", "card": quest, "hero": hero, "paid": []}
    reached = payments_reached(fast, 0)
    assert set(reached) == want and set(reached.values()) == {1}
    assert payments_reached(slow, 0) == reached


def _komsomolskaya():
    """The B4/B5 rulebook position: Komsomolskaya's quest (4 peaceful) with Mushrooms 2, Pork 3,
    Rat Meat 1 and Tea 2 in play: four minimal payments."""
    s = setup(GAME, [["Pork", "Chistye Prudy", "Rat Meat", "Knife", "Tea"], FILLER],
              tableaux=[["Komsomolskaya", "Mushrooms", "Pork", "Rat Meat", "Tea"], []])
    s.apply(s.string_to_action("complete quest: Komsomolskaya"))
    return s


def test_the_player_chooses_which_resources_to_keep():
    s = _komsomolskaya()
    assert s.phase == "quest_pay" and s.current_player == 0
    names = {frozenset(CARDS[c].name for c in p) for p in payments_reached(s, 0)}
    assert names == {frozenset(x) for x in (("Rat Meat", "Pork"), ("Mushrooms", "Pork"),
                                            ("Mushrooms", "Tea"), ("Pork", "Tea"))}
    mushrooms = next(c for c, _, _ in s.tableau(0) if CARDS[c].name == "Mushrooms")
    s.apply(s.string_to_action("pay with Mushrooms"))
    assert s.pending()["paid"] == [mushrooms] and s.discard()[-1] == mushrooms
    assert [s.action_to_string(a) for a in s.legal_actions()] == [
        "pay with Pork (counts 3)", "pay with Tea (counts 2)"]
    assert "paying for Komsomolskaya: 2 of 4, paid Mushrooms" in s.render()
    s.apply(s.string_to_action("pay with Tea"))
    assert s.phase == "keep_station"
    assert sorted(CARDS[c].name for c, _, _ in s.tableau(0)) == ["Komsomolskaya", "Pork", "Rat Meat"]


def test_an_illegal_pick_is_refused_and_changes_nothing():
    s = _komsomolskaya()
    before = s.to_json()
    tea = next(c for c, _, _ in s.tableau(0) if CARDS[c].name == "Tea")
    station = next(c for c, _, _ in s.tableau(0) if CARDS[c].name == "Komsomolskaya")
    for a, why in ((PAY + tea, "minimal sets"), (PAY + station, "minimal sets"),
                   (F + 4, "not available in this phase"), (5 * C + station, "not available")):
        with pytest.raises(IllegalActionError, match=why):
            s.apply(a)
        assert s.to_json() == before
    with pytest.raises(IllegalActionError, match="out of range|not a Breakthrough action"):
        s.apply(PAY + C)


def test_the_payment_decision_round_trips_and_bad_ones_are_refused():
    s = _komsomolskaya()
    assert GAME.state_from_json(s.to_json()) == s
    s.apply(s.string_to_action("pay with Mushrooms"))
    assert GAME.state_from_json(s.to_json()) == s
    obj = json.loads(s.to_json())
    ids = {CARDS[c].name: c for c, _, _ in s.tableau(0)}

    def refused(change, match):
        o = json.loads(json.dumps(obj))
        change(o)
        with pytest.raises(StateFormatError, match=match):
            GAME.state_from_json(o)

    def paid(v):
        return lambda o: o["pending"].__setitem__("paid", v)

    refused(paid([ids["Tea"]]), "still in play")
    refused(paid("x"), "pending.paid must be a list, got str")
    refused(paid([C + 5]), rf"pending.paid\[0\] must be an int in 0\.\.{C - 1}, got {C + 5}")
    refused(paid([ids["Komsomolskaya"]]), "not a resource of the quest's class")
    refused(lambda o: o["pending"].__setitem__("hero", ids["Pork"]), "hero must be null or a hero")
    refused(lambda o: o["pending"].__setitem__("card", ids["Pork"]), "not an open quest")
    refused(lambda o: o["pending"].pop("paid"), r"pending \(quest_pay\) must have exactly the fields .*'paid'")

    # Pork paid as well (moved from the tableau to the top of the discard pile): 5 >= 4, the
    # quest would be complete.
    def pork_paid(o):
        o["tableaux"][0] = [e for e in o["tableaux"][0] if e["card"] != ids["Pork"]]
        o["discard"].append(ids["Pork"])
        o["pending"]["paid"] = sorted(o["pending"]["paid"] + [ids["Pork"]])
    refused(pork_paid, "already covers the amount|top of the discard pile")

    # Rat Meat paid first instead of Mushrooms: only Pork can follow, and the engine would have
    # made that pick itself, so no state waits for the player there.
    def rat_meat_first(o):
        mush = o["pending"]["paid"][0]
        rat = ids["Rat Meat"]
        o["tableaux"][0] = sorted([e for e in o["tableaux"][0] if e["card"] != rat]
                                  + [{"card": mush, "rotated": False, "tokens": 0}],
                                  key=lambda e: e["card"])
        o["discard"] = [rat if c == mush else c for c in o["discard"]]
        o["pending"]["paid"] = [rat]
    refused(rat_meat_first, "two or more ways")

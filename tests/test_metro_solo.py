"""The Metro solo game (City Edition module 4, C4; decisions C20-C25): differential test against
the pure-Python reference (reference_solo.py) and scenario, loader and hidden-information tests.

Differential: 400 random games (both variants of M9), comparing after every action the legal
actions, player to move, score, profits, face-up tiles, revealed company and shares, deck, supply,
end and returns. Random play rejects a tile a third of the time it may.
"""
import json
import random

import pytest

import metro_ai
from metro_ai.engine.errors import StateFormatError
from metro_ai.engine.metro import reference_solo as ref

REJECT = ref.REJECT


def _same(fast, slow, ctx):
    assert fast.current_player == slow.current_player, ctx
    assert fast.is_terminal() == slow.is_terminal(), ctx
    assert fast.scores() == slow.scores(), ctx
    assert fast.profits() == slow.profits(), ctx
    assert fast.face_up() == slow.face, ctx
    assert fast.company() == slow.company, ctx
    assert fast.revealed() == slow.revealed and fast.deck() == slow.deck, ctx
    assert fast.supply() == slow.supply, ctx
    assert fast.first_deck == slow.first and fast.rejected == slow.rejected, ctx


def play_pair(game, rgame, seed):
    fast, slow = game.new_state(seed), rgame.new_state(seed)
    pick = random.Random(seed)
    step, rejects = 0, 0
    while True:
        ctx = (seed, step)
        _same(fast, slow, ctx)
        actions = fast.legal_actions()
        assert actions == slow.legal_actions(), ctx
        if not actions:
            break
        rej = [a for a in actions if a >= REJECT]
        a = pick.choice(rej if rej and pick.random() < 1 / 3 else actions)
        rejects += a >= REJECT
        fast.apply(a)
        slow.apply(a)
        step += 1
    assert fast.board() == [None if c is None else tuple(c) for c in slow.board]
    assert fast.returns() == pytest.approx(slow.returns())
    return rejects


@pytest.mark.parametrize("orientation", (True, False))
def test_solo_cython_matches_reference(orientation):
    game = metro_ai.load_game("metro-solo", orientation=orientation)
    rgame = game.reference_game()
    rejects = sum(play_pair(game, rgame, 51000 + 1000 * orientation + g) for g in range(200))
    assert rejects > 100


@pytest.fixture(scope="module")
def solo():
    return metro_ai.load_game("metro-solo")


def test_reject_only_until_the_first_run_out(solo):
    """C22: rejects are offered on the turns of the first deck's 8 shares, once a turn; after the
    reshuffle never again. A rejected tile goes back into the supply (the tile counts hold)."""
    s = solo.new_state(3)
    turns = 0
    while s.first_deck:
        rej = [a for a in s.legal_actions() if a >= REJECT]
        assert rej == sorted(REJECT + k for k in set(s.face_up()))
        supply = s.supply_size
        s.apply(rej[0])
        assert s.supply_size == supply and s.rejected
        assert not any(a >= REJECT for a in s.legal_actions())          # once a turn
        with pytest.raises(metro_ai.IllegalActionError, match="once a turn"):
            s.apply(REJECT + s.face_up()[0])
        s.apply(s.legal_actions()[0])
        turns += 1
    assert turns <= 8 and len(s.revealed()) == 1 and len(s.deck()) == 7   # the revealed shares reshuffled
    while not s.is_terminal():
        assert not any(a >= REJECT for a in s.legal_actions())
        s.apply(s.legal_actions()[0])


def test_placements_extend_the_revealed_company(solo):
    """C4, C21: every placement offered is a face-up tile on a square where an open line of the
    revealed share's company waits."""
    s = solo.new_state(8)
    r = random.Random(8)
    while not s.is_terminal():
        k = s.company()
        acts = [a for a in s.legal_actions() if a < REJECT]
        assert acts and all(a >> 8 in s.face_up() for a in acts)
        st = s.to_dict()
        stations = st["stations"][k]
        closed = {l["station"] for l in s.lines()}
        assert any(n not in closed for n in stations)          # the company has an open line
        s.apply(r.choice(s.legal_actions()))
    assert s.scores() == [sum(s.profits())]
    assert 0 < s.returns()[0] < 1 and s.returns()[0] == s.scores()[0] / 480      # C24


def test_draw_and_other_actions_are_refused(solo):
    s = solo.new_state(1)
    with pytest.raises(metro_ai.IllegalActionError):
        s.apply(6144)
    with pytest.raises(ValueError, match="no draw|solo"):
        solo.string_to_action("draw")
    assert solo.string_to_action(solo.action_to_string(REJECT + 4)) == REJECT + 4
    wrong = next(a for a in range(6144) if s.is_legal(a) is False and (a >> 8) in s.face_up())
    with pytest.raises(metro_ai.IllegalActionError):
        s.apply(wrong)


def test_determinize_hides_supply_and_deck(solo):
    """C25: the supply and the deck are shuffled, what the player sees is kept."""
    s = solo.new_state(4)
    for _ in range(5):
        s.apply(s.legal_actions()[0])
    worlds = {(tuple(d.supply()), tuple(d.deck())) for d in (s.determinize(0, i) for i in range(20))}
    assert len(worlds) > 10
    d = s.determinize(0, 3)
    assert d.observation(0) == s.observation(0)
    assert sorted(d.deck()) == sorted(s.deck()) and sorted(d.supply()) == sorted(s.supply())


def test_loader_refuses_bad_solo_states(solo):
    s = solo.new_state(6)
    s.apply(s.legal_actions()[0])
    text = s.to_json()
    assert solo.state_from_json(text).to_json() == text
    for change, match in ((lambda o: o["deck"].append(o["deck"][0]), "8 companies"),
                          (lambda o: o.__setitem__("company", (o["company"] + 1) % 8), "last revealed"),
                          (lambda o: o.__setitem__("rejected", 1), "true or false"),
                          (lambda o: o["face_up"].append("T01"), "at most 2|tiles of")):
        obj = json.loads(text)
        change(obj)
        with pytest.raises(StateFormatError, match=match):
            solo.state_from_json(json.dumps(obj))
    assert s.to_json() == text


def test_bots_play_the_solo_game(solo):
    """Search maximises the score: ISMCTS beats random play on average over a few seeded games."""
    from metro_ai import Limit, make_bot
    totals = {}
    for spec in ("random", "ismcts"):
        total = 0
        for seed in range(3):
            s = solo.new_state(seed)
            bot = make_bot(spec, seed=seed)
            while not s.is_terminal():
                s.apply(bot.choose(s, Limit(iterations=40)) if spec != "random" else bot.choose(s))
            total += s.scores()[0]
        totals[spec] = total
    assert totals["ismcts"] > totals["random"]

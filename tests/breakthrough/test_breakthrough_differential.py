"""Differential test: the Cython Breakthrough engine against the pure-Python reference engine.

Same seed and same actions must give the same states, legal actions, scores and returns, bit for
bit, over 1,000 games in both tiers (the default tier: the first 30 card-aware games of 2
players and the uniform ones; tests/tiers.py): 2-5 players, every combination of the three
survival switches (B9).

Policies (uniformly random play cleans up its own progress and essentially never wins, R18):

* 480 games with the reference tests' card-aware random policy (``_policy`` in
  ``test_breakthrough_reference.py``: completes quests when it can, keeps stations, rarely
  cleans up), default turn limit: these games end with a winner (B8);
* 520 games of uniformly random play with ``turn_limit=40``: clean-ups, station losses and free
  plays are chosen far more often, and the games end at the turn limit (R18).

After every action: legal actions, current player, phase, scores, terminal. Every 8th action and
at the end: the full state (hands, known cards, draw generations, deck order, discard pile,
market, tableaux, tokens, agenda, pending decision, RNG state) and one player's observation. Every
40th action: ``determinize(player, seed)`` of both engines for the same seed must agree exactly
(the reference specifies the procedure, R21).
"""
import random

import pytest

from metro_ai.engine.breakthrough import BreakthroughGame
from metro_ai.engine.breakthrough import reference as ref
from breakthrough_positions import ref_to_dict
from differential import lockstep
from tiers import tiered
from test_breakthrough_reference import _policy  # the card-aware random policy

SWITCHES = [(a, b, c) for a in (False, True) for b in (False, True) for c in (False, True)]
GREEDY_GAMES = 120      # per player count: 480 in all
UNIFORM_GAMES = 130     # per player count: 520 in all
UNIFORM_TURN_LIMIT = 40


def fast_to_dict(f):
    d = f.to_dict()
    for key in ("format", "version", "game", "options"):
        del d[key]
    return d


def _same_full(fast, slow, ctx):
    a, b = fast_to_dict(fast), ref_to_dict(slow)
    if a != b:
        diff = {k: (a[k], b[k]) for k in a if a[k] != b.get(k)}
        pytest.fail(f"{ctx}: full states differ: {diff}")


def _play_pair(players, seed, switches, greedy, turn_limit=1000):
    fp, fd, qs = switches
    opts = dict(full_protection_required=fp, failed_defence_tokens_down=fd,
                quest_tokens_stay_down=qs, turn_limit=turn_limit)
    game = BreakthroughGame(players=players, **opts)
    rgame = ref.RefBreakthroughGame(players=players, **opts)
    pays = 0

    def same(fast, slow, ctx):
        nonlocal pays
        step = ctx[1]
        assert fast.phase == slow.phase, ctx
        assert fast.scores() == slow.scores(), ctx
        if step % 8 == 0:
            p = step // 8 % players
            assert fast.observation(p) == slow.observation(p), ctx
        if step % 40 == 20 and not fast.is_terminal():
            p = step // 40 % players
            dseed = seed * 1000 + step
            _same_full(fast.determinize(p, dseed), slow.determinize(p, dseed), ("determinize",) + ctx)
        pays += fast.phase == "quest_pay"

    fast, slow, step = lockstep(game, seed, rgame=rgame, same=same, hidden=_same_full,
                                pick=lambda rng, actions, slow: _policy(slow, rng, greedy, actions))
    assert fast.returns() == slow.returns()
    assert fast.winner == slow.winner
    return fast, step, pays


#: The card-aware games of each player count in chunks (first, last): the default tier plays the
#: first chunk of 2 players, the slow tier the rest.
CHUNKS = [(0, 30), (30, GREEDY_GAMES)]


@pytest.mark.parametrize("players, games", tiered([(p, c) for p in [2, 3, 4, 5] for c in CHUNKS],
                                                  fast=lambda p, c: p == 2 and c == CHUNKS[0]),
                         ids=[f"{p}-{a}-{b}" for p in [2, 3, 4, 5] for a, b in CHUNKS])
def test_card_aware_games_match_reference(players, games):
    winners = pays = 0
    for g in range(*games):
        seed = 10_000 * players + g
        fast, _, n = _play_pair(players, seed, SWITCHES[g % 8], greedy=True)
        winners += fast.winner is not None
        pays += n
    played = games[1] - games[0]
    assert winners == played                # B8: these games end with a winner
    assert pays >= played // 4              # R2: payments the player chose are compared too


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_uniform_games_match_reference(players):
    for g in range(UNIFORM_GAMES):
        seed = 20_000 * players + g
        fast, steps, _ = _play_pair(players, seed, SWITCHES[g % 8], greedy=False,
                                    turn_limit=UNIFORM_TURN_LIMIT)
        assert fast.is_terminal() and steps > 0


def test_chosen_factions_and_deep_reshuffles_match_reference():
    """Chosen factions (R22) and long uniform games with many reshuffles (B3, R21)."""
    for players, seed in ((2, 5), (5, 6)):
        names = ["Spartan Order", "Polis", "Hansa", "Red Line", "Fourth Reich"][:players]
        game = BreakthroughGame(players=players, factions=names, turn_limit=300)
        rgame = ref.RefBreakthroughGame(players=players, factions=names, turn_limit=300)

        def full(fast, slow, ctx):
            _same_full(fast, slow, ctx)
            if isinstance(ctx[1], int) and ctx[1] > 0:
                _same_full(fast.determinize(1, ctx[1]), slow.determinize(1, ctx[1]), ("determinize",) + ctx)
        _, slow, _ = lockstep(game, seed, rgame=rgame, hidden=full, hidden_every=97)
        assert slow.deck_generation >= 3


def test_determinize_mid_discard_three_matches_reference():
    """R5: mid discard-three, everyone knows the active player keeps >= left cards above the
    last pick; both engines redeal by the same rejection loop and every world stays playable."""
    hits = 0
    for players in (2, 3, 4, 5):
        game = BreakthroughGame(players=players, turn_limit=30)
        rgame = ref.RefBreakthroughGame(players=players, turn_limit=30)
        for seed in range(6):
            fast, slow = game.new_state(seed), rgame.new_state(seed)
            pick = random.Random(seed)
            while not slow.is_terminal():
                if slow.phase == "discard3":
                    for p in range(players):
                        if p == slow.active:
                            continue
                        dseed = hits * 31 + p
                        df, ds = fast.determinize(p, dseed), slow.determinize(p, dseed)
                        _same_full(df, ds, ("discard3", players, seed, p))
                        assert df.legal_actions() and df.legal_actions() == ds.legal_actions()
                    hits += 1
                a = pick.choice(slow.legal_actions())
                fast.apply(a)
                slow.apply(a)
    assert hits > 50


def test_another_card_set_matches_reference(tmp_path):
    """A different valid card file (kinds in another order, so faction ids sit among the others,
    and changed numbers) is read the same way by both engines (ids in file order, R1)."""
    import json
    from metro_ai.engine.breakthrough.cards import DEFAULT_PATH

    doc = json.loads(DEFAULT_PATH.read_text())
    kinds = doc["cards"]
    random.Random(3).shuffle(kinds)
    for k in kinds:
        if k["name"] == "Pork":
            k["cost"] = 1
        if k["name"] == "Hunter":
            k["doubles"] = "food"
        if k["type"] == "station" and k["quest"]["amount"] == 3:
            k["quest"]["amount"] = 2
    path = tmp_path / "shuffled.json"
    path.write_text(json.dumps(doc))
    for players in (2, 4):
        game = BreakthroughGame(players=players, card_set=str(path))
        rgame = ref.RefBreakthroughGame(players=players, cards=str(path))
        assert game.card_names == tuple(c["name"] for c in rgame.cards)
        for seed in range(8):
            fast, slow = game.new_state(seed), rgame.new_state(seed)
            pick = random.Random(seed)
            step = 0
            while not slow.is_terminal():
                la = slow.legal_actions()
                assert fast.legal_actions() == la, (players, seed, step)
                a = _policy(slow, pick, seed % 2 == 0, la)
                fast.apply(a)
                slow.apply(a)
                step += 1
                if step % 50 == 0 or slow.is_terminal():
                    _same_full(fast, slow, (players, seed, step))
            assert fast.returns() == slow.returns()

"""The Metro solo game (City Edition module 4, C4; decisions C20-C25): differential test against
the pure-Python reference (reference_solo.py) and scenario, loader and hidden-information tests.

Differential: 400 random games (both variants of M9), comparing after every action the legal
actions, player to move, score, profits, face-up tiles, revealed company and shares, deck, supply,
end and returns, and the reject log. Random play rejects a tile a third of the time it may.
"""
import itertools
import json
import random
from collections import Counter
from fractions import Fraction

import pytest

import metro_ai
from differential import favour, lockstep
from metro_ai.engine.errors import StateFormatError
from metro_ai.engine.metro import reference_solo as ref
from tiers import tiered

REJECT = ref.REJECT


def _same(fast, slow, ctx):
    assert fast.scores() == slow.scores(), ctx
    assert fast.profits() == slow.profits(), ctx
    assert fast.face_up() == slow.face, ctx
    assert fast.company() == slow.company, ctx
    assert fast.revealed() == slow.revealed and fast.deck() == slow.deck, ctx
    assert fast.supply() == slow.supply, ctx
    assert fast.first_deck == slow.first and fast.rejected == slow.rejected, ctx
    assert fast.reject_log() == slow.log, ctx


def _same_board(fast, slow, ctx):
    assert fast.board() == [None if c is None else tuple(c) for c in slow.board], ctx


def play_pair(game, rgame, seed):
    """One random game on both engines (a rejection a third of the time one is legal); the
    number of rejections played."""
    favoured, chosen = favour(lambda a: a >= REJECT, 1 / 3), []

    def pick(rng, actions, slow):
        chosen.append(favoured(rng, actions, slow))
        return chosen[-1]
    lockstep(game, seed, rgame=rgame, pick=pick, same=_same, hidden=_same_board)
    return sum(a >= REJECT for a in chosen)


@pytest.mark.parametrize("orientation", tiered((True, False), fast=lambda orientation: orientation))
def test_solo_cython_matches_reference(orientation):
    game = metro_ai.load_game("metro-solo", orientation=orientation)
    rgame = game.reference_game()
    rejects = sum(play_pair(game, rgame, 51000 + 1000 * orientation + g) for g in range(200))
    assert rejects > 100


@pytest.fixture(scope="module")
def solo():
    return metro_ai.load_game("metro-solo")


def test_reject_only_until_the_first_run_out(solo):
    """C22: rejects are offered on the turns of the first deck's first 7 shares, once a turn; from
    the 8th reveal (the deck exhausted) never again. A rejected tile goes back into the supply (the
    tile counts hold)."""
    s = solo.new_state(3)
    turns = 0
    while s.first_deck and s.deck():
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
    assert turns <= 7 and len(s.revealed()) == 8 and not s.deck()
    while s.first_deck:
        assert not any(a >= REJECT for a in s.legal_actions())
        s.apply(s.legal_actions()[0])
    assert len(s.revealed()) == 1 and len(s.deck()) == 7   # the revealed shares reshuffled
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


# ---- C22: where a rejected tile goes, and when rejecting ends (issue 24) ----

def _reject_and_locate(s, kind):
    """Reject `kind`; return the index of the rejected tile in the supply (0 = next drawn), checking
    that the old front tile was turned up and that the rest of the supply kept its order."""
    before, face = s.supply(), s.face_up()
    s.apply(REJECT + kind)
    after = s.supply()
    rest = before[1:]
    assert Counter(s.face_up()) == Counter(face) - Counter([kind]) + Counter([before[0]]), "the front tile is drawn"
    spots = [p for p in range(len(after)) if after[p] == kind and after[:p] + after[p + 1:] == rest]
    assert spots, "the supply is the old one less its front tile, with the rejected tile put in"
    return max(spots), min(spots), len(after)


def test_seed_70_reject_draws_another_tile(solo):
    """C22 ("coloca de volta no meio das peças na torre e compra uma nova"): seed 70 rejecting T02
    once drew the rejected T02 straight back; the player draws the tile that was on top."""
    s = solo.new_state(70)
    t02 = solo.kind_index("T02")
    face, front = s.face_up(), s.supply()[0]
    assert t02 in face and front != t02
    s.apply(REJECT + t02)
    assert s.face_up() == sorted([k for k in face if k != t02] + [front])
    assert t02 not in s.face_up() and t02 in s.supply()


def test_rejected_tile_goes_into_the_middle(solo):
    """C22: over many deals, the rejected tile is never drawn back and never goes to the bottom: it
    lands strictly between (index 0..n-2 of the n tiles left after the draw, with a tile below), at
    every such place in turn."""
    places = []
    for seed in range(300):
        s = solo.new_state(seed)
        hi, lo, n = _reject_and_locate(s, s.face_up()[seed % 2])
        assert hi <= n - 2, (seed, hi, n)          # some tile below it: the bottom one stays
        places.append(lo)
    assert min(places) <= 3 and max(places) >= 52 and len(set(places)) > 40


def test_reject_ends_with_the_eighth_reveal(solo):
    """C22 ("até que a pilha de compra seja esgotada pela primeira vez (ou seja, todas as cores
    tenham sido reveladas uma vez)"): the 8th reveal exhausts the first deck, so rejecting ends
    with it; on the turns before it is offered once a turn."""
    eighth = 0
    for seed in range(40):
        s = solo.new_state(seed)
        r = random.Random(seed)
        while not s.is_terminal() and s.first_deck:
            rej = [a for a in s.legal_actions() if a >= REJECT]
            if len(s.revealed()) == 8:
                assert not s.deck() and not rej, seed
                eighth += 1
            else:
                assert bool(rej) != s.rejected, seed
            s.apply(r.choice(rej) if rej and r.random() < 0.5 else r.choice([a for a in s.legal_actions() if a < REJECT]))
    assert eighth >= 35


def _late_state(solo, supply_size, seed=5):
    """A real position with `supply_size` tiles left, loaded back as if the first deck were still
    being revealed (one share shown, seven face down), no reject yet this turn."""
    s = solo.new_state(seed)
    r = random.Random(seed)
    while s.supply_size > supply_size:
        s.apply(r.choice([a for a in s.legal_actions() if a < REJECT]))
        assert not s.is_terminal()
    obj = json.loads(s.to_json())
    obj["deck"] = [k for k in range(8) if k != obj["company"]]
    obj.update(revealed=[obj["company"]], first_deck=True, rejected=False)
    return obj


def test_reject_needs_a_supply_with_a_middle(solo):
    """C22 edge cases: a supply of 0 or 1 tiles has no middle, so no reject is offered (the player
    could not draw another tile, or would draw the one left with the rejected one under it, at the
    bottom); with 2 tiles the rejected one goes between them and the top one is drawn."""
    for size in (0, 1):
        s = solo.state_from_json(json.dumps(_late_state(solo, size)))
        assert s.supply_size == size and s.deck() and not any(a >= REJECT for a in s.legal_actions())
        with pytest.raises(metro_ai.IllegalActionError, match="at least 2 tiles"):
            s.apply(REJECT + s.face_up()[0])
    s = solo.state_from_json(json.dumps(_late_state(solo, 2)))
    assert s.supply_size == 2 and any(a >= REJECT for a in s.legal_actions())
    top, bottom = s.supply()
    k = s.face_up()[0]
    s.apply(REJECT + k)
    assert s.supply() == [k, bottom] and top in s.face_up()

# ---- C25: what the player knows after a reject ----

def _posterior(start, history):
    """The exact distribution of the supply's order (kinds, front first) given what the player saw:
    every order of `start` equally likely a priori (tiles told apart, then forgotten), each reject
    at every gap with a tile above and one below equally likely. `history` is a list of
    ("reject", kind, drawn) and ("draw", drawn)."""
    tally = Counter()
    n = len(start)
    for order in itertools.permutations(range(n)):
        branches = [([start[i] for i in order], Fraction(1))]
        for step in history:
            nxt = []
            for sup, p in branches:
                if step[0] == "draw":
                    if sup[0] == step[1]:
                        nxt.append((sup[1:], p))
                    continue
                _, kind, drawn = step
                for j in range(1, len(sup)):
                    new = sup[:j] + [kind] + sup[j:]
                    if new[0] == drawn:
                        nxt.append((new[1:], p / (len(sup) - 1)))
            branches = nxt
        for sup, p in branches:
            tally[tuple(sup)] += p
    total = sum(tally.values())
    return {k: v / total for k, v in tally.items()}


def _two_rejects(solo):
    """A position with 5 tiles left, then reject, place, reject (two turns of the first deck)."""
    for seed in range(5, 60):
        s = solo.state_from_json(json.dumps(_late_state(solo, 5, seed)))
        start, history = s.supply(), []
        r = random.Random(seed)
        for step in ("reject", "place", "reject"):
            acts = [a for a in s.legal_actions() if (a >= REJECT) == (step == "reject")]
            if not acts or s.is_terminal():
                break
            a = r.choice(acts)
            face = Counter(s.face_up())
            s.apply(a)
            drawn = list((Counter(s.face_up()) - (face - Counter([a - REJECT if a >= REJECT else a >> 8]))).elements())
            assert len(drawn) == 1
            history.append(("reject", a - REJECT, drawn[0]) if step == "reject" else ("draw", drawn[0]))
        else:
            return s, start, history
    raise AssertionError("no position for two rejects")


def test_determinize_knows_the_bottom_tile_is_no_rejected_one(solo):
    """C25: a rejected tile never goes to the bottom, so after a reject the player knows the bottom
    tile is none of the rejected ones: determinize draws the supply from the exact posterior (a
    brute-force count over every deal and every gap), not uniformly. Supply of 2 {A, B}, reject an
    A, draw the top: if it was the B, the supply is [A, A]; if an A, it is [A(rejected), B] for sure."""
    s, start, history = _two_rejects(solo)
    post = _posterior(start, history)
    bottom = Counter()
    for sup, p in post.items():
        bottom[sup[-1]] += p
    w = s.bottom_weights()
    assert {k: Fraction(v, sum(w)) for k, v in enumerate(w) if v} == {k: p for k, p in bottom.items() if p}
    seen = Counter(tuple(s.determinize(0, i).supply()) for i in range(3000))
    assert set(seen) <= set(post)
    for sup, p in post.items():          # each order within 5 standard deviations of its chance
        sd = (3000 * p * (1 - p)) ** 0.5
        assert abs(seen[sup] - 3000 * p) <= 5 * sd + 1, (sup, seen[sup], float(3000 * p))
    d = s.determinize(0, 1)
    assert d.observation(0) == s.observation(0)
    # the smallest case, exact: 2 tiles
    s = solo.state_from_json(json.dumps(_late_state(solo, 2)))
    top, bottom = s.supply()
    k = next(k for k in s.face_up() if k != bottom)
    s.apply(REJECT + k)
    assert {tuple(s.determinize(0, i).supply()) for i in range(50)} == {(k, bottom)}

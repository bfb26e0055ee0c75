"""Hand-made Breakthrough positions for scenario tests: ``setup(game, hands, ...)`` builds, on the
Cython engine, exactly the position the reference engine's ``RefBreakthroughGame.setup`` builds
from the same arguments (card names; the rest of the deck shuffled from `seed` with the
reference's splitmix64), through ``state_from_json`` so every invariant is checked."""
from metro_ai import StateFormatError
from metro_ai.engine.breakthrough.reference import SplitMix64

MARKET = 3          # face-up market slots (B1)
START = 5           # tokens above the faction card at the start (B1)
TOKENS = 10         # tokens of each colour
WIN = 10            # tokens that win (B8)


def setup(game, hands, *, tableaux=None, factions=None, faction_done=None, above=None, below=None,
          market=None, deck_top=None, discard=None, active=0, seed=0, turn=1):
    """The position: `hands` (card names per player), `tableaux` (names or dicts with rotated and
    tokens), factions, tokens above/below, market, the top of the deck, the discard pile, the
    active player and turn; ValueError if it is not a legal position."""
    n = game.players
    used = set()

    def take(name):
        for cid in game.name_to_ids.get(name, ()):
            if cid not in used:
                used.add(cid)
                return cid
        raise ValueError(f"no unused card named {name!r}")

    fids = game.faction_ids()[:n] if factions is None else [game.faction_id(f) for f in factions]
    used.update(fids)
    hand_ids = [sorted(take(x) for x in h) for h in hands]
    if len(hand_ids) != n:
        raise ValueError("one hand per player")
    tabs = []
    for p in range(n):
        tb = []
        for e in (tableaux[p] if tableaux else []):
            if isinstance(e, str):
                e = {"card": e}
            tb.append({"card": take(e["card"]), "rotated": bool(e.get("rotated", False)),
                       "tokens": int(e.get("tokens", 0))})
        tabs.append(sorted(tb, key=lambda x: x["card"]))
    disc = [take(x) for x in (discard or [])]
    mk = [take(x) for x in (market or [])]
    top = [take(x) for x in (deck_top or [])]
    rest = [c for c in range(game.num_cards)
            if c not in used and game.card_set.cards[c].type != "faction"]
    rng = SplitMix64(seed)
    rng.shuffle(rest)
    deck = top + rest
    while len(mk) < MARKET and deck:
        mk.append(deck.pop(0))
    while len(mk) < MARKET:
        mk.append(None)
    ab = [START] * n if above is None else list(above)
    be = [0] * n if below is None else list(below)
    sup = []
    for p in range(n):
        on = sum(e["tokens"] for e in tabs[p])
        sup.append(TOKENS - ab[p] - be[p] - on)
        if sup[p] < 0:
            raise ValueError(f"player {p} has more than {TOKENS} tokens")
    sc = [TOKENS - s for s in sup]
    won = next((p for p in range(n) if sc[p] >= WIN), None)
    obj = {"game": "breakthrough", "options": game.options, "turn": turn, "active": active,
           "current_player": -1 if won is not None else active,
           "phase": "over" if won is not None else "main", "main_done": False, "pending": None,
           "agenda": [], "winner": won, "factions": fids,
           "faction_done": [bool(faction_done[p]) if faction_done else False for p in range(n)],
           "above": ab, "below": be, "supply": sup, "hands": hand_ids,
           "known": [[] for _ in range(n)], "hand_gen": [{str(c): 0 for c in h} for h in hand_ids],
           "tableaux": tabs, "market": mk, "deck": deck, "deck_generation": 0, "discard": disc,
           "rng_state": str(rng.state)}
    try:
        return game.state_from_json(obj)
    except StateFormatError as exc:
        raise ValueError(f"setup: {exc}") from None


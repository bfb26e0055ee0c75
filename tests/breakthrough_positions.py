"""Hand-made Breakthrough positions for scenario tests, and the reference engine's states in the
Cython engine's format.

``setup(game, hands, ...)`` is the reference engine's ``RefBreakthroughGame.setup`` (card names;
the rest of the deck shuffled from `seed`), loaded into the Cython engine through
``state_from_json``, so the two engines start from the same position and every invariant is
checked on the way in."""
from metro_ai import StateFormatError
from metro_ai.engine.breakthrough import reference as ref
from metro_ai.engine.core import STATE_FORMAT, STATE_VERSION


def ref_to_dict(s):
    """The reference state in the Cython engine's ``to_dict`` format (hidden parts included)."""
    agenda = []
    for task in s.agenda:
        if task[0] == "draw":
            agenda.append({"task": "draw", "player": task[1], "left": task[2]})
        elif task[0] == "monster":
            agenda.append({"task": "monster", "card": task[1], "order": list(task[2]),
                           "stage": task[3]})
        elif task[0] == "refill":
            agenda.append({"task": "refill", "order": list(task[1])})
        else:
            agenda.append({"task": "next_turn"})
    return {
        "turn": s.turn, "active": s.active, "current_player": s.current_player,
        "phase": s.phase, "main_done": s.main_done, "pending": ref._public_pending(s.pending),
        "agenda": agenda, "winner": s.winner, "factions": list(s.factions),
        "faction_done": list(s.faction_done), "above": list(s.above), "below": list(s.below),
        "supply": list(s.supply), "tokens": s.scores(), "hands": [list(h) for h in s.hands],
        "known": [sorted(k) for k in s.known],
        "hand_gen": [{str(c): g for c, g in sorted(hg.items())} for hg in s.hand_gen],
        "tableaux": [[{"card": c, "rotated": v[0], "tokens": v[1]} for c, v in sorted(t.items())]
                     for t in s.tableau],
        "market": list(s.market), "deck": list(s.deck), "deck_generation": s.deck_generation,
        "discard": list(s.discard), "rng_state": str(s.rng_state),
    }


def setup(game, hands, **kw):
    """The position `hands` (card names per player) and `kw` (tableaux, factions, faction_done,
    above, below, market, deck_top, discard, active, seed, turn: as the reference's ``setup``)
    on the Cython engine; ValueError if it is not a legal position."""
    slow = game.reference_game().setup(hands, **kw)
    obj = {"format": STATE_FORMAT, "version": STATE_VERSION, "game": game.name, "options": game.options,
           **ref_to_dict(slow)}
    try:
        return game.state_from_json(obj)
    except StateFormatError as exc:
        raise ValueError(f"setup: {exc}") from None

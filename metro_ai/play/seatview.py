"""What a person at a seat may be shown: drawn from that seat's observation only (docs/security.md,
"What a seat is shown"). The front ends (the web page through the protocol, the terminal of
``metro-ai play``) take the scores and the other seats' moves from here, so that neither shows
anything ``state.observation(seat)`` does not carry:

* **Scores** (:func:`visible_scores`): during play, those the seat's observation carries; a game
  leaves them out where they would reveal hidden parts (Metro with companies: the majority bonus
  depends on shares, M18). At the end, the final scores, which every game's end makes public.
  :func:`scores_public` says whether every seat sees them during play (the protocol's summaries
  show them only then, or at the end).
* **A move** (:func:`seen_move`): another seat's move as this seat observed it. Where a game
  hides part of a move (``observed_action``: a share put back, M18; a threat, a combat card, a
  quest card kept, G32), the seat's text is made from the moves it cannot tell apart in the
  worlds it cannot tell apart (``determinize``), the part that differs written ``?``
  (``exchange 20% (company ?) take face-up``). It depends on what the seat saw and fixed seeds,
  not on the hidden part of the move made; a move none of those worlds could make (a card from a
  hand the seat cannot see) is shown whole when the seat observed it whole, as a public move.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Optional

#: How many of the seat's possible worlds a move is read in (seeds 0 .. WORLDS - 1), and up to
#: how many where the decision hides moves from the seat but those worlds did not show this one
#: to be hidden (a move seen as a card few worlds hold: Metro 2033's quest kept, seen as the card
#: put face up, G38).
WORLDS = 8
MORE_WORLDS = 64

def visible_scores(state: Any, seat: int) -> Optional[list]:
    """The scores `seat` may see: at the end every score; during play those its observation
    carries (``observation(seat)["scores"]``), None where it carries none."""
    if state.is_terminal():
        return state.scores()
    scores = state.observation(seat).get("scores")
    return None if scores is None else list(scores)


def scores_public(state: Any) -> bool:
    """Whether every seat may see the scores during play: every seat's observation carries them."""
    return all("scores" in state.observation(p) for p in range(state.num_players))


@dataclass(frozen=True)
class SeenMove:
    """A move as one seat saw it."""
    action: Optional[int]       # its id, where the seat can tell which move it was; else None
    text: str                   # the engine's text, what the seat cannot tell written "?"
    label: str                  # the same in words for a person (`describe`'s)


def _text(state: Any, action: int) -> str:
    return state.action_to_string(action)


def seen_move(before: Any, action: int, seat: Optional[int],
              describe: Callable[[Any, int], str] = _text) -> SeenMove:
    """`action`, played in `before` by the player to move there, as `seat` saw it (None: the
    whole table, as it was played). The mover sees their own move; another seat sees the moves
    it cannot tell from this one (the same ``observed_action``) in its worlds (``before``
    determinised for it, seeds 0 .. WORLDS - 1, and on up to MORE_WORLDS where the decision hides
    moves from it), and where they differ, ``?`` in their place (the whole move, where its worlds
    show it hidden but not what it could be).
    ``describe(state, action)`` gives a move's words for the label (the front ends pass
    ``metro_ai.play.terminal.describe``; default: the text)."""
    if seat is None or seat == before.current_player:
        return SeenMove(action, before.action_to_string(action), describe(before, action))
    seen = before.observed_action(action, seat)
    alike: dict[int, Any] = {}
    texts: set = set()
    hides = False                       # the decision hides part of some move from the seat (in a world)
    hidden = False                      # ... and this move is one of those: another is seen alike, or it
    for k in range(MORE_WORLDS):        #     is seen otherwise where it is legal
        if k >= WORLDS and (hidden or not hides):
            break
        world = before.determinize(seat, k)
        for b in world.legal_actions():
            o = world.observed_action(b, seat)
            hides = hides or o != b
            if o == seen:
                hidden = hidden or b != seen
                if b not in alike:
                    alike[b] = world
                    texts.add(world.action_to_string(b))
            elif b == seen:
                hidden = True
    if not alike:                       # a move none of the seat's worlds could make (a card from a hand)
        if seen == action:              # that it observed whole: a public move
            return SeenMove(action, before.action_to_string(action), describe(before, action))
        return SeenMove(None, "?", "a move hidden from you")
    if not hidden:                      # seen as itself: a public move
        return SeenMove(seen, alike[seen].action_to_string(seen), describe(alike[seen], seen))
    if len(texts) < 2:                  # hidden, and the worlds read cannot say what it could be
        return SeenMove(None, "?", "a move hidden from you")
    return SeenMove(None, masked(sorted(texts)), masked([describe(world, b) for b, world in alike.items()]))


def masked(texts: list) -> str:
    """`texts` as one: their common start and end (cut back to whole words), ``?`` for the part
    that differs; the text itself where they agree."""
    unique = sorted(set(texts))
    if len(unique) == 1:
        return unique[0]
    head = os.path.commonprefix(unique)
    room = min(len(t) for t in unique) - len(head)
    tail = os.path.commonprefix([t[::-1] for t in unique])[:max(room, 0)][::-1]
    while head and head[-1].isalnum():
        head = head[:-1]
    while tail and tail[0].isalnum():
        tail = tail[1:]
    return f"{head}?{tail}"

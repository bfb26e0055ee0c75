# Why one file of about 1,300 lines: it is the independent specification the fast engine is tested
# against, read top to bottom in rule order; splitting it would scatter one reading.
"""Reference engine for *Metro 2033: Breakthrough*: the complete rules, in plain Python.

This module is the rules authority that the fast Cython engine is differentially tested against,
and the slow side of ``metro-ai bench``'s engine comparison. It is written for clarity, not speed,
and depends only on the standard library and the references' generator (``engine/splitmix.py``):
it parses the card-set JSON itself (it does not import ``cards.py``) so that the two stay
independent. Rules decisions cite their ids from
``docs/rules/breakthrough.md`` (B1–B9, and R1–R24 for the decisions the rulebook leaves open,
also listed under "Decisions beyond B1–B9" below).

Why one file of about 1,350 lines: it is a specification to be read top to bottom (decisions,
encoding, then the rules in the order a turn plays them), independent of the engine it checks;
splitting it would scatter the rules over files without making any of them reusable.

Usage::

    game = RefBreakthroughGame(players=3)
    state = game.new_state(seed=42)
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    state.returns()

Cards
=====
Card kinds are read from the card file in order and expanded into physical cards: card id ``c``
(0..C-1, C = 133 for the shipped set) is the ``c``-th physical card in file order.  Faction cards
have ids too (they are never in the deck).  A player's *tableau* holds the cards played in front of
them, each with a ``rotated`` flag (resource or threat played as protection) and a ``tokens``
count (stations only).  The faction card lies apart, face up until its quest is completed.

Action encoding
===============
With C the number of cards in the set (133 for the shipped set), an action is an int:

==============================  ===========================  ===================================
range                           name                         meaning
==============================  ===========================  ===================================
``0*C + c``                     PLAY                         play card ``c`` from hand face up:
                                                             a resource as resource, a station,
                                                             a hero (main action, or the free play
                                                             after repelling a monster)
``1*C + c``                     PLAY_ROTATED                 play ``c`` rotated as protection
                                                             (resource or threat that has
                                                             protection icons)
``2*C + c``                     DISCARD                      main action: discard ``c`` and move
                                                             up (threat: as a monster; caravan)
``3*C + c``                     DISCARD3                     discard ``c`` as part of the
                                                             discard-three main action (three
                                                             such actions, ids strictly
                                                             increasing, see R5)
``4*C + c``                     CLEANUP                      free action: discard played card
                                                             ``c`` from your tableau
``5*C + c``                     QUEST                        free action: complete the quest of
                                                             your station ``c`` or faction card c
``6*C + h``                     QUEST_HERO                   use hero ``h`` to double for the
                                                             pending quest
``7*C + c``                     PROTECT                      give up protection card ``c``
                                                             against the attacking monster
``8*C + c``                     LOSE_STATION                 lose station ``c`` to the monster
``9*C + s`` (s = 0, 1, 2)       TAKE_MARKET                  take the face-up card in market
                                                             slot ``s`` (printed as slot s+1)
``9*C + 3``                     TAKE_DECK                    take the top card of the deck
``9*C + 4``                     END_TURN                     end the turn (hands refill, B1)
``9*C + 5``                     QUEST_NO_HERO                complete the pending quest without
                                                             a hero
``9*C + 6``                     KEEP_STATION                 keep the completed station, placing
                                                             k tokens on it (B5)
``9*C + 7``                     DISCARD_STATION              discard the completed station
``9*C + 8``                     PASS                         decline the free play after
                                                             repelling a monster
``9*C + 9 + c``                 PAY                          pay for the pending quest with
                                                             resource ``c`` (R2)
==============================  ===========================  ===================================

``num_distinct_actions() == 10*C + 9`` (1339 for the shipped set).  ``legal_actions()`` returns
sorted ints.  Identical copies of a card have different ids, so e.g. two Porks in hand give two
(equivalent) PLAY actions; both are listed.

Decision points (``state.phase``) and who decides (``state.current_player``):

* ``main``: the active player.  Before the main action: PLAY / PLAY_ROTATED (cost <= tokens
  above), DISCARD (any hand card), DISCARD3 (first pick), CLEANUP, QUEST.  After it: CLEANUP,
  QUEST, END_TURN.  END_TURN is also legal before a main action when the hand is empty (R6).
* ``quest_hero``: after QUEST when a hero in the tableau could double (R3): QUEST_HERO h for
  each such hero, QUEST_NO_HERO if the quest can be completed without one.
* ``quest_pay``: after QUEST (and the hero question) when two or more resources could pay next
  (R2): PAY c for each.
* ``keep_station``: after a station quest: KEEP_STATION (if enough tokens above),
  DISCARD_STATION.
* ``discard3``: second and third pick of the discard-three action.
* ``draw``: TAKE_MARKET s / TAKE_DECK, decided by the player who draws, who may be a non-active
  player during the refill of hands (B1) or after a monster (B7).
* ``protect``: a player attacked by a monster who has matching protection: PROTECT c.
* ``free_play``: a player who repelled: PLAY / PLAY_ROTATED any playable hand card at cost 0, or
  PASS.
* ``lose_station``: a player who suffers the loss "one station": LOSE_STATION c.
* ``over``: terminal, ``current_player == -1``.

A decision is presented whenever the rules call for a choice, even if only one option is legal
(e.g. the only protection card); the only decisions skipped are draws when no card can be drawn at
all, the hero question when no hero could double (R3), and a payment pick with only one
possibility (R2: a quest pick is a step of one decision, the payment, not a decision of its own).

Determinism (bit-exact)
=======================
RNG: splitmix64 over a 64-bit state ``s``::

    next():     s = (s + 0x9E3779B97F4A7C15) mod 2**64; z = s
                z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) mod 2**64
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) mod 2**64
                return z ^ (z >> 31)
    bounded(n): limit = 2**64 - (2**64 % n); draw x = next() until x < limit; return x % n
    shuffle(L): for i from len(L)-1 down to 1: j = bounded(i+1); swap L[i], L[j]

``new_state(seed)``: ``s = seed mod 2**64``, then in this order

1. factions: if ``factions="random"``, shuffle the list of all faction card ids (ascending) and
   give player ``p`` element ``p``; unused ones go back to the box.  If factions are chosen, no
   RNG is used here.
2. deck: shuffle the list of all non-faction card ids (ascending).  The deck is that list with
   element 0 the **top** card.
3. deal: five rounds; in each round players 0, 1, ..., n-1 take the top card in turn.
4. market: the next three top cards go to slots 0, 1, 2.
5. player 0 is the first player and the state keeps ``s`` as its RNG state.

Reshuffle (B3): when a card must come from the deck and the deck is empty, the discard pile,
**sorted by card id ascending**, is shuffled with the state's RNG and becomes the deck (element 0
on top); the discard pile empties and the deck generation (``deck_generation``) increases by one.
If the discard pile is empty too, no card is drawn.  The RNG is used for nothing else.

``determinize(player, seed)``: see :meth:`RefBreakthroughState.determinize`.

Decisions beyond B1–B9
======================
R1  Card identity: actions name physical cards by id; equivalent copies are distinct actions.
R2  Quest resources (B5): the player chooses them.  A payment is a minimal set S of the player's
    unrotated resources of the quest's class(es): sum >= amount and sum - min < amount (counted
    quantities, the hero's type doubled); more is never needed, since clean-up (B1) sheds any
    card for free.  S is paid in increasing id order, one PAY action a card, each card to the
    discard pile at once; PAY c is legal if some minimal set holds the cards paid so far, c, and
    otherwise only larger ids.  A pick with only one possibility is made at once by the engine,
    so phase ``quest_pay`` is entered only when two or more picks are possible, and a quest with
    one minimal payment stays a single action.  The pending payment is public.
R3  Hero doubling (B5): after QUEST, if a hero in the tableau doubles a type of which the player
    has at least one eligible resource and the quest is reachable with it, the player chooses
    (phase ``quest_hero``) which hero to use or none; the chosen hero is discarded with the
    resources even if S happens to contain none of its type.  QUEST is legal only if the quest is
    reachable with no hero or with some hero.
R4  Tokens from the supply (B5): quest token then the extra token, each only if the supply has
    one; the win (B8) is checked right after the tokens are gained, before the keep decision.
    KEEP_STATION needs k tokens above (k = 1 + stations already carrying tokens); DISCARD_STATION
    is always legal.  A completed station keeps its tokens; its quest cannot be done again.
R5  Discard three (B2): three DISCARD3 actions with strictly increasing card ids, so that each set
    of three is reached once; each pick goes to the discard pile at once; needs >= 3 cards.
    The pending ``last`` pick is public, so everyone knows that >= ``left`` larger ids remain in
    the hand; ``determinize`` respects that (by rejection, see its docstring).
R6  A player with an empty hand (only possible when all cards are out) may END_TURN without a
    main action.
R7  Draw after a main action: PLAY and DISCARD draw one card and DISCARD3 three, right away,
    before any further free action.  A monster discard draws nothing itself: the refill from the
    discarder after the attack (B7) brings every hand to five.
R8  Market: a taken slot is refilled at once from the deck (B3 reshuffle if needed).  Any slot that
    is empty because no card could be drawn is refilled, in slot order, at the end of every action
    as soon as a card is available.  Renewing (caravan) discards slots 0, 1, 2 in order, then
    refills them.
R9  Discounts and free plays (B4) apply to resources played as resources only.  A rotated play
    costs the printed protection cost; heroes cost their printed cost.
R10 Discarding moves up the printed number: ``cost`` (resource, station, hero) or ``value``
    (threat, caravan), capped by the tokens below (B2).  Discounts do not change it.
R11 Caravan bonus (B6): for every player, stations in play (with or without tokens) whose
    reward_class equals the caravan's class, plus the face-down faction card if it matches; each
    moves up one token, capped by the tokens below.  Players are processed from the discarder
    clockwise (order does not matter).
R12 Monster (B7): the threat card is in the discard pile before the attack.  Players are attacked
    from the discarder clockwise.  A player repels if some played protection card (hero, rotated
    resource or threat) shows an icon of the monster; they give one up (PROTECT) and then may play
    one hand card for free (free_play; caravans cannot be played; threats only rotated).  Free
    plays draw no card.  Free actions (quests, clean-up) are not available during the attack.
R13 Survival switch ``full_protection_required`` (B9.1): the played protection cards together must
    cover every monster icon; the player then gives up cards one at a time, each covering at least
    one icon not yet covered by the cards given up, until all are covered; then the free play.
R14 Survival switch ``failed_defence_tokens_down`` (B9.2): after suffering the printed loss, all of
    the player's tokens above the faction card move below (tokens on stations stay).
R15 Survival switch ``quest_tokens_stay_down`` (B9.3): completing a quest does not move the tokens
    below up; the new token(s) still go above.
R16 Station loss with no station: nothing happens.  Resource losses discard unrotated resources
    only.  A lost station's tokens go above (B7).
R17 Refill (B1): at END_TURN hands refill from the active player clockwise; each player draws
    until five before the next player starts; a player who cannot draw (no card anywhere) stops.
R18 Turn limit (B8): option ``turn_limit`` (default 1000 turns, counting single players'
    turns); when turn ``turn_limit`` ends without a winner the game ends and returns() ranks by
    tokens.  Even the tests' weak quest-greedy random policy ends games in 115 (2 players) to
    270 (5 players) turns on average, at most ~360; uniformly random play (which cleans up its
    own progress) essentially never wins and always reaches the limit.
R19 Free actions (B1) are only for the active player in phase ``main``.
R20 Known cards: a card taken from a face-up market slot is known to everyone to be in that hand
    until it leaves the hand.  Other hand cards are hidden.
R21 ``determinize`` respects the deck generations: a hidden card drawn after the k-th reshuffle
    can only be one of the cards of that reshuffle's pile not seen since; the deck holds only
    cards of the current generation.
R22 Factions: ``factions="random"`` (default) deals them with the RNG (see above); a list of
    faction names (or card ids), one per player, chooses them.
R23 Hands are kept sorted by card id; the order of a hand carries no information.
R24 Discard pile order (public, so engines must match it): cards are appended as they go; a quest
    appends its spent resources in ascending id, then the hero, then (DISCARD_STATION) the
    station; a resource loss appends the lost resources in ascending id; a caravan is appended
    before the market cards it renews (slots 0, 1, 2); a monster is appended before its attack;
    discard-three appends in pick order.

Scenario positions
==================
``RefBreakthroughGame.setup(...)`` builds a hand-made position from card *names* (see its
docstring); tests use it for the rulebook's examples.  A position may also be edited through the
plain attributes (``deck``, ``discard``, ``market``, ``hands``, ``tableau``, ``above``, ``below``,
``supply``) before the next action, as long as every card stays in exactly one place and every
colour keeps 10 tokens; the state caches nothing.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from metro_ai.engine.datafile import read_json
from metro_ai.engine.splitmix import SplitMix64      # the engines' generator, shared by the references

DEFAULT_CARDS = Path(__file__).resolve().parent / "data" / "breakthrough_cards.json"

PEACEFUL_TYPES = ("welfare", "food", "items")
MILITARY_TYPES = ("weapon", "bullets", "equipment")
CLASS_OF = {t: "peaceful" for t in PEACEFUL_TYPES}
CLASS_OF.update({t: "military" for t in MILITARY_TYPES})

HAND_SIZE = 5
MARKET_SIZE = 3
TOKENS_PER_COLOUR = 10
START_TOKENS = 5
WIN_TOKENS = 10

# action blocks (multiplied by C) and fixed offsets after 9*C
PLAY, PLAY_ROTATED, DISCARD, DISCARD3, CLEANUP, QUEST, QUEST_HERO, PROTECT, LOSE_STATION = range(9)
TAKE_MARKET0, TAKE_DECK, END_TURN, QUEST_NO_HERO, KEEP_STATION, DISCARD_STATION, PASS = (
    0, 3, 4, 5, 6, 7, 8)
PAY = 9                                 # 9*C + PAY + c: pay with resource c (R2)

SURVIVAL_OPTIONS = ("full_protection_required", "failed_defence_tokens_down",
                    "quest_tokens_stay_down")


# ---------------------------------------------------------------------------------------------
# Cards (own minimal parser: independent of cards.py)
# ---------------------------------------------------------------------------------------------
def read_cards(path=None) -> list[dict]:
    """Read a card file and expand it: a list of dicts, one per physical card, with ``id``."""
    doc = read_json(path or DEFAULT_CARDS, what="card set").data   # the library's one reader
    cards = []
    for kind_index, kind in enumerate(doc["cards"]):
        for _ in range(kind["count"]):
            card = dict(kind)
            card["id"] = len(cards)
            card["kind"] = kind_index
            card["protection"] = tuple(kind.get("protection") or ())
            card["threats"] = tuple(kind.get("threats") or ())
            card["reward_types"] = tuple(kind.get("reward_types") or ())
            cards.append(card)
    return cards


class RefBreakthroughGame:
    """Game configuration: players, options and the card set.

    Options (keyword arguments):

    * ``players``: 2..5.
    * ``full_protection_required``, ``failed_defence_tokens_down``, ``quest_tokens_stay_down``:
      the three survival-mode switches (B9, R13-R15), default False.
    * ``factions``: ``"random"`` (default) or a list of faction names / card ids, one per player.
    * ``turn_limit``: int >= 1, default 1000 (B8, R18).
    * ``cards``: path of a card file (default: the shipped set).
    """

    OPTIONS = {"full_protection_required": False, "failed_defence_tokens_down": False,
               "quest_tokens_stay_down": False, "factions": "random", "turn_limit": 1000,
               "cards": None}

    def __init__(self, players: int = 2, **options):
        unknown = sorted(set(options) - set(self.OPTIONS))
        if unknown:
            raise ValueError(f"unknown option(s) {', '.join(unknown)}; known: "
                             f"{', '.join(self.OPTIONS)}")
        opts = {**self.OPTIONS, **options}
        full_protection_required = opts["full_protection_required"]
        failed_defence_tokens_down = opts["failed_defence_tokens_down"]
        quest_tokens_stay_down = opts["quest_tokens_stay_down"]
        factions = opts["factions"]
        turn_limit = opts["turn_limit"]
        cards = opts["cards"]
        self.options = opts
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 5:
            raise ValueError(f"players must be an int in 2..5, got {players!r}")
        for name, v in (("full_protection_required", full_protection_required),
                        ("failed_defence_tokens_down", failed_defence_tokens_down),
                        ("quest_tokens_stay_down", quest_tokens_stay_down)):
            if not isinstance(v, bool):
                raise ValueError(f"{name} must be a bool, got {v!r}")
        if isinstance(turn_limit, bool) or not isinstance(turn_limit, int) or turn_limit < 1:
            raise ValueError(f"turn_limit must be an int >= 1, got {turn_limit!r}")
        self.num_players = players
        self.full_protection_required = full_protection_required
        self.failed_defence_tokens_down = failed_defence_tokens_down
        self.quest_tokens_stay_down = quest_tokens_stay_down
        self.turn_limit = turn_limit
        self.cards = read_cards(cards)
        self.C = len(self.cards)
        self.faction_ids = [c["id"] for c in self.cards if c["type"] == "faction"]
        self.deck_ids = [c["id"] for c in self.cards if c["type"] != "faction"]
        self.name_to_ids: dict[str, list[int]] = {}
        for c in self.cards:
            self.name_to_ids.setdefault(c["name"], []).append(c["id"])
        if len(self.faction_ids) < players:
            raise ValueError(f"the card set has {len(self.faction_ids)} factions for {players} players")
        if factions == "random":
            self.factions = None
        else:
            if not isinstance(factions, (list, tuple)) or len(factions) != players:
                raise ValueError(f"factions must be 'random' or a list of {players} factions")
            chosen = []
            for f in factions:
                fid = self._faction_id(f)
                if fid in chosen:
                    raise ValueError(f"faction {f!r} chosen twice")
                chosen.append(fid)
            self.factions = chosen

    def _faction_id(self, f) -> int:
        if isinstance(f, int) and not isinstance(f, bool) and f in self.faction_ids:
            return f
        if isinstance(f, str):
            for fid in self.faction_ids:
                if self.cards[fid]["name"].lower() == f.lower():
                    return fid
        raise ValueError(f"unknown faction {f!r}")

    def num_distinct_actions(self) -> int:
        return 10 * self.C + 9

    # -----------------------------------------------------------------------------------------
    def new_state(self, seed: int) -> "RefBreakthroughState":
        """A new game dealt from ``seed`` exactly as described in the module docstring."""
        rng = SplitMix64(seed)
        n = self.num_players
        if self.factions is None:
            order = list(self.faction_ids)
            rng.shuffle(order)
            factions = order[:n]
        else:
            factions = list(self.factions)
        deck = list(self.deck_ids)
        rng.shuffle(deck)
        hands = [[] for _ in range(n)]
        for _ in range(HAND_SIZE):
            for p in range(n):
                hands[p].append(deck.pop(0))
        market = [deck.pop(0) for _ in range(MARKET_SIZE)]
        return RefBreakthroughState._build(self, factions, hands, deck, market, [], rng.state)

    def setup(self, hands, *, tableaux=None, factions=None, faction_done=None, above=None,
              below=None, market=None, deck_top=None, discard=None, active=0, seed=0,
              turn=None) -> "RefBreakthroughState":
        """Build a hand-made position (for scenario tests), by card names.

        * ``hands``: one list of card names per player (a name takes the lowest unused id of
          that name).  Hands may be shorter than five.
        * ``tableaux``: per player a list of entries, each a name (played face up, no tokens)
          or a dict ``{"card": name, "rotated": bool, "tokens": int}``.
        * ``factions``: faction names per player (default: the first factions in file order);
          ``faction_done``: per player bool (face down).
        * ``above`` / ``below``: tokens per player (default 5 / 0); the supply gets the rest.
        * ``market``: up to three names for slots 0..2 (default: taken from the deck top).
        * ``deck_top``: names on top of the deck in order (element 0 on top); the remaining unused
          non-faction cards follow, ascending by id, shuffled with ``seed``.
        * ``discard``: names in the discard pile (oldest first).
        * ``active``: the player whose turn starts (phase ``main``); ``turn``: the turn number,
          one with that player active (B1: player 0 plays turn 1, then clockwise); default the
          first such turn, ``active + 1``.
        """
        n = self.num_players
        used: set[int] = set()

        def take(name):
            for cid in self.name_to_ids.get(name, ()):
                if cid not in used:
                    used.add(cid)
                    return cid
            raise ValueError(f"no unused card named {name!r}")

        if factions is None:
            fids = self.faction_ids[:n]
        else:
            fids = [self._faction_id(f) for f in factions]
        used.update(fids)
        hand_ids = [sorted(take(x) for x in h) for h in hands]
        if len(hand_ids) != n:
            raise ValueError("one hand per player")
        tabs = []
        for p in range(n):
            t = {}
            for e in (tableaux[p] if tableaux else []):
                if isinstance(e, str):
                    e = {"card": e}
                cid = take(e["card"])
                t[cid] = [bool(e.get("rotated", False)), int(e.get("tokens", 0))]
            tabs.append(t)
        disc = [take(x) for x in (discard or [])]
        mk = [take(x) for x in (market or [])]
        top = [take(x) for x in (deck_top or [])]
        rest = [c for c in self.deck_ids if c not in used]
        rng = SplitMix64(seed)
        rng.shuffle(rest)
        deck = top + rest
        while len(mk) < MARKET_SIZE and deck:
            mk.append(deck.pop(0))
        while len(mk) < MARKET_SIZE:
            mk.append(None)
        st = RefBreakthroughState._build(self, fids, hand_ids, deck, mk, disc, rng.state)
        st.tableau = tabs
        if turn is None:
            turn = active + 1
        if (turn - 1) % n != active:
            raise ValueError(f"turn {turn} is player {(turn - 1) % n}'s turn, not player {active}'s (B1)")
        st.active = st.decider = active
        st.turn = turn
        for p in range(n):
            st.above[p] = START_TOKENS if above is None else above[p]
            st.below[p] = 0 if below is None else below[p]
            on = sum(v[1] for v in tabs[p].values())
            st.supply[p] = TOKENS_PER_COLOUR - st.above[p] - st.below[p] - on
            if st.supply[p] < 0:
                raise ValueError(f"player {p} has more than {TOKENS_PER_COLOUR} tokens")
            if faction_done:
                st.faction_done[p] = bool(faction_done[p])
        st._check_win()
        return st


class RefBreakthroughState:
    """A full game state (hidden parts included).  See the module docstring for the contract."""

    # -----------------------------------------------------------------------------------------
    # construction / copying
    # -----------------------------------------------------------------------------------------
    @classmethod
    def _build(cls, game, factions, hands, deck, market, discard, rng_state):
        s = cls.__new__(cls)
        n = game.num_players
        s.game = game
        s.cards = game.cards
        s.C = game.C
        s.n = n
        s.rng_state = rng_state
        s.factions = list(factions)
        s.faction_done = [False] * n
        s.hands = [sorted(h) for h in hands]
        s.known = [set() for _ in range(n)]          # R20: hand cards taken from the market
        s.hand_gen = [{c: 0 for c in h} for h in hands]  # R21: deck generation of blind draws
        s.deck = list(deck)
        s.deck_generation = 0
        s.discard = list(discard)
        s.market = list(market)
        s.tableau = [{} for _ in range(n)]           # card id -> [rotated, tokens]
        s.above = [START_TOKENS] * n
        s.below = [0] * n
        s.supply = [TOKENS_PER_COLOUR - START_TOKENS] * n
        s.active = 0
        s.decider = 0
        s.turn = 1
        s.phase = "main"
        s.main_done = False
        s.agenda = []            # pending tasks, see _advance
        s.pending = None         # phase-specific data
        s.winner = None
        s.over = False
        s.history = []
        return s

    def clone(self) -> "RefBreakthroughState":
        """An independent copy."""
        s = RefBreakthroughState.__new__(RefBreakthroughState)
        s.__dict__.update(self.__dict__)
        s.factions = list(self.factions)
        s.faction_done = list(self.faction_done)
        s.hands = [list(h) for h in self.hands]
        s.known = [set(k) for k in self.known]
        s.hand_gen = [dict(g) for g in self.hand_gen]
        s.deck = list(self.deck)
        s.discard = list(self.discard)
        s.market = list(self.market)
        s.tableau = [{c: list(v) for c, v in t.items()} for t in self.tableau]
        s.above = list(self.above)
        s.below = list(self.below)
        s.supply = list(self.supply)
        s.agenda = [_copy_task(t) for t in self.agenda]
        s.pending = _copy_task(self.pending)
        s.history = list(self.history)
        return s

    # -----------------------------------------------------------------------------------------
    # public contract
    # -----------------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return -1 if self.over else self.decider

    def is_terminal(self) -> bool:
        return self.over

    def tokens(self, p: int) -> int:
        """Tokens player p holds: above, below and on stations (B8)."""
        return TOKENS_PER_COLOUR - self.supply[p]

    def scores(self) -> list[int]:
        return [self.tokens(p) for p in range(self.n)]

    def returns(self) -> list[float]:
        """Rank-based returns (zeros before the end)."""
        if not self.over:
            return [0.0] * self.n
        sc = self.scores()
        out = []
        for p in range(self.n):
            fewer = sum(1 for q in range(self.n) if q != p and sc[q] < sc[p])
            equal = sum(1 for q in range(self.n) if q != p and sc[q] == sc[p])
            out.append((fewer + 0.5 * equal) / (self.n - 1))
        return out

    def legal_actions(self) -> list[int]:
        if self.over:
            return []
        return sorted(self._legal())

    def apply(self, action: int) -> None:
        """Apply a legal action; ValueError (state unchanged) if it is not legal."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise ValueError(f"action must be an int, got {action!r}")
        if self.over:
            raise ValueError(f"action {action} ({self.action_to_string(action)}): game is over")
        if action not in self._legal():
            raise ValueError(f"illegal action {action} ({self.action_to_string(action)}) in phase "
                             f"{self.phase!r} for player {self.decider} (turn {self.turn})")
        self.history.append(action)
        self._do(action)
        self._advance()

    # -----------------------------------------------------------------------------------------
    # helpers: cards, costs
    # -----------------------------------------------------------------------------------------
    def _card(self, c):
        return self.cards[c]

    def _cost_context(self, p):
        """What B4 costs depend on: (free resource types, station resource icons in play,
        number of stations in play per line)."""
        free = set()
        if self.faction_done[p]:
            free.update(self.cards[self.factions[p]]["reward_types"])
        icons = set()
        lines = {}
        for c, (rot, tok) in self.tableau[p].items():
            card = self.cards[c]
            if card["type"] == "station":
                icons.add(card["resource_icon"])
                lines[card["line"]] = lines.get(card["line"], 0) + 1
                if tok > 0:
                    free.update(card["reward_types"])
        return free, icons, lines

    def play_cost(self, p, c, rotated=False, ctx=None) -> int:
        """Tokens p pays to play card c (B4, R9); ``ctx`` is a cached _cost_context(p)."""
        card = self.cards[c]
        if rotated:
            return card["protection_cost"]
        t = card["type"]
        if t == "hero":
            return card["cost"]
        free, icons, lines = ctx or self._cost_context(p)
        if t == "resource":
            rtype = card["resource_type"]
            if rtype in free:
                return 0
            return max(0, card["cost"] - (1 if rtype in icons else 0))
        if t == "station":
            line = card["line"]
            same = 0 if line == "neutral" else lines.get(line, 0)
            return max(0, card["cost"] - same)
        raise ValueError(f"{card['name']} cannot be played face up")

    def _can_play(self, c, rotated) -> bool:
        card = self.cards[c]
        if rotated:
            return card["type"] in ("resource", "threat") and bool(card["protection"])
        return card["type"] in ("resource", "station", "hero")

    def _move_value(self, c) -> int:
        card = self.cards[c]
        return card["value"] if card["type"] in ("threat", "caravan") else card["cost"]

    def _card_available(self) -> bool:
        return bool(self.deck or self.discard or any(m is not None for m in self.market))

    def _quest_target(self, p, c):
        """The quest of card c for p, or None if c has no open quest for p."""
        if c == self.factions[p]:
            return None if self.faction_done[p] else self.cards[c]["quest"]
        e = self.tableau[p].get(c)
        if e is None or self.cards[c]["type"] != "station" or e[1] > 0:
            return None
        return self.cards[c]["quest"]

    def _eligible(self, p, quest) -> list[int]:
        """Unrotated resources of p that count for the quest (B5)."""
        cls = quest["class"]
        out = []
        for c, (rot, tok) in self.tableau[p].items():
            card = self.cards[c]
            if card["type"] == "resource" and not rot and (
                    cls == "trade" or card["resource_class"] == cls):
                out.append(c)
        return sorted(out)

    def _totals(self, p) -> dict:
        """Quantity of p's unrotated resources per resource type."""
        tot = {}
        for c, (rot, tok) in self.tableau[p].items():
            card = self.cards[c]
            if card["type"] == "resource" and not rot:
                t = card["resource_type"]
                tot[t] = tot.get(t, 0) + card["quantity"]
        return tot

    def _reachable(self, p, quest, hero=None, totals=None) -> bool:
        """Whether the quest can be completed (with ``hero`` doubling, if given)."""
        tot = self._totals(p) if totals is None else totals
        cls = quest["class"]
        dbl = self.cards[hero]["doubles"] if hero is not None else None
        total = 0
        for t, q in tot.items():
            if cls == "trade" or CLASS_OF[t] == cls:
                total += q * (2 if t == dbl else 1)
        return total >= quest["amount"]

    def _pay_value(self, c, hero):
        """R2: what resource c counts for in a payment, hero ``hero`` (or None) doubling."""
        card = self.cards[c]
        dbl = self.cards[hero]["doubles"] if hero is not None else None
        return card["quantity"] * (2 if card["resource_type"] == dbl else 1)

    def _pay_options(self, p) -> list[int]:
        """R2: the resources that may pay next for the pending quest.

        A payment is a minimal set S of the quest's resources (sum >= amount, and no card can be
        left out: sum - min < amount), paid in increasing id order.  Card c may come next if, for
        some set T of eligible resources above the last pick with c its smallest id, the picks so
        far plus T are such a set.  Plain enumeration: a minimal set has at most ``amount`` cards."""
        pend = self.pending
        quest = self._quest_target(p, pend["card"])
        amount = quest["amount"]
        hero = pend["hero"]
        paid = [self._pay_value(c, hero) for c in pend["paid"]]
        last = pend["paid"][-1] if pend["paid"] else -1
        pool = [c for c in self._eligible(p, quest) if c > last]
        out = set()
        for r in range(1, min(len(pool), amount - len(paid)) + 1):
            for combo in itertools.combinations(pool, r):
                if combo[0] in out:
                    continue
                vals = paid + [self._pay_value(c, hero) for c in combo]
                if amount <= sum(vals) < amount + min(vals):
                    out.add(combo[0])
        return sorted(out)

    def _quest_heroes(self, p, quest, totals=None) -> list[int]:
        """Heroes that may double for this quest (R3)."""
        tot = self._totals(p) if totals is None else totals
        cls = quest["class"]
        out = []
        for c in self.tableau[p]:
            card = self.cards[c]
            if card["type"] == "hero":
                t = card["doubles"]
                if tot.get(t, 0) > 0 and (cls == "trade" or CLASS_OF[t] == cls) and \
                        self._reachable(p, quest, c, tot):
                    out.append(c)
        return sorted(out)

    def _protections(self, p, threats, uncovered=None) -> list[int]:
        """Played protection cards of p matching a monster icon (restricted to uncovered icons)."""
        want = set(threats) if uncovered is None else uncovered
        out = []
        for c, (rot, tok) in self.tableau[p].items():
            card = self.cards[c]
            if card["type"] == "hero" or rot:
                if want & set(card["protection"]):
                    out.append(c)
        return sorted(out)

    def _repels(self, p, threats) -> bool:
        prots = self._protections(p, threats)
        if not self.game.full_protection_required:
            return bool(prots)
        covered = set()
        for c in prots:
            covered |= set(self.cards[c]["protection"])
        return set(threats) <= covered       # R13

    def _stations(self, p) -> list[int]:
        return sorted(c for c in self.tableau[p] if self.cards[c]["type"] == "station")

    # -----------------------------------------------------------------------------------------
    # legal actions
    # -----------------------------------------------------------------------------------------
    def _legal(self) -> set:
        C = self.C
        F = 9 * C
        p = self.decider
        acts = set()
        ph = self.phase
        if ph == "main":
            hand = self.hands[p]
            if not self.main_done:
                ctx = self._cost_context(p)
                for c in hand:
                    if self._can_play(c, False) and self.play_cost(p, c, False, ctx) <= self.above[p]:
                        acts.add(PLAY * C + c)
                    if self._can_play(c, True) and self.play_cost(p, c, True) <= self.above[p]:
                        acts.add(PLAY_ROTATED * C + c)
                    acts.add(DISCARD * C + c)
                for i, c in enumerate(hand):       # R5: two larger ids must remain
                    if len(hand) - i - 1 >= 2:
                        acts.add(DISCARD3 * C + c)
            if self.main_done or not hand:          # R6
                acts.add(F + END_TURN)
            for c in self.tableau[p]:
                acts.add(CLEANUP * C + c)
            tot = self._totals(p)
            for c in [self.factions[p]] + self._stations(p):
                q = self._quest_target(p, c)
                if q is not None and (self._reachable(p, q, None, tot)
                                      or self._quest_heroes(p, q, tot)):
                    acts.add(QUEST * C + c)
        elif ph == "quest_hero":
            c = self.pending["card"]
            q = self._quest_target(p, c)
            for h in self._quest_heroes(p, q):
                acts.add(QUEST_HERO * C + h)
            if self._reachable(p, q):
                acts.add(F + QUEST_NO_HERO)
        elif ph == "quest_pay":
            for c in self._pay_options(p):
                acts.add(F + PAY + c)
        elif ph == "keep_station":
            if self.above[p] >= self.pending["k"]:
                acts.add(F + KEEP_STATION)
            acts.add(F + DISCARD_STATION)
        elif ph == "discard3":
            last = self.pending["last"]
            left = self.pending["left"]
            hand = self.hands[p]
            for i, c in enumerate(hand):
                if c > last and sum(1 for d in hand if d > c) >= left - 1:
                    acts.add(DISCARD3 * C + c)
        elif ph == "draw":
            for s, m in enumerate(self.market):
                if m is not None:
                    acts.add(F + TAKE_MARKET0 + s)
            if self.deck or self.discard:
                acts.add(F + TAKE_DECK)
        elif ph == "protect":
            for c in self._protections(p, self.pending["threats"], self.pending["uncovered"]):
                acts.add(PROTECT * C + c)
        elif ph == "free_play":
            for c in self.hands[p]:
                if self._can_play(c, False):
                    acts.add(PLAY * C + c)
                if self._can_play(c, True):
                    acts.add(PLAY_ROTATED * C + c)
            acts.add(F + PASS)
        elif ph == "lose_station":
            for c in self._stations(p):
                acts.add(LOSE_STATION * C + c)
        return acts

    # -----------------------------------------------------------------------------------------
    # effects
    # -----------------------------------------------------------------------------------------
    def _rng(self) -> SplitMix64:
        return SplitMix64(self.rng_state)

    def _draw_from_deck(self):
        """Top card of the deck (reshuffling the discard pile if needed, B3), or None."""
        if not self.deck:
            if not self.discard:
                return None
            pile = sorted(self.discard)
            rng = self._rng()
            rng.shuffle(pile)
            self.rng_state = rng.state
            self.deck = pile
            self.discard = []
            self.deck_generation += 1
        return self.deck.pop(0)

    def _fill_market(self):
        """R8: fill empty slots in slot order while cards are available."""
        for s in range(MARKET_SIZE):
            if self.market[s] is None:
                self.market[s] = self._draw_from_deck()

    def _to_hand(self, p, c, known):
        self.hands[p].append(c)
        self.hands[p].sort()
        if known:
            self.known[p].add(c)
        else:
            self.hand_gen[p][c] = self.deck_generation

    def _from_hand(self, p, c):
        self.hands[p].remove(c)
        self.known[p].discard(c)
        self.hand_gen[p].pop(c, None)

    def _discard_played(self, p, c):
        """Move a played card to the discard pile; station tokens go above (B1 clean-up)."""
        rot, tok = self.tableau[p].pop(c)
        self.above[p] += tok
        self.discard.append(c)

    def _move_up(self, p, k):
        k = min(k, self.below[p])
        self.below[p] -= k
        self.above[p] += k

    def _play(self, p, c, rotated, free):
        cost = 0 if free else self.play_cost(p, c, rotated)
        self.above[p] -= cost
        self.below[p] += cost
        self._from_hand(p, c)
        self.tableau[p][c] = [rotated, 0]

    def _check_win(self):
        for p in range(self.n):
            if self.tokens(p) >= WIN_TOKENS:
                self.winner = p
                self.over = True
                self.phase = "over"
                self.agenda = []
                self.pending = None
                return True
        return False

    def _start_payment(self, p, c, hero):
        """B5, R2, R3: pay for the quest of c, hero ``hero`` (or None) doubling."""
        self.pending = {"kind": "quest_pay", "card": c, "hero": hero, "paid": []}
        self._pay_on(p)

    def _pay_on(self, p):
        """R2: a pick with only one possibility is made at once; with two or more the player
        chooses (phase quest_pay); once the amount is reached the quest is complete."""
        pend = self.pending
        amount = self._quest_target(p, pend["card"])["amount"]
        while sum(self._pay_value(r, pend["hero"]) for r in pend["paid"]) < amount:
            options = self._pay_options(p)
            if len(options) > 1:
                self.phase = "quest_pay"
                return
            if not options:
                break               # unreachable: QUEST is legal only if a payment exists
            self._discard_played(p, options[0])
            pend["paid"].append(options[0])
        self.phase = "main"
        self._complete_quest(p)

    def _complete_quest(self, p):
        """B5 and R3, R4: the pending quest is paid; the hero goes too, then the rewards."""
        c, hero = self.pending["card"], self.pending["hero"]
        if hero is not None:
            self._discard_played(p, hero)
        gained = 1 + (1 if self.cards[c].get("extra_token") else 0)
        for _ in range(gained):
            if self.supply[p] > 0:
                self.supply[p] -= 1
                self.above[p] += 1
        if not self.game.quest_tokens_stay_down:          # R15
            self.above[p] += self.below[p]
            self.below[p] = 0
        self.pending = None
        if c == self.factions[p]:
            self.faction_done[p] = True
            self._check_win()
            return
        if self._check_win():
            return
        k = 1 + sum(1 for s in self._stations(p) if self.tableau[p][s][1] > 0)
        self.phase = "keep_station"
        self.pending = {"kind": "keep_station", "card": c, "k": k}

    def _renew_market(self):
        for s in range(MARKET_SIZE):
            if self.market[s] is not None:
                self.discard.append(self.market[s])
                self.market[s] = None
        self._fill_market()

    def _order_from(self, start):
        return [(start + i) % self.n for i in range(self.n)]

    def _do(self, a):
        C = self.C
        F = 9 * C
        p = self.decider
        block, c = divmod(a, C) if a < F else (None, a - F)
        ph = self.phase
        if ph == "main":
            if block == PLAY or block == PLAY_ROTATED:
                self._play(p, c, block == PLAY_ROTATED, free=False)
                self.main_done = True
                self.agenda.append(["draw", p, 1])                       # B2, R7
            elif block == DISCARD:
                self.main_done = True
                self._from_hand(p, c)
                self.discard.append(c)
                self._move_up(p, self._move_value(c))                   # R10
                card = self.cards[c]
                if card["type"] == "caravan":                           # B6
                    self._renew_market()
                    for q in self._order_from(p):
                        k = sum(1 for s in self._stations(q)
                                if self.cards[s]["reward_class"] == card["caravan_class"])
                        if self.faction_done[q] and \
                                self.cards[self.factions[q]]["reward_class"] == card["caravan_class"]:
                            k += 1
                        self._move_up(q, k)                             # R11
                    self.agenda.append(["draw", p, 1])
                elif card["type"] == "threat":                          # B7, R12
                    self.agenda.append(["monster", c, self._order_from(p), "check"])
                    self.agenda.append(["refill", self._order_from(p)])
                else:
                    self.agenda.append(["draw", p, 1])
            elif block == DISCARD3:
                self.main_done = True
                self._from_hand(p, c)
                self.discard.append(c)
                self.phase = "discard3"
                self.pending = {"kind": "discard3", "last": c, "left": 2}
            elif block == CLEANUP:
                self._discard_played(p, c)
            elif block == QUEST:
                q = self._quest_target(p, c)
                if self._quest_heroes(p, q):
                    self.phase = "quest_hero"
                    self.pending = {"kind": "quest_hero", "card": c}
                else:
                    self._start_payment(p, c, None)
            elif c == END_TURN:
                self.main_done = True
                self.agenda.append(["refill", self._order_from(self.active)])  # B1, R17
                self.agenda.append(["next_turn"])
        elif ph == "quest_hero":
            self._start_payment(p, self.pending["card"], c if block == QUEST_HERO else None)
        elif ph == "quest_pay":
            self._discard_played(p, c - PAY)
            self.pending["paid"].append(c - PAY)
            self._pay_on(p)
        elif ph == "keep_station":
            card = self.pending["card"]
            k = self.pending["k"]
            self.pending = None
            self.phase = "main"
            if c == KEEP_STATION:
                self.above[p] -= k
                self.tableau[p][card][1] = k
            else:
                self._discard_played(p, card)
        elif ph == "discard3":
            self._from_hand(p, c)
            self.discard.append(c)
            self.pending["last"] = c
            self.pending["left"] -= 1
            if self.pending["left"] == 0:
                self.pending = None
                self.phase = "main"
                self.agenda.append(["draw", p, 3])
        elif ph == "draw":
            if c == TAKE_DECK:
                card = self._draw_from_deck()
                self._to_hand(p, card, known=False)
            else:
                s = c - TAKE_MARKET0
                card = self.market[s]
                self.market[s] = self._draw_from_deck()
                self._to_hand(p, card, known=True)
            task = self.agenda[0]
            if task[0] == "draw":
                task[2] -= 1
        elif ph == "protect":
            task = self.agenda[0]
            self._discard_played(p, c)
            self.pending["uncovered"] -= set(self.cards[c]["protection"])
            if not self.game.full_protection_required or not self.pending["uncovered"]:
                task[3] = "free"
        elif ph == "free_play":
            task = self.agenda[0]
            if block in (PLAY, PLAY_ROTATED):
                self._play(p, c, block == PLAY_ROTATED, free=True)
            task[2].pop(0)
            task[3] = "check"
        elif ph == "lose_station":
            task = self.agenda[0]
            self._discard_played(p, c)
            self._after_loss(p)
            task[2].pop(0)
            task[3] = "check"

    def _after_loss(self, p):
        if self.game.failed_defence_tokens_down:                       # R14
            self.below[p] += self.above[p]
            self.above[p] = 0

    def _advance(self):
        """Run pending tasks until a decision is needed (sets phase, decider)."""
        if self.over:
            return
        self._fill_market()                                            # R8
        if self.phase in ("quest_hero", "quest_pay", "keep_station", "discard3"):
            self.decider = self.active
            return
        while self.agenda:
            task = self.agenda[0]
            kind = task[0]
            if kind == "draw":
                _, p, left = task
                if left > 0 and self._card_available():
                    self.phase, self.decider = "draw", p
                    return
                self.agenda.pop(0)
            elif kind == "refill":
                order = task[1]
                while order and (len(self.hands[order[0]]) >= HAND_SIZE
                                 or not self._card_available()):
                    order.pop(0)
                if order:
                    self.phase, self.decider = "draw", order[0]
                    return
                self.agenda.pop(0)
            elif kind == "monster":
                _, threat, order, stage = task
                if not order:
                    self.agenda.pop(0)
                    # The attack is over: its decision data (protect / free_play /
                    # lose_station) must not linger into the refill's draw decisions, where
                    # observation() would show it as if still pending. (Fix made with the Cython
                    # engine; no rule changes: pending is public bookkeeping only.)
                    self.pending = None
                    continue
                p = order[0]
                threats = self.cards[threat]["threats"]
                if stage == "check":
                    if self._repels(p, threats):
                        task[3] = "protect"
                        self.pending = {"kind": "protect", "threats": threats,
                                        "uncovered": set(threats), "card": threat}
                        self.phase, self.decider = "protect", p
                        return
                    loss = self.cards[threat]["loss"]
                    if loss == "station":
                        if self._stations(p):
                            self.pending = {"kind": "lose_station", "card": threat}
                            self.phase, self.decider = "lose_station", p
                            return
                    else:
                        for c in sorted(self.tableau[p]):
                            card = self.cards[c]
                            if card["type"] == "resource" and not self.tableau[p][c][0] and (
                                    loss == "all_resources"
                                    or loss == card["resource_class"] + "_resources"):
                                self._discard_played(p, c)
                    self._after_loss(p)
                    order.pop(0)
                elif stage == "protect":
                    self.phase, self.decider = "protect", p
                    return
                elif stage == "free":
                    if self.hands[p]:
                        self.pending = {"kind": "free_play", "card": threat}
                        self.phase, self.decider = "free_play", p
                        return
                    order.pop(0)
                    task[3] = "check"
            elif kind == "next_turn":
                self.agenda.pop(0)
                if self.turn >= self.game.turn_limit:                   # B8, R18
                    self.over = True
                    self.phase = "over"
                    self.agenda = []
                    return
                self.turn += 1
                self.active = (self.active + 1) % self.n
                self.main_done = False
        self.pending = None
        self.phase, self.decider = "main", self.active

    # -----------------------------------------------------------------------------------------
    # strings
    # -----------------------------------------------------------------------------------------
    def _name(self, c):
        return self.cards[c]["name"] if 0 <= c < self.C else f"card {c}"

    def action_to_string(self, a: int) -> str:
        """Human-readable text of an action, in the rulebook's words."""
        C = self.C
        F = 9 * C
        if isinstance(a, bool) or not isinstance(a, int) or a < 0 or a >= F + PAY + C:
            raise ValueError(f"not a Breakthrough action: {a!r} (actions are 0..{F + PAY + C - 1})")
        p = self.decider if self.decider >= 0 else 0
        if a >= F:
            o = a - F
            if o >= PAY:
                c = o - PAY
                if self.cards[c]["type"] != "resource":
                    return f"pay with {self._name(c)}"
                hero = self.pending["hero"] if self.phase == "quest_pay" else None
                return f"pay with {self._name(c)} (counts {self._pay_value(c, hero)})"
            if o < 3:
                m = self.market[o]
                return f"take market slot {o + 1}: {self._name(m) if m is not None else 'empty'}"
            return {TAKE_DECK: "take the top card of the deck", END_TURN: "end turn",
                    QUEST_NO_HERO: "complete the quest without a hero",
                    KEEP_STATION: "keep the station", DISCARD_STATION: "discard the station",
                    PASS: "decline the free play"}[o]
        block, c = divmod(a, C)
        name = self._name(c)
        card = self.cards[c]
        free = self.phase == "free_play"
        if block == PLAY:
            how = {"resource": "resource", "station": "station", "hero": "hero"}.get(
                card["type"], card["type"])
            try:
                cost = 0 if free else self.play_cost(p, c)
            except (ValueError, KeyError, TypeError):
                cost = "?"
            return f"play {name} as {how} ({'free' if free else f'cost {cost}'})"
        if block == PLAY_ROTATED:
            cost = 0 if free else card.get("protection_cost")
            return f"play {name} rotated as protection ({'free' if free else f'cost {cost}'})"
        if block == DISCARD:
            what = " as monster" if card["type"] == "threat" else ""
            value, moved = self._move_value(c), min(self._move_value(c), self.below[p])
            return f"discard {name}{what} (move up {moved}" + ("" if moved == value else f" of {value}") + ")"
        if block == DISCARD3:
            return f"discard three: {name}"
        if block == CLEANUP:
            return f"clean up {self._played_name(c)}"
        if block == QUEST:
            return f"complete quest: {name}"
        if block == QUEST_HERO:
            return f"complete the quest with hero {name}"
        if block == PROTECT:
            return f"protect with {name}"
        return f"lose station {self._played_name(c)}"

    def _played_name(self, c):
        """Name of a played card as seen in its owner's tableau (rotation, tokens)."""
        for t in self.tableau:
            if c in t:
                rot, tok = t[c]
                if rot:
                    return f"rotated {self._name(c)}"
                if tok:
                    return f"{self._name(c)} with {tok} token{'s' if tok > 1 else ''}"
        return self._name(c)

    def string_to_action(self, text: str) -> int:
        """Parse the text of a *legal* action (as action_to_string writes it; case and a trailing
        parentheses are ignored), or an integer.  ValueError if nothing legal matches."""
        t = text.strip()
        if t.lstrip("-").isdigit():
            return int(t)

        def norm(s):
            s = " ".join(s.lower().split())
            while s.endswith(")") and "(" in s:
                s = s[:s.rindex("(")].strip()
            return s

        want = norm(t)
        for a in self.legal_actions():
            if norm(self.action_to_string(a)) == want:
                return a
        raise ValueError(f"no legal action matches {text!r}")

    # -----------------------------------------------------------------------------------------
    # observation and determinization
    # -----------------------------------------------------------------------------------------
    def observation(self, player: int) -> dict:
        """What ``player`` sees (JSON-ready)."""
        others_known = {}
        hidden_gens = {}
        for q in range(self.n):
            if q == player:
                continue
            others_known[q] = sorted(self.known[q])
            gens = {}
            for c in self.hands[q]:
                if c not in self.known[q]:
                    g = self.hand_gen[q][c]
                    gens[g] = gens.get(g, 0) + 1
            hidden_gens[q] = {str(g): k for g, k in sorted(gens.items())}
        return {
            "player": player,
            "num_players": self.n,
            "turn": self.turn,
            "active": self.active,
            "current_player": self.current_player,
            "phase": self.phase,
            "main_done": self.main_done,
            "pending": _public_pending(self.pending),
            "hand": sorted(self.hands[player]),
            "hand_sizes": [len(h) for h in self.hands],
            "known_in_hands": {str(q): v for q, v in others_known.items()},
            "hidden_draw_generations": {str(q): v for q, v in hidden_gens.items()},
            "tableaux": [[{"card": c, "rotated": v[0], "tokens": v[1]}
                          for c, v in sorted(t.items())] for t in self.tableau],
            "factions": list(self.factions),
            "faction_done": list(self.faction_done),
            "above": list(self.above),
            "below": list(self.below),
            "supply": list(self.supply),
            "tokens": self.scores(),
            "scores": self.scores(),
            "market": list(self.market),
            "discard": list(self.discard),
            "deck_size": len(self.deck),
            "deck_generation": self.deck_generation,
            "terminal": self.over,
            "winner": self.winner,
        }

    def determinize(self, player: int, seed: int) -> "RefBreakthroughState":
        """A full state consistent with what ``player`` sees, hidden cards dealt uniformly.

        Exact procedure (R21): the hidden positions are the other players' hand cards not in
        ``known`` and the deck.  Group them by deck generation (a hidden hand card has the
        generation it was drawn in; every deck card has the current one).  With
        ``rng = splitmix64(seed)``, for each generation g in ascending order: take the sorted list
        of hidden card ids of generation g, shuffle it with ``rng``, and deal it in this order:
        first to the other players in ascending player order (each receiving as many cards as it
        has hidden cards of generation g), then, if g is the current generation, to the deck
        (element 0 = top).  Hands are re-sorted.  The new state's RNG state is ``rng``'s state
        after dealing.  Everything else (known cards, discard pile, market, tableaux, tokens,
        phase) is kept.

        One public constraint needs more (R5): in phase ``discard3`` everyone knows that the
        active player still holds at least ``left`` cards with ids above ``last``.  When another
        player determinizes there, the whole deal above is repeated (the RNG running on) until
        the active player's new hand satisfies it: rejection sampling, so the result stays
        uniform over the states the player cannot tell apart, and it is always playable.
        (Fix made with the Cython engine: without it such a world could have no legal action.)
        """
        s = self.clone()
        rng = SplitMix64(seed)
        gens = set()
        for q in range(self.n):
            if q != player:
                for c in self.hands[q]:
                    if c not in self.known[q]:
                        gens.add(self.hand_gen[q][c])
        if self.deck:
            gens.add(self.deck_generation)
        constrained = self.phase == "discard3" and player != self.active
        while True:
            new_hidden = {q: [] for q in range(self.n)}
            for g in sorted(gens):
                pool = []
                slots = []
                for q in range(self.n):
                    if q == player:
                        continue
                    hid = [c for c in self.hands[q]
                           if c not in self.known[q] and self.hand_gen[q][c] == g]
                    pool.extend(hid)
                    slots.append((q, len(hid)))
                if g == self.deck_generation:
                    pool.extend(self.deck)
                pool.sort()
                rng.shuffle(pool)
                i = 0
                for q, k in slots:
                    new_hidden[q].extend((c, g) for c in pool[i:i + k])
                    i += k
                if g == self.deck_generation:
                    s.deck = pool[i:]
            for q in range(self.n):
                if q == player:
                    continue
                keep = [c for c in self.hands[q] if c in self.known[q]]
                s.hands[q] = sorted(keep + [c for c, _ in new_hidden[q]])
                s.hand_gen[q] = {c: g for c, g in new_hidden[q]}
            if not constrained or sum(1 for c in s.hands[self.active]
                                      if c > self.pending["last"]) >= self.pending["left"]:
                break
        s.rng_state = rng.state
        s.history = []
        return s

    def __repr__(self):
        return (f"RefBreakthroughState(turn={self.turn}, active={self.active}, phase={self.phase}, "
                f"decider={self.current_player}, tokens={self.scores()})")


def _copy_task(t):
    if t is None:
        return None
    if isinstance(t, dict):
        return {k: (set(v) if isinstance(v, set) else list(v) if isinstance(v, list) else v)
                for k, v in t.items()}
    return [list(x) if isinstance(x, list) else x for x in t]


def _public_pending(p):
    if p is None:
        return None
    return {k: (sorted(v) if isinstance(v, (set, tuple)) else v) for k, v in p.items()}

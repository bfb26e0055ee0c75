# Why one file of about 1,500 lines: it is the independent specification the fast engine is tested
# against, read top to bottom in rule order (G1 onwards); splitting it would scatter one reading.
"""Reference engine for *Metro 2033*, the board game (2nd edition): the full game, in plain Python.

Written from ``docs/rules/metro2033.md`` (G1–G21, the rulebook; G22 onwards, metro-ai's readings,
cited where they apply) and the seed page 7 of the rulebook. It is the rules authority a fast
engine will be differentially tested against; it is written for clarity, not speed, and uses only
the standard library and the package's ``board`` and ``cards`` modules (the map and the card file
are data, read once).

Usage::

    game = RefMetro2033Game(players=3)
    state = game.new_state(seed=7)
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    state.returns()

The State interface is the other reference engines': ``current_player``, ``legal_actions()``
(sorted ints), ``apply(action)`` (ValueError and no change if illegal), ``is_terminal()``,
``scores()`` (VP), ``returns()`` (rank-based: win 1, loss 0, ties shared), ``clone()``,
``observation(player)``, ``determinize(player, seed)``, ``observed_action(action, player)``
(G32: what another player sees of a hidden move), ``to_json()`` /
``RefMetro2033Game.state_from_json(text)``, ``action_to_string`` / ``string_to_action``.

Action encoding
===============
With S = 78 stations and C cards (98 in the shipped set), an action is an int in one block:

==========================  =========  ===============================================================
block                       size       meaning (by phase)
==========================  =========  ===============================================================
``STATION + s``             S          a station: place the hero, defend a threat with the army there,
                                       attack it with the army, move the hero there, take it free (G15)
``STATION_HERO + s``        S          defend a threat at s with the hero (G9)
``FACTION + i``, ``HERO+i`` 6, 6       draft the i-th faction / hero of the card file (G6)
``PLAYER + q``              6          attack player q's hero (army G11, hero G12)
``RESOURCE + r``            3          pigs, mushrooms, bullets: forage, a Polis yield, an exchange
``COUNT + k``               36         a number: soldiers hired, resources exchanged
``CARD + c``                C          a card: law to vote, threat to fight, combat card, equipment to
                                       buy / discard / take, quest to keep
``COMPLETE + c``, ``USE+c`` C, C       complete quest c; use quest c's property (G16)
``FIXED + i``               12         YES, NO, ARMY, HERO, BUY, QUEST, EXCHANGE, SCOUT, ATTACK, PASS,
                                       REFRESH, DONE
==========================  =========  ===============================================================

Decisions (``state.phase``; ``state.current_player`` decides)
=============================================================
``draft_faction``, ``draft_hero``, ``place_hero`` (G6, G24); per round (G8): ``law_look``
(YES/NO: whether the Confederation of 1905 looks at the top two laws, G31) and ``law_peek`` (the
law to the vote), ``vote`` (YES/NO), ``declare`` (G9, hidden: G32), ``polis_res``;
``quest_complete`` (COMPLETE, DONE: after the events and after each army and hero action, every
player holding an uncompleted quest, whether or not one can be completed, G29, G38);
``upkeep`` (COUNT: the strength kept, G33), ``hire`` (COUNT, G10); ``army`` (STATION, PLAYER,
RESOURCE, COMPLETE, USE; G11, G29); ``hero_move`` (STATION in reach, COMPLETE, USE) then
``hero_act`` (BUY, QUEST, EXCHANGE, SCOUT, ATTACK, PLAYER, PASS; G12) with its steps ``buy`` (CARD, REFRESH, DONE), ``quest_keep``,
``exchange_from`` / ``exchange_to`` / ``exchange_amount``; in fights ``scout_return``,
``artyom``, ``defender`` (ARMY/HERO), ``combat_pick`` (attacker, then defender: G21, G32),
``capture`` (G14), ``free_station`` (G15), ``take_equipment`` / ``strip_equipment`` /
``discard_equipment`` (G17, G20); ``stage2_equipment`` (G18); ``over`` at the end. A decision is
presented whenever a rule gives a choice, even with one option (a quest check with nothing to
complete, G38: whether it is asked must not depend on hidden cards); none when there is no
choice (nothing to hire, no capture affordable).

Determinism
===========
One splitmix64 generator (the engines' generator, see :class:`SplitMix64`) in the state. At
``new_state(seed)`` it shuffles, in this order, the sorted card ids of the equipment deck, the quest
deck, the law deck, the stage-1 threat deck and the stage-2 threat deck (G5; element 0 is the
top); the market is the top 4 equipment (G7). Later it shuffles a discard pile, sorted, when its
deck runs out (G19), and the combat cards, sorted, for each fight between players (G21). Same
seed and actions, same game, bit for bit.
"""
from __future__ import annotations

import json

from metro_ai.engine.splitmix import SplitMix64      # the engines' generator, shared by the references

from .board import BOARD, FACTION_ZONES, RESOURCES
from .cards import load_card_set

S = BOARD.n
N_FACTIONS = N_HEROES = MAX_PLAYERS = 6
STATION, STATION_HERO, FACTION = 0, S, 2 * S
HERO = FACTION + N_FACTIONS
PLAYER = HERO + N_HEROES
RESOURCE = PLAYER + MAX_PLAYERS
COUNT = RESOURCE + 3
MAX_COUNT = 35                               # G1: 35 tokens of each resource
CARD = COUNT + MAX_COUNT + 1
FIXED_NAMES = ("yes", "no", "army", "hero", "buy", "quest", "exchange", "scout", "attack", "pass",
               "refresh", "done")
YES, NO, ARMY, HEROF, BUY, QUEST, EXCHANGE, SCOUT, ATTACK, PASS, REFRESH, DONE = range(12)

START_VP, START_ARMY, MAX_ARMY, WIN_VP, POLIS_STRENGTH = 3, 2, 8, 10, 7     # G2, G7, G10, G14
STAGE2_VP = 6                                                            # G13, G18
MARKET_SIZE = 4                                                          # G7
# G8: the round track. Round 1 is START (all three resources, doubled); then the loop of nine.
TRACK = (("pigs", "mushrooms", "bullets"), ("mushrooms", "pigs"), ("law", "bullets"), ("threat",),
         ("mushrooms", "bullets"), ("law", "pigs"), ("threat",), ("pigs", "bullets"),
         ("law", "mushrooms"), ("threat",))
DEFAULT_ROUND_LIMIT = 40                     # G30: the turn limit (an addition)


# The tasks of the agenda (``_run``) and how many arguments each takes.
TASKS = {"draft_faction": 1, "draft_hero": 1, "setup": 0, "place_hero": 1, "round_start": 0,
         "quest_check": 0, "quest_offer": 1, "produce": 2, "polis_res": 3, "law_event": 0, "vote": 1,
         "law_result": 0, "declare": 1,
         "threat_reveal": 0, "threat_fight": 1, "threat_done": 0, "mobilise": 1, "army": 1, "hero": 1,
         "hero_act": 1, "neutral_attack": 3, "neutral_fight": 3, "capture": 3, "free_station": 1,
         "defender": 2, "combat_deal": 1, "combat_pick": 1, "combat_resolve": 0, "take_equipment": 2,
         "strip_equipment": 3, "discard_equipment": 1, "buy": 3, "exchange_from": 1, "exchange_to": 2,
         "exchange_amount": 3, "stage2_equipment": 1, "end_round": 0}


def track_space(round_no: int) -> tuple:
    """G8: the events of round `round_no` (1-based): START once, then the loop of nine."""
    return TRACK[0] if round_no == 1 else TRACK[1 + (round_no - 2) % 9]


def strength_bonus(effects, vs=None, who=None, when=None) -> int:
    """The strength a card's effects add (cards.py): the ``strength`` entries that apply to `who`
    and `when`; an entry ``vs`` the opponent (threat type or combat-card type) replaces the plain
    ones ("AKM: +1, or +2 against one threat type", G17; "Ambush: +1, or +3 against an attack
    card", G21)."""
    plain = matched = 0
    found = False
    for e in effects:
        if e["effect"] != "strength" or e.get("who", who) != who or e.get("when", when) != when:
            continue
        if "vs" in e:
            if e["vs"] == vs:
                matched += e["amount"]
                found = True
        else:
            plain += e["amount"]
    return matched if found else plain


class RefMetro2033Game:
    """Game configuration.

    Options: ``players`` 2..6 (G1); ``cards``: a card file (default: the shipped, reconstructed
    set; see ``cards.py``); ``strict_counts`` (default True: the rulebook's counts);
    ``round_limit``: int >= 1, default 40 (G30).
    """

    def __init__(self, players: int = 2, cards=None, strict_counts: bool = True,
                 round_limit: int = DEFAULT_ROUND_LIMIT):
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 6:
            raise ValueError(f"players must be an int in 2..6, got {players!r}")
        if isinstance(round_limit, bool) or not isinstance(round_limit, int) or round_limit < 1:
            raise ValueError(f"round_limit must be an int >= 1, got {round_limit!r}")
        self.num_players = players
        self.round_limit = round_limit
        self.card_file = None if cards is None else str(cards)
        self.card_set = load_card_set(cards, strict_counts=strict_counts)
        self.strict_counts = strict_counts
        if len(self.card_set.ids_of_type("hero")) < players:
            raise ValueError(f"the card set has {len(self.card_set.ids_of_type('hero'))} heroes for {players} players")
        self.cards = self.card_set.cards
        self.C = len(self.cards)
        self.of_type = {t: self.card_set.ids_of_type(t) for t in
                        ("faction", "hero", "threat", "equipment", "quest", "law", "combat")}
        self.factions = self.of_type["faction"]
        self.heroes = self.of_type["hero"]
        self.threats = {s: [c for c in self.of_type["threat"] if self.cards[c]["stage"] == s] for s in (1, 2)}
        self.COMPLETE = CARD + self.C
        self.USE = CARD + 2 * self.C
        self.FIXED = CARD + 3 * self.C

    def num_distinct_actions(self) -> int:
        return self.FIXED + len(FIXED_NAMES)

    def fixed(self, i: int) -> int:
        return self.FIXED + i

    def new_state(self, seed: int = 0) -> "RefMetro2033State":
        """A new game: decks shuffled from `seed` (module docstring), the faction draft next."""
        return RefMetro2033State(self, seed)

    def state_from_json(self, text: str) -> "RefMetro2033State":
        """Rebuild a state written by ``to_json``; ValueError saying what is wrong if malformed."""
        return RefMetro2033State.from_json(self, text)


class RefMetro2033State:
    """A full game state, hidden parts included (quests in hand, the scouted threats, combat
    cards, deck orders). Plain attributes; see the module docstring for the contract."""

    def __init__(self, game: RefMetro2033Game, seed: int):
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an int, got {seed!r}")
        self.game = game
        n = self.n = game.num_players
        rng = SplitMix64(seed)
        self.decks = {}
        for key, ids in (("equipment", game.of_type["equipment"]), ("quest", game.of_type["quest"]),
                         ("law", game.of_type["law"]), ("threat1", game.threats[1]),
                         ("threat2", game.threats[2])):
            deck = sorted(ids)
            rng.shuffle(deck)
            self.decks[key] = deck
        self.rng_state = rng.state
        self.known = {}                  # card in a deck -> sorted list of players who know it there
        self.discards = {"equipment": [], "quest": [], "threat1": [], "threat2": []}
        self.out = []                    # G18: cards out of the game
        self.market = [self.decks["equipment"].pop(0) for _ in range(MARKET_SIZE)]
        self.law = None
        self.owner = [None] * S
        self.faction = [None] * n        # faction card id
        self.hero = [None] * n           # hero card id
        self.hero_at = [None] * n
        self.wounded = [False] * n       # G20: misses the next hero phase
        self.vp = [0] * n
        self.army = [0] * n
        self.res = [[0, 0, 0] for _ in range(n)]
        self.equipment = [[] for _ in range(n)]
        self.quests = [[] for _ in range(n)]      # hidden, uncompleted (G16)
        self.done_quests = [[] for _ in range(n)]
        self.quest_used = [[] for _ in range(n)]  # completed quests used this round
        self.scouted = [[] for _ in range(n)]     # [threat card] or [] (G12)
        self.scouted_round = [0] * n
        self.declared = [None] * n                # threat event: [station, "army"|"hero"] (G9)
        self.threat_now = None                    # the threat being fought in a threat event
        self.combat = None
        self.vote = None
        self.last_vote = self.last_threat = self.last_fight = None       # public records
        self.round = 0
        self.first = 0                            # G5
        self.stage = 1
        self.over = False
        self.winner = None
        self.phase = None
        self.decider = 0
        self.pending = {}
        # G6: the faction draft from the first player clockwise, then the hero draft from the last
        # player counter-clockwise, then G7's setup, then the heroes placed (G24).
        self.agenda = ([["draft_faction", p] for p in range(n)]
                       + [["draft_hero", p] for p in reversed(range(n))] + [["setup"]]
                       + [["place_hero", p] for p in range(n)] + [["round_start"]])
        self.history = []
        self._advance()

    # ------------------------------------------------------------------------------------------
    # contract
    # ------------------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return -1 if self.over else self.decider

    def is_terminal(self) -> bool:
        return self.over

    def scores(self) -> list[int]:
        return list(self.vp)

    def returns(self) -> list[float]:
        """Rank-based: the G2 winner ranks first, the others by VP (G30 at the turn limit)."""
        if not self.over:
            return [0.0] * self.n
        key = [(p == self.winner, self.vp[p]) for p in range(self.n)]
        return [(sum(key[q] < key[p] for q in range(self.n))
                 + 0.5 * sum(key[q] == key[p] for q in range(self.n) if q != p)) / (self.n - 1)
                for p in range(self.n)]

    def legal_actions(self) -> list[int]:
        return [] if self.over else sorted(self._legal())

    def apply(self, action: int) -> None:
        """Apply a legal action; ValueError naming the action and the state if it is not legal
        (the state is then unchanged)."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise ValueError(f"action must be an int, got {action!r}")
        if self.over:
            raise ValueError(f"action {action}: the game is over")
        if action not in self._legal():
            raise ValueError(f"illegal action {action} ({self.action_to_string(action)}) in phase "
                             f"{self.phase!r} for player {self.decider} (round {self.round})")
        self.history.append(action)
        self._do(action)
        self._advance()

    def clone(self) -> "RefMetro2033State":
        other = RefMetro2033State.__new__(RefMetro2033State)
        other.__dict__.update(json.loads(json.dumps(self._data())))
        other.game = self.game
        return other

    # ------------------------------------------------------------------------------------------
    # small helpers
    # ------------------------------------------------------------------------------------------
    def _card(self, c) -> dict:
        return self.game.cards[c]

    def _rng(self) -> SplitMix64:
        return _Bound(self)

    def _order(self) -> list[int]:
        """Players from the first player clockwise (G8)."""
        return [(self.first + i) % self.n for i in range(self.n)]

    def _effects(self, p) -> list:
        """The effects of p's faction and of the law in force."""
        out = list(self._card(self.faction[p])["effects"]) if self.faction[p] is not None else []
        return out + (list(self._card(self.law)["effects"]) if self.law is not None else [])

    def _law_has(self, name):
        return self.law is not None and any(e["effect"] == name for e in self._card(self.law)["effects"])

    def _amount(self, effects, name, default):
        """G35: the largest `name` amount among `effects`, else `default`."""
        vals = [e["amount"] for e in effects if e["effect"] == name]
        return max(vals) if vals else default

    def closed_zones(self) -> set:
        """G6: the zones of the factions nobody chose (Polis always in play; G22 for Hansa)."""
        chosen = {self._card(f)["zone"] for f in self.faction if f is not None}
        return set(FACTION_ZONES) - chosen if all(f is not None for f in self.faction) else set()

    def stations(self, p) -> list[int]:
        return [s for s in range(S) if self.owner[s] == p]

    def win_vp(self, p) -> int:
        return self._amount(self._card(self.faction[p])["effects"], "win_vp", WIN_VP)   # G2, G3

    def equipment_limit(self) -> int:
        return 2 if self.stage == 1 else 3            # G17

    def speed(self, p) -> int:
        """G12: the hero's printed speed plus equipment, hero, faction and law bonuses."""
        eff = list(self._card(self.hero[p])["effects"]) + self._effects(p)
        for c in self.equipment[p]:
            eff += self._card(c)["effects"]
        return max(0, self._card(self.hero[p])["speed"] + sum(e["amount"] for e in eff if e["effect"] == "speed"))

    def army_strength(self, p, when) -> int:
        """G20: the army's strength, with the faction's and the law's bonuses (G26)."""
        return self.army[p] + sum(strength_bonus([e], who="army", when=when) for e in self._effects(p))

    def hero_strength(self, p, when, vs=None) -> int:
        """G20: the hero's strength with equipment (G17) and bonuses against threat type `vs`."""
        total = self._card(self.hero[p])["strength"]
        for c in [self.hero[p]] + self.equipment[p]:
            total += strength_bonus(self._card(c)["effects"], vs=vs, who="hero", when=when)
        return total + sum(strength_bonus([e], who="hero", when=when) for e in self._effects(p))

    def _wins_ties(self, p, who, when) -> bool:
        """G3: Bauman heroes win ties attacking, Bandits armies defending (any fight, G26)."""
        eff = self._effects(p) + (list(self._card(self.hero[p])["effects"]) if who == "hero" else [])
        return any(e["effect"] == "wins_ties" and e["who"] == who and e["when"] == when for e in eff)

    def _outcome(self, a, b, a_ties, b_ties) -> int:
        """G20, G3: +1 if the attacker (strength a) wins, -1 if the defender, 0 a tie."""
        if a != b:
            return 1 if a > b else -1
        if a_ties != b_ties:
            return 1 if a_ties else -1
        return 0

    def _gain(self, p, effects):
        """Effects gained once: resources (G9 rewards, G16, G7) and army strength (up to 8)."""
        for e in effects:
            if e["effect"] == "resource":
                r = RESOURCES.index(e["resource"])
                self.res[p][r] = min(MAX_COUNT, self.res[p][r] + e["amount"])
            elif e["effect"] == "army":
                self.army[p] = min(MAX_ARMY, self.army[p] + e["amount"])

    def _threat_key(self) -> str:
        return f"threat{self.stage}"

    def _draw(self, key):
        """The top card of a deck; an empty deck takes its discard pile, sorted and shuffled
        (G19); None if there is no card at all."""
        deck = self.decks[key]
        if not deck and key in self.discards and self.discards[key]:
            pile = sorted(self.discards[key])
            self.discards[key] = []
            self._rng().shuffle(pile)
            deck.extend(pile)
        if not deck:
            return None
        c = deck.pop(0)
        self.known.pop(str(c), None)
        return c

    def _under(self, key, c, knowers):
        """Put card c under a deck, known there to `knowers` (G19; G27)."""
        self.decks[key].append(c)
        if knowers:
            self.known[str(c)] = sorted(knowers)

    def _on_top(self, key, c, knowers):
        self.decks[key].insert(0, c)
        self.known[str(c)] = sorted(knowers)

    def _discard(self, c):
        t = self._card(c)["type"]
        key = f"threat{self._card(c)['stage']}" if t == "threat" else t
        if t == "threat" and self._card(c)["stage"] != self.stage:
            self.out.append(c)                     # G18: stage-1 threats leave the game
        else:
            self.discards[key].append(c)

    def _refill_market(self):
        for i in range(MARKET_SIZE):
            if self.market[i] is None:
                self.market[i] = self._draw("equipment")

    def _push(self, *tasks):
        """Run these tasks next, in this order."""
        self.agenda[0:0] = [list(t) for t in tasks]

    def _decide(self, phase, p, **pending):
        self.phase, self.decider, self.pending = phase, p, pending

    # ------------------------------------------------------------------------------------------
    # stations, VP, heroes
    # ------------------------------------------------------------------------------------------
    def _capture(self, p, s):
        """G14: a station joins p's holdings, +1 VP."""
        self.owner[s] = p
        self.vp[p] += 1

    def _lose(self, p, s):
        """G15: p loses station s (-1 VP); left with fewer than 3 stations (2, or fewer when an
        earlier loss found no free station), p takes a neutral one free."""
        self.owner[s] = None
        self.vp[p] -= 1
        if len(self.stations(p)) < 3 and self._free_options(p):
            self._push(["free_station", p])

    def _free_options(self, p) -> list[int]:
        """G15: the neutral stations of p's zone that can be held (not Polis; G28: nor Hansa or
        abandoned); none: any such neutral station in play."""
        closed = self.closed_zones()
        neutral = [s for s in range(S) if self.owner[s] is None and BOARD.produces(s)
                   and BOARD.zone[s] not in closed]
        zone = self._card(self.faction[p])["zone"]
        own = [s for s in neutral if BOARD.zone[s] == zone]
        return own or neutral

    def _capture_cost(self, taken):
        """G14: 1 mushroom + 1 pig for a neutral station, 1 mushroom for one taken from a
        player; plus a law's capture cost."""
        cost = [0, 1, 0] if taken else [1, 1, 0]
        if self.law is not None:
            for e in self._card(self.law)["effects"]:
                if e["effect"] == "capture_cost":
                    cost[RESOURCES.index(e["resource"])] += e["amount"]
        return cost

    def _can_pay(self, p, cost) -> bool:
        return all(self.res[p][r] >= cost[r] for r in range(3))

    def _offer_capture(self, p, s, taken):
        """G14: after a successful attack p may capture s, if p can pay."""
        if self._can_pay(p, self._capture_cost(taken)):
            self._push(["capture", p, s, taken])

    def _wound(self, p):
        """G20: a wounded hero goes to a home station (G25: the first one p still holds, else p's
        first station) and misses the next hero phase."""
        held = self.stations(p)
        home = [BOARD.station(h) for h in self._card(self.faction[p])["home"]]
        self.hero_at[p] = next((h for h in home if self.owner[h] == p), held[0] if held else home[0])
        self.wounded[p] = True

    def _gain_equipment(self, p, c):
        """G17: a card to p's hero; above the limit p discards down at once."""
        self.equipment[p].append(c)
        self.equipment[p].sort()
        if len(self.equipment[p]) > self.equipment_limit():
            self._push(["discard_equipment", p])

    def _quest_ok(self, p, c) -> bool:
        """G16: quest c's condition holds for p, and p has not completed one of the same
        condition."""
        cond = self._card(c)["condition"]
        if any(self._card(d)["condition"] == cond for d in self.done_quests[p]):
            return False
        kind, count = cond["condition"], cond["count"]
        held = self.stations(p)
        if kind == "stations":
            return len(held) >= count
        if kind == "resources":
            return self.res[p][RESOURCES.index(cond["resource"])] >= count
        if kind == "army":
            return self.army[p] >= count
        if kind == "polis":
            return sum(BOARD.kind[s] == "polis" for s in held) >= count
        if kind == "equipment":
            return len(self.equipment[p]) >= count
        zone = self._card(self.faction[p])["zone"]
        return len({BOARD.zone[s] for s in held} - {zone}) >= count

    def _quest_actions(self, p) -> set:
        """G16, G29: complete a quest, or use a property, at the player's army and hero
        decisions."""
        g = self.game
        acts = {g.COMPLETE + c for c in self.quests[p] if self._quest_ok(p, c)}
        acts |= {g.USE + c for c in self.quests[p]}
        if self.res[p][2] >= 1:
            acts |= {g.USE + c for c in self.done_quests[p] if c not in self.quest_used[p]}
        return acts

    def _neutral_threat_station(self, s) -> bool:
        return self.owner[s] is None and BOARD.kind[s] != "polis"

    # ------------------------------------------------------------------------------------------
    # legal actions
    # ------------------------------------------------------------------------------------------
    def _legal(self) -> set:
        g, p, ph, pd = self.game, self.decider, self.phase, self.pending
        fx = g.fixed
        if ph == "draft_faction":
            return {FACTION + g.factions.index(f) for f in self._faction_options()}
        if ph == "draft_hero":
            return {HERO + g.heroes.index(h) for h in g.heroes if h not in self.hero}
        if ph in ("place_hero", "free_station", "army_move"):
            return {STATION + s for s in pd["options"]}
        if ph == "polis_res":
            return {RESOURCE + RESOURCES.index(r) for r in pd["resources"]}
        if ph in ("law_peek", "artyom", "quest_keep", "stage2_equipment", "discard_equipment"):
            return {CARD + c for c in pd["cards"]}
        if ph == "combat_pick":
            return {CARD + c for c in self.combat["hands"][pd["side"]]}
        if ph in ("vote", "capture", "scout_return", "law_look"):
            return {fx(YES), fx(NO)}
        if ph == "upkeep":
            free, most = self._upkeep_range(p)                         # G10, G33
            return {COUNT + k for k in range(free, most + 1)}
        if ph == "quest_complete":
            return {g.COMPLETE + c for c in self.quests[p] if self._quest_ok(p, c)} | {fx(DONE)}
        if ph == "declare":
            return set(self._declare_options(p))
        if ph == "defender":
            return {fx(ARMY), fx(HEROF)}
        if ph in ("take_equipment", "strip_equipment"):
            return {CARD + c for c in pd["cards"]} | (set() if pd.get("forced") else {fx(NO)})
        if ph == "hire":
            return {COUNT + k for k in range(pd["max"] + 1)}
        if ph == "army":
            return self._army_actions(p) | self._quest_actions(p)
        if ph == "hero_move":
            return ({STATION + s for s in BOARD.hero_reach(self.hero_at[p], self.speed(p), self.closed_zones())}
                    | self._quest_actions(p))
        if ph == "hero_act":
            return self._hero_actions(p)
        if ph == "buy":
            cost_ok = self.res[p][2] >= 1 and self.res[p][1] >= 1
            acts = {CARD + c for c in self.market if c is not None and cost_ok} | {fx(DONE)}
            if not pd["bought"] and not pd["refreshed"] and self.res[p][2] >= 1:
                acts.add(fx(REFRESH))
            return acts
        if ph == "exchange_from":
            return {RESOURCE + r for r in range(3) if self.res[p][r] > 0}
        if ph == "exchange_to":
            return {RESOURCE + r for r in range(3) if r != pd["from"]}
        if ph == "exchange_amount":
            return {COUNT + k for k in range(1, self.res[p][pd["from"]] + 1)}
        raise AssertionError(f"no decision in phase {ph!r}")

    def _faction_options(self) -> list[int]:
        """G6: the first pick is free; later picks border a zone already chosen."""
        chosen = [f for f in self.faction if f is not None]
        free = [f for f in self.game.factions if f not in chosen]
        if not chosen:
            return free
        zones = {self._card(f)["zone"] for f in chosen}
        return [f for f in free if BOARD.borders[self._card(f)["zone"]] & zones]

    def _army_reach(self, p) -> set[int]:
        """G11, G23: the stations p's army reaches: each station linked to one of p's stations
        or to a neutral Polis or Hansa station the army passes through on its way there, with at
        most one Hansa tunnel (a tunnel between two Hansa stations) on the way, never entering a
        zone out of play. A held station is never passed through."""
        closed = self.closed_zones()
        reach, passed = set(), set()
        todo = [(s, 0) for s in self.stations(p)]
        while todo:
            i, tunnels = todo.pop()
            for j, kind in BOARD.links[i]:
                if BOARD.zone[j] in closed:
                    continue
                t = tunnels + (kind == "tunnel" and BOARD.kind[i] == "hansa" and BOARD.kind[j] == "hansa")
                if t > 1:
                    continue
                reach.add(j)
                if self.owner[j] is None and BOARD.kind[j] in ("polis", "hansa") and (j, t) not in passed:
                    passed.add((j, t))
                    todo.append((j, t))
        return reach

    def _attackable_heroes(self, p, by) -> list[int]:
        """G11 (by army: on one of p's stations, or on a station the army reaches as it would
        to attack a station, through neutral Polis and Hansa stations: G23) and G12 (by hero: on
        the same station): enemy heroes not on a Hansa station nor on a station of their own."""
        out = []
        reach = self._army_reach(p) if by == "army" else set()
        for q in range(self.n):
            at = self.hero_at[q]
            if q == p or at is None or BOARD.kind[at] == "hansa" or self.owner[at] == q:
                continue
            if by == "army":
                near = self.owner[at] == p or at in reach
            else:
                near = self.hero_at[p] == at and not self._law_has("no_hero_fights")
            if near:
                out.append(q)
        return out

    def _army_actions(self, p) -> set:
        acts = {STATION + s for s in BOARD.army_targets(self.owner, p, self.closed_zones())}
        acts |= {PLAYER + q for q in self._attackable_heroes(p, "army")}
        acts |= {RESOURCE + r for r in range(3)}                     # G11: forage
        return acts

    def _hero_actions(self, p) -> set:
        fx, at, r = self.game.fixed, self.hero_at[p], self.res[p]
        acts = {fx(PASS)}
        if BOARD.kind[at] == "hansa":                                 # G12
            if r[2] >= 1:                                             # a purchase or a refresh
                acts.add(fx(BUY))
            if r[2] >= 1 and r[1] >= 1 and (self.decks["quest"] or self.discards["quest"]):
                acts.add(fx(QUEST))
            if sum(r) > 0:
                acts.add(fx(EXCHANGE))
        elif self.owner[at] is None:
            if not self.scouted[p] and (self.decks[self._threat_key()] or self.discards[self._threat_key()]):
                acts.add(fx(SCOUT))
        if BOARD.attackable(at) and self.owner[at] != p:
            acts.add(fx(ATTACK))
        acts |= {PLAYER + q for q in self._attackable_heroes(p, "hero")}
        return acts

    # ------------------------------------------------------------------------------------------
    # applying a decision
    # ------------------------------------------------------------------------------------------
    def _do(self, a):
        g, p, ph, pd = self.game, self.decider, self.phase, self.pending
        fx = g.fixed
        self.phase, self.pending = None, {}
        if ph == "draft_faction":
            self.faction[p] = g.factions[a - FACTION]
        elif ph == "draft_hero":
            self.hero[p] = g.heroes[a - HERO]
        elif ph == "place_hero":
            self.hero_at[p] = a - STATION
        elif ph == "polis_res":
            self.res[p][a - RESOURCE] = min(MAX_COUNT, self.res[p][a - RESOURCE] + pd["amount"])
        elif ph == "law_look":
            if a == fx(YES):                                           # G31: looks at the top two
                two = [self._draw("law"), self._draw("law")]
                self._decide("law_peek", p, cards=sorted(two))
            else:                                                      # the top law, unseen
                self._start_vote(self._draw("law"))
        elif ph == "upkeep":
            self._keep(p, a - COUNT)
            self._hire(p)
        elif ph == "quest_complete":
            if a != fx(DONE):
                self._quest_do(p, a)                                   # G16: shown, +1 VP
                self._push(["quest_offer", p])                         # another one?
        elif ph == "law_peek":
            other = [c for c in pd["cards"] if c != a - CARD][0]
            self._under("law", other, [p])                             # G3
            self._start_vote(a - CARD)
        elif ph == "vote":
            if a == fx(YES):
                self.vote["for"] += pd["votes"]
            else:
                self.vote["against"] += pd["votes"]
        elif ph == "declare":
            self.declared[p] = [a % S, "hero" if a >= STATION_HERO else "army"]
        elif ph == "scout_return":
            if a == fx(YES):                                           # G12
                self._on_top(self._threat_key(), self.scouted[p].pop(), [p])
        elif ph == "artyom":
            c = a - CARD
            other = [x for x in pd["cards"] if x != c][0]
            self._under(self._threat_key(), other, [p])                # G4
            self._fight_threat(p, pd["who"], pd["station"], c)
        elif ph == "capture":
            if a == fx(YES):
                s = pd["station"]
                cost = self._capture_cost(pd["taken"])
                for r in range(3):
                    self.res[p][r] -= cost[r]
                self._capture(p, s)
        elif ph == "free_station":
            self._capture(p, a - STATION)                              # G15
        elif ph == "defender":
            ctx = pd["ctx"]
            ctx["def_who"] = "hero" if a == fx(HEROF) else "army"
            self._push(["combat_deal", ctx])
        elif ph == "combat_pick":
            c = a - CARD
            side = pd["side"]
            self.combat["hands"][side].remove(c)
            self.combat["picks"][side] = [c]
        elif ph in ("take_equipment", "strip_equipment", "discard_equipment"):
            if a != fx(NO):
                c = a - CARD
                q = pd["from"]
                self.equipment[q].remove(c)
                if ph == "take_equipment":
                    self._gain_equipment(p, c)                         # G20: the winner takes it
                else:
                    self._discard(c)
                if ph == "discard_equipment":
                    self._push(["discard_equipment", q])               # still above the limit?
        elif ph == "hire":
            k = a - COUNT                                              # G10
            self.res[p][0] -= k
            self.res[p][2] -= k
            self.army[p] += k
        elif ph == "army":
            self._army_do(p, a)
        elif ph == "hero_move":
            if a >= g.COMPLETE:
                self._quest_do(p, a)
                self._push(["hero", p])
            else:
                self.hero_at[p] = a - STATION
                self._push(["hero_act", p])
        elif ph == "hero_act":
            self._hero_do(p, a)
        elif ph == "buy":
            if a == fx(REFRESH):                                       # G12: 1 bullet, new market
                self.res[p][2] -= 1
                for i in range(MARKET_SIZE):
                    if self.market[i] is not None:
                        self._discard(self.market[i])
                        self.market[i] = None
                self._refill_market()
                self._push(["buy", p, 0, 1])
            elif a == fx(DONE):
                pass
            else:
                c = a - CARD
                self.res[p][2] -= 1
                self.res[p][1] -= 1
                self.market[self.market.index(c)] = None
                self._refill_market()                                  # G27: the slot refills at once
                self._push(["buy", p, 1, pd["refreshed"]])
                self._gain_equipment(p, c)
        elif ph == "quest_keep":
            c = a - CARD
            self.quests[p].append(c)
            self.quests[p].sort()
            for x in pd["cards"]:
                if x != c:
                    self._discard(x)
        elif ph == "exchange_from":
            self._push(["exchange_to", p, a - RESOURCE])
        elif ph == "exchange_to":
            self._push(["exchange_amount", p, pd["from"], a - RESOURCE])
        elif ph == "exchange_amount":
            k = a - COUNT
            self.res[p][pd["from"]] -= k
            self.res[p][pd["to"]] = min(MAX_COUNT, self.res[p][pd["to"]] + k)
        elif ph == "stage2_equipment":
            c = a - CARD
            for x in pd["cards"]:
                if x != c:
                    self._discard(x)
            self._gain_equipment(p, c)                                 # G18
        else:
            raise AssertionError(ph)

    def _quest_do(self, p, a):
        g = self.game
        if a < g.USE:
            c = a - g.COMPLETE                                         # G16: shown, +1 VP
            self.quests[p].remove(c)
            self.done_quests[p].append(c)
            self.vp[p] += 1
        else:
            c = a - g.USE
            if c in self.quests[p]:
                self.quests[p].remove(c)                               # discarded to use it
                self._discard(c)
            else:
                self.res[p][2] -= 1                                    # 1 bullet, once a round
                self.quest_used[p].append(c)
            self._gain(p, self._card(c)["effects"])

    def _army_do(self, p, a):
        g = self.game
        if a >= g.COMPLETE:
            self._quest_do(p, a)
            self._push(["army", p])
        elif a >= RESOURCE:                                            # G11: forage
            amount = self._amount(self._effects(p), "forage", 1)
            r = a - RESOURCE
            self.res[p][r] = min(MAX_COUNT, self.res[p][r] + amount)
        elif a >= PLAYER:
            self._push(["combat_deal", {"kind": "hero", "att": p, "att_who": "army", "def": a - PLAYER,
                                        "def_who": "hero", "station": self.hero_at[a - PLAYER]}])
        else:
            self._attack_station(p, "army", a - STATION)

    def _hero_do(self, p, a):
        fx = self.game.fixed
        if a == fx(PASS):
            return
        if a == fx(BUY):
            self._push(["buy", p, 0, 0])
        elif a == fx(QUEST):
            self.res[p][2] -= 1
            self.res[p][1] -= 1
            drawn = [c for c in (self._draw("quest"), self._draw("quest")) if c is not None]
            self._decide("quest_keep", p, cards=sorted(drawn))
        elif a == fx(EXCHANGE):
            self._push(["exchange_from", p])
        elif a == fx(SCOUT):
            self.scouted[p] = [self._draw(self._threat_key())]         # G12
            self.scouted_round[p] = self.round
        elif a == fx(ATTACK):
            self._attack_station(p, "hero", self.hero_at[p])
        else:
            q = a - PLAYER
            self._push(["combat_deal", {"kind": "hero", "att": p, "att_who": "hero", "def": q,
                                        "def_who": "hero", "station": self.hero_at[q]}])

    def _attack_station(self, p, who, s):
        """G11, G12, G14: attack station s with p's army or hero."""
        q = self.owner[s]
        if q is not None:
            ctx = {"kind": "station", "att": p, "att_who": who, "def": q, "def_who": "army", "station": s}
            if self.hero_at[q] == s and not self.wounded[q]:
                self._push(["defender", q, ctx])                       # G20: the defender chooses
            else:
                self._push(["combat_deal", ctx])
        elif BOARD.kind[s] == "polis":                                 # G14: neutral Polis, 7
            mine = self.army_strength(p, "attack") if who == "army" else self.hero_strength(p, "attack")
            res = self._outcome(mine, POLIS_STRENGTH, self._wins_ties(p, who, "attack"), False)
            self._after_neutral(p, who, s, res, None)
        else:
            self._push(["neutral_attack", p, who, s])

    def _combat_strengths(self, ctx, ca, cd) -> tuple:
        """G20, G21: the attacker's and the defender's strength with cards ca and cd, and the
        outcome (+1 the attacker wins, -1 the defender, 0 a tie)."""
        att, q = ctx["att"], ctx["def"]
        ta, td = self._card(ca)["combat_type"], self._card(cd)["combat_type"]

        def power(p, who, when, own, opp):
            base = self.army_strength(p, when) if who == "army" else self.hero_strength(p, when)
            return base + strength_bonus(self._card(own)["effects"], vs=opp)
        a = power(att, ctx["att_who"], "attack", ca, td)
        d = power(q, ctx["def_who"], "defence", cd, ta)
        return a, d, self._outcome(a, d, self._wins_ties(att, ctx["att_who"], "attack"),
                                   self._wins_ties(q, ctx["def_who"], "defence"))

    def _fight_threat(self, p, who, s, c):
        """G14, G20: p attacks neutral station s; threat c (None: no threat left, G28) defends."""
        if c is None:
            self._after_neutral(p, who, s, 1, None)
            return
        t = self._card(c)
        mine = (self.army_strength(p, "attack") if who == "army"
                else self.hero_strength(p, "attack", vs=t["threat_type"]))
        res = self._outcome(mine, t["strength"], self._wins_ties(p, who, "attack"), False)
        self._discard(c)
        self._after_neutral(p, who, s, res, t)

    def _after_neutral(self, p, who, s, res, threat):
        self.last_fight = {"player": p, "who": who, "station": s, "result": res,
                           "threat": None if threat is None else threat["id"]}
        if res > 0:
            if threat is not None:
                self._gain(p, threat["reward"])
            self._offer_capture(p, s, False)
        elif res < 0:
            if who == "army":
                self.army[p] = max(1, self.army[p] - 1)
            else:
                self._wound(p)

    def _resolve_combat(self, ctx):
        """G20, G21: both sides add their combat card; then the outcome for each kind of fight."""
        att, q = ctx["att"], ctx["def"]
        ca, cd = self.combat["picks"]["att"][0], self.combat["picks"]["def"][0]
        a, d, res = self._combat_strengths(ctx, ca, cd)
        self.last_fight = {"attacker": att, "defender": q, "att_who": ctx["att_who"],
                           "def_who": ctx["def_who"], "station": ctx["station"], "cards": [ca, cd],
                           "strength": [a, d], "result": res}
        self.combat = None
        s = ctx["station"]
        winner, loser = (att, q) if res > 0 else (q, att)
        wwho, lwho = (ctx["att_who"], ctx["def_who"]) if res > 0 else (ctx["def_who"], ctx["att_who"])
        if res == 0:
            return
        if ctx["kind"] == "station":
            if res > 0:
                self._lose(q, s)
                if ctx["def_who"] == "hero":
                    self._wound(q)                                     # G25: after the loss
                self._offer_capture(att, s, True)
            elif ctx["att_who"] == "army":
                self.army[att] = max(1, self.army[att] - 1)
            else:
                self._wound(att)
                if self.equipment[att]:
                    self._push(["strip_equipment", q, att, 1])         # the winner discards one
            return
        # a fight against a hero (G20)
        if wwho == "hero" and lwho == "hero":
            self._wound(loser)
            if self.equipment[loser]:
                self._push(["take_equipment", winner, loser])
        elif res > 0:                                                  # an army beat the hero
            self._wound(q)
            if self.equipment[q]:
                self._push(["strip_equipment", att, q, 0])
        elif ctx["att_who"] == "army":
            self.army[att] = max(1, self.army[att] - 1)

    # ------------------------------------------------------------------------------------------
    # the agenda: tasks run until the next decision
    # ------------------------------------------------------------------------------------------
    def _advance(self):
        while self.phase is None:
            if not self.agenda:
                raise AssertionError("empty agenda")
            task = self.agenda.pop(0)
            self._run(task)
            if self.over:
                self.phase, self.decider, self.pending = "over", -1, {}
                return

    def _run(self, task):
        name, args = task[0], task[1:]
        n = self.n
        if name in ("draft_faction", "draft_hero"):
            self._decide(name, args[0])
        elif name == "setup":                                          # G7
            for p in range(n):
                fac = self._card(self.faction[p])
                for h in fac["home"]:
                    self.owner[BOARD.station(h)] = p
                self.vp[p] = START_VP
                self.army[p] = START_ARMY
                self._gain(p, fac["start_bonus"])
        elif name == "place_hero":
            p = args[0]
            self._decide("place_hero", p, options=[BOARD.station(h) for h in self._card(self.faction[p])["home"]])
        elif name == "round_start":
            self.round += 1
            tasks = []
            for ev in track_space(self.round):
                if ev == "law":
                    tasks.append(["law_event"])
                elif ev == "threat":
                    tasks += [["declare", p] for p in self._order()] + [["threat_reveal"]]
            produce = [e for e in track_space(self.round) if e in RESOURCES]
            if produce:
                tasks.append(["produce", produce, 2 if self.round == 1 else 1])
            order = self._order()
            # G29: every quest fulfilled can be completed after the events, after each army action
            # and after each hero action (the last one just before the end of the round)
            tasks += [["quest_check"]] + [["mobilise", p] for p in order]
            for step in ("army", "hero"):
                for p in order:
                    tasks += [[step, p], ["quest_check"]]
            tasks += [["end_round"]]
            self._push(*tasks)
        elif name == "produce":
            self._produce(*args)
        elif name == "polis_res":
            p, resources, amount = args
            self._decide("polis_res", p, resources=resources, amount=amount)
        elif name == "law_event":
            self._law_event()
        elif name == "vote":
            p = args[0]
            extra = self._amount(self._card(self.faction[p])["effects"], "votes", 0)   # G3
            self._decide("vote", p, votes=len(self.stations(p)) + extra)
        elif name == "law_result":
            v, self.vote = self.vote, None
            self.last_vote = v
            if v["for"] > v["against"]:                                # G9: a majority for
                if self.law is not None:
                    self._under("law", self.law, range(n))
                self.law = v["law"]
            else:
                self._under("law", v["law"], range(n))
        elif name == "declare":
            self._decide("declare", args[0])
        elif name == "threat_reveal":
            c = self._draw(self._threat_key())
            self.threat_now = c
            if c is None:                                              # G28: no threat left
                self.declared = [None] * n
                return
            self._push(*[["threat_fight", p] for p in self._order()], ["threat_done"])
        elif name == "threat_fight":
            self._threat_fight(args[0])
        elif name == "threat_done":
            self._discard(self.threat_now)
            self.last_threat = self.threat_now
            self.threat_now = None
            self.declared = [None] * n
        elif name == "mobilise":
            self._mobilise(args[0])
        elif name == "army":
            self._decide("army", args[0])
        elif name == "hero":
            p = args[0]
            if self.wounded[p]:
                self.wounded[p] = False                                # G20: misses this phase
            else:
                self._decide("hero_move", p)
        elif name == "hero_act":
            self._decide("hero_act", args[0])
        elif name == "neutral_attack":
            p, who, s = args
            if self.scouted[p] and self.scouted_round[p] < self.round:
                self._decide("scout_return", p)                        # G12, G34
                self.agenda.insert(0, ["neutral_fight", p, who, s])
            else:
                self._run(["neutral_fight", p, who, s])
        elif name == "neutral_fight":
            p, who, s = args
            key = self._threat_key()
            if who == "hero" and any(e["effect"] == "threat_choice" for e in self._card(self.hero[p])["effects"]):
                two = [c for c in (self._draw(key), self._draw(key)) if c is not None]
                if len(two) == 2:                                      # G4: Artyom
                    self._decide("artyom", p, cards=sorted(two), who=who, station=s)
                    return
                self._fight_threat(p, who, s, two[0] if two else None)
            else:
                self._fight_threat(p, who, s, self._draw(key))
        elif name == "capture":
            p, s, taken = args
            self._decide("capture", p, station=s, taken=taken)
        elif name == "free_station":
            p = args[0]
            if len(self.stations(p)) <= 2 and self._free_options(p):
                self._decide("free_station", p, options=self._free_options(p))
        elif name == "defender":
            self._decide("defender", args[0], ctx=args[1])
        elif name == "combat_deal":
            ctx = args[0]
            ids = sorted(self.game.of_type["combat"])                  # G21
            self._rng().shuffle(ids)
            self.combat = {"hands": {"att": sorted(ids[:3]), "def": sorted(ids[3:6])}, "aside": ids[6:],
                           "picks": {"att": [], "def": []}, "ctx": ctx}
            self._push(["combat_pick", "att"], ["combat_pick", "def"], ["combat_resolve"])
        elif name == "combat_pick":
            side = args[0]
            p = self.combat["ctx"][side]
            self._decide("combat_pick", p, side=side)
        elif name == "combat_resolve":
            self._resolve_combat(self.combat["ctx"])
        elif name in ("take_equipment", "strip_equipment"):
            p, q = args[0], args[1]
            if self.equipment[q]:
                forced = name == "strip_equipment" and bool(args[2])
                self._decide(name, p, cards=list(self.equipment[q]), forced=forced, **{"from": q})
        elif name == "discard_equipment":
            p = args[0]
            if len(self.equipment[p]) > self.equipment_limit():
                self._decide("discard_equipment", p, cards=list(self.equipment[p]), **{"from": p})
        elif name == "buy":
            p, bought, refreshed = args
            self._decide("buy", p, bought=bool(bought), refreshed=bool(refreshed))
        elif name == "exchange_from":
            self._decide("exchange_from", args[0])
        elif name == "exchange_to":
            self._decide("exchange_to", args[0], **{"from": args[1]})
        elif name == "exchange_amount":
            self._decide("exchange_amount", args[0], **{"from": args[1], "to": args[2]})
        elif name == "stage2_equipment":
            p = args[0]
            two = [c for c in (self._draw("equipment"), self._draw("equipment")) if c is not None]
            if two:
                self._decide("stage2_equipment", p, cards=sorted(two))
        elif name == "end_round":
            self._end_round()
        elif name == "quest_check":
            self._push(*[["quest_offer", p] for p in self._order()])
        elif name == "quest_offer":
            p = args[0]
            if self.quests[p]:                       # G38: every holder, fulfilled or not (G29)
                self._decide("quest_complete", p)
        else:
            raise AssertionError(f"unknown task {name!r}")

    def _produce(self, resources, amount):
        """G9: each station producing a shown resource gives its owner `amount` (G8: 2 at the
        START); a Polis station gives one shown resource of its owner's choice."""
        tasks = []
        for p in self._order():
            for s in self.stations(p):
                if BOARD.kind[s] in resources:
                    r = RESOURCES.index(BOARD.kind[s])
                    self.res[p][r] = min(MAX_COUNT, self.res[p][r] + amount)
                elif BOARD.kind[s] == "polis":
                    tasks.append(["polis_res", p, list(resources), amount])
        self._push(*tasks)

    def _law_event(self):
        """G9, G3, G31: reveal the top law (the Confederation of 1905 looks at two and picks)."""
        if not self.decks["law"]:
            return
        peek = [p for p in self._order() if self._has_faction(p, "law_peek")]
        if peek and len(self.decks["law"]) >= 2:
            self._decide("law_look", peek[0])                          # G31: "may" look
            return
        self._start_vote(self._draw("law"))

    def _has_faction(self, p, name) -> bool:
        return any(e["effect"] == name for e in self._card(self.faction[p])["effects"])

    def _start_vote(self, c):
        self.vote = {"law": c, "for": 0, "against": 0}
        self._push(*[["vote", p] for p in self._order()], ["law_result"])

    def _threat_fight(self, p):
        """G9: p's declared station and defender against the revealed threat: win = reward,
        lose = the station is lost, tie = nothing (G26)."""
        s, who = self.declared[p]
        if self.owner[s] != p:          # lost since the declaration: nothing left to defend there
            return
        if who == "hero" and (self.hero_at[p] != s or self.wounded[p]):
            who = "army"
        res = self._threat_outcome(p, who, self.threat_now)
        if res > 0:
            self._gain(p, self._card(self.threat_now)["reward"])
        elif res < 0:
            self._lose(p, s)

    def _threat_outcome(self, p, who, c) -> int:
        """G9, G20: +1 if p's `who` ("army" or "hero") defending beats threat c, -1 if it loses."""
        t = self._card(c)
        mine = self.army_strength(p, "defence") if who == "army" else self.hero_strength(p, "defence", vs=t["threat_type"])
        return self._outcome(mine, t["strength"], self._wins_ties(p, who, "defence"), False)

    def _upkeep_range(self, p) -> tuple:
        """G10, G33: the strengths p may keep: from the free strength (5, or a law's
        `upkeep_free`) up to what p's pigs pay for (a pig a point above the free strength)."""
        free = self._amount(self._effects(p), "upkeep_free", 5)
        return free, min(self.army[p], free + self.res[p][0])

    def _keep(self, p, keep):
        """G10: keep `keep` points of strength, paying a pig for each above the free strength;
        the rest are disbanded."""
        free = self._amount(self._effects(p), "upkeep_free", 5)
        self.res[p][0] -= max(0, keep - free)
        self.army[p] = keep

    def _mobilise(self, p):
        """G10, G33: upkeep (strength <= 5 free, each point above costs a pig; "if you can't or
        won't pay, disband": the strength kept is p's decision when p can pay for some), then
        hire: +1 per bullet + pig, up to 8."""
        free, most = self._upkeep_range(p)
        if self.army[p] > free:
            if most > free:
                self._decide("upkeep", p)
                return
            self._keep(p, most)
        self._hire(p)

    def _hire(self, p):
        k = min(self.res[p][0], self.res[p][2], MAX_ARMY - self.army[p])
        if k > 0:
            self._decide("hire", p, max=k)

    def _end_round(self):
        """G13: check G2; pass the first-player token left; advance the round token; stage 2."""
        n = self.n
        wins = [p for p in self._order()
                if self.vp[p] >= self.win_vp(p) or all(self.owner[s] == p for s in BOARD.polis)]
        if wins:
            self.winner = wins[0]                                      # G2: nearest the first
            self.over = True
            return
        if self.round >= self.game.round_limit:                        # G30
            self.over = True
            return
        for p in range(n):
            if self.scouted[p] and self.scouted_round[p] < self.round:   # G12: unused
                self._under(self._threat_key(), self.scouted[p].pop(), [p])
            self.quest_used[p] = []
        self.first = (self.first + 1) % n
        tasks = []
        if self.stage == 1 and max(self.vp) >= STAGE2_VP:              # G18
            self.stage = 2
            for c in self.decks["threat1"] + self.discards["threat1"]:
                self.known.pop(str(c), None)
            self.out += self.decks["threat1"] + self.discards["threat1"]
            self.decks["threat1"], self.discards["threat1"] = [], []
            for p in range(n):
                if self.scouted[p] and self._card(self.scouted[p][0])["stage"] == 1:
                    self.out.append(self.scouted[p].pop())
            tasks = [["stage2_equipment", p] for p in self._order()]
        self._push(*tasks, ["round_start"])


    # ------------------------------------------------------------------------------------------
    # what a player sees; determinisation (G32 for the hidden simultaneous choices)
    # ------------------------------------------------------------------------------------------
    HIDDEN_PENDING = ("law_peek", "artyom", "quest_keep", "stage2_equipment")

    def _declarations_open(self) -> bool:
        return self.threat_now is not None

    def observation(self, player: int) -> dict:
        """What `player` sees (JSON-ready): the board, tokens, resources, heroes, equipment, the
        law, completed quests, the market, discard piles, deck sizes and the public records;
        their own quests, scouted threat, combat cards and the deck cards they know the place of;
        of the others only counts, and of the threat declarations only who has declared until
        the threat is revealed (G32)."""
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.n:
            raise ValueError(f"player must be an int in 0..{self.n - 1}, got {player!r}")
        n = self.n
        pending = dict(self.pending)
        if self.phase in self.HIDDEN_PENDING and self.decider != player:
            pending["cards"] = len(pending.get("cards", ()))
        combat = None
        if self.combat is not None:
            combat = {"ctx": self.combat["ctx"], "aside": len(self.combat["aside"]), "hands": {}, "picks": {}}
            for side in ("att", "def"):
                mine = self.combat["ctx"][side] == player
                combat["hands"][side] = list(self.combat["hands"][side]) if mine else len(self.combat["hands"][side])
                combat["picks"][side] = list(self.combat["picks"][side]) if mine else len(self.combat["picks"][side])
        open_ = self._declarations_open()
        return {
            "player": player, "num_players": n, "round": self.round, "stage": self.stage,
            "first": self.first, "phase": self.phase, "current_player": self.current_player,
            "pending": pending, "agenda": [list(t) for t in self.agenda],
            "owner": list(self.owner), "vp": list(self.vp), "army": list(self.army),
            "resources": [list(r) for r in self.res], "factions": list(self.faction),
            "heroes": list(self.hero), "hero_at": list(self.hero_at), "wounded": list(self.wounded),
            "equipment": [list(e) for e in self.equipment], "done_quests": [list(q) for q in self.done_quests],
            "quest_used": [list(q) for q in self.quest_used],
            "quests": list(self.quests[player]), "quest_counts": [len(q) for q in self.quests],
            "scouted": list(self.scouted[player]), "scouting": [len(x) for x in self.scouted],
            "scouted_round": list(self.scouted_round),
            "declared": [d if (open_ or q == player) else (d is not None) for q, d in enumerate(self.declared)],
            "threat_now": self.threat_now, "combat": combat, "vote": self.vote,
            "market": list(self.market), "law": self.law,
            "discards": {k: list(v) for k, v in self.discards.items()}, "out": list(self.out),
            "deck_sizes": {k: len(v) for k, v in self.decks.items()},
            "deck_known": {k: [[i, c] for i, c in enumerate(v) if player in self.known.get(str(c), ())]
                           for k, v in self.decks.items()},
            "deck_known_by": {k: [[i, self.known.get(str(c), [])] for i, c in enumerate(v) if str(c) in self.known]
                              for k, v in self.decks.items()},
            "last_vote": self.last_vote, "last_threat": self.last_threat, "last_fight": self.last_fight,
            "terminal": self.over, "winner": self.winner,
        }

    def _hidden_positions(self, player) -> dict:
        """Per card pool, the places (container, index) whose card `player` cannot see."""
        pools = {k: [] for k in ("equipment", "quest", "law", "threat1", "threat2", "combat")}
        for key, deck in self.decks.items():
            pools[key] += [(deck, i) for i, c in enumerate(deck) if player not in self.known.get(str(c), ())]
        for q in range(self.n):
            if q != player:
                pools["quest"] += [(self.quests[q], i) for i in range(len(self.quests[q]))]
                for i, c in enumerate(self.scouted[q]):
                    pools[f"threat{self._card(c)['stage']}"].append((self.scouted[q], i))
        if self.phase in self.HIDDEN_PENDING and self.decider != player:
            key = {"law_peek": "law", "artyom": self._threat_key(), "quest_keep": "quest",
                   "stage2_equipment": "equipment"}[self.phase]
            pools[key] += [(self.pending["cards"], i) for i in range(len(self.pending["cards"]))]
        if self.combat is not None:
            cb = self.combat
            pools["combat"] += [(cb["aside"], i) for i in range(len(cb["aside"]))]
            for side in ("att", "def"):
                if cb["ctx"][side] != player:
                    for lst in (cb["hands"][side], cb["picks"][side]):
                        pools["combat"] += [(lst, i) for i in range(len(lst))]
        return pools

    def determinize(self, player: int, seed: int, model: bool = False) -> "RefMetro2033State":
        """A full state drawn uniformly from those `player` cannot tell from this one (with
        `model`, the others' secret choices drawn from the model of them: ``_model_choice``).

        With ``rng = splitmix64(seed)``: for each pool (equipment, quest, law, stage-1 threats,
        stage-2 threats, combat cards) the cards in the places `player` cannot see (deck places
        they do not know, the others' quests in hand and scouted threats, cards another player
        is choosing among, the others' combat cards and picks and the card aside) are sorted,
        shuffled and dealt back in place order; then each other player's threat declaration not
        yet revealed is redrawn uniformly among that player's declarations (G32). Hands (and the
        cards a player is choosing among) are re-sorted; the new state's generator is ``rng`` after
        all that (the true one is hidden). Everything `player` sees is kept."""
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.n:
            raise ValueError(f"player must be an int in 0..{self.n - 1}, got {player!r}")
        s = self.clone()
        rng = SplitMix64(seed)
        for key, places in s._hidden_positions(player).items():
            cards = sorted(lst[i] for lst, i in places)
            kn = [s.known.pop(str(lst[i]), None) for lst, i in places]
            rng.shuffle(cards)
            for (lst, i), c, k in zip(places, cards, kn):
                lst[i] = c
                if k is not None:
                    s.known[str(c)] = k
        for q in range(s.n):
            s.quests[q].sort()
        if s.phase in self.HIDDEN_PENDING:
            s.pending["cards"].sort()                  # the cards chosen among, ascending as dealt
        if s.combat is not None:
            for side in ("att", "def"):
                s.combat["hands"][side].sort()
        if not s._declarations_open():
            for q in s._order():
                if q != player and s.declared[q] is not None:
                    opts = s._declare_options(q)
                    if model:                   # an option scores as its defender does
                        deck = s.decks[s._threat_key()]
                        by_who = {who: sum(s._threat_outcome(q, who, c) for c in deck) for who in ("army", "hero")}
                        a = opts[s._model_choice(rng, [by_who["hero" if o >= STATION_HERO else "army"] for o in opts])]
                    else:
                        a = opts[rng.bounded(len(opts))]
                    s.declared[q] = [a % S, "hero" if a >= STATION_HERO else "army"]
        cb = s.combat
        if model and cb is not None and cb["picks"]["att"] and cb["ctx"]["att"] != player:
            own = sorted(cb["hands"]["att"] + cb["picks"]["att"])
            answers = [c for c in self.game.of_type["combat"] if c not in own]
            pick = own[s._model_choice(rng, [sum(s._combat_strengths(cb["ctx"], c, d)[2] for d in answers) for c in own])]
            cb["picks"]["att"] = [pick]
            cb["hands"]["att"] = [c for c in own if c != pick]
        s.rng_state = rng.state
        s.history = []
        return s

    @staticmethod
    def _model_choice(rng, values) -> int:
        """The model of a player's secret choice (#44): the index of one of `values` (each
        choice's wins less losses against the answers the player cannot know), drawn with `rng`:
        1 time in 4 any, uniformly, else one of the best, uniformly."""
        if rng.bounded(4) == 0:
            return rng.bounded(len(values))
        best = [i for i, v in enumerate(values) if v == max(values)]
        return best[rng.bounded(len(best))]

    def _declare_options(self, p) -> list[int]:
        """G9: one of p's stations, defended by the army, or by the hero standing there."""
        acts = [STATION + s for s in self.stations(p)]
        if self.hero_at[p] is not None and self.owner[self.hero_at[p]] == p and not self.wounded[p]:
            acts.append(STATION_HERO + self.hero_at[p])
        return acts

    def observed_action(self, action: int, player: int) -> int:
        """How `player` sees `action` taken now by the player to move (G32, G38): exactly what
        the move shows them. The action itself for the mover and for every public move; for the
        others a threat declaration reads as a declaration at station 0, unless it is the last
        and the threat is revealed at once (the declarations open then: seen as it is); the
        attacker's combat-card pick as the pick of the first combat card (the defender's is seen
        as it is: both reveal at once, G21); the quest kept (G16: secret) as the card put face
        up on the discard pile (G27), or the first quest card when only one was drawn. (The law
        put to the vote, the threat Artyom fights and the equipment kept in G18 are shown, so
        those moves are public.)"""
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.n:
            raise ValueError(f"player must be an int in 0..{self.n - 1}, got {player!r}")
        if self.over or action not in self._legal():
            raise ValueError(f"action {action!r} is not legal now")
        if player == self.decider:
            return action
        if self.phase == "declare":
            key = self._threat_key()
            revealed = self.agenda[0][0] == "threat_reveal" and bool(self.decks[key] or self.discards[key])
            return action if revealed else STATION
        if self.phase == "combat_pick":
            return CARD + min(self.game.of_type["combat"]) if self.pending["side"] == "att" else action
        if self.phase == "quest_keep":
            other = [c for c in self.pending["cards"] if c != action - CARD]
            return CARD + (other[0] if other else min(self.game.of_type["quest"]))
        return action

    # ------------------------------------------------------------------------------------------
    # JSON
    # ------------------------------------------------------------------------------------------
    FIELDS = ("n", "rng_state", "decks", "known", "discards", "out", "market", "law", "owner",
              "faction", "hero", "hero_at", "wounded", "vp", "army", "res", "equipment", "quests",
              "done_quests", "quest_used", "scouted", "scouted_round", "declared", "threat_now",
              "combat", "vote", "last_vote", "last_threat", "last_fight", "round", "first", "stage",
              "over", "winner", "phase", "decider", "pending", "agenda", "history")

    def _data(self) -> dict:
        return {f: getattr(self, f) for f in self.FIELDS}

    def to_json(self) -> str:
        g = self.game
        return json.dumps({"game": "metro2033-reference", "players": self.n, "cards": g.card_file,
                           "strict_counts": g.strict_counts, "round_limit": g.round_limit,
                           "state": self._data()}, sort_keys=True)

    @classmethod
    def from_json(cls, game: RefMetro2033Game, text: str) -> "RefMetro2033State":
        """Rebuild a state of `game`; ValueError saying what is wrong (nothing half-built)."""
        try:
            doc = json.loads(text)
        except (TypeError, json.JSONDecodeError) as e:
            raise ValueError(f"state: not JSON: {e}") from None
        if not isinstance(doc, dict) or doc.get("game") != "metro2033-reference":
            raise ValueError("state: expected an object with game 'metro2033-reference'")
        if doc.get("players") != game.num_players:
            raise ValueError(f"state: {doc.get('players')!r} players, the game has {game.num_players}")
        data = doc.get("state")
        if not isinstance(data, dict) or set(data) != set(cls.FIELDS):
            got = sorted(data) if isinstance(data, dict) else data
            raise ValueError(f"state: field 'state' must have exactly the keys {sorted(cls.FIELDS)}, got {got!r}")
        st = cls.__new__(cls)
        st.__dict__.update(json.loads(json.dumps(data)))
        st.game = game
        st._check()
        return st

    def _check(self):
        """The invariants a loaded state must meet, so that it can be played to the end."""
        n, g = self.n, self.game

        def bad(msg):
            raise ValueError(f"state: {msg}")
        if n != g.num_players:
            bad(f"field 'n': {n!r}, the game has {g.num_players} players")
        for f in ("vp", "army", "res", "faction", "hero", "hero_at", "wounded", "equipment", "quests",
                  "done_quests", "quest_used", "scouted", "scouted_round", "declared"):
            if not isinstance(getattr(self, f), list) or len(getattr(self, f)) != n:
                bad(f"field {f!r}: expected a list of {n} entries")
        if not isinstance(self.owner, list) or len(self.owner) != S or any(
                o is not None and (isinstance(o, bool) or not isinstance(o, int) or not 0 <= o < n) for o in self.owner):
            bad(f"field 'owner': expected {S} entries, each null or a player 0..{n - 1}")
        for p in range(n):
            if isinstance(self.army[p], bool) or not isinstance(self.army[p], int) or not 0 <= self.army[p] <= MAX_ARMY:
                bad(f"field 'army': player {p}: {self.army[p]!r} is not 0..{MAX_ARMY}")
            r = self.res[p]
            if not isinstance(r, list) or len(r) != 3 or any(
                    isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= MAX_COUNT for x in r):
                bad(f"field 'res': player {p}: expected 3 counts 0..{MAX_COUNT}, got {r!r}")
            at = self.hero_at[p]
            if at is not None and (isinstance(at, bool) or not isinstance(at, int) or not 0 <= at < S):
                bad(f"field 'hero_at': player {p}: {at!r} is not a station")
        for f, ids in (("faction", g.factions), ("hero", g.heroes)):
            vals = [v for v in getattr(self, f) if v is not None]
            if any(v not in ids for v in vals) or len(set(vals)) != len(vals):
                bad(f"field {f!r}: {getattr(self, f)!r} are not distinct {f} cards")
        # every card of the decks' kinds in exactly one place
        places: list = []
        for v in list(self.decks.values()) + list(self.discards.values()):
            places += v
        places += self.out + [c for c in self.market if c is not None]
        places += [c for c in (self.law, self.threat_now) if c is not None]
        places += [self.vote["law"]] if isinstance(self.vote, dict) else []
        for p in range(n):
            places += self.equipment[p] + self.quests[p] + self.done_quests[p] + self.scouted[p]
        if self.phase in self.HIDDEN_PENDING:
            places += list(self.pending.get("cards", []))
        expected = sorted(c for t in ("threat", "equipment", "quest", "law") for c in g.of_type[t])
        if sorted(x for x in places if not isinstance(x, bool) and isinstance(x, int)) != expected or \
                len(places) != len(expected):
            bad("the threat, equipment, quest and law cards must each be in exactly one place")
        if self.combat is not None:
            cb = self.combat
            got = sorted(cb["aside"] + [c for side in ("att", "def") for c in cb["hands"][side] + cb["picks"][side]])
            if got != sorted(g.of_type["combat"]):
                bad("the combat cards must each be in exactly one place during a fight")
        if not isinstance(self.agenda, list):
            bad("field 'agenda': expected a list of tasks")
        for t in self.agenda:
            if not isinstance(t, list) or not t or TASKS.get(t[0]) != len(t) - 1:
                bad(f"field 'agenda': {t!r} is not a task (known: {', '.join(sorted(TASKS))})")
            if t[0] not in ("produce", "combat_deal", "combat_pick") and len(t) > 1 and (
                    isinstance(t[1], bool) or not isinstance(t[1], int) or not 0 <= t[1] < n):
                bad(f"field 'agenda': task {t!r} names no player 0..{n - 1}")
        names = {t[0] for t in self.agenda} | {self.phase}
        for needs, field, value in ((("combat_pick", "combat_resolve"), "combat", self.combat),
                                    (("vote", "law_result"), "vote", self.vote),
                                    (("threat_fight", "threat_done"), "threat_now", self.threat_now)):
            if names & set(needs) and value is None:
                bad(f"field {field!r}: null while {sorted(names & set(needs))} is pending")
        if self.over:
            if self.phase != "over":
                bad("a finished game has phase 'over'")
            return
        try:
            legal = self._legal()
        except (KeyError, TypeError, IndexError, AttributeError, AssertionError, ValueError) as e:
            bad(f"phase {self.phase!r} with pending {self.pending!r} is not a decision: {e!r}")
        if not legal or not 0 <= self.decider < n:
            bad(f"phase {self.phase!r}: player {self.decider!r} has no legal action")
        p = self.decider
        if self.phase == "upkeep" and (len(legal) < 2 or self.army[p] <= self._upkeep_range(p)[0]):
            bad("phase 'upkeep': the strength kept is a decision only above the free strength, "
                "with a pig to pay (G33)")
        if self.phase == "quest_complete" and not self.quests[p]:
            bad("phase 'quest_complete': the player holds no uncompleted quest (G29, G38)")
        if self.phase == "law_look" and (not self._has_faction(p, "law_peek") or len(self.decks["law"]) < 2):
            bad("phase 'law_look': the player may not look at two laws (G3, G31)")

    # ------------------------------------------------------------------------------------------
    # action texts
    # ------------------------------------------------------------------------------------------
    def action_to_string(self, a: int) -> str:
        g = self.game
        if isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < g.num_distinct_actions():
            return f"<not an action: {a!r}>"
        if a < STATION_HERO:
            return f"station {BOARD.names[a]}"
        if a < FACTION:
            return f"hero defends {BOARD.names[a - STATION_HERO]}"
        if a < HERO:
            return f"faction {self._card(g.factions[a - FACTION])['name']}" if a - FACTION < len(g.factions) else f"faction #{a - FACTION}"
        if a < PLAYER:
            return f"hero {self._card(g.heroes[a - HERO])['name']}" if a - HERO < len(g.heroes) else f"hero #{a - HERO}"
        if a < RESOURCE:
            return f"player {a - PLAYER}"
        if a < COUNT:
            return f"resource {RESOURCES[a - RESOURCE]}"
        if a < CARD:
            return f"count {a - COUNT}"
        if a < g.FIXED:
            block, c = divmod(a - CARD, g.C)
            return f"{('card', 'complete', 'use')[block]} {self._card(c)['name']}"
        return FIXED_NAMES[a - g.FIXED]

    def string_to_action(self, text: str) -> int:
        """The legal action whose text is `text` (case and spaces aside); ValueError if none."""
        want = " ".join(str(text).lower().split())
        for a in self.legal_actions():
            if self.action_to_string(a).lower() == want:
                return a
        raise ValueError(f"no legal action matches {text!r} in phase {self.phase!r}")

    def __repr__(self):
        return (f"RefMetro2033State(round={self.round}, stage={self.stage}, phase={self.phase}, "
                f"decider={self.current_player}, vp={self.vp})")


class _Bound(SplitMix64):
    """The state's generator, writing its state back after every draw."""

    def __init__(self, st):
        self.st = st
        super().__init__(st.rng_state)

    def next(self) -> int:
        v = super().next()
        self.st.rng_state = self.state
        return v

"""Tunnel Draft: a small card game written in plain Python, to show how a game joins metro-ai
without Cython (``metro_ai.engine.python_game``; docs/dev/adding-a-game.md).

Rules (written for this project; ``T1``..``T6`` name them):

- T1 The deck has four lines (red, blue, green, yellow), each with cards of value 1 to
  ``values`` (option, default 5): 20 cards. It is shuffled from the deal's seed and each of the
  2 to 4 players is dealt a hidden hand of 3 cards.
- T2 On your turn, take a card from your hand and either *play* it face up at the end of your
  tunnel, or *bury* it face down (only you know which card it was; the others see that a card
  was buried). Then draw the top card of the deck, if any is left (only you see it).
- T3 Turns go round the table from seat 0; a player whose hand is empty is passed over. The game
  ends when every hand is empty (every card has been played or buried).
- T4 A *run* is a stretch of consecutive cards of one line in a tunnel. A run of two or more cards
  scores the sum of their values; a run of one card scores nothing.
- T5 The first player whose run of one line reaches three cards takes that line's station:
  5 points. Each line has one station.
- T6 Players are ranked by their points (ties share their places).

Hidden information (hands, buried cards, the deck order) and chance (the deal, the draws) make
determinisation matter: ISMCTS, PIMC and MO-ISMCTS search it (a burial is seen by the other
players as "bury", one action for every card: ``_observed_action``).

Use it with ``metro_ai.register_game("examples/tunnel_draft.py:TunnelDraftGame")`` or, on the
command line, ``metro-ai --game-module examples/tunnel_draft.py:TunnelDraftGame match --game
tunnel-draft --bots ismcts random``. ISMCTS searches it at about 15,000 iterations a second, 10 to
200 times slower than on the Cython games (docs/dev/adding-a-game.md says when to move a game to
Cython).
"""
from __future__ import annotations

import random

import numpy as np

from metro_ai.engine.core import as_seed
from metro_ai.engine.errors import StateFormatError
from metro_ai.engine.options import Option
from metro_ai.engine.python_game import PythonGame, PythonState

LINES = ("red", "blue", "green", "yellow")
HAND = 3
STATION_RUN = 3
STATION_POINTS = 5


class TunnelDraftFeatures:
    """What one player of Tunnel Draft sees as a float32 vector (``state.observation_tensor``;
    what ``metro-ai train`` fits an evaluator on), built from ``observation(player)`` alone, seats
    relative to the viewer (0 the viewer, 1 the next, ...), every value in [0, 1]:

    ``cards``  C cards x 6: in the viewer's hand, buried by the viewer, in the tunnel of relative
               seat 0-3
    ``seats``  per relative seat (4): points / 40, cards in hand / 3, cards buried / C, stations / 4
    ``turn``   cards in the deck / C, the player to move (relative seat, one-hot, 4)
    """

    def __init__(self, game):
        self.C = game.cards
        self.sections = [("cards", self.C * 6), ("seats", 4 * 4), ("turn", 1 + 4)]
        self.size = sum(k for _, k in self.sections)

    @property
    def shape(self):
        return (self.size,)

    def encode(self, obs):
        me, n, C = obs["player"], len(obs["tunnels"]), self.C
        cards = np.zeros((C, 6), np.float32)
        cards[obs["hand"], 0] = 1
        cards[obs["buried"], 1] = 1
        for p, tunnel in enumerate(obs["tunnels"]):
            cards[tunnel, 2 + (p - me) % n] = 1
        seats = np.zeros((4, 4), np.float32)
        for p in range(n):
            seats[(p - me) % n] = (min(obs["scores"][p], 40) / 40, obs["hand_sizes"][p] / HAND,
                                   obs["buried_counts"][p] / C, obs["stations"].count(p) / len(LINES))
        turn = np.zeros(5, np.float32)
        turn[0] = obs["deck_size"] / C
        if obs["turn"] >= 0:
            turn[1 + (obs["turn"] - me) % n] = 1
        return np.concatenate([cards.ravel(), seats.ravel(), turn])


class TunnelDraftGame(PythonGame):
    """Tunnel Draft (see the module docstring). Card ``c`` is line ``c // values``, value
    ``c % values + 1``; action ``c`` plays card ``c``, action ``cards + c`` buries it."""
    name = "tunnel-draft"
    title = "Tunnel Draft (a pure-Python example game)"
    family = "example"
    min_players = 2
    max_players = 4
    OPTIONS = (
        Option.integer("players", 2, "number of players", low=2, high=4, rule="T1"),
        Option.integer("values", 5, "cards per line, valued 1 to this", low=3, high=9, rule="T1"),
    )
    state_fields = ("deck", "hands", "tunnels", "buried", "stations", "turn")
    features = TunnelDraftFeatures          # observation tensors, for metro-ai train
    benchmark_moves = {"opening": 0, "middle": 6, "end": 12}

    def _configure(self):
        self.values = self.options["values"]
        self.cards = len(LINES) * self.values

    @property
    def num_distinct_actions(self):
        return 2 * self.cards

    @property
    def max_game_length(self):
        return self.cards

    @property
    def max_actions(self):
        return 2 * HAND

    def card_name(self, card):
        return f"{LINES[card // self.values]} {card % self.values + 1}"

    def _action_text(self, action):
        verb = "play" if action < self.cards else "bury"
        return f"{verb} {self.card_name(action % self.cards)}"

    def new_state(self, seed=0):
        """A new game: the deck shuffled from `seed` (any int), three cards dealt to each."""
        deck = list(range(self.cards))
        random.Random(as_seed(seed)).shuffle(deck)
        st = TunnelDraftState(self)
        st.hands = [sorted(deck.pop() for _ in range(HAND)) for _ in range(self.players)]
        st.deck = deck
        return st

    def _load_state(self, obj):
        def bad(msg):
            raise StateFormatError(f"{self.name} state: {msg}")
        n, cards = self.players, self.cards

        def card_list(value, what, size=None):
            if not isinstance(value, list) or any(isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < cards
                                                  for c in value):
                bad(f"{what} must be a list of cards (ints in 0..{cards - 1})")
            if size is not None and len(value) > size:
                bad(f"{what} holds {len(value)} cards, more than {size}")
            return list(value)

        def per_player(key):
            value = obj[key]
            if not isinstance(value, list) or len(value) != n:
                bad(f"{key} must be a list of {n} lists, one per player")
            return value

        st = TunnelDraftState(self)
        st.deck = card_list(obj["deck"], "deck")
        st.hands = [card_list(h, f"hands[{p}]", HAND) for p, h in enumerate(per_player("hands"))]
        st.tunnels = [card_list(t, f"tunnels[{p}]") for p, t in enumerate(per_player("tunnels"))]
        st.buried = [card_list(b, f"buried[{p}]") for p, b in enumerate(per_player("buried"))]
        every = st.deck + [c for zone in (st.hands, st.tunnels, st.buried) for part in zone for c in part]
        if sorted(every) != list(range(cards)):
            bad(f"the deck, hands, tunnels and buried cards must hold each of the {cards} cards once")
        if st.hands != [sorted(h) for h in st.hands]:
            bad("each hand must be sorted")
        if st.deck and any(len(h) != HAND for h in st.hands):
            bad(f"while the deck has cards, every hand holds {HAND} (T2)")
        stations = obj["stations"]
        if not isinstance(stations, list) or len(stations) != len(LINES) or \
                any(isinstance(s, bool) or not isinstance(s, int) or not -1 <= s < n for s in stations):
            bad(f"stations must be a list of {len(LINES)} owners (a seat, or -1 for none)")
        for line, owner in enumerate(stations):
            reached = [p for p in range(n) if st.longest_run(p, line) >= STATION_RUN]
            if (owner == -1) != (not reached) or (owner != -1 and owner not in reached):
                bad(f"the {LINES[line]} station's owner {owner} does not match the tunnels (T5)")
        st.stations = list(stations)
        turn = obj["turn"]
        over = not any(st.hands)
        if isinstance(turn, bool) or not isinstance(turn, int) or (over and turn != -1) or \
                (not over and not (0 <= turn < n and st.hands[turn])):
            bad(f"turn must be a seat with cards in hand, or -1 once every hand is empty, got {turn!r}")
        st.turn = turn
        return st


class TunnelDraftState(PythonState):
    """A position of Tunnel Draft: the deck (drawn from its end), hands, tunnels, buried cards,
    station owners and the seat to move."""

    def __init__(self, game):
        super().__init__(game)
        n = game.players
        self.deck: list[int] = []
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.tunnels: list[list[int]] = [[] for _ in range(n)]
        self.buried: list[list[int]] = [[] for _ in range(n)]
        self.stations = [-1] * len(LINES)
        self.turn = 0

    # ---- the moves ----
    def _current_player(self):
        return self.turn

    def _legal_actions(self):
        if self.turn < 0:
            return []
        hand = self.hands[self.turn]
        return hand + [self.game.cards + c for c in hand]

    def _apply_action(self, action):
        g, p = self.game, self.turn
        card = action % g.cards
        self.hands[p].remove(card)
        if action < g.cards:                                      # T2: play
            self.tunnels[p].append(card)
            line = card // g.values
            if self.stations[line] == -1 and self.run_end(p) >= STATION_RUN:
                self.stations[line] = p                           # T5
        else:                                                     # T2: bury
            self.buried[p].append(card)
        if self.deck:
            self.hands[p].append(self.deck.pop())
            self.hands[p].sort()
        n = g.players
        for k in range(1, n + 1):                                 # T3
            q = (p + k) % n
            if self.hands[q]:
                self.turn = q
                return
        self.turn = -1

    def _observed_action(self, action, player):
        if action >= self.game.cards and player != self.turn:
            return self.game.cards                                # "bury" (T2)
        return action

    # ---- scores ----
    def run_end(self, p):
        """The length of the run at the end of player `p`'s tunnel."""
        t, g = self.tunnels[p], self.game
        k = 0
        while k < len(t) and t[-1 - k] // g.values == t[-1] // g.values:
            k += 1
        return k

    def longest_run(self, p, line):
        best = k = 0
        for c in self.tunnels[p]:
            k = k + 1 if c // self.game.values == line else 0
            best = max(best, k)
        return best

    def _scores(self):
        g = self.game
        out = []
        for p in range(g.players):
            points, run, total = 0, 0, 0
            prev = None
            for c in self.tunnels[p] + [None]:                    # T4
                line = None if c is None else c // g.values
                if line != prev:
                    points += total if run >= 2 else 0
                    run, total = 0, 0
                if c is not None:
                    run, total = run + 1, total + c % g.values + 1
                prev = line
            points += STATION_POINTS * self.stations.count(p)     # T5
            out.append(points)
        return out

    # ---- copies and hidden information ----
    def _copy_from(self, other):
        self.deck = other.deck[:]
        self.hands = [h[:] for h in other.hands]
        self.tunnels = [t[:] for t in other.tunnels]
        self.buried = [b[:] for b in other.buried]
        self.stations = other.stations[:]
        self.turn = other.turn

    def _determinize(self, player, seed):
        """Redeal what `player` has not seen (the deck, the other hands, the others' buried
        cards) uniformly from `seed`, keeping every count."""
        n = self.game.players
        unseen = sorted(self.deck + [c for q in range(n) if q != player for c in self.hands[q] + self.buried[q]])
        random.Random(seed).shuffle(unseen)
        for q in range(n):
            if q != player:
                k, m = len(self.hands[q]), len(self.buried[q])
                self.hands[q] = sorted(unseen[:k])
                self.buried[q] = unseen[k:k + m]
                del unseen[:k + m]
        self.deck = unseen

    # ---- JSON and text ----
    def _state_fields(self):
        return {"deck": self.deck[:], "hands": [h[:] for h in self.hands], "tunnels": [t[:] for t in self.tunnels],
                "buried": [b[:] for b in self.buried], "stations": self.stations[:], "turn": self.turn}

    def observation(self, player):
        """What `player` sees: every tunnel, the stations, the counts of cards in hands, buried
        and in the deck, and their own hand and buried cards."""
        self._check_player(player)
        return {"game": self.game.name, "options": self.game.state_options, "player": player,
                "hand": self.hands[player][:], "buried": self.buried[player][:],
                "tunnels": [t[:] for t in self.tunnels], "stations": self.stations[:],
                "hand_sizes": [len(h) for h in self.hands], "buried_counts": [len(b) for b in self.buried],
                "deck_size": len(self.deck), "turn": self.turn, "scores": self._scores()}

    def render(self, player=None):
        g = self.game
        lines = [f"Tunnel Draft, {len(self.deck)} cards in the deck, "
                 + ("over" if self.turn < 0 else f"player {self.turn} to move")]
        for p in range(g.players):
            hand = ", ".join(g.card_name(c) for c in self.hands[p]) if player in (None, p) \
                else f"{len(self.hands[p])} cards"
            tunnel = ", ".join(g.card_name(c) for c in self.tunnels[p]) or "-"
            lines.append(f"  player {p}: tunnel {tunnel}; hand {hand}; {len(self.buried[p])} buried; "
                         f"{self._scores()[p]} points")
        return "\n".join(lines)

    def _summary(self):
        return f"{self.game.name}, " + ("over" if self.turn < 0 else f"player {self.turn} to move") + \
            f", {len(self.deck)} cards in the deck"

"""Independent pure-Python reference engine for Leduc poker (rules L1-L8, ``docs/rules/leduc.md``).

The oracle the Cython engine (``rules.pyx``) is tested against where OpenSpiel is not installed,
and the slow side of ``metro-ai bench``'s engine comparison. It imports nothing from
``metro_ai`` but the references' pure-Python generator (``engine/splitmix.py``) and keeps the
state as plain Python values; clarity beats speed. OpenSpiel's
``leduc_poker`` is the other oracle (``tests/leduc/test_leduc_openspiel.py``).

Determinism (must match the Cython engine bit for bit): the cards ``0 .. 2 * (players + 1) - 1``
(rank ``card // 2``) are shuffled with splitmix64 and Fisher-Yates from the end (see
:class:`SplitMix64`); player ``p`` holds card ``p`` of the shuffled deck, the public card is
card ``players``. Actions: 0 fold, 1 call, 2 raise.
"""
from __future__ import annotations

from metro_ai.engine.splitmix import SplitMix64

FOLD, CALL, RAISE = 0, 1, 2
ANTE = 1
RAISE_AMOUNTS = (2, 4)        # L5: first round, second round
MAX_RAISES = 2                # L5


class RefLeducGame:
    """Leduc poker for `players` players (L1)."""

    def __init__(self, players: int = 2):
        if not 2 <= players <= 8:
            raise ValueError(f"players must be 2..8, got {players!r}")
        self.players = players
        self.num_cards = 2 * (players + 1)     # L2

    def new_state(self, seed: int = 0) -> RefLeducState:
        deck = list(range(self.num_cards))
        SplitMix64(seed).shuffle(deck)
        return RefLeducState(self.players, deck[:self.players], deck[self.players])


class RefLeducState:
    """One hand: cards, bets and the history of each betting round."""

    def __init__(self, players: int, cards: list[int], public_card: int):
        self.players = players
        self.cards = list(cards)
        self.public_card = public_card
        self.spent = [ANTE] * players          # L3
        self.folded = [False] * players
        self.history: list[list[int]] = [[], []]
        self.round = 0
        self.current_player = 0

    def clone(self) -> RefLeducState:
        other = RefLeducState(self.players, self.cards, self.public_card)
        other.spent, other.folded = list(self.spent), list(self.folded)
        other.history = [list(h) for h in self.history]
        other.round, other.current_player = self.round, self.current_player
        return other

    def is_terminal(self) -> bool:
        return self.current_player == -1

    def _stake(self) -> int:
        return max(self.spent)

    def _raises(self) -> int:
        return self.history[self.round].count(RAISE)

    def legal_actions(self) -> list[int]:
        if self.is_terminal():
            return []
        out = []
        if self.spent[self.current_player] < self._stake():
            out.append(FOLD)                   # fold only facing a bet (L5)
        out.append(CALL)
        if self._raises() < MAX_RAISES:
            out.append(RAISE)
        return out

    def _round_over(self) -> bool:
        """Every player still in has acted since the last raise (the raiser included) and has
        put in the stake (L5)."""
        h = self.history[self.round]
        last_raise = max((i for i, a in enumerate(h) if a == RAISE), default=-1)
        answered = sum(1 for a in h[last_raise + 1:] if a == CALL) + (1 if last_raise >= 0 else 0)
        return answered >= self.players - sum(self.folded)

    def _next(self, p: int) -> int:
        for i in range(1, self.players + 1):
            q = (p + i) % self.players
            if not self.folded[q]:
                return q
        raise AssertionError("nobody left")

    def apply(self, action: int) -> None:
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action!r}")
        p = self.current_player
        self.history[self.round].append(action)
        if action == FOLD:
            self.folded[p] = True
            if self.players - sum(self.folded) == 1:
                self.current_player = -1
                return
        elif action == CALL:
            self.spent[p] = self._stake()
        else:
            self.spent[p] = self._stake() + RAISE_AMOUNTS[self.round]
        if self._round_over():
            if self.round == 1:
                self.current_player = -1       # showdown (L7)
                return
            self.round = 1                     # the public card is shown (L6)
            self.current_player = self._next(self.players - 1)
            return
        self.current_player = self._next(p)

    def _value(self, p: int) -> int:
        rank = self.cards[p] // 2
        return 100 + rank if rank == self.public_card // 2 else rank      # L7

    def chips(self) -> list[float]:
        """Chips won (the pot shared by the best hands less what each put in) at the end; minus
        what each has put in before it."""
        out = [-float(s) for s in self.spent]
        if not self.is_terminal():
            return out
        live = [p for p in range(self.players) if not self.folded[p]]
        best = max(self._value(p) for p in live)
        winners = [p for p in live if self._value(p) == best]
        for p in winners:
            out[p] += sum(self.spent) / len(winners)
        return out

    def returns(self) -> list[float]:
        """Chips mapped onto [0, 1]: 1/2 + chips / (2 * 13 * (players - 1)); zeros before the end."""
        if not self.is_terminal():
            return [0.0] * self.players
        return [0.5 + c / (26.0 * (self.players - 1)) for c in self.chips()]

    def scores(self) -> list[float]:
        return self.chips()

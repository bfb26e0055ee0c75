"""Independent pure-Python reference engine for the *Metro* solo game (City Edition module 4, C4).

Written from the rules text (the Metro: City Edition rulebook, "Módulo de Expansão 4 – O Jogo Solo") and the project's
readings in ``docs/rules/metro.md`` (C4, decisions C20-C25), on the base reference's board, tiles
and line tracing (``reference.py``) with the companies' chart (``reference_companies.read_chart``).
Like them it imports nothing from ``metro_ai``; the fast engine (``solo.pyx``) is differentially
tested against it.

* Set-up (C20): one splitmix64 from the seed shuffles the 60 tiles (kinds ascending) and then the
  companies 0..7 (the colour deck); the two front tiles go face up; the generator goes on in the
  state; the top share is revealed.
* Turn (C21): put one face-up tile (any rotation under M9) on the open end of a line of the
  revealed share's company; M6 among those placements, with its exception per tile kind; refill
  the row to two while the supply lasts; reveal the next share, passing over companies with no
  open line; an empty deck is refilled by shuffling the revealed shares (in the order revealed).
* Reject (C22; "até que a pilha de compra seja esgotada pela primeira vez": until the draw pile
  first runs out, so not on the turn of the 8th reveal, which empties it): once a turn, while a
  share of the first deck is still face down and the supply has a middle (2 tiles or more): the
  tile goes back "no meio das peças na torre", at index ``1 + bounded(n - 1)`` (n tiles left,
  0 = front; so some tile lies above it and some below), and the front tile comes up. The log
  keeps (kind, how many of that kind the supply holds after). Action ``6145 + kind``.
* End (C23): no face-up tile or no open line. Score (C24): the sum of the companies' profits;
  returns: score / 480 at the end.
"""

from __future__ import annotations

from .reference import (ENTRY_PORT, NUM_KINDS, ROTATED_EXITS, STATIONS, TILE_COUNTS, SplitMix64, candidate_squares,
                        is_one_tile_violation, neighbour, place_action, square_of, trace_line)
from .reference_companies import read_chart

REJECT = 6145
MAXIMUM = 480


def open_end(board, station):
    """The empty square an open line waits on, or None if the line is finished."""
    row, col, port, _ = STATIONS[station]
    square = square_of(row, col)
    while True:
        if board[square] is None:
            return square
        out = ROTATED_EXITS[board[square][0]][board[square][1]][port]
        nxt = neighbour(square, out // 2)
        if nxt is None or nxt in (27, 28, 35, 36):
            return None
        square, port = nxt, ENTRY_PORT[out]


class RefSoloGame:
    """The solo game: ``orientation`` (M9 when False), ``chart`` (M11)."""

    def __init__(self, orientation=True, chart=None):
        self.orientation = orientation
        self.players = 1
        self.chart = read_chart(chart)
        self.owner_of_station = {n: k for k, ns in self.chart.items() for n in ns}

    def rotations(self, kind):
        if self.orientation:
            return [0]
        seen, out = [], []
        for r in range(4):
            if ROTATED_EXITS[kind][r] not in seen:
                seen.append(ROTATED_EXITS[kind][r])
                out.append(r)
        return out

    def new_state(self, seed):
        rng = SplitMix64(seed)
        supply = [k for k in range(NUM_KINDS) for _ in range(TILE_COUNTS[k])]
        rng.shuffle(supply)
        face = sorted(supply[:2])
        supply = supply[2:]
        deck = list(range(8))
        rng.shuffle(deck)
        state = RefSoloState(self, [None] * 64, face, supply, deck, rng)
        state.reveal()
        return state


class RefSoloState:
    def __init__(self, game, board, face, supply, deck, rng):
        self.game = game
        self.board = board
        self.face = face
        self.supply = supply
        self.deck = deck
        self.revealed = []
        self.rng = rng
        self.first = True
        self.rejected = False
        self.log = []
        self.company = None
        self.lines = {}
        self.current_player = 0

    def clone(self):
        other = RefSoloState(self.game, list(self.board), list(self.face), list(self.supply), list(self.deck),
                             SplitMix64(self.rng.state))
        other.revealed, other.first, other.rejected = list(self.revealed), self.first, self.rejected
        other.log = list(self.log)
        other.company, other.lines, other.current_player = self.company, dict(self.lines), self.current_player
        return other

    def _stations(self, company):
        return [n for n, k in self.game.owner_of_station.items() if k == company and n not in self.lines]

    def reveal(self):
        self.rejected = False
        if not self.face or len(self.lines) == 32:
            self.company, self.current_player = None, -1
            return
        while True:
            if not self.deck:
                self.deck, self.revealed = self.revealed, []
                self.rng.shuffle(self.deck)
                self.first = False
            k = self.deck.pop(0)
            self.revealed.append(k)
            if self._stations(k):
                self.company = k
                return

    def is_terminal(self):
        return self.current_player == -1

    def scores(self):
        return [sum(points for (_, _, _, points) in self.lines.values())]

    def profits(self):
        out = [0] * 8
        for station, (_, _, _, points) in self.lines.items():
            out[self.game.owner_of_station[station]] += points
        return out

    def returns(self):
        return [self.scores()[0] / MAXIMUM if self.is_terminal() else 0.0]

    def legal_actions(self):
        if self.is_terminal():
            return []
        ends = {open_end(self.board, n) for n in self._stations(self.company)}
        squares = sorted(ends & set(candidate_squares(self.board)))
        legal = []
        for kind in sorted(set(self.face)):
            ok, every = [], []
            for sq in squares:
                for rot in self.game.rotations(kind):
                    every.append(place_action(kind, sq, rot))
                    if not is_one_tile_violation(kind, rot, sq, self.game.owner_of_station):
                        ok.append(place_action(kind, sq, rot))
            legal += ok if ok else every
        if self.first and len(self.deck) > 0 and not self.rejected and len(self.supply) >= 2 and len(self.log) < 8:
            legal += [REJECT + k for k in sorted(set(self.face))]
        return sorted(legal)

    def apply(self, action):
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action}")
        if action >= REJECT:
            kind = action - REJECT
            self.face.remove(kind)
            middle = len(self.supply) - 1          # the gaps with a tile above and one below
            self.supply.insert(1 + self.rng.bounded(middle), kind)
            self.face = sorted(self.face + [self.supply.pop(0)])
            self.log.append((kind, self.supply.count(kind)))
            self.rejected = True
            return
        kind, rest = divmod(action, 256)
        square, rot = divmod(rest, 4)
        self.board[square] = (kind, rot)
        self.face.remove(kind)
        if self.supply:
            self.face = sorted(self.face + [self.supply.pop(0)])
        for station in sorted(self.game.owner_of_station):
            if station not in self.lines:
                result = trace_line(self.board, station)
                if result is not None:
                    self.lines[station] = result
        self.reveal()

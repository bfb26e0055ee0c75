"""Independent pure-Python reference engine for Dirk Henn's *Metro* (base game, M1-M10).

This module is the *oracle* the fast Cython engine (``rules.pyx`` beside it) is differentially
tested against, and the slow side of ``metro-ai bench``'s engine comparison.  It is written
directly from the project rules (``docs/rules/metro.md``, decisions M1-M10, cited as "M6" etc. in
comments), the English rule text and the data files ``data/metro_{tiles,stations,lines}.csv``.
It deliberately imports nothing from ``metro_ai`` (not even the package's data loader) and uses
plain Python values only (lists, dicts, ints, tuples): clarity beats speed.

Geometry (from the CSV header comments)
---------------------------------------
* 8x8 board, square index ``row * 8 + col``, row 0 at the top.  The central 2x2 block (rows 3-4,
  cols 3-4) is the central station and never holds a tile (M1).
* Ports of a square, clockwise: 0 top-left, 1 top-right, 2 right-top, 3 right-bottom,
  4 bottom-right, 5 bottom-left, 6 left-bottom, 7 left-top.  Side of port ``p`` is ``p // 2``
  (0 top, 1 right, 2 bottom, 3 left).
* A tile kind's ``exits`` gives ``exits[p]``, the other end of the track that starts at ``p``.
  Every track joins an even and an odd port, so a train enters a square at an even port and
  leaves at an odd port.
* Leaving a square through port ``q`` enters the neighbour on that side at ``ENTRY_PORT[q]``.
* Rotating a tile ``r`` quarter turns clockwise: ``rot[(a + 2r) % 8] = (exits[a] + 2r) % 8``.

Determinism (must match the Cython engine bit for bit)
------------------------------------------------------
The tile supply is shuffled with a splitmix64 generator (see :class:`SplitMix64`); hands are dealt
round by round from the front of the supply; player 0 starts.  Actions are ints:
``PLACE(kind, square, rot) = kind * 256 + square * 4 + rot`` and ``DRAW = 6144``.

Public API (used by the differential test)
------------------------------------------
``RefMetroGame(players=4, orientation=True, hand_size=1)``, ``RefMetroGame.new_state(seed)``,
``RefMetroState`` (attributes ``board``, ``hands``, ``supply``, ``drawn``, ``lines``,
``current_player``, ``phase``, ``owner_of_station``; methods ``legal_actions``, ``apply``,
``is_terminal``, ``scores``, ``returns``, ``clone``) and :func:`random_game`.
"""

from __future__ import annotations

import bisect
import csv
import operator
import os
import random
from pathlib import Path

from metro_ai.engine.datafile import read_text
from metro_ai.engine.splitmix import SplitMix64      # the engines' generator, shared by the references

# --------------------------------------------------------------------------------------------
# Board geometry
# --------------------------------------------------------------------------------------------

BOARD_SIZE = 8
NUM_SQUARES = BOARD_SIZE * BOARD_SIZE
NUM_PORTS = 8

#: The central station's 2x2 block (M1): rows 3-4, cols 3-4.  Never holds a tile.
CENTRAL_SQUARES = frozenset(r * BOARD_SIZE + c for r in (3, 4) for c in (3, 4))

#: Leaving a square through port q enters the neighbour on that side at ENTRY_PORT[q].
ENTRY_PORT = (5, 4, 7, 6, 1, 0, 3, 2)

#: (d_row, d_col) of the neighbour on side 0 top, 1 right, 2 bottom, 3 left.
SIDE_DELTA = ((-1, 0), (0, 1), (1, 0), (0, -1))
SIDE_LETTERS = "NESW"

#: Action number of "draw the top supply tile" (M4).
DRAW = 6144

#: Number of distinct tile kinds and of tiles (M2); checked against the data at import.
NUM_KINDS = 24
NUM_TILES = 60


def square_of(row, col):
    """Square index of (row, col)."""
    return row * BOARD_SIZE + col


def row_col(square):
    """(row, col) of a square index."""
    return divmod(square, BOARD_SIZE)


def on_board(row, col):
    """True if (row, col) is one of the 64 board squares (central block included)."""
    return 0 <= row < BOARD_SIZE and 0 <= col < BOARD_SIZE


def is_edge_square(square):
    """True if the square lies on the outer edge of the board (row 0/7 or col 0/7)."""
    row, col = row_col(square)
    return row in (0, BOARD_SIZE - 1) or col in (0, BOARD_SIZE - 1)


def neighbour(square, side):
    """Square beyond ``side`` of ``square`` or None when that side faces off the board."""
    row, col = row_col(square)
    d_row, d_col = SIDE_DELTA[side]
    row, col = row + d_row, col + d_col
    if not on_board(row, col):
        return None
    return square_of(row, col)


def place_action(kind, square, rot):
    """Action number of placing tile ``kind`` (0-based) on ``square`` with rotation ``rot``."""
    return kind * 256 + square * 4 + rot


#: Alias matching the brief's notation ``PLACE(kind, square, rot)``.
PLACE = place_action


def decode_action(action):
    """Inverse of :func:`place_action`: returns (kind, square, rot).  Not for DRAW."""
    kind, rest = divmod(action, 256)
    square, rot = divmod(rest, 4)
    return kind, square, rot


# --------------------------------------------------------------------------------------------
# Data files
# --------------------------------------------------------------------------------------------


def data_dir():
    """Folder holding metro_tiles.csv, metro_stations.csv and metro_lines.csv: $METRO_AI_DATA if
    set (for instance the project's original data files), else the copy the package ships beside
    this module. A test checks that the shipped copy agrees with the originals."""
    override = os.environ.get("METRO_AI_DATA")
    if override:
        return Path(override)
    return Path(__file__).resolve().parent / "data"


def _read_csv(path):
    """Rows of a CSV file as dicts, skipping blank lines and '#' comment lines."""
    text = read_text(path)                   # the library's one reader: a regular file, capped in size
    lines = [ln for ln in text.splitlines(keepends=True) if ln.strip() and not ln.lstrip().startswith("#")]
    return [{k.strip(): v.strip() for k, v in row.items()} for row in csv.DictReader(lines)]


def rotate_exits(exits, rot):
    """Exits of a tile turned ``rot`` quarter turns clockwise.

    ``rotated[(a + 2*rot) % 8] = (exits[a] + 2*rot) % 8`` (a clockwise quarter turn moves port p
    to port p + 2).
    """
    shift = 2 * rot
    rotated = [0] * NUM_PORTS
    for a in range(NUM_PORTS):
        rotated[(a + shift) % NUM_PORTS] = (exits[a] + shift) % NUM_PORTS
    return tuple(rotated)


def _load_tiles():
    """Read metro_tiles.csv: names, exits tuples, exit_sides strings and counts, checked."""
    names, exits_list, exit_sides, counts = [], [], [], []
    for row in _read_csv(data_dir() / "metro_tiles.csv"):
        exits = tuple(int(ch) for ch in row["exits"])
        if len(exits) != NUM_PORTS or sorted(exits) != list(range(NUM_PORTS)):
            raise ValueError(f"bad exits for {row['kind']}: {row['exits']}")
        for p in range(NUM_PORTS):
            # A track is a pairing: following it back returns to the start, and joins an even
            # and an odd port (so trains always enter at even ports and leave at odd ones).
            if exits[exits[p]] != p or (exits[p] - p) % 2 == 0:
                raise ValueError(f"exits of {row['kind']} are not an even/odd pairing")
        names.append(row["kind"])
        exits_list.append(exits)
        exit_sides.append(row["exit_sides"])
        counts.append(int(row["count"]))
    if len(names) != NUM_KINDS or sum(counts) != NUM_TILES:
        raise ValueError("metro_tiles.csv must list 24 kinds and 60 tiles (M2)")
    if names != [f"T{i:02d}" for i in range(1, NUM_KINDS + 1)]:
        raise ValueError("tile kinds must be T01..T24 in order")
    return names, exits_list, exit_sides, counts


def _load_stations():
    """Read metro_stations.csv: station number -> (row, col, depart_port, arrive_port)."""
    stations = {}
    for row in _read_csv(data_dir() / "metro_stations.csv"):
        stations[int(row["station"])] = (
            int(row["row"]),
            int(row["col"]),
            int(row["depart_port"]),
            int(row["arrive_port"]),
        )
    if sorted(stations) != list(range(1, 33)):
        raise ValueError("metro_stations.csv must list stations 1..32 (M1)")
    return stations


def _load_charts():
    """Read metro_lines.csv: players -> [(colour, [stations...]), ...] in file order (M1)."""
    charts = {}
    for row in _read_csv(data_dir() / "metro_lines.csv"):
        players = int(row["players"])
        stations = [int(x) for x in row["stations"].split()]
        charts.setdefault(players, []).append((row["colour"], stations))
    return charts


TILE_NAMES, TILE_EXITS, TILE_EXIT_SIDES, TILE_COUNTS = _load_tiles()
STATIONS = _load_stations()
CHARTS = _load_charts()

#: ROTATED_EXITS[kind][rot] = exits of tile ``kind`` turned ``rot`` quarter turns clockwise.
ROTATED_EXITS = [[rotate_exits(exits, r) for r in range(4)] for exits in TILE_EXITS]


def _canonical_rotations(kind):
    """Rotations of ``kind`` that give distinct exits, each listed under its smallest r (M9)."""
    seen, result = set(), []
    for r in range(4):
        exits = ROTATED_EXITS[kind][r]
        if exits not in seen:
            seen.add(exits)
            result.append(r)
    return result


#: CANONICAL_ROTATIONS[kind]: the rotations a player may choose in the M9 variant.
CANONICAL_ROTATIONS = [_canonical_rotations(k) for k in range(NUM_KINDS)]

#: (square, odd port facing off the board) -> station number where a line leaving there ends.
ARRIVAL_AT = {}
#: square -> station numbers whose departure track enters that square.
STATIONS_AT_SQUARE = {}
for _number, (_row, _col, _depart, _arrive) in STATIONS.items():
    ARRIVAL_AT[(square_of(_row, _col), _arrive)] = _number
    STATIONS_AT_SQUARE.setdefault(square_of(_row, _col), []).append(_number)
del _number, _row, _col, _depart, _arrive


def station_square(station):
    """Square whose departure track belongs to ``station``."""
    row, col, _, _ = STATIONS[station]
    return square_of(row, col)


def shuffled_supply(seed):
    """The 60-tile supply for ``seed``: kinds ascending, each repeated by its count, shuffled."""
    tiles = [kind for kind in range(NUM_KINDS) for _ in range(TILE_COUNTS[kind])]
    SplitMix64(seed).shuffle(tiles)
    return tiles


# --------------------------------------------------------------------------------------------
# Lines
# --------------------------------------------------------------------------------------------

#: Central-station arrival number used in ``lines`` entries.
CENTRAL = 0

# A line from an edge entry can never revisit the same (square, port): following tracks is
# reversible.  Each square has 4 tracks, so no line can exceed 60 * 4 tile passes.
_MAX_PASSES = NUM_TILES * 4


def trace_line(board, station):
    """Follow the line departing from ``station`` on ``board``.

    ``board`` is a 64-list of None or (kind, rot).  Returns None if the line is still open (it
    runs into an empty square), else ``(tiles_passed, arrival, doubled, points)`` where
    ``arrival`` is a station number or 0 for the central station.  Scoring (M7): one point per
    tile pass (a tile passed twice counts twice), doubled at the central station; the printed
    central tracks never count.
    """
    row, col, port, _ = STATIONS[station]
    square = square_of(row, col)
    passes = 0
    while True:
        tile = board[square]
        if tile is None:
            return None  # open line
        passes += 1
        if passes > _MAX_PASSES:  # pragma: no cover - impossible for a valid board
            raise RuntimeError("line does not terminate")
        kind, rot = tile
        out = ROTATED_EXITS[kind][rot][port]
        nxt = neighbour(square, out // 2)
        if nxt is None:
            # Off the board: there always is a station arriving here.
            return (passes, ARRIVAL_AT[(square, out)], False, passes)
        if nxt in CENTRAL_SQUARES:
            return (passes, CENTRAL, True, 2 * passes)
        square, port = nxt, ENTRY_PORT[out]


def is_one_tile_violation(kind, rot, square, owner_of_station):
    """M6: would placing (kind, rot) on ``square`` finish an owned station's line in one tile?

    True if some owned station whose departure square is ``square`` has its line, entering at its
    depart_port, leave the tile through a port whose side faces straight off the board (so it
    reaches an arrival through this one tile only).  Unowned stations (16/17 with 3, 5, 6 players)
    carry no wagon and do not count.
    """
    exits = ROTATED_EXITS[kind][rot]
    for station in STATIONS_AT_SQUARE.get(square, ()):
        if station not in owner_of_station:
            continue
        depart = STATIONS[station][2]
        if neighbour(square, exits[depart] // 2) is None:
            return True
    return False


def candidate_squares(board):
    """M5: empty non-central squares on the board edge or sharing an edge with a placed tile."""
    result = []
    for square in range(NUM_SQUARES):
        if square in CENTRAL_SQUARES or board[square] is not None:
            continue
        if is_edge_square(square):
            result.append(square)
            continue
        for side in range(4):
            nxt = neighbour(square, side)
            if nxt is not None and board[nxt] is not None:
                result.append(square)
                break
    return result


# --------------------------------------------------------------------------------------------
# Game and state
# --------------------------------------------------------------------------------------------


class RefMetroGame:
    """Game options: ``players`` 2..6, ``orientation`` (True: tiles keep rotation 0, M2; False:
    the no-orientation variant M9), ``hand_size`` 1, 2 or 3 (M10).  Raises ValueError otherwise."""

    def __init__(self, players=4, orientation=True, hand_size=1):
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 6:
            raise ValueError(f"players must be an int in 2..6, got {players!r}")
        if not isinstance(orientation, bool):
            raise ValueError(f"orientation must be a bool, got {orientation!r}")
        if isinstance(hand_size, bool) or hand_size not in (1, 2, 3):
            raise ValueError(f"hand_size must be 1, 2 or 3, got {hand_size!r}")
        self.players = players
        self.orientation = orientation
        self.hand_size = hand_size
        #: station number -> owning player; colours in file order are players 0, 1, 2, ... (M1)
        self.owner_of_station = {}
        self.colours = []
        for player, (colour, stations) in enumerate(CHARTS[players]):
            self.colours.append(colour)
            for station in stations:
                self.owner_of_station[station] = player

    def rotations(self, kind):
        """Rotations a player may use for ``kind``: [0] with orientation, else the canonical ones."""
        if self.orientation:
            return [0]
        return list(CANONICAL_ROTATIONS[kind])

    def new_state(self, seed):
        """Initial state: shuffled supply, hands dealt round by round, player 0 to move."""
        supply = shuffled_supply(seed)
        hands = [[] for _ in range(self.players)]
        for _ in range(self.hand_size):
            for player in range(self.players):
                hands[player].append(supply.pop(0))
        for hand in hands:
            hand.sort()
        return RefMetroState(self, [None] * NUM_SQUARES, hands, supply, current_player=0)

    def __repr__(self):
        return (f"RefMetroGame(players={self.players}, orientation={self.orientation}, "
                f"hand_size={self.hand_size})")


class RefMetroState:
    """A Metro position.

    Attributes (plain Python values, safe to read; tests may also set them and then call
    :meth:`refresh`):

    * ``board``: 64-list of None or (kind, rot)
    * ``hands``: per player, a sorted list of kind indices (a multiset)
    * ``supply``: kinds remaining, front (next drawn) first
    * ``drawn``: kind drawn with DRAW and waiting to be placed, or None
    * ``current_player``: player to act, -1 when the game is over
    * ``phase``: "turn", "place_drawn" or "over"
    * ``lines``: station -> (tiles_passed, arrival, doubled, points) for finished lines of owned
      stations (arrival 0 = central station)

    Hand-made positions: build one with :meth:`from_position` (or take any state) and put tiles
    with :meth:`place_for_test`, which skips all legality and turn logic but scores lines.
    """

    def __init__(self, game, board, hands, supply, current_player=0, drawn=None):
        self.game = game
        self.board = list(board)
        self.hands = [sorted(h) for h in hands]
        self.supply = list(supply)
        self.drawn = drawn
        self.current_player = current_player
        self.phase = "turn" if drawn is None else "place_drawn"
        self.lines = {}
        self._legal = None
        self.refresh()

    # ---- construction helpers -------------------------------------------------------------

    @classmethod
    def from_position(cls, game, board=None, hands=None, supply=None, current_player=0,
                      drawn=None):
        """Hand-made position: ``board`` (64-list, default empty), ``hands`` (default all
        empty), ``supply`` (default empty), player to move, and an optional drawn tile (then the
        phase is "place_drawn").  If nobody holds a tile, the supply is empty and nothing is
        drawn, the state is over.  Finished owned lines are scored at once."""
        if board is None:
            board = [None] * NUM_SQUARES
        if hands is None:
            hands = [[] for _ in range(game.players)]
        if supply is None:
            supply = []
        if len(board) != NUM_SQUARES or len(hands) != game.players:
            raise ValueError("board must have 64 entries and hands one list per player")
        return cls(game, board, hands, supply, current_player=current_player, drawn=drawn)

    def place_for_test(self, kind, square, rot=0):
        """Put tile (kind, rot) on ``square`` with no legality check and no change of turn,
        hands or supply; then score newly finished lines.  For building test positions."""
        if square in CENTRAL_SQUARES:
            raise ValueError("the central block never holds a tile")
        self.board[square] = (kind, rot)
        self.refresh()

    def refresh(self):
        """Re-derive ``lines``, the phase and the legal-action cache after direct edits."""
        self._legal = None
        self._update_lines()
        if self.drawn is None and self.supply == [] and not any(self.hands):
            self.phase = "over"
            self.current_player = -1
        elif self.drawn is not None:
            self.phase = "place_drawn"
        else:
            self.phase = "turn"

    def clone(self):
        """Deep copy (the game options object is shared: it is immutable in use)."""
        other = RefMetroState.__new__(RefMetroState)
        other.game = self.game
        other.board = list(self.board)  # entries are immutable tuples
        other.hands = [list(h) for h in self.hands]
        other.supply = list(self.supply)
        other.drawn = self.drawn
        other.current_player = self.current_player
        other.phase = self.phase
        other.lines = dict(self.lines)  # values are immutable tuples
        other._legal = None if self._legal is None else list(self._legal)
        return other

    # ---- read-only views ------------------------------------------------------------------

    @property
    def owner_of_station(self):
        """station number -> player, for the stations owned with this player count (M1)."""
        return self.game.owner_of_station

    @property
    def num_players(self):
        """Number of players."""
        return self.game.players

    def is_terminal(self):
        """True once all 60 tiles are placed (M8)."""
        return self.phase == "over"

    def scores(self):
        """Points per player: the sum of the points of their finished lines (M7)."""
        result = [0] * self.game.players
        for station, (_, _, _, points) in self.lines.items():
            result[self.owner_of_station[station]] += points
        return result

    def returns(self):
        """All zeros before the end.  At the end, per player: (players with a strictly lower
        score + 0.5 * other players with an equal score) / (n - 1), so ties share the place
        (M8)."""
        n = self.game.players
        if not self.is_terminal():
            return [0.0] * n
        scores = self.scores()
        result = []
        for p in range(n):
            lower = sum(1 for q in range(n) if scores[q] < scores[p])
            equal = sum(1 for q in range(n) if q != p and scores[q] == scores[p])
            result.append((lower + 0.5 * equal) / (n - 1))
        return result

    # ---- rules ----------------------------------------------------------------------------

    def _update_lines(self):
        """Trace every owned line not yet finished and record those that now are (M7)."""
        for station in sorted(self.owner_of_station):
            if station in self.lines:
                continue  # tiles are never removed: a finished line stays finished
            result = trace_line(self.board, station)
            if result is not None:
                self.lines[station] = result

    def placements_for_kind(self, kind):
        """Legal placement actions of a tile of ``kind`` (M5 squares, rotations per M9, M6).

        A candidate that would finish an owned line through this one tile is illegal, unless
        every candidate of this kind would, in which case all of them are legal (M6 exception,
        evaluated per kind)."""
        squares = candidate_squares(self.board)
        rotations = self.game.rotations(kind)
        allowed, all_candidates = [], []
        for square in squares:
            for rot in rotations:
                action = place_action(kind, square, rot)
                all_candidates.append(action)
                if not is_one_tile_violation(kind, rot, square, self.owner_of_station):
                    allowed.append(action)
        return allowed if allowed else all_candidates

    def legal_actions(self):
        """Sorted list of legal action ints (empty when the game is over)."""
        if self._legal is None:
            if self.phase == "over":
                legal = []
            elif self.phase == "place_drawn":
                legal = self.placements_for_kind(self.drawn)
            else:  # "turn" (M4): place a hand tile, or draw while the supply lasts
                legal = []
                for kind in sorted(set(self.hands[self.current_player])):
                    legal.extend(self.placements_for_kind(kind))
                if self.supply:
                    legal.append(DRAW)
            self._legal = sorted(legal)
        return list(self._legal)

    def apply(self, action):
        """Play ``action``; raise ValueError (state unchanged) if it is not legal."""
        if isinstance(action, bool):
            raise ValueError(f"illegal action {action!r}")
        try:
            action = operator.index(action)
        except TypeError:
            raise ValueError(f"action must be an int, got {action!r}") from None
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action} in phase {self.phase!r}")
        self._legal = None
        if action == DRAW:
            # M4: take the top supply tile; it must be placed now, the hand is kept.
            self.drawn = self.supply.pop(0)
            self.phase = "place_drawn"
            return
        kind, square, rot = decode_action(action)
        player = self.current_player
        self.board[square] = (kind, rot)
        if self.phase == "place_drawn":
            self.drawn = None
        else:
            # M4: placing the hand tile, then drawing a replacement while the supply lasts.
            self.hands[player].remove(kind)
            if self.supply:
                bisect.insort(self.hands[player], self.supply.pop(0))
        self._update_lines()  # lines finished by this placement score now (M7)
        self._advance(player)

    def _advance(self, player):
        """Pass the turn clockwise to the next player holding a tile, or end the game (M8)."""
        n = self.game.players
        for step in range(1, n + 1):
            candidate = (player + step) % n
            if self.hands[candidate]:
                self.current_player = candidate
                self.phase = "turn"
                return
        # Nobody holds a tile: players only run out once the supply is empty, so all 60 tiles
        # are on the board.
        assert not self.supply and self.drawn is None
        self.current_player = -1
        self.phase = "over"

    def __repr__(self):
        placed = sum(1 for t in self.board if t is not None)
        return (f"RefMetroState(phase={self.phase!r}, player={self.current_player}, "
                f"placed={placed}, supply={len(self.supply)}, scores={self.scores()})")


def random_game(game, seed, action_seed):
    """Play one full game from ``game.new_state(seed)``, choosing each action with
    ``random.Random(action_seed).choice(state.legal_actions())``; return the final state."""
    state = game.new_state(seed)
    rng = random.Random(action_seed)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    return state

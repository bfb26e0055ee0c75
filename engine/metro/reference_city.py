"""Independent pure-Python reference engine for the *Metro: City Edition* modules C1-C3.

Written from the rules text (the Metro: City Edition rulebook; ``docs/rules/metro.md`` C1-C3 and the
decisions C12-C19) on top of the base and companies reference engines beside it, which it extends
(a mixin over their state classes). Like them it imports nothing from ``metro_ai`` and uses plain
Python values; the fast engine (``rules.pyx``, ``central.pyx``) is differentially tested against it.

Rules as implemented here
-------------------------
* C1 (``edition="city"``): the players' stations come from the setup frames of
  ``data/city_frames.csv`` (reconstructed): frame 2 for 2 players, frame 4 for 3-4 and frame 6 for
  5-6, the first ``players`` colours of the frame in seat order.
* C2 (``central_stations``): the 8 spaces round the centre, clockwise from the top-left, are the
  edges of the 8 squares touching the central block; a piece's line departs into that square by
  the even port of its side facing the centre (C12). A turn may put a piece (the mover's own; with
  companies, a company's whose share the mover shows, C18) on a space with no piece that no line
  has reached; the line is traced at once (C17). A line leaving a square into the centre ends
  there: at the piece on that space (single points, C15), or, if there is none, doubled (M7) and
  the space is used from then on. M6 guards the pieces' lines too (C14). Actions
  ``6209 + 8 * share + space`` (share 0 without companies, C16).
* C3 (``central_tracks``): the centre's 4 squares hold 4 of the 8 pieces of
  ``data/central_tracks.csv`` (reconstructed, C13): a splitmix64 seeded with
  ``seed ^ 0x43454E5452414C33`` shuffles pieces 0..7, the first 4 go on squares 27, 28, 35, 36,
  then each is turned ``bounded(4)`` quarter turns. Lines pass them as tiles; nothing ends at the
  centre. They are not tiles for the placement rule (M5, C13).
"""

from __future__ import annotations

from pathlib import Path

from .reference import (ARRIVAL_AT, CENTRAL_SQUARES, ENTRY_PORT, ROTATED_EXITS, STATIONS, RefMetroGame,
                        RefMetroState, SplitMix64, candidate_squares, is_one_tile_violation, neighbour,
                        place_action, rotate_exits, square_of, _read_csv)
from .reference_companies import EXCHANGE, RefCompaniesGame, RefCompaniesState

#: First central-station action (C16).
CENTRAL = 6209
#: Station number of central space j is 33 + j (C2).
CENTRAL_BASE = 33
TRACKS_SALT = 0x43454E5452414C33
DATA = Path(__file__).resolve().parent / "data"


def _spaces():
    """(square, side facing the centre) of the 8 spaces, clockwise from the top-left."""
    out = []
    for square in range(64):
        if square in CENTRAL_SQUARES:
            continue
        for side in range(4):
            if neighbour(square, side) in CENTRAL_SQUARES:
                out.append((square, side))
    # clockwise from the top-left: top row (left to right), right column (top to bottom), bottom
    # row (right to left), left column (bottom to top)
    order = {0: 2, 1: 3, 2: 0, 3: 1}      # side facing the centre -> which edge of the block
    def key(e):
        (sq, side) = e
        edge = order[side]
        r, c = divmod(sq, 8)
        return (edge, (c, r, -c, -r)[edge])
    return sorted(out, key=key)


SPACES = _spaces()
SPACE_AT = {sq: j for j, (sq, _) in enumerate(SPACES)}


def read_tracks(path=None):
    """The 8 central-track pieces' exits (C13) from ``path`` (None: the shipped file)."""
    rows = _read_csv(path or DATA / "central_tracks.csv")
    return [tuple(int(ch) for ch in row["exits"]) for row in sorted(rows, key=lambda r: int(r["piece"][2:]))]


def read_frames():
    """players -> [(colour, stations)] of the City Edition frames (C1)."""
    frames = {}
    for row in _read_csv(DATA / "city_frames.csv"):
        frames.setdefault(int(row["frame"]), []).append((row["colour"], [int(x) for x in row["stations"].split()]))
    return {p: frames[2 if p == 2 else 4 if p <= 4 else 6][:p] for p in range(2, 7)}


class CityRules:
    """Mixin over a reference state class: the rules C2 and C3 (see the module docstring)."""

    def _city_init(self):
        self.pieces = {}          # space -> piece (player, or company)
        self.reached = set()      # spaces a line reached while free (doubled)
        self.shown = [set() for _ in range(self.game.players)]
        self.centre = {}          # square -> (kind 24 + piece, rot) with central tracks

    def clone(self):
        other = super().clone()
        other.__class__ = type(self)
        other.pieces = dict(self.pieces)
        other.reached = set(self.reached)
        other.shown = [set(s) for s in self.shown]
        other.centre = dict(self.centre)
        return other

    @property
    def owner_of_station(self):
        owners = dict(self.game.owner_of_station)
        for space, piece in self.pieces.items():
            owners[CENTRAL_BASE + space] = piece
        return owners

    def full_board(self):
        """The board with the central-track pieces on the centre (C3)."""
        board = list(self.board)
        for sq, cell in self.centre.items():
            board[sq] = cell
        return board

    def _exits(self, cell):
        kind, rot = cell
        if kind < 24:
            return ROTATED_EXITS[kind][rot]
        return rotate_exits(self.game.tracks[kind - 24], rot)

    def _trace(self, square, port):
        """None (open) or (passes, arrival, doubled, points, space reached doubled or None)."""
        passes = 0
        while True:
            cell = self.board[square] if square not in self.centre else self.centre[square]
            if cell is None:
                return None
            passes += 1
            out = self._exits(cell)[port]
            nxt = neighbour(square, out // 2)
            if nxt is None:
                return (passes, ARRIVAL_AT[(square, out)], False, passes, None)
            if nxt in CENTRAL_SQUARES and not self.centre:
                space = SPACE_AT[square]
                if space in self.pieces:
                    return (passes, CENTRAL_BASE + space, False, passes, None)
                return (passes, 0, True, 2 * passes, space)
            square, port = nxt, ENTRY_PORT[out]

    def _update_lines(self):
        if not hasattr(self, "pieces"):
            return                   # during the base constructor: nothing placed yet
        for station in sorted(self.owner_of_station):
            if station in self.lines:
                continue
            if station < CENTRAL_BASE:
                row, col, port, _ = STATIONS[station]
                start = (square_of(row, col), port)
            else:
                square, side = SPACES[station - CENTRAL_BASE]
                start = (square, 2 * side)
            result = self._trace(*start)
            if result is not None:
                self.lines[station] = result[:4]
                if result[4] is not None:
                    self.reached.add(result[4])

    def placements_for_kind(self, kind):
        """M5, M9 and M6, with M6 guarding the central pieces' lines too (C14)."""
        allowed, every = [], []
        for square in candidate_squares(self.board):
            for rot in self.game.rotations(kind):
                action = place_action(kind, square, rot)
                every.append(action)
                bad = is_one_tile_violation(kind, rot, square, self.game.owner_of_station)
                space = SPACE_AT.get(square)
                if space in self.pieces:
                    side = SPACES[space][1]
                    bad = bad or neighbour(square, ROTATED_EXITS[kind][rot][2 * side] // 2) in CENTRAL_SQUARES
                if not bad:
                    allowed.append(action)
        return allowed if allowed else every

    def legal_actions(self):
        legal = super().legal_actions()
        player = self.current_player
        companies = isinstance(self, RefCompaniesState)
        if companies:
            legal = [a for a in legal if not (EXCHANGE <= a < CENTRAL and ((a - EXCHANGE) // 2) % 4 in self.shown[player])]
        if self.phase == "turn" and self.game.central_stations:
            free = [j for j in range(8) if j not in self.pieces and j not in self.reached]
            if not companies:
                if player not in self.pieces.values():
                    legal += [CENTRAL + j for j in free]
            else:
                for pct, share in enumerate(self.held[player]):
                    if pct not in self.shown[player] and share // 4 not in self.pieces.values():
                        legal += [CENTRAL + 8 * share + j for j in free]
        return sorted(legal)

    def apply(self, action):
        if isinstance(action, int) and not isinstance(action, bool) and action >= CENTRAL:
            if action not in self.legal_actions():
                raise ValueError(f"illegal central-station action {action}")
            share, space = divmod(action - CENTRAL, 8)
            player = self.current_player
            if isinstance(self, RefCompaniesState):
                self.shown[player].add(share % 4)
                self.pieces[space] = share // 4
            else:
                self.pieces[space] = player
            self._legal = None
            self._update_lines()
            self._advance(player)
            return
        if isinstance(action, int) and not isinstance(action, bool) and EXCHANGE <= action < CENTRAL \
                and action not in self.legal_actions():
            raise ValueError(f"illegal exchange {action}")
        super().apply(action)


class RefCityState(CityRules, RefMetroState):
    """A base-game City Edition position (C1-C3)."""


class RefCityCompaniesState(CityRules, RefCompaniesState):
    """A companies City Edition position (C2, C3)."""


class _CityGame:
    def _city(self, central_stations, central_tracks, track_layouts, edition):
        if central_stations and central_tracks:
            raise ValueError("central stations and central tracks cannot be combined (C12)")
        self.central_stations = central_stations
        self.central_tracks = central_tracks
        self.tracks = read_tracks(track_layouts) if central_tracks else []

    def _dress(self, state, cls, seed):
        state.__class__ = cls
        state._city_init()
        if self.central_tracks:
            rng = SplitMix64((seed % (1 << 64)) ^ TRACKS_SALT)
            pieces = list(range(8))
            rng.shuffle(pieces)
            squares = (27, 28, 35, 36)
            for i in range(4):
                state.centre[squares[i]] = (24 + pieces[i], 0)
            for i in range(4):
                state.centre[squares[i]] = (24 + pieces[i], rng.bounded(4))
        state._legal = None
        return state


class RefCityGame(_CityGame, RefMetroGame):
    def __init__(self, players=4, orientation=True, hand_size=1, central_stations=False, central_tracks=False,
                 track_layouts=None, edition="classic"):
        super().__init__(players=players, orientation=orientation, hand_size=hand_size)
        self._city(central_stations, central_tracks, track_layouts, edition)
        if edition == "city":         # C1: the City Edition's frames
            self.owner_of_station = {n: p for p, (_, ns) in enumerate(read_frames()[players]) for n in ns}

    def new_state(self, seed):
        return self._dress(super().new_state(seed), RefCityState, seed)


class RefCityCompaniesGame(_CityGame, RefCompaniesGame):
    def __init__(self, players=4, orientation=True, hand_size=1, chart=None, exchange_limit=8, turn_limit=None,
                 central_stations=False, central_tracks=False, track_layouts=None, edition="classic"):
        super().__init__(players=players, orientation=orientation, hand_size=hand_size, chart=chart,
                         exchange_limit=exchange_limit, turn_limit=turn_limit)
        self._city(central_stations, central_tracks, track_layouts, edition)

    def new_state(self, seed):
        return self._dress(super().new_state(seed), RefCityCompaniesState, seed)


def city_game(companies=False, chart=None, exchange_limit=8, turn_limit=None, **options):
    """The reference game for these options (see the classes above)."""
    if companies:
        return RefCityCompaniesGame(chart=chart, exchange_limit=exchange_limit, turn_limit=turn_limit, **options)
    return RefCityGame(**options)

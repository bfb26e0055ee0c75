"""Independent pure-Python reference engine for the *Metro: City Edition* cities (rules C5-C10,
decisions C26-C35 of ``docs/rules/metro.md``).

Written from the rules text, not from ``cities.pyx``: a city state wraps a reference City Edition
state (``reference_city.py``: the tiles, lines and central tracks) and keeps the city's pieces in
plain Python values (dicts of squares, lists of landmarks). It reads the city numbers straight
from the JSON file. The fast engine is differentially tested against it
(``tests/metro/test_metro_cities_differential.py``).

Rules as implemented here
-------------------------
* Tourists (C5, C27): 32, four of each of 8 colours; the list ``[0]*4 + [1]*4 + ...`` is shuffled
  by splitmix64 seeded with ``seed ^ 0x4349544945533035`` and laid on the inner squares (rows and
  columns 2-7, the centre excepted) in ascending order; New York lays them on stations 1-32.
* Paris (C6, C28): 12 landmark ids shuffled; each player gets the next ``12 // players`` as their
  row. A tile on a square takes all its tourists, to be placed lowest colour first by the mover:
  onto one of their landmarks with a free space of its colour (action 6465 + id), else onto an
  adjacent square with tourists (6481 + square), else onto any square with tourists, else out of
  the game; with one place only it goes there without asking. A tourist on a landmark scores
  ``tourist_points``; a landmark whose spaces are all filled scores its bonus.
* Stockholm (C7, C29): ids shuffled into the row; then colours 0-7 shuffled, dealt 3/2/2/1/1
  markers per player (2..6 players), the rest in the box. A tourist taken goes to the leftmost free
  space of the row (else set aside). At the end each tourist on a landmark scores that landmark's
  points for the holder of its colour.
* London (C8, C30): ids shuffled into the row; the taxi starts on the arrow before the first
  space. A tourist taken: the taxi looks 1..4 spaces ahead (round the circuit, the arrows are not
  spaces) for that colour; at the first it moves there and the mover scores the distance.
* New York (C9, C31): a line reaching station ``s`` takes the tourist waiting there (if still
  there) onto its owner's board. A board scores ``tourist_points`` each plus ``colour_bonus`` by
  distinct colours. With the companies (C35) the boards are the 8 companies' (the line's company
  takes the tourist) and a board's points are added to that company's profit.
* Berlin (C10, C32, C33): the colours shuffled onto the diagonal squares B2 G2 C3 F3 C6 F6 B7 G7
  (with tickets: onto the row of landmark pieces beside the board, left to right, none on the
  board); with mixed sides each colour draws its side (``bounded(2)``: 0 = A); each colour's pile
  (values as listed) shuffled. Tickets (C33): the 16 colours ``[0, 0, 1, 1, ..., 7, 7]`` shuffled,
  again from that ascending list until no four of it (the groups) repeats a colour; group g goes
  to quarter g of the board (A1-D4, E1-H4, A5-D8, E5-H8): that quarter's 8 inner squares,
  ascending, shuffled, the group's colours on the first four. A tile on a landmark or ticket
  tourist carries it at once; each line reaching an arrival gets, per pass through a carrying
  tile, a VP piece (the last of the pile) or a ticket of that colour. Tickets score as New York's
  boards; with tickets no landmark is on the board, so no VP piece is ever won.
* Scores: lines + the city's public points; at the end also the hidden ones (C34).
"""
from __future__ import annotations

from pathlib import Path

from metro_ai.engine.datafile import read_json

from .reference import CENTRAL_SQUARES, ENTRY_PORT, STATIONS, SplitMix64, neighbour, square_of
from .reference_city import city_game

SALT = 0x4349544945533035
DATA = Path(__file__).resolve().parent / "data" / "cities.json"
INNER = [s for s in range(64) if 1 <= s // 8 <= 6 and 1 <= s % 8 <= 6 and s not in CENTRAL_SQUARES]
DIAGONALS = [9, 14, 18, 21, 42, 45, 49, 54]
MARKERS = {2: 3, 3: 2, 4: 2, 5: 1, 6: 1}
LANDMARK, SQUARE = 6465, 6481      # Paris's choices: a landmark id, a square with tourists (C28)


def _name(sq):
    return "ABCDEFGH"[sq % 8] + str(sq // 8 + 1)


class RefCitiesGame:
    """The reference game of a city; the other options go to the City Edition reference."""

    def __init__(self, city, players=4, city_data=None, berlin_sides="A", berlin_tickets=False, companies=False,
                 **options):
        self.city = city
        self.players = players
        self.companies = companies
        self.owners = 8 if companies else players      # New York's boards: the companies' with them
        self.base = city_game(players=players, companies=companies, **options)
        raw = read_json(city_data or DATA, what="city data").data
        self.colours = raw["colours"]
        self.spec = raw[city]
        self.sides = berlin_sides
        self.tickets = berlin_tickets

    def colour(self, name):
        return self.colours.index(name)

    def new_state(self, seed):
        inner = self.base.new_state(seed)
        if self.companies:
            inner.__class__ = type("RefNewYorkCompaniesState", (_BoardProfits, type(inner)), {})
        state = RefCitiesState(self, inner, seed)
        inner.board_points = state.points
        return state


class _BoardProfits:
    """New York with companies: a company's board points are profit (C35)."""

    def profits(self):
        return [a + b for a, b in zip(super().profits(), self.board_points)]


class RefCitiesState:
    def __init__(self, game, inner, seed):
        self.game, self.inner = game, inner
        n, city, spec = game.players, game.city, game.spec
        rng = SplitMix64((seed % (1 << 64)) ^ SALT)
        self.tourists = {}              # square -> list of colours
        self.points = [0] * game.owners
        self.stations = {}              # New York: station -> colour
        self.boards = [[0] * 8 for _ in range(game.owners)]
        self.removed = 0
        self.pending, self.chooser, self.origin = [], None, None     # Paris: tourists to place
        if city != "berlin":
            bag = [c for c in range(8) for _ in range(4)]
            rng.shuffle(bag)
            for i, c in enumerate(bag):
                if city == "new_york":
                    self.stations[i + 1] = c
                else:
                    self.tourists.setdefault(INNER[i], []).append(c)
        if city in ("paris", "stockholm", "london"):
            ids = list(range(len(spec["landmarks"])))
            rng.shuffle(ids)
            if city == "paris":
                k = 12 // n
                self.rows = [ids[p * k:(p + 1) * k] for p in range(n)]
                self.fill = {lm: [None] * len(spec["landmarks"][lm]["spaces"]) for lm in ids}
            else:
                self.row = ids
                self.fill = {lm: [None] * spec["landmarks"][lm]["spaces"] for lm in ids} if city == "stockholm" else {}
            self.taxi = -1
        if city == "stockholm":
            colours = list(range(8))
            rng.shuffle(colours)
            m = MARKERS[n]
            self.markers = {c: i // m for i, c in enumerate(colours) if i < n * m}
        if city == "berlin":
            colours = list(range(8))
            rng.shuffle(colours)
            # C33: with tickets the landmark pieces lie in a row beside the board; the shuffle
            # gives the colour of the tourist on each piece, left to right.
            self.row = colours if game.tickets else None
            self.landmarks = {} if game.tickets else dict(zip(DIAGONALS, colours))
            self.carried = {}           # square -> (colour, from a landmark?)
            self.side = [rng.bounded(2) if game.sides == "mixed" else "AB".index(game.sides) for _ in range(8)]
            self.piles = []
            for c in range(8):
                pile = list(spec["vp_pieces"]["AB"[self.side[c]]])
                rng.shuffle(pile)
                self.piles.append(pile)
            self.vp = [[[] for _ in range(8)] for _ in range(n)]
            if game.tickets:
                self._ticket_tourists(rng)

    def _ticket_tourists(self, rng):
        """C33: 16 tourists, 2 of each colour, in 4 groups of 4 with no colour twice in a group,
        uniformly among such groupings (rejection: a group repeating a colour sends the list back
        to ascending for a new shuffle); group g on 4 random inner squares of quarter g."""
        while True:
            bag = sorted(list(range(8)) * 2)
            rng.shuffle(bag)
            groups = [bag[4 * g:4 * g + 4] for g in range(4)]
            if all(len(set(grp)) == 4 for grp in groups):
                break
        for g, grp in enumerate(groups):
            rows = range(4) if g < 2 else range(4, 8)
            cols = range(4) if g % 2 == 0 else range(4, 8)
            squares = [s for s in INNER if s // 8 in rows and s % 8 in cols]
            assert len(squares) == 8
            rng.shuffle(squares)
            for sq, c in zip(squares, grp):
                self.tourists[sq] = [c]

    # ---- the contract, as the differential test uses it
    @property
    def current_player(self):
        return self.inner.current_player if self.chooser is None else self.chooser

    @property
    def phase(self):
        return self.inner.phase

    def is_terminal(self):
        return self.inner.is_terminal() and self.chooser is None

    def legal_actions(self):
        return self.inner.legal_actions() if self.chooser is None else self._paris_choices()

    def hidden(self):
        n, out = self.game.players, [0] * self.game.players
        if self.game.city == "stockholm":
            for lm in self.row:
                for c in self.fill[lm]:
                    if c is not None and c in self.markers:
                        out[self.markers[c]] += self.game.spec["landmarks"][lm]["points"]
        if self.game.city == "berlin":
            out = [sum(sum(v) for v in self.vp[p]) for p in range(n)]
        return out

    def scores(self):
        if self.game.companies:
            return self.inner.scores()         # the boards are in the profits
        base = self.inner.scores()
        hidden = self.hidden() if self.is_terminal() else [0] * self.game.players
        return [base[p] + self.points[p] + hidden[p] for p in range(self.game.players)]

    def returns(self):
        s = self.scores()
        n = len(s)
        return [(sum(x < s[p] for x in s) + 0.5 * (sum(x == s[p] for x in s) - 1)) / (n - 1) for p in range(n)]

    def apply(self, action):
        if self.chooser is not None:
            if action not in self._paris_choices():
                raise ValueError(f"illegal Paris choice {action}")
            self._paris_place(action)
            self._paris_settle()
            return
        player = self.current_player
        if action >= 6144:
            self.inner.apply(action)
            return
        sq = (action >> 2) & 63
        city = self.game.city
        if city == "berlin":
            if sq in self.landmarks:
                self.carried[sq] = (self.landmarks.pop(sq), True)
            if sq in self.tourists:
                self.carried[sq] = (self.tourists.pop(sq)[0], False)
        closed = set(self.inner.lines)
        self.inner.apply(action)
        if city in ("new_york", "berlin"):
            for station in sorted(set(self.inner.lines) - closed):
                self._line_done(station)
            return
        taken = sorted(self.tourists.pop(sq, []))
        if city == "paris":
            self.pending, self.chooser, self.origin = taken, player, sq
            self._paris_settle()
            return
        for c in taken:
            getattr(self, "_take_" + city)(player, c, sq)

    # ---- Paris, Stockholm, London
    def _paris_choices(self):
        """Where the next pending tourist (the lowest colour) may go, as actions."""
        c, spec = self.pending[0], self.game.spec
        mine = [lm for lm in self.rows[self.chooser]
                if any(self.game.colour(col) == c and self.fill[lm][j] is None
                       for j, col in enumerate(spec["landmarks"][lm]["spaces"]))]
        if mine:
            return sorted(LANDMARK + lm for lm in mine)
        r, col = divmod(self.origin, 8)
        near = [sq for sq in self.tourists if abs(sq // 8 - r) + abs(sq % 8 - col) == 1]
        return sorted(SQUARE + sq for sq in (near or self.tourists))

    def _paris_place(self, action):
        c = self.pending.pop(0)
        if action >= SQUARE:
            self.tourists[action - SQUARE] = sorted(self.tourists[action - SQUARE] + [c])
            return
        lm, spec = action - LANDMARK, self.game.spec
        spaces = [self.game.colour(col) for col in spec["landmarks"][lm]["spaces"]]
        j = next(j for j, col in enumerate(spaces) if col == c and self.fill[lm][j] is None)
        self.fill[lm][j] = c
        self.points[self.chooser] += spec["tourist_points"]
        if None not in self.fill[lm]:
            self.points[self.chooser] += spec["landmarks"][lm]["bonus"]

    def _paris_settle(self):
        """Place pending tourists with at most one place; stop at a real choice."""
        while self.pending:
            choices = self._paris_choices()
            if len(choices) > 1:
                return
            if choices:
                self._paris_place(choices[0])
            else:
                self.pending.pop(0)
                self.removed += 1
        self.chooser = self.origin = None

    def _take_stockholm(self, player, c, sq):
        for lm in self.row:
            if None in self.fill[lm]:
                self.fill[lm][self.fill[lm].index(None)] = c
                return
        self.removed += 1

    def _take_london(self, player, c, sq):
        marks = [self.game.colour(self.game.spec["landmarks"][lm]["colour"]) for lm in self.row]
        for step in range(1, 5):
            place = (self.taxi + step) % len(marks)
            if marks[place] == c:
                self.taxi = place
                self.points[player] += step
                break
        self.removed += 1

    # ---- New York, Berlin
    def _owner(self, station):
        return self.inner.owner_of_station[station]

    def _line_done(self, station):
        owner = self._owner(station)
        spec = self.game.spec
        if self.game.city == "new_york":
            arrival = self.inner.lines[station][1]
            if arrival in self.stations:
                self.boards[owner][self.stations.pop(arrival)] += 1
                self.points[owner] = self._set_points(self.boards[owner])
                self.inner._legal = None          # the profits moved (exchanges close at 25, M13)
            return
        for sq in self._path(station):
            if sq not in self.carried:
                continue
            c, from_landmark = self.carried[sq]
            if from_landmark:
                if self.piles[c]:
                    self.vp[owner][c].append(self.piles[c].pop())
            else:
                self.boards[owner][c] += 1
                self.points[owner] = self._set_points(self.boards[owner])

    def _set_points(self, held):
        spec = self.game.spec
        per = spec["tourist_points"] if "tourist_points" in spec else spec["ticket_points"]
        return per * sum(held) + spec["colour_bonus"][sum(1 for x in held if x)]

    def _path(self, station):
        """The squares a closed line passes, in order (a square passed twice is listed twice)."""
        row, col, port, _ = STATIONS[station]
        sq, board, out = square_of(row, col), self.inner.full_board(), []
        while board[sq] is not None:
            out.append(sq)
            exit_port = self.inner._exits(board[sq])[port]
            nxt = neighbour(sq, exit_port // 2)
            if nxt is None or (nxt in CENTRAL_SQUARES and board[nxt] is None):
                break
            sq, port = nxt, ENTRY_PORT[exit_port]
        return out

    # ---- the state's city part, in the fast engine's JSON form (to_dict()["city"])
    def city_json(self):
        n, city = self.game.players, self.game.city
        out = {"name": city, "points": list(self.points)}
        if city != "new_york":
            out["tourists"] = {_name(sq): sorted(v) for sq, v in sorted(self.tourists.items())}
        if city == "paris":
            out["landmarks"] = [[{"id": lm, "filled": list(self.fill[lm])} for lm in self.rows[p]] for p in range(n)]
            out["out"] = self.removed
            out["pending"] = None if self.chooser is None else {
                "player": self.chooser, "square": _name(self.origin), "colours": list(self.pending)}
        if city == "stockholm":
            out["row"] = [{"id": lm, "filled": list(self.fill[lm])} for lm in self.row]
            out["set_aside"] = self.removed
            out["marker_counts"] = [list(self.markers.values()).count(p) for p in range(n)]
            out["markers"] = [self.markers.get(c) for c in range(8)]
        if city == "london":
            out.update(row=list(self.row), taxi=self.taxi, set_aside=self.removed)
        if city == "new_york":
            out["stations"] = [self.stations.get(s) for s in range(1, 33)]
            out["boards"] = [list(b) for b in self.boards]
        if city == "berlin":
            out["landmarks"] = {_name(sq): c for sq, c in sorted(self.landmarks.items())}
            if self.game.tickets:
                out["row"] = list(self.row)
            out["carried"] = {_name(sq): {"colour": c, "from": "landmark" if lm else "tourist"}
                              for sq, (c, lm) in sorted(self.carried.items())}
            out["sides"] = ["AB"[s] for s in self.side]
            out["pile_sizes"] = [len(p) for p in self.piles]
            out["vp_counts"] = [[len(v) for v in self.vp[p]] for p in range(n)]
            out["tickets"] = [list(b) for b in self.boards]
            out["vp"] = [[list(v) for v in self.vp[p]] for p in range(n)]
            out["piles"] = [list(p) for p in self.piles]
        return out

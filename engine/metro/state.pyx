# cython: language_level=3
"""Metro, Dirk Henn's tile-laying game: the game and its state on the contract (rules M1-M10),
``MetroGame`` and ``MetroState``, over the C data and mechanics of ``rules.pyx``/``rules.pxd``.
The modules (``module.py``: ``MetroModule`` and the ``MODULES`` table; the companies, M11-M20; the
City Edition's central stations and tracks, C2-C3; the cities, C5-C10) are switched on by options:
each adds a part to the state (``MetroState.cd`` for the central pieces, ``MetroState.co`` for the
companies' shares, whose C rules are ``rules.pyx``'s; ``CityState``'s tourists), which the state's
C methods play behind one inline test per module (``has_companies``, ``has_central``), and its
``MetroModule`` subclass, in its own file, supplies the deal, the loader, its actions' text and
its Python methods on the state (lent to ``MetroState`` by name, below).

Rules as this project plays them: ``docs/rules/metro.md``; board and tiles: ``data/*.csv``; the
loader is ``loader.pyx``; the independent pure-Python engine it is tested against is
``reference.py``.

Encoding (part of the public contract, shared with the reference engine)
---------------------------------------------------------------------------------
* Squares: ``row * 8 + col``, row 0 at the top. The central block (rows 3-4, cols 3-4) takes no
  tile. Text form: columns A-H left to right, rows 1-8 top to bottom ("A1" is the top-left).
* Ports 0-7 clockwise from the top-left: 0/1 top, 2/3 right, 4/5 bottom, 6/7 left. Every track
  joins an even and an odd port, so trains enter a square at an even port and leave at an odd one.
* Actions: ``kind * 256 + square * 4 + rot`` places tile kind ``kind`` (0 = T01 .. 23 = T24)
  rotated ``rot`` quarter turns clockwise; ``6144`` draws the top supply tile (M4). With the
  orientation rule on, rot is 0; under M9 the rotations that give the same track layout are
  listed once, under the smallest rotation.
* Seeds: splitmix64 (``rng.pxd``). ``new_state(seed)`` shuffles the 60 tiles, listed by kind in
  ascending order, with Fisher-Yates from the end; the supply is drawn from the front; hands are
  dealt one tile per player per round, player 0 first; player 0 starts.
* ``determinize(player, seed)`` lists the tiles the player has not seen in ascending kind order,
  shuffles them the same way and deals: the other players' hands in seat order, then the tile
  an opponent has just drawn (if any), then the supply front first.
* Returns: rank-based, (players strictly below + half the players tied) / (n - 1), at the end
  only (M8).
"""
import dataclasses
import importlib
import random
import re
from types import MethodType

from libc.string cimport memcpy, memset
from libc.stdint cimport uint64_t

from metro_ai.engine.core cimport Game, GameState, listed_random_action
from metro_ai.engine.rng cimport rng_t, rng_shuffle
from metro_ai.engine.core import Option, STAGES, _to_a_choice, as_seed
from metro_ai.engine.errors import StateFormatError
from . import data as metro_data
from .rules import CENTRE_SQUARES, CENTRAL_SPACE_SQUARES, CENTRAL_STATION_BASE
from . import readings as readings_module
from . import module as metro_modules

# With exchange_limit=None (the printed rule, M17) the turn limit (M20): by default the 60
# placements and 30 exchanges per player (the most turns the largest cap, 30, allows); at most
# TURN_LIMIT_MAX (CompanyData.exchanges is a short).
DEFAULT_EXCHANGES = 30
TURN_LIMIT_MAX = 10000
# The search's exploration constant with 2 players on the base game's rules (search_settings), in
# place of the search's 0.7: 0.5 measured +66 Elo (+20 to +115, SPRT H1 for +35 after 196 games)
# against 0.7 at 0.05 s a move, and 1.0 -47 (H0); against the build before #44 (0.7) +75 (H1) at
# 0.05 s, and at 0.5 s +70 (+8 to +138) over 120 games (where this build with 0.7 measured +64, so
# level with 0.7 there), +73 and +16 over 120 and 200 others, the three runs together +46 (+15 to
# +78) over 440 games (bots.md's `c` row); with 3 and 4 players 0.5 measured -27 and -17
# (H0) and with the companies +31 (-15 to +78, 200 games) then +16 (-19 to +50, 400 others),
# undecided, so those keep 0.7
# (benches/results/versus_c05_metro*.md, versus_c10_metro.md).
SEARCH_C_2P = 0.5

# Weight of an open line's tiles in the heuristic (c_heuristic): an open line keeps growing until
# it closes, so its current length undervalues it. Tuned by a one-ply greedy against random play,
# 2 players, 100-200 games each: weight 0.5 won 13%, 1.2 won 76%, 1.5 won 93%, 2 won 98%, 3 won
# 99.5% (and flat Monte Carlo with 1,000 play-outs beat that greedy in 77.5% of 100 games).
cdef double METRO_OPEN_LINE_WEIGHT = 3.0

# The one-ply evaluation greedy plays by (MetroState.greedy_values): a closed line is worth its
# points, an open line its tiles so far plus this constant. Unlike the heuristic's weight it makes
# closing a line that has grown worth more than leaving it open. Tuned in 40-game screens against
# the heuristic-playing greedy (greedy-classic), 2 players: see benches/results/greedy.md.
cdef double METRO_GREEDY_OPEN_BONUS = 10.0

_REASONS = {
    R_OVER: "the game is over",
    R_RANGE: "not a Metro action (placements are kind*256 + square*4 + rot, draw is 6144)",
    R_PHASE_DRAW: "a tile was already drawn this turn: it must be placed",
    R_EMPTY_SUPPLY: "the supply is empty (M4)",
    R_NOT_DRAWN: "only the tile just drawn may be placed now (M4)",
    R_NOT_IN_HAND: "that tile is not in the player's hand",
    R_ROTATION: "that rotation is not allowed (orientation rule, or a duplicate layout under M9)",
    R_SQUARE: "the square is taken, central, or neither on the edge nor next to a tile (M5)",
    R_ONE_TILE: "it would join a station to an arrival through this one tile (M6)",
    # the modules' codes: each MetroModule's reasons (module.py)
}

# The city option (C5): one of the five cities; St. Petersburg passes the option's check so that
# the game can say why it is refused (C11).
_CITY_CHOICE = Option.choice("city", None, "a City Edition city: tourists, landmarks and the city's collection "
                             "rule (C5-C10); its final scoring and pieces' values are RECONSTRUCTED (C26); "
                             "'st_petersburg' is refused, its rules are not available (C11)",
                             (None, "paris", "stockholm", "london", "new_york", "berlin"), rule="C5")
_CITY_OPTION = dataclasses.replace(_CITY_CHOICE, test=lambda v: _CITY_CHOICE.test(v) or v == "st_petersburg")

_SQ_RE = re.compile(r"^\s*place\s+(t\d{1,2})\s+(?:at\s+)?([a-h])([1-8])(?:\s*,?\s*rot(?:ation)?\s*([0-3]))?\s*$", re.I)


#: The shares' percentages, pct index 0..3 (M12).
PCTS = (10, 20, 30, 40)


def share_name(int share):
    """Text of a share id (0..31, 4 * company + pct index, M12): e.g. "20% (company 3)"."""
    return f"{PCTS[share & 3]}% (company {share >> 2})"


def square_name(sq):
    """Text name of a square (0..63, row * 8 + col): column letter A-H, row number 1-8 from the
    top. ValueError for anything else."""
    if isinstance(sq, bool) or not isinstance(sq, int) or not 0 <= sq < METRO_SQUARES:
        raise ValueError(f"a square is an int in 0..63 (row * 8 + col), got {sq!r}")
    return "ABCDEFGH"[sq % 8] + str(sq // 8 + 1)


class _Lent:
    """A method (or, with `prop`, a property) of ``MetroState`` defined in a module's file
    (``MetroModule.state_methods``): the function ``name`` of ``metro_ai.engine.metro.<module>``,
    taking the state first, found on first use (the module's file cimports this one)."""
    __slots__ = ("module", "name", "prop", "fn")

    def __init__(self, module, name, prop=False):
        self.module, self.name, self.prop, self.fn = module, name, prop, None

    def function(self):
        if self.fn is None:
            self.fn = getattr(importlib.import_module(f"{__package__}.{self.module}"), self.name)
        return self.fn

    def __get__(self, st, owner=None):
        if st is None:
            return self
        return self.function()(st) if self.prop else MethodType(self.function(), st)


cdef class MetroGame(Game):
    """Metro for 2-6 players. Options: ``orientation`` (M9 when False), ``hand_size`` (M10),
    ``companies`` (the companies expansion, M11-M14) with ``company_chart`` (M11),
    ``exchange_limit`` (M17; None: the printed rule) and ``turn_limit`` (M20)."""
    name = "metro"
    title = "Metro (Dirk Henn's tile-laying game)"
    readings = readings_module.METRO
    min_players = 2
    max_players = METRO_MAX_PLAYERS
    OPTIONS = (
        Option.integer("players", 4, "number of players", low=2, high=METRO_MAX_PLAYERS, rule="M1"),
        Option.boolean("orientation", True, "keep every tile in the board's orientation; False is variant M9",
                       rule="M9"),
        Option.choice("hand_size", 1, "tiles held in hand (variant M10)", (1, 2, 3), rule="M10"),
        Option.boolean("companies", False, "the Metro companies expansion: players hold shares of 8 companies "
                       "and may exchange one instead of placing a tile (M11-M14)", rule="M11"),
        Option.path("company_chart", None, "with companies: a CSV of the stations each company owns; None is "
                    "the shipped chart, which is RECONSTRUCTED (the printed one could not be read)", rule="M11"),
        Option.integer("exchange_limit", 8, "with companies: share exchanges each player may make in a game. "
                       "None is the printed rule (M17): exchanges until a company reaches 25, no cap per "
                       "player; the default 8 is this project's cap (a game of endless exchanges never ends)",
                       low=0, high=30, none="the printed rule: no cap per player", rule="M17"),
        Option.integer("turn_limit", None, "with companies and exchange_limit=None: turns (tile placements, "
                       "exchanges, central-station pieces) after which the game ends there, ranked by the final "
                       "scoring (M14); this project's addition, so that a game of endless exchanges ends",
                       low=1, high=TURN_LIMIT_MAX, none=f"{METRO_TILES} turns + {DEFAULT_EXCHANGES} per player, as many as the largest cap allows",
                       rule="M20"),
        Option.boolean("central_stations", False, "City Edition module 2, central stations: instead of placing a "
                       "tile, put a central-station piece on a free space round the centre; a line departs from "
                       "it (with companies: show a share of that company)", rule="C2"),
        Option.boolean("central_tracks", False, "City Edition module 3, central tracks: 4 of 8 track pieces, "
                       "drawn and rotated at random, cover the centre (no doubling); their layouts are "
                       "RECONSTRUCTED", rule="C3"),
        Option.path("central_track_layouts", None, "with central_tracks: a CSV of the 8 pieces' track layouts; "
                    "None is the shipped file, which is RECONSTRUCTED", rule="C13"),
        Option.choice("edition", "classic", "'city': the City Edition's setup frames, whose station colours are "
                      "RECONSTRUCTED as the base game's charts for 2, 4 and 6 players (C1)",
                      ("classic", "city"), rule="C1"),
        _CITY_OPTION,
        Option.path("city_data", None, "with a city: a JSON file of the cities' landmarks, points and VP pieces; "
                    "None is the shipped file, which is RECONSTRUCTED (C26)", rule="C26"),
        Option.choice("berlin_sides", "A", "with city='berlin': the landmarks' side, 'A', 'B' (a wider spread of "
                      "VP) or 'mixed' (each at random); the values are RECONSTRUCTED (C32)",
                      ("A", "B", "mixed"), rule="C32"),
        Option.boolean("berlin_tickets", False, "with city='berlin': the ticket variant as printed: the 8 landmarks "
                       "in a row beside the board (none on the diagonals), 16 tourists, 2 of each colour, in groups of "
                       "4 on the board, no group with two of a colour, one of the 8 others on each landmark piece; a "
                       "tile placed on a tourist carries it, and a line scored through it earns a ticket of its "
                       "colour per pass. This project's reading (C33): a group is a quarter of the board (A1-D4, "
                       "E1-H4, A5-D8, E5-H8), its 4 tourists on 4 of the quarter's 8 inner squares, the grouping "
                       "drawn uniformly among the valid ones; no VP piece can be won (no landmark is on the board) "
                       "and the landmark pieces' tourists score nothing; tickets score 1 each plus a bonus by "
                       "distinct colours, RECONSTRUCTED", rule="C33"),
    )
    # Options of the companies expansion, left out of a state's envelope while at their default,
    # so that base-game states keep their exact form (and older saved states still load).
    added_options = ("companies", "company_chart", "exchange_limit", "turn_limit", "central_stations", "central_tracks",
                     "central_track_layouts", "edition", "city", "city_data", "berlin_sides", "berlin_tickets")
    # Search settings the search bots use unless told otherwise: uniform random play-outs to the
    # end (cut off after 20 actions and scored by the heuristic they lost -308 Elo at 0.05 s with
    # 2 players, benches/results/versus_cutoff20_metro.md), and progressive bias at the root from
    # the greedy bot's values (prior 1: in two- and four-player Metro at 0.05 s a move it won
    # against the search without it, SPRT H1; benches/results/versus_prior.md), though not with
    # companies (search_settings).
    search_defaults = {"rollout": "random", "rollout_depth": None, "cutoff_scale": 0.0, "prior": 1.0}
    state_fields = ("current_player", "phase", "board", "hands", "supply", "drawn")
    reference = "metro_ai.engine.metro.reference:RefMetroGame"
    features = "metro_ai.engine.metro.features:MetroFeatures"
    svg = "metro_ai.engine.metro.svg:board_svg"
    #: Tiles on the board at each stage of ``benchmark_position``.
    benchmark_tiles = {"opening": 0, "middle": 30, "end": 50}

    def search_settings(self):
        """``search_defaults``, without the root prior with companies: there it measured no gain
        (49.8% over 200 games against the search without it, -2 Elo, -51 to +47; two players, 0.05 s
        a move; benches/results/versus_prior_companies.md). With 2 players on the base game's rules
        (every other option at its default) the exploration constant is 0.5, not the search's 0.7:
        SEARCH_C_2P."""
        settings = Game.search_settings(self)
        if self._options.get("companies"):
            settings["prior"] = 0.0
        if self.players == 2 and all(self._options[o.name] == o.default for o in self.OPTIONS if o.name != "players"):
            settings["c"] = SEARCH_C_2P
        return settings

    def _configure(self):
        self.orientation = self._options["orientation"]
        self.hand_size = self._options["hand_size"]
        self.companies = self._options["companies"]
        self.company_chart = self._options["company_chart"]
        self.exchange_limit = self._options["exchange_limit"]
        self.turn_limit = None
        self.central_stations = self._options["central_stations"]
        self.central_tracks = self._options["central_tracks"]
        self.central_track_layouts = self._options["central_track_layouts"]
        self.edition = self._options["edition"]
        if self.central_stations and self.central_tracks:
            raise ValueError("game 'metro': central_stations (C2) and central_tracks (C3) cannot be combined: "
                             "the centre holds either central-station spaces or central-track pieces (C12)")
        if not self.central_tracks and self.central_track_layouts is not None:
            raise ValueError("game 'metro': option 'central_track_layouts' needs central_tracks=True (C13)")
        # a malformed layout file is a DataError naming the file and the fault (C13)
        self.track_layouts = metro_data.load_central_tracks(self.central_track_layouts) if self.central_tracks else ()
        if not self.companies:
            for name in ("company_chart", "exchange_limit", "turn_limit"):
                if self._options[name] != self.option(name).default:
                    raise ValueError(f"game 'metro': option {name!r} needs companies=True (M11)")
            self.chart = ()
        else:         # a malformed file is a DataError naming the file and the line (M11)
            if self.exchange_limit is not None and self._options["turn_limit"] is not None:
                raise ValueError(f"game 'metro': option 'turn_limit' needs exchange_limit=None (M20): with a cap "
                                 f"of {self.exchange_limit} exchanges per player every game ends already")
            if self.exchange_limit is None:      # the printed rule (M17), bounded by a turn limit (M20)
                self.turn_limit = self._options["turn_limit"]
                if self.turn_limit is None:
                    self.turn_limit = METRO_TILES + DEFAULT_EXCHANGES * self.players
            self.chart = metro_data.load_company_chart(self.company_chart)
        self._configure_city()
        self.data = metro_data.load()
        self.tile_ids = tuple(t.id for t in self.data.tiles)
        self._build_tables()
        self.modules = metro_modules.active(self)
        # the action bounds (c_max_actions, c_num_actions): the base game's placements and draw
        # (M4), and what each module's part adds
        self.tables.max_actions = METRO_MAX_HAND * METRO_SQUARES * 4 + 1
        self.tables.num_actions = METRO_DRAW + 1
        for more, end in metro_modules.total(self.modules, "action_bounds", self):
            self.tables.max_actions += more
            self.tables.num_actions = max(self.tables.num_actions, end)
        self.state_maker = metro_modules.state_maker(self.modules)

    def _configure_city(self):
        """The city option (C5-C11, C35): its modules, its data file, Berlin's options."""
        self.city = self._options["city"]
        self.city_data = self._options["city_data"]
        self.city_rules = None
        if self.city == "st_petersburg":
            raise ValueError("game 'metro': city 'st_petersburg' is not available: the City Edition rulebook says "
                             "only 'see the manual' for its set-up and turn, and that manual's rules are not "
                             "available (C11)")
        if self.city is None:
            for name in ("city_data", "berlin_sides", "berlin_tickets"):
                if self._options[name] != self.option(name).default:
                    raise ValueError(f"game 'metro': option {name!r} needs a city (C26)")
            return
        for name in ("berlin_sides", "berlin_tickets"):
            if self.city != "berlin" and self._options[name] != self.option(name).default:
                raise ValueError(f"game 'metro': option {name!r} needs city='berlin', got city={self.city!r} (C32)")
        for name, rule in (("companies", "module 1, M11"), ("central_stations", "module 2, C2")):
            if self._options[name] and not (name == "companies" and self.city == "new_york"):
                raise ValueError(f"game 'metro': city {self.city!r} cannot be combined with {name} ({rule}): "
                                 "the seed combines a city with a module only for New York's boards with the "
                                 "companies; the cities play with the base game, central tracks (C3), the setup "
                                 "frames and the variants (C35)")
        from .city_data import load_city_data        # a malformed file is a DataError naming the field (C26)
        from .cities import CityRules
        self.city_rules = CityRules(self.city, load_city_data(self.city_data), self._options["berlin_sides"],
                                    self._options["berlin_tickets"])

    @classmethod
    def option_sets(cls):
        """``Game.option_sets``, with Berlin's options set on Berlin (C32, C33), and New York with
        the companies (C35)."""
        sets = super(MetroGame, cls).option_sets()
        if not any(o.name == "city" for o in cls.OPTIONS):       # a subclass without cities (metro-solo)
            return sets
        for s in sets:
            if "berlin_sides" in s or "berlin_tickets" in s:
                s["city"] = "berlin"
        return sets + [{"players": p, "city": "new_york", "companies": True} for p in (2, 6)] + [   # C35
            {"players": 2, "companies": True, "exchange_limit": None},               # the printed rule (M17, M20)
            {"players": 6, "companies": True, "exchange_limit": None, "turn_limit": 40}]

    cdef _build_tables(self):
        cdef MetroTables* t = &self.tables
        memset(t, 0, sizeof(MetroTables))
        cdef int k, r, p, i, s, l
        t.players = self.players
        t.hand_size = self.hand_size
        t.companies = self.companies
        # With exchange_limit=None (M17, M20) the cap is the turn limit: every exchange is a turn,
        # so no player's exchanges reach it before the game ends there; no cap in effect.
        t.exchange_limit = self.turn_limit if self.exchange_limit is None else self.exchange_limit
        t.turn_limit = self.turn_limit or 0
        t.centre_tracks = self.central_tracks
        tiles = self.data.tiles
        for k in range(METRO_KINDS):
            base = tiles[k].exits
            t.count[k] = tiles[k].count
            layouts = []
            for r in range(4):
                rotated = [0] * 8
                for p in range(8):
                    rotated[(p + 2 * r) % 8] = (base[p] + 2 * r) % 8
                for p in range(8):
                    t.exits[k][r][p] = rotated[p]
                if (r == 0 or not self.orientation) and rotated not in layouts:
                    layouts.append(rotated)
                    t.rots[k][t.nrot[k]] = r
                    t.nrot[k] += 1
        for i, base in enumerate(self.track_layouts):      # central-track pieces: kinds 24.. (C3)
            for r in range(4):
                for p in range(8):
                    t.exits[METRO_KINDS + i][r][(p + 2 * r) % 8] = (base[p] + 2 * r) % 8
        stations = self.data.stations
        for st in stations:
            t.arrival[st.row * 8 + st.col][st.arrive_port] = st.number
        self.owners = {}
        owner_of = {}
        # A line's owner is a player, or with companies (M11) a company: all 32 stations in play.
        seats = enumerate(self.chart) if self.companies else (
            (seat, numbers) for seat, (colour, numbers) in enumerate(self.frame()))
        for seat, numbers in seats:
            self.owners[seat] = tuple(sorted(numbers))
            for n in numbers:
                owner_of[n] = seat
        l = 0
        for n in sorted(owner_of):
            st = stations[n - 1]
            t.line_station[l] = n
            t.line_owner[l] = owner_of[n]
            t.line_square[l] = st.row * 8 + st.col
            t.line_port[l] = st.depart_port
            l += 1
        t.nlines = l
        # Central-station pieces (C2): line nlines + j is piece j's, owned by player j (with
        # companies: company j); it departs once the piece is placed.
        if self.central_stations:
            t.ncentral = 8 if self.companies else self.players
            for i in range(t.ncentral):
                t.line_owner[l + i] = i
                t.line_station[l + i] = -1
        # One-tile rule (M6): (kind, rot) on square s breaks it if an owned station of s has its
        # departure track leave the board straight through that tile.
        for k in range(METRO_KINDS):
            for r in range(4):
                for l in range(t.nlines):
                    s = t.line_square[l]
                    if next_square(s, t.exits[k][r][t.line_port[l]]) == METRO_OFF_BOARD:
                        t.viol[k][r] |= (<uint64_t>1) << s
                # C14: a central-station piece's line may not come straight back into the centre
                # through the one tile on the square it faces (M6 guards the piece like a station).
                for i in range(8):
                    s = central_square(i)
                    if next_square(s, t.exits[k][r][central_port(i)]) == METRO_CENTRE:
                        t.uturn[k][r] |= (<uint64_t>1) << s

    def frame(self):
        """The colours and their stations for this player count: (colour, station numbers) per
        seat. The base game's chart (M1); with edition='city' the City Edition's setup frame (C1,
        reconstructed: ``city_frames.csv``)."""
        if self.edition == "city":
            return metro_data.load_city_frames()[self.players]
        return self.data.charts[self.players]

    @property
    def max_actions(self):
        """The most legal actions a position has: the state's parts say it (``c_max_actions``:
        placements and the draw; exchanges, M13; pieces x spaces, C2; Paris's choices, C28)."""
        return self._blank().c_max_actions()

    @property
    def num_distinct_actions(self):
        """Every action id is below this: the state's parts say it (``c_num_actions``)."""
        return self._blank().c_num_actions()

    @property
    def max_game_length(self):
        if self.turn_limit is not None:
            # M20: at most turn_limit turns, a placement turn at most 2 actions (a draw, then the
            # tile), an exchange or a central-station piece 1
            return self.turn_limit + min(self.turn_limit, METRO_TILES)
        # every tile placed, each at most one draw before it; and what each module's part adds
        return 2 * METRO_TILES + sum(metro_modules.total(self.modules, "game_length", self))

    def reference_game(self):
        """The same game on the pure-Python reference engine (``reference.py``; with a module, the
        module's: ``reference_companies.py``, ``reference_city.py``, ``reference_cities.py``)."""
        if self.city is None and self.edition != self.option("edition").default:    # the setup frames (C1)
            from . import reference_city
            return reference_city.city_game(**self.reference_options())
        ref = metro_modules.claim(self.modules, "reference_game", self)
        if ref is not None:
            return ref
        from . import reference
        return reference.RefMetroGame(**self.reference_options(False))

    def reference_options(self, modules=True):
        """The options of the reference engines' constructors: the base game's; with `modules`
        the City Edition modules' and the companies' too."""
        out = dict(players=self.players, orientation=self.orientation, hand_size=self.hand_size)
        if modules:
            out.update(central_stations=self.central_stations, central_tracks=self.central_tracks,
                       track_layouts=self.central_track_layouts, edition=self.edition, companies=self.companies,
                       chart=self.company_chart, exchange_limit=self.exchange_limit,
                       turn_limit=self._options["turn_limit"])
        return out

    def benchmark_position(self, stage="opening", seed=11):
        """The deal `seed` after random play (``random.Random(seed)``) has put
        ``benchmark_tiles[stage]`` tiles on the board, moved on to the first real choice."""
        if stage not in STAGES:
            raise ValueError(f"stage must be one of {', '.join(STAGES)}, got {stage!r}")
        s = self.new_state(seed)
        rng = random.Random(seed)
        if self.turn_limit is None:
            while s.tiles_placed < self.benchmark_tiles[stage]:
                s.apply(rng.choice(s.legal_actions()))
            return _to_a_choice(s)
        # M20: as many turns (a draw is none), short of the turn limit, so that a choice is left
        turns, target = 0, max(0, min(self.benchmark_tiles[stage], self.turn_limit - 2))
        while turns < target:
            a = rng.choice(s.legal_actions())
            s.apply(a)
            turns += a != METRO_DRAW
        return _to_a_choice(s)

    cdef MetroState _blank(self):
        if self.state_maker is not None:          # a module's state class (the cities)
            return self.state_maker(self)
        cdef MetroState st = MetroState.__new__(MetroState)
        st.game = self
        st.t = &self.tables
        if has_central(&self.tables):
            clear_central(&st.cd)
        return st

    def new_state(self, seed=0):
        """A new game dealt from `seed` (any int): supply shuffled, hands dealt, player 0 to move
        (with a module, the module's deal: e.g. the shares after the tiles, ``companies.pyx``, M15)."""
        st0 = metro_modules.claim(self.modules, "new_state", self, seed)
        if st0 is not None:
            return st0
        cdef rng_t rng = as_seed(seed)
        cdef MetroState st = self._blank()
        deal_tiles(&st.d, &self.tables, &rng)
        return st

    def _load_state(self, obj):
        st = metro_modules.claim(self.modules, "load_state", self, obj)
        return st if st is not None else _load_state(self, obj)

    def piece_name(self, int kind):
        """Text id of a cell's kind: a tile "T01".."T24", or a central-track piece "CT1".."CT8" (C3)."""
        return self.tile_ids[kind] if kind < METRO_KINDS else f"CT{kind - METRO_KINDS + 1}"

    def kind_index(self, tile_id):
        try:
            return self.tile_ids.index(str(tile_id).upper() if len(str(tile_id)) == 3 else "T%02d" % int(str(tile_id)[1:]))
        except (ValueError, IndexError):
            raise ValueError(f"unknown tile kind {tile_id!r}; kinds are T01..T24") from None

    def action_to_string(self, action):
        """Human text of an action: "draw", "place T05 at C1" or "place T05 at C1 rot 1";
        ValueError for anything that is not an action id."""
        module = metro_modules.owner(self.modules, "owns_action", self, action)    # a module's actions
        if module is not None:
            return module.action_to_string(self, action)
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action <= METRO_DRAW:
            raise ValueError(f"not a Metro action: {action!r} (actions are 0..{METRO_DRAW})")
        if action == METRO_DRAW:
            return "draw"
        k, sq, r = action >> 8, (action >> 2) & 63, action & 3
        text = f"place {self.tile_ids[k]} at {square_name(sq)}"
        return text + (f" rot {r}" if r else "")

    def string_to_action(self, text):
        """Parse the text of `action_to_string` (case and spacing are free). ValueError if unreadable."""
        if not isinstance(text, str):
            raise ValueError(f"action text must be a str, got {text!r}")
        if text.strip().lower() == "draw":
            return METRO_DRAW
        module = metro_modules.owner(self.modules, "owns_text", self, text)     # a module's actions
        if module is not None:
            return module.string_to_action(self, text)
        m = _SQ_RE.match(text)
        if not m:
            raise ValueError(f"cannot read Metro action {text!r}: expected 'draw' or 'place T05 at C1 [rot 1]'")
        k = self.kind_index(m.group(1))
        sq = (int(m.group(3)) - 1) * 8 + "abcdefgh".index(m.group(2).lower())
        return k * 256 + sq * 4 + int(m.group(4) or 0)


cdef class MetroState(GameState):
    """A Metro position, hidden parts included. Make one with ``MetroGame.new_state(seed)``."""

    # ---- the C-level contract ----
    cdef int c_num_players(self) noexcept nogil:
        return self.t.players

    cdef int c_max_actions(self) noexcept nogil:
        return self.t.max_actions

    cdef int c_current_player(self) noexcept nogil:
        return self.d.current

    cdef bint c_is_terminal(self) noexcept nogil:
        return self.d.phase == PHASE_OVER

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        cdef int n = tile_actions(&self.d, self.t, out), j
        cdef unsigned int free = 0
        if not (has_central(self.t) or has_companies(self.t)) or self.d.phase != PHASE_TURN:
            return n
        if has_central(self.t):               # the central part (C2): the spaces that may take a piece
            for j in range(8):
                if space_free(&self.d, &self.cd, j):
                    free |= 1u << j
        if has_companies(self.t):             # the companies part: exchanges, pieces by a share shown (C18)
            return n + co_actions(&self.d, self.t, &self.co, &self.cd, free, out + n)
        if self.cd.piece_space[self.d.current] < 0:     # the mover's own piece, as the whole turn
            for j in range(8):
                if (free >> j) & 1:
                    out[n] = METRO_CENTRAL_ACTION + j
                    n += 1
        return n

    cdef int c_random_action(self, rng_t* rng, int* scratch) noexcept nogil:
        if (has_central(self.t) or has_companies(self.t)) and self.d.phase == PHASE_TURN:
            return listed_random_action(self, rng, scratch)    # the parts' actions: listed
        return random_tile_action(&self.d, self.t, rng)

    cdef bint c_counts_actions(self) noexcept nogil:
        return not (has_central(self.t) or has_companies(self.t))   # the parts' turns list (measured)

    cdef int c_check(self, int action) noexcept nogil:
        cdef MetroData* d = &self.d
        cdef const MetroTables* t = self.t
        cdef int k, sq, r, i
        cdef bint found
        if has_central(t) and action >= METRO_CENTRAL_ACTION:     # the central part (C2; a share shown, C18)
            k = check_space(d, &self.cd, action, CO_SHARES if has_companies(t) else 1)
            if k != 0:
                return k
            if has_companies(t):
                return co_check_piece(d, &self.co, &self.cd, action)
            return R_CE_PIECE if self.cd.piece_space[d.current] >= 0 else 0
        if d.phase == PHASE_OVER:
            return R_OVER
        if has_companies(t) and action > METRO_DRAW:           # the companies part: an exchange (M13)
            return co_check_exchange(d, t, &self.co, &self.cd, action)
        if action == METRO_DRAW:
            if d.phase != PHASE_TURN:
                return R_PHASE_DRAW
            return R_EMPTY_SUPPLY if d.top >= METRO_TILES else 0
        if action < 0 or action > METRO_DRAW:
            return R_RANGE
        k = action >> 8
        sq = (action >> 2) & 63
        r = action & 3
        if d.phase == PHASE_PLACE_DRAWN:
            if k != d.drawn:
                return R_NOT_DRAWN
        else:
            found = False
            for i in range(d.hand_n[d.current]):
                if d.hand[d.current][i] == k:
                    found = True
            if not found:
                return R_NOT_IN_HAND
        found = False
        for i in range(t.nrot[k]):
            if t.rots[k][i] == r:
                found = True
        if not found:
            return R_ROTATION
        cdef uint64_t cand = candidate_squares(d.placed)
        if not (cand >> sq) & 1:
            return R_SQUARE
        if not (allowed_squares(t, cand, k, r, d.central) >> sq) & 1:
            return R_ONE_TILE
        return 0

    cdef void c_apply(self, int action) noexcept nogil:
        cdef MetroData* d = &self.d
        cdef int p = d.current, i, n
        if action == METRO_DRAW:
            d.drawn = draw_tile(d)
            d.phase = PHASE_PLACE_DRAWN
            return
        if action > METRO_DRAW:
            if action >= METRO_CENTRAL_ACTION:     # the central part (C2): the mover's own piece, or
                i = p                              # with companies the shown share's company's (C18)
                if has_companies(self.t):
                    i = co_show(&self.co, &self.cd, self.t, p, (action - METRO_CENTRAL_ACTION) >> 3)
                place_piece(d, self.t, &self.cd, i, (action - METRO_CENTRAL_ACTION) & 7)
            else:                                  # the companies part: an exchange (M13, M16)
                co_exchange(&self.co, self.t, p, action)
        else:
            place_tile(d, self.t, action >> 8, (action >> 2) & 63, action & 3)
            if d.phase == PHASE_PLACE_DRAWN:
                d.drawn = -1          # the hand tile stays in hand (M4)
                d.phase = PHASE_TURN
            else:
                hand_remove(d, p, action >> 8)
                if d.top < METRO_TILES:
                    hand_add(d, p, draw_tile(d))
        pass_turn(d, self.t, p)
        if has_companies(self.t):                  # M20: the turn limit
            co_end_at_turn_limit(d, self.t, &self.co)

    cdef int c_num_actions(self) noexcept nogil:
        return self.t.num_actions

    cdef void c_scores(self, double* out) noexcept nogil:
        """The players' points (M7); with companies the final scoring on the profits as they
        stand (M14, M19)."""
        cdef int i
        if has_companies(self.t):
            co_scores(&self.d, self.t, &self.co, out)
            return
        for i in range(self.t.players):
            out[i] = self.d.score[i]

    cdef void c_heuristic(self, double* out) noexcept nogil:
        """Score plus three times the tiles each player's open lines already pass (public
        information only): open lines keep growing until they close (see the weight's note).
        With companies each player's expected final score from what they know (M19), the
        companies' profits projected the same way."""
        cdef int l
        if has_companies(self.t):
            co_expected(&self.d, self.t, &self.co, METRO_OPEN_LINE_WEIGHT, 0.0, out)
            return
        self.c_scores(out)
        for l in range(self.t.nlines + self.t.ncentral):
            if self.d.line_arr[l] < 0:
                out[self.t.line_owner[l]] += METRO_OPEN_LINE_WEIGHT * self.d.line_len[l]

    def greedy_values(self, double open_bonus=METRO_GREEDY_OPEN_BONUS):
        """One value per player for the one-ply greedy bot (public information only): the score
        (closed lines at their points) plus, for each open line, its tiles so far plus
        ``open_bonus`` (see METRO_GREEDY_OPEN_BONUS). With companies the heuristic's expected
        share value, each company's open lines projected the same way."""
        cdef int l, n = self.c_num_players()
        cdef double out[8]
        if has_companies(self.t):
            co_expected(&self.d, self.t, &self.co, 1.0, open_bonus, out)
            return [out[i] for i in range(n)]
        self.c_scores(out)
        for l in range(self.t.nlines + self.t.ncentral):
            if self.d.line_arr[l] < 0:
                out[self.t.line_owner[l]] += self.d.line_len[l] + open_bonus
        return [out[i] for i in range(n)]

    cdef int c_observed_action(self, int action, int player) noexcept nogil:
        """With companies (M18) others see an exchange's percentage and source, not the company
        put back; every other action is seen as it is."""
        if has_companies(self.t):
            return co_observed(&self.d, action, player)
        return action

    cdef void c_copy_from(self, GameState other) noexcept nogil:
        self.d = (<MetroState>other).d
        if has_central(self.t):
            self.cd = (<MetroState>other).cd
        if has_companies(self.t):
            self.co = (<MetroState>other).co

    cdef void c_determinize_from(self, GameState source, int player, uint64_t seed) noexcept nogil:
        cdef MetroData* d = &self.d
        cdef const MetroTables* t = self.t
        cdef int counts[24]
        cdef signed char pool[60]
        cdef int k, i, p, n = 0, c
        cdef rng_t rng = seed
        self.d = (<MetroState>source).d
        self.cd = (<MetroState>source).cd          # the central pieces are public (C2)
        # What the player has not seen: all tiles less the board, their own hand, their own draw.
        for k in range(METRO_KINDS):
            counts[k] = t.count[k]
        for i in range(64):
            c = d.cell[i]
            if c != METRO_EMPTY and c >> 2 < METRO_KINDS:     # central-track pieces are no tiles (C3)
                counts[c >> 2] -= 1
        for i in range(d.hand_n[player]):
            counts[d.hand[player][i]] -= 1
        if d.drawn >= 0 and d.current == player:
            counts[d.drawn] -= 1
        for k in range(METRO_KINDS):
            for i in range(counts[k]):
                pool[n] = k
                n += 1
        rng_shuffle(&rng, pool, n)
        n = 0
        for p in range(t.players):
            if p != player:
                c = d.hand_n[p]
                d.hand_n[p] = 0
                for i in range(c):
                    hand_add(d, p, pool[n])
                    n += 1
        if d.drawn >= 0 and d.current != player:
            d.drawn = pool[n]
            n += 1
        for i in range(d.top, METRO_TILES):
            d.supply[i] = pool[n]
            n += 1
        if has_companies(t):            # the companies part: the shares `player` does not know (M18)
            self.co = (<MetroState>source).co
            co_determinize(&self.co, t, player, seed)

    cdef GameState c_new_blank(self):
        return (<MetroGame>self.game)._blank()

    # ---- Python face ----
    def _reason(self, int code):
        if code in _REASONS:
            return _REASONS[code]
        return metro_modules.reasons().get(code, f"reason code {code}")

    def _summary(self):
        d = self.d
        return (f"metro {self.t.players} players, {d.nplaced} tiles placed, phase {_PHASES[d.phase]}, "
                f"player {d.current} to move with hand {[self.game.tile_ids[k] for k in self.hand(d.current)] if d.current >= 0 else []}"
                + (f", drawn {self.game.tile_ids[d.drawn]}" if d.drawn >= 0 else "")
                + "".join(m.summary(self) for m in metro_modules.layers(self.game.modules)))

    @property
    def phase(self):
        """'turn' (place a hand tile or draw), 'place_drawn' (place the drawn tile) or 'over'."""
        return _PHASES[self.d.phase]

    @property
    def tiles_placed(self):
        return self.d.nplaced

    @property
    def supply_size(self):
        return METRO_TILES - self.d.top

    def hand(self, int player):
        """Kind indices in `player`'s hand, sorted (hidden from the others)."""
        self._check_player(player)
        return [self.d.hand[player][i] for i in range(self.d.hand_n[player])]

    def drawn_tile(self):
        """Kind index of the tile drawn this turn (seen by the current player only), or None."""
        return self.d.drawn if self.d.drawn >= 0 else None

    def supply(self):
        """Kind indices of the face-down supply, front (next draw) first. Hidden from everyone."""
        return [self.d.supply[i] for i in range(self.d.top, METRO_TILES)]

    def board(self):
        """64 entries, square = row * 8 + col: None or (kind index, rotation)."""
        return [None if c == METRO_EMPTY else (c >> 2, c & 3) for c in self.d.cell[:64]]   # kinds 24..: CT1.. (C3)

    def lines(self):
        """Every owned line that has scored: station, owner, tiles passed, arrival (0 = centre),
        whether doubled, points. In station order; then the central pieces' (station 33 + space, C2)."""
        out = []
        for l in range(self.t.nlines):
            if self.d.line_arr[l] >= 0:
                central = self.d.line_arr[l] == 0
                out.append({"station": self.t.line_station[l], "owner": self.t.line_owner[l],
                            "tiles": self.d.line_len[l], "arrival": self.d.line_arr[l],
                            "central": central, "points": self.d.line_len[l] * (2 if central else 1)})
        for piece in range(self.t.ncentral):       # the central part (C2)
            space, l = self.cd.piece_space[piece], self.t.nlines + piece
            if space >= 0 and self.d.line_arr[l] >= 0:
                doubled = self.d.line_arr[l] == 0
                out.append({"station": CENTRAL_STATION_BASE + space, "owner": piece, "tiles": self.d.line_len[l],
                            "arrival": self.d.line_arr[l], "central": doubled,
                            "points": self.d.line_len[l] * (2 if doubled else 1)})
        return out

    # ---- the modules' Python methods: each defined in its module's file (MetroModule.state_methods)
    # and lent here by name ----
    profits = _Lent("companies", "profits")
    company_values = _Lent("companies", "company_values")
    exchanges_open = _Lent("companies", "exchanges_open", True)
    shares = _Lent("companies", "shares")
    face_up = _Lent("companies", "face_up")
    piles = _Lent("companies", "piles")
    exchanges_made = _Lent("companies", "exchanges_made")
    central_pieces = _Lent("central", "central_pieces")
    shown = _Lent("central", "shown")

    def _check_observable(self, action):
        """Any Metro action id reads the same in every position (M18: an exchange as company 0's
        of the same percentage and source), legal now or not."""
        if not 0 <= action < (CO_EXCHANGE + 2 * CO_SHARES if has_companies(self.t) else self.c_num_actions()):
            raise ValueError(f"not a Metro action: {action!r}")

    def _board_json(self):
        name = self.game.piece_name
        return [[None if self.d.cell[r * 8 + c] == METRO_EMPTY else
                 {"tile": name(self.d.cell[r * 8 + c] >> 2), "rotation": self.d.cell[r * 8 + c] & 3}
                 for c in range(8)] for r in range(8)]

    def _public(self):
        """The public fields: the base game's, then each module's part, innermost first (the
        companies', M11-M18; the central part's last, C2)."""
        obj = self._base_public()
        for m in metro_modules.layers(self.game.modules):
            m.public(self, obj)
        return obj

    def _base_public(self):
        g = self.game
        return {
            "current_player": self.d.current,
            "phase": self.phase,
            "tiles_placed": self.d.nplaced,
            "board": self._board_json(),
            "stations": [list(g.owners[p]) for p in range(self.t.players)],
            "scores": self.scores(),
            "lines": self.lines(),
            "hand_sizes": [self.d.hand_n[p] for p in range(self.t.players)],
            "supply_size": self.supply_size,
        }

    def observation(self, player):
        """What `player` sees, as a JSON-ready dict: the board, stations, scores, scored lines,
        their own hand, the sizes of the others' hands and of the supply, and the drawn tile if
        they drew it (M3). Nothing hidden from them.

        With companies (M18): the company profits and values, the face-up shares, pile sizes,
        exchanges made, their own shares, and every share place they know: ``holdings`` (per
        player, per percentage: the share id, or None where they do not know it),
        ``pile_known`` (per pile, per face-down position, top first: the same), and ``known``
        (the public record of who knows each place). Scores are left out: they depend on shares
        the player may not know (the majority bonus, M14); the profits and values are there."""
        self._check_player(player)
        obs = {"game": self.game.name, "options": self.game.state_options}
        obs.update(self._public())
        ids = self.game.tile_ids
        obs["player"] = player
        obs["hand"] = [ids[k] for k in self.hand(player)]
        obs["drawn"] = ids[self.d.drawn] if self.d.drawn >= 0 and self.d.current == player else None
        for m in metro_modules.layers(self.game.modules):
            m.observe(self, obs, player)
        return obs

    def _state_fields(self):
        obj = self._public()
        ids = self.game.tile_ids
        obj["hands"] = [[ids[k] for k in self.hand(p)] for p in range(self.t.players)]
        obj["drawn"] = ids[self.d.drawn] if self.d.drawn >= 0 else None
        obj["supply"] = [ids[k] for k in self.supply()]
        for m in metro_modules.layers(self.game.modules):
            m.state_fields(self, obj)
        return obj

    def render(self, player=None):
        """A text drawing for terminals: the tracks of every placed tile in box-drawing
        characters (``text.board_text``), squares named by column letter and row number, the
        stations and whose they are, scores, and the hand of `player` if given."""
        from metro_ai.engine.metro.text import board_text
        ids = self.game.tile_ids
        rows = [board_text(self, player)]
        # a seat's view (`player`) shows the scores where its observation does: with companies
        # not before the end, since they reveal shares (M18)
        shown = player is None or not has_companies(self.t) or self.d.current < 0
        rows.append("scores: " + ("  ".join(f"P{p}={s}" for p, s in enumerate(self.scores())) if shown
                                  else "hidden until the end")
                    + f"   supply: {self.supply_size}   placed: {self.d.nplaced}/60")
        if self.d.current >= 0:
            rows.append(f"to move: P{self.d.current} ({self.phase})")
        else:
            rows.append("game over")
        if player is not None:
            self._check_player(player)
            rows.append(f"P{player} hand: " + " ".join(ids[k] for k in self.hand(player))
                        + (f"  drawn: {ids[self.d.drawn]}" if self.d.drawn >= 0 and self.d.current == player else ""))
        for m in metro_modules.layers(self.game.modules):
            m.render(self, rows, player)
        return "\n".join(rows)

_PHASES = ("turn", "place_drawn", "over")


def _load_state(MetroGame game, obj, MetroState st=None, exchanges=None, central=(), turn_checks=True):
    """The state `obj` describes: ``loader.load_state`` (the base game's loader, in its own module)."""
    from .loader import load_state
    return load_state(game, obj, st, exchanges, central, turn_checks)

# cython: language_level=3
"""Metro: City Edition modules 2 and 3 (rules C2, C3; decisions C12-C18 of ``docs/rules/metro.md``).

Module 2, central stations (``central_stations=True``): a part of the state, not a class: the
pieces (``CentralData``, ``MetroState.cd``) are switched on by the tables' ``ncentral``; the base
state's methods play them with the C helpers of ``rules.pyx`` (``space_free``, ``place_piece``,
``check_space``; with companies, a share shown: ``co_show``), tested through ``has_central``;
this file holds the module (``CentralModule``, ``module.py``): their text, deal and loader, and
the state's methods ``central_pieces`` and ``shown``. The board's
geometry for them lives in ``rules.pyx`` too: the 8 spaces
round the centre (space j, clockwise from the top-left, faces square D3 E3 F4 F5 E6 D6 C5 C4;
the facing square's even port towards the centre is the departure, the odd one the arrival, C12);
``MetroData.central`` marks the squares whose space holds a piece (a line arriving there ends at
that station and scores single, C15), ``MetroData.reached`` those whose space a line reached
while free (doubled, M7; the space is then used and takes no piece, C15). Piece j's line is line
``nlines + j`` (owner: player j; with companies, company j).

* Actions (C16): ``6209 + 8 * share + space``; without companies ``share`` is 0 (the mover's own
  piece). Text: "central station at D3" / "central station at D3 showing 20% (company 3)".
* A piece goes down instead of a tile, as the whole turn (not after drawing, M4), on a space with
  no piece that no line has reached (C15); its line is traced at once and scores the moment it
  reaches an arrival (M7), even at once (C17). M6 guards its line like a station's (C14).
* With companies (C18): the player shows one share they hold of the company, not shown before;
  it stays held and scores as before, is public from then on and can no longer be exchanged.

Module 3, central tracks (``central_tracks=True``, no part: a table flag): ``new_state`` deals as the base
game (or the companies) and then lays 4 of the 8 pieces (C3, C13): a splitmix64 stream seeded
with ``seed ^ 0x43454E5452414C33`` shuffles pieces 0..7 (Fisher-Yates from the end); the first
four go on D4, E4, D5, E5 in that order, each then turned ``bounded(4)`` quarter turns, in the
same order. They are cells of kind 24 + piece ("CT1".."CT8").
"""
import re

from libc.stdint cimport uint64_t

from metro_ai.engine.rng cimport rng_t, rng_shuffle, rng_bounded
from metro_ai.engine.metro.state cimport (MetroGame, MetroState, MetroTables, METRO_KINDS, METRO_CENTRAL_ACTION,
                                         CO_SHARES, CO_PCTS, R_CE_PHASE, R_CE_PIECE, R_CE_SPACE, R_CE_RANGE,
                                         R_CE_SHARE, R_CE_SHOWN, deal_tiles, has_central, has_companies)
from metro_ai.engine.core import as_seed
from metro_ai.engine.errors import StateFormatError

from .state import _load_state, square_name, share_name, CENTRAL_SPACE_SQUARES
from . import companies as _companies
from .loader import brief, int_in as _int_in
from .module import MetroModule

cdef uint64_t TRACKS_SALT = 0x43454E5452414C33ULL
cdef int CENTRE[4]
CENTRE[:] = [27, 28, 35, 36]

_CE_RE = re.compile(r"^\s*central\s+station\s+at\s+([a-h][1-8])(?:\s+showing\s+(10|20|30|40)\s*%\s*\(\s*company\s+([0-7])\s*\))?\s*$",
                    re.I)


def space_name(int space):
    """Text of a central space: the square it faces (space 0 faces D3, clockwise)."""
    return square_name(CENTRAL_SPACE_SQUARES[space])


def central_to_string(MetroGame game, action):
    """Text of a central-station action (C16); ValueError for anything else."""
    hi = METRO_CENTRAL_ACTION + (256 if game.companies else 8)
    if isinstance(action, bool) or not isinstance(action, int) or not METRO_CENTRAL_ACTION <= action < hi:
        raise ValueError(f"not a Metro central-station action: {action!r} ({METRO_CENTRAL_ACTION}..{hi - 1})")
    share, space = (action - METRO_CENTRAL_ACTION) >> 3, (action - METRO_CENTRAL_ACTION) & 7
    text = f"central station at {space_name(space)}"
    return text + (f" showing {share_name(share)}" if game.companies else "")


def string_to_central(MetroGame game, text):
    """The central-station action written as `text` (see ``central_to_string``)."""
    m = _CE_RE.match(text)
    if not m or bool(m.group(2)) != bool(game.companies):
        raise ValueError(f"cannot read Metro action {text!r}: expected 'central station at D3'"
                         + (" showing 20% (company 3)'" if game.companies else "'"))
    sq = (int(m.group(1)[1]) - 1) * 8 + "abcdefgh".index(m.group(1)[0].lower())
    if sq not in CENTRAL_SPACE_SQUARES:
        raise ValueError(f"{m.group(1)} faces no central space; they face {', '.join(map(square_name, CENTRAL_SPACE_SQUARES))}")
    share = 4 * int(m.group(3)) + (10, 20, 30, 40).index(int(m.group(2))) if m.group(2) else 0
    return METRO_CENTRAL_ACTION + 8 * share + CENTRAL_SPACE_SQUARES.index(sq)


def new_state(MetroGame game, seed):
    """A new game with central stations (C2) or central tracks (C3) dealt from `seed`."""
    cdef rng_t rng = as_seed(seed)
    cdef MetroState st
    if game.central_stations:
        if game.companies:            # the companies' deal into a state with its central part cleared
            return _companies.new_state(game, seed)
        st = game._blank()            # the central part cleared (no piece placed)
        deal_tiles(&st.d, st.t, &rng)
        return st
    # central tracks (C3, C13): the deal as without them, then the 4 pieces from a salted stream
    st = _companies.new_state(game, seed) if game.companies else _base_state(game, seed)
    lay_central_tracks(st, seed)
    return st


def lay_central_tracks(MetroState st, seed):
    """Lay 4 of the 8 central-track pieces on the centre of `st` (C3, C13), from the stream
    ``seed ^ TRACKS_SALT`` (the cities use it too, C35)."""
    cdef rng_t rng = as_seed(seed) ^ TRACKS_SALT
    cdef int i, j
    cdef signed char pieces[8]
    for i in range(8):
        pieces[i] = i
    rng_shuffle(&rng, pieces, 8)
    for i in range(4):
        st.d.cell[CENTRE[i]] = <unsigned char>((METRO_KINDS + pieces[i]) * 4)
    for i in range(4):
        j = rng_bounded(&rng, 4)
        st.d.cell[CENTRE[i]] += j


def _base_state(MetroGame game, seed):
    cdef rng_t rng = as_seed(seed)
    cdef MetroState st = MetroState.__new__(MetroState)
    st.game = game
    st.t = &game.tables
    deal_tiles(&st.d, st.t, &rng)
    return st


def load_state(MetroGame game, obj):
    """The state `obj` describes, with central tracks (C3) the base game's or the companies'
    loader's (which check the central squares); with central stations (C2): the pieces (and, with companies, the
    shown shares) are checked before anything else is read, then the base game's or the
    companies' loader fills a new state with the pieces placed, then the shown shares are
    checked against the shares held and the pieces, and the scores and lines against the board."""
    def bad(msg):
        raise StateFormatError(f"metro state: {msg}")
    cdef const MetroTables* t = &game.tables
    cdef int n = t.players, j
    if not game.central_stations:     # central tracks alone (C3): the base game's or the companies' loader
        return _companies.load_state(game, obj) if game.companies else _load_state(game, obj)
    if "central" not in obj:
        bad("missing field 'central' (central stations, C2)")
    c = obj["central"]
    keys = {"spaces", "shown"} if game.companies else {"spaces"}
    if not isinstance(c, dict) or set(c) != keys:
        bad(f"central must be an object with {' and '.join(repr(k) for k in sorted(keys))}")
    spaces = c["spaces"]
    if not isinstance(spaces, list) or len(spaces) != 8:
        bad("central.spaces must list the 8 central spaces (null or a piece)")
    who = "company 0..7" if game.companies else f"player 0..{n - 1}"
    seen = {}
    for j, v in enumerate(spaces):
        if v is None:
            continue
        if not _int_in(v, 0, t.ncentral - 1):
            bad(f"central.spaces[{j}]: a piece is a {who}, got {brief(v)} (C2)")
        if v in seen:
            bad(f"central.spaces[{j}]: piece {v} is also on space {seen[v]}: each piece is placed once (C2)")
        seen[v] = j
    pieces = [(v, j) for j, v in enumerate(spaces) if v is not None]
    if game.companies:
        shown = c["shown"]
        if not isinstance(shown, list) or len(shown) != n or any(
                not isinstance(s, list) or any(not _int_in(i, 0, 3) for i in s) or s != sorted(set(s)) for s in shown):
            bad(f"central.shown must be {n} ascending lists of distinct pct indices 0..3 (C18)")
    cdef MetroState st = game._blank()
    for v, j in pieces:
        st.cd.piece_space[v] = j
        st.cd.space_piece[j] = v
    if not game.companies:
        _load_state(game, obj, st, exchanges=len(pieces), central=pieces)
        for key, value in (("scores", st.scores()), ("lines", st.lines())):
            if key in obj and obj[key] != value:
                bad(f"{key} {brief(obj[key])} do not match the board and pieces, which give {brief(value)}")
        return st
    for p in range(n):
        for i in shown[p]:
            st.cd.shown[p] |= 1 << i
    _companies.load_state(game, obj, st, central=pieces)
    held = obj["shares"]["held"]
    shown_companies = sorted(held[p][i] >> 2 for p in range(n) for i in shown[p])
    if shown_companies != sorted(v for v, _ in pieces):
        bad(f"central: the companies of the shown shares {shown_companies} must be those of the pieces placed "
            f"{sorted(v for v, _ in pieces)}: every piece is placed by showing one share of its company (C18)")
    for p in range(n):
        for i in shown[p]:
            if sorted(obj["known"]["held"][p][i]) != list(range(n)):
                bad(f"known.held[{p}][{i}]: a shown share is known to every player (C18)")
    return st


# ---- the central part's Python methods on the state (C2, C18), lent to MetroState by name ----

def central_pieces(MetroState st):
    """The piece on each central space (its player; with companies its company), or None (C2)."""
    if not has_central(st.t):
        raise ValueError("this game has no central stations (option central_stations, C2)")
    return [None if st.cd.space_piece[j] < 0 else st.cd.space_piece[j] for j in range(8)]


def shown(MetroState st, int player):
    """Pct indices (0..3 for 10%..40%) of the shares `player` has shown for central stations
    (C18), ascending."""
    st._check_player(player)
    if not has_central(st.t):
        raise ValueError("this game has no central stations (option central_stations, C2)")
    if not has_companies(st.t):
        raise ValueError("this game has no companies' shares (option companies, M11)")
    return [i for i in range(CO_PCTS) if (st.cd.shown[player] >> i) & 1]


class CentralModule(MetroModule):
    """City Edition modules 2 and 3 (C2, C3, C12-C18): the central-station pieces as the state's
    central part and their actions; the central tracks as cells laid at the deal."""
    name = "central"
    rules = "C2-C3, C12-C18"
    state_methods = ("central_pieces", "shown")
    reasons = {
        R_CE_PHASE: "a tile was drawn this turn and must be placed; a central station is a whole turn instead (C2)",
        R_CE_PIECE: "that central-station piece is already on the board (C2)",
        R_CE_SPACE: "that central space holds a piece or a line has already reached it (C15)",
        R_CE_RANGE: "not a central-station action (6209 + 8 * share + space; share 0 without companies, C16)",
        R_CE_SHARE: "the player does not hold that share, or has shown it already (C18)",
        R_CE_SHOWN: "that share was shown for a central station and can no longer be exchanged (C2, C18)",
    }

    def active(self, MetroGame game):
        return bool(game.central_stations or game.central_tracks)

    def new_state(self, MetroGame game, seed):
        return new_state(game, seed)

    def load_state(self, MetroGame game, obj):
        return load_state(game, obj)

    def reference_game(self, MetroGame game):
        """The game with modules 2 or 3 on ``reference_city.py``."""
        from .reference_city import city_game
        return city_game(**game.reference_options())

    def owns_action(self, MetroGame game, action):
        """A central-station action's id (C16), with central stations."""
        return game.central_stations and not isinstance(action, bool) and isinstance(action, int) \
            and action >= METRO_CENTRAL_ACTION

    def action_to_string(self, MetroGame game, action):
        return central_to_string(game, action)

    def owns_text(self, MetroGame game, text):
        return game.central_stations and text.strip().lower().startswith("central")

    def string_to_action(self, MetroGame game, text):
        return string_to_central(game, text)

    def action_bounds(self, MetroGame game):
        """The central-station pieces (C2; with companies one a share, C18): at most 8 placements
        (32 with companies) a position; none with central tracks (C3), which add no action."""
        if not game.tables.ncentral:
            return 0, 0
        return (32 if game.companies else 8), METRO_CENTRAL_ACTION + (8 * CO_SHARES if game.companies else 8)

    def game_length(self, MetroGame game):
        """The central-station pieces (C2), each a turn: one a player (with companies one a company)."""
        return game.tables.ncentral

    def public(self, MetroState st, obj):
        """The central part's public fields (C2), last; with companies the shown shares too (C18)."""
        if not has_central(st.t):
            return
        if has_companies(st.t):
            obj["central"] = {"spaces": central_pieces(st), "shown": [shown(st, p) for p in range(st.t.players)]}
        else:
            obj["central"] = {"spaces": central_pieces(st)}

    def render(self, MetroState st, rows, player):
        """The pieces on the central spaces: P<player>, or with companies C<company> (C2)."""
        if not has_central(st.t):
            return
        letter = "C" if has_companies(st.t) else "P"
        rows.append("central: " + "  ".join(
            f"{square_name(CENTRAL_SPACE_SQUARES[j])}={'-' if v is None else letter + str(v)}"
            for j, v in enumerate(central_pieces(st))))


MODULE = CentralModule()

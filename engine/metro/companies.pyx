# cython: language_level=3
"""The Metro companies expansion (rules M11-M14, decisions M15-M19 of ``docs/rules/metro.md``),
switched on by ``MetroGame(companies=True)``: a module (``CompaniesModule``, ``module.py``) with
no state class of its own; the shares are the state's companies part (``CompanyData``,
``MetroState.co``), switched on by the tables' ``companies`` flag (``has_companies``), and played
by its C rules (``rules.pyx``). This file holds the part's deal, loader, actions' text, its
hooks and its Python methods on the state (``profits``, ``shares`` ...: lent to ``MetroState``).

The board, tiles, turn and lines are the base game's (rules.pxd helpers); what changes:

* Lines belong to companies (M11): all 32 stations are in play, owned by the chart
  (``data/companies_chart.csv``, **reconstructed**, or the option ``company_chart``), and a line
  scores profit for its company (M7 otherwise unchanged). ``MetroData.score[0..7]`` holds them.
* Shares (M12): share id ``4 * company + pct index`` (10/20/30/40% -> 0..3). Deal (M15): after
  the tiles (the base game's deal from the same generator), for each percentage 10, 20, 30, 40 in
  turn the 8 shares of it, listed by company ascending, are shuffled (Fisher-Yates from the end);
  players 0, 1, ... draw one each from the top, then the next is turned face up; the rest is the
  face-down pile, top first. Every player holds exactly one share of each percentage throughout.
* Exchange actions (M13): ``6145 + 2 * share + src`` (src 0: take the face-up share, 1: the top
  face-down one), legal in a turn's first step while no company has 25 profit, for a share the
  player holds, while they have exchanges left (M17; with exchange_limit=None no cap per player,
  and the game ends once ``turn_limit`` turns are taken, M20). The share put back goes to the bottom of
  its pile (M16); taking the face-up share turns the top face-down one up. Each pile always has
  a face-up share and ``7 - players`` face-down ones after an exchange (M16), so both sources
  are always there.
* Observed actions (M18): another player sees the percentage put back and the source (and the
  face-up share taken, public anyway), not the company put back: ``c_observed_action`` maps an
  exchange, for a player other than the mover, to the exchange of company 0's share of the same
  percentage from the same source.
* Knowledge (M18): every share place (a player's holding of a percentage, a face-down pile
  position) carries the set of players who know which share is there; it follows from the
  public actions alone, so it is public. ``determinize(player, seed)`` keeps every share the
  player knows and deals the others, per percentage, uniformly over the places the player does
  not know: the unknown shares in ascending id order are shuffled (Fisher-Yates from the end,
  splitmix64 seeded with ``seed ^ 0xC0A1E5CE5EED5EED``) and dealt to the other players' unknown
  holdings in seat order, then to the unknown pile positions top first (after the base game's
  redeal of the tiles from ``seed``).
* Scores (M14, M19): the final scoring applied to the profits as they stand; returns rank the
  players by it at the end.
"""
import re

from metro_ai.engine.rng cimport rng_t, rng_shuffle
from metro_ai.engine.metro.state cimport (
    MetroGame, MetroState, MetroTables, CompanyData, METRO_DRAW, CO_COMPANIES, CO_PCTS, CO_SHARES, CO_PILE,
    CO_EXCHANGE, R_EX_PHASE, R_EX_CLOSED, R_EX_LIMIT, R_EX_NOT_HELD, R_EX_RANGE, deal_tiles, has_companies,
    co_exchanges_open, co_company_values)
from metro_ai.engine.core import as_seed
from metro_ai.engine.errors import StateFormatError

from .state import _load_state, PCTS, share_name
from .loader import brief, int_in
from .module import MetroModule

SOURCES = ("face-up", "face-down")
_EX_RE = re.compile(r"^\s*exchange\s+(10|20|30|40)\s*%\s*\(\s*company\s+([0-7])\s*\)\s*take\s+face[- ]?(up|down)\s*$",
                    re.I)


def exchange_to_string(action):
    """Text of an exchange action: "exchange 20% (company 3) take face-up" (M13); ValueError
    for anything that is not one."""
    if isinstance(action, bool) or not isinstance(action, int) or not CO_EXCHANGE <= action < CO_EXCHANGE + 2 * CO_SHARES:
        raise ValueError(f"not a Metro action: {action!r} (placements 0..{METRO_DRAW - 1}, draw {METRO_DRAW}, "
                         f"exchanges {CO_EXCHANGE}..{CO_EXCHANGE + 2 * CO_SHARES - 1})")
    share, src = (action - CO_EXCHANGE) >> 1, (action - CO_EXCHANGE) & 1
    return f"exchange {share_name(share)} take {SOURCES[src]}"


def string_to_exchange(text):
    """The exchange action written as `text` (see ``exchange_to_string``; case and spacing are
    free). ValueError if unreadable."""
    m = _EX_RE.match(text)
    if not m:
        raise ValueError(f"cannot read Metro exchange {text!r}: expected e.g. 'exchange 20% (company 3) take face-up'")
    share = 4 * int(m.group(2)) + PCTS.index(int(m.group(1)))
    return CO_EXCHANGE + 2 * share + (0 if m.group(3).lower() == "up" else 1)


def new_state(MetroGame game, seed, MetroState st=None):
    """A new companies game dealt from `seed`: the base game's deal, then the shares (M15);
    into `st` (a blank state of `game`, e.g. a city's; None: a new one). The shares are the
    state's companies part (``MetroState.co``)."""
    cdef rng_t rng = as_seed(seed)
    if st is None:
        st = game._blank()
    cdef CompanyData* c = &st.co
    cdef int i, k, p, top
    cdef signed char pile[8]
    deal_tiles(&st.d, st.t, &rng)
    for i in range(CO_PCTS):
        for k in range(CO_COMPANIES):
            pile[k] = 4 * k + i
        rng_shuffle(&rng, pile, CO_PILE)
        top = 0
        for p in range(CO_COMPANIES):
            c.pile[i][p] = -1
            c.pile_known[i][p] = 0
        for p in range(6):
            c.hold[p][i] = -1
            c.hold_known[p][i] = 0
        for p in range(st.t.players):
            c.hold[p][i] = pile[top]
            c.hold_known[p][i] = 1 << p
            top += 1
        c.face_up[i] = pile[top]
        top += 1
        c.pile_n[i] = CO_PILE - top
        for k in range(CO_PILE - top):
            c.pile[i][k] = pile[top + k]
    for p in range(6):
        c.exchanges[p] = 0
    return st


_int_in = int_in            # (the loaders' checkers live in loader.pyx)


def load_state(MetroGame game, obj, MetroState st=None, central=(), extra_profit=None):
    """The companies state `obj` describes: the shares, knowledge and exchanges are checked in
    full before anything is written (M12, M16-M18), then the base game's fields are loaded, then
    the scores and lines given are checked against the board and the shares. `st`: a blank
    state to fill (None: a new one); `central`: checked central-station pieces (C2), each a turn;
    `extra_profit`: already checked profit per company besides the lines' (New York's boards, C35)."""
    def bad(msg):
        raise StateFormatError(f"metro state: {msg}")
    cdef const MetroTables* t = &game.tables
    cdef int n = t.players, i, j, p
    for key in ("shares", "known", "exchanges"):
        if key not in obj:
            bad(f"missing field {key!r} (companies, M12)")
    shares, known, exchanges = obj["shares"], obj["known"], obj["exchanges"]
    if not isinstance(shares, dict) or set(shares) != {"held", "face_up", "piles"}:
        bad("shares must be an object with 'held', 'face_up' and 'piles'")
    held, face_up, piles = shares["held"], shares["face_up"], shares["piles"]
    seen = {}

    def share(v, pct, where):
        if not _int_in(v, 0, CO_SHARES - 1):
            bad(f"{where}: a share id is an int 0..31 (4 * company + pct index), got {brief(v)}")
        if v & 3 != pct:
            bad(f"{where}: share {v} is a {PCTS[v & 3]}% share, not {PCTS[pct]}% (M12)")
        if v in seen:
            bad(f"{where}: share {v} is also at {seen[v]} (duplicate)")
        seen[v] = where

    if not isinstance(held, list) or len(held) != n:
        bad(f"shares.held must be a list of {n} lists (one per player)")
    for p, h in enumerate(held):
        if not isinstance(h, list) or len(h) != CO_PCTS:
            bad(f"shares.held[{p}]: every player holds one share of each percentage, 10% first (M12)")
        for i, v in enumerate(h):
            share(v, i, f"shares.held[{p}][{i}]")
    if not isinstance(face_up, list) or len(face_up) != CO_PCTS:
        bad("shares.face_up must be a list of 4 shares, 10% first")
    for i, v in enumerate(face_up):
        share(v, i, f"shares.face_up[{i}]")
    size = CO_PILE - n - 1
    if not isinstance(piles, list) or len(piles) != CO_PCTS:
        bad("shares.piles must be a list of 4 piles, 10% first")
    for i, pile in enumerate(piles):
        if not isinstance(pile, list) or len(pile) != size:
            bad(f"shares.piles[{i}] must hold {size} face-down shares with {n} players (M16)")
        for j, v in enumerate(pile):
            share(v, i, f"shares.piles[{i}][{j}]")
    if not isinstance(known, dict) or set(known) != {"held", "piles"}:
        bad("known must be an object with 'held' and 'piles'")

    def mask(v, where, must=None):
        if not isinstance(v, list) or any(not _int_in(q, 0, n - 1) for q in v) or len(set(v)) != len(v):
            bad(f"{where}: a list of distinct players 0..{n - 1}, got {brief(v)}")
        if must is not None and must not in v:
            bad(f"{where}: player {must} knows their own share (M18)")
        return sum(1 << q for q in v)

    kh, kp = known["held"], known["piles"]
    if not isinstance(kh, list) or len(kh) != n or any(not isinstance(r, list) or len(r) != CO_PCTS for r in kh):
        bad(f"known.held must be {n} lists of 4 lists of players")
    if not isinstance(kp, list) or len(kp) != CO_PCTS or any(not isinstance(r, list) or len(r) != size for r in kp):
        bad(f"known.piles must be 4 lists of {size} lists of players")
    hold_masks = [[mask(kh[p][i], f"known.held[{p}][{i}]", p) for i in range(CO_PCTS)] for p in range(n)]
    pile_masks = [[mask(kp[i][j], f"known.piles[{i}][{j}]") for j in range(size)] for i in range(CO_PCTS)]
    if not isinstance(exchanges, list) or len(exchanges) != n \
            or any(not _int_in(e, 0, t.exchange_limit) for e in exchanges):
        bad(f"exchanges must be {n} ints 0..{t.exchange_limit} (exchange_limit, M17)" if not t.turn_limit else
            f"exchanges must be {n} ints 0..{t.turn_limit} (exchange_limit=None: up to the turn limit, M20)")
    if st is None:
        st = game._blank()
    _load_state(game, obj, st, exchanges=sum(exchanges) + len(central), central=central)
    for k in range(CO_COMPANIES if extra_profit is not None else 0):
        st.d.score[k] += extra_profit[k]
    cdef CompanyData* c = &st.co
    for p in range(6):
        for i in range(CO_PCTS):
            c.hold[p][i] = held[p][i] if p < n else -1
            c.hold_known[p][i] = hold_masks[p][i] if p < n else 0
        c.exchanges[p] = exchanges[p] if p < n else 0
    for i in range(CO_PCTS):
        c.face_up[i] = face_up[i]
        c.pile_n[i] = size
        for j in range(CO_PILE):
            c.pile[i][j] = piles[i][j] if j < size else -1
            c.pile_known[i][j] = pile_masks[i][j] if j < size else 0
    for key, value in (("scores", st.scores()), ("lines", st.lines()), ("profits", profits(st))):
        if key in obj and obj[key] != value:
            bad(f"{key} {brief(obj[key])} do not match the board and shares, which give {brief(value)}")
    for key, value in (("exchanges_open", exchanges_open(st)), ("pile_sizes", [size] * CO_PCTS),
                       ("known", _knowledge(st))):
        if key in obj and obj[key] != value:
            bad(f"{key} {brief(obj[key])} does not match the state, which gives {brief(value)}")
    return st


# ---- the part's Python methods on the state (M11-M18), lent to MetroState by name ----

def _part(MetroState st):
    if not has_companies(st.t):
        raise ValueError("this game has no companies' shares (option companies, M11)")


def profits(MetroState st):
    """The 8 companies' profit points, company 0 first (M14)."""
    _part(st)
    return [st.d.score[k] for k in range(CO_COMPANIES)]


def company_values(MetroState st):
    """Each company's value now (M14): 8 for the most profit, down by distinct profits."""
    cdef double profit[8]
    cdef int value[8]
    _part(st)
    for k in range(CO_COMPANIES):
        profit[k] = st.d.score[k]
    co_company_values(profit, value)
    return [value[k] for k in range(CO_COMPANIES)]


def exchanges_open(MetroState st):
    """Whether exchanges are still allowed: no company has reached 25 profit (M13). A property of
    the state."""
    _part(st)
    return bool(co_exchanges_open(&st.d))


def shares(MetroState st, int player):
    """The share ids `player` holds, 10% first (hidden from the others, M12)."""
    _part(st)
    st._check_player(player)
    return [st.co.hold[player][i] for i in range(CO_PCTS)]


def face_up(MetroState st):
    """The face-up share of each pile, 10% first (public)."""
    _part(st)
    return [st.co.face_up[i] for i in range(CO_PCTS)]


def piles(MetroState st):
    """The face-down shares of each pile, top first, 10% pile first (hidden)."""
    _part(st)
    return [[st.co.pile[i][j] for j in range(st.co.pile_n[i])] for i in range(CO_PCTS)]


def exchanges_made(MetroState st):
    """Exchanges each player has made so far (public, M17)."""
    _part(st)
    return [st.co.exchanges[p] for p in range(st.t.players)]


def _known(MetroState st, int mask):
    return [p for p in range(st.t.players) if (mask >> p) & 1]


def _knowledge(MetroState st):
    """Who knows each share place (M18): per player's holding, per pile position."""
    c = st.co
    return {"held": [[_known(st, c.hold_known[p][i]) for i in range(CO_PCTS)] for p in range(st.t.players)],
            "piles": [[_known(st, c.pile_known[i][j]) for j in range(c.pile_n[i])] for i in range(CO_PCTS)]}


class CompaniesModule(MetroModule):
    """The companies (M11-M20): exchanges as actions, the shares as the state's companies part."""
    name = "companies"
    rules = "M11-M20"
    state_methods = ("profits", "company_values", "exchanges_open", "shares", "face_up", "piles", "exchanges_made")
    reasons = {
        R_EX_PHASE: "a tile was drawn this turn and must be placed; an exchange is a whole turn instead (M13)",
        R_EX_CLOSED: "a company has reached 25 profit points: exchanges are over (M13)",
        R_EX_LIMIT: "the player has made all the exchanges allowed (exchange_limit, M17)",
        R_EX_NOT_HELD: "the player does not hold that share (M13)",
        R_EX_RANGE: "not a Metro companies action (exchanges are 6145 + 2 * share + src, share 0..31)",
    }

    def active(self, MetroGame game):
        return bool(game.companies)

    def new_state(self, MetroGame game, seed):
        """The base game's deal, then the shares (M15)."""
        return new_state(game, seed)

    def load_state(self, MetroGame game, obj):
        return load_state(game, obj)

    def reference_game(self, MetroGame game):
        """The companies game on ``reference_companies.py``."""
        from .reference_companies import RefCompaniesGame
        o = game.reference_options()
        return RefCompaniesGame(players=o["players"], orientation=o["orientation"], hand_size=o["hand_size"],
                                chart=o["chart"], exchange_limit=o["exchange_limit"], turn_limit=o["turn_limit"])

    def owns_action(self, MetroGame game, action):
        """An exchange's id (or any int past the draw): its text is ``exchange_to_string``'s."""
        return not isinstance(action, bool) and isinstance(action, int) and action > METRO_DRAW

    def action_to_string(self, MetroGame game, action):
        return exchange_to_string(action)

    def owns_text(self, MetroGame game, text):
        return text.strip().lower().startswith("exchange")

    def string_to_action(self, MetroGame game, text):
        return string_to_exchange(text)

    def action_bounds(self, MetroGame game):
        """The exchanges (M13): at most one a percentage from each source; their ids end the block."""
        return 2 * CO_PCTS, CO_EXCHANGE + 2 * CO_SHARES

    def game_length(self, MetroGame game):
        """The exchanges (M17): exchange_limit each (with exchange_limit=None the turn limit bounds
        the game instead, M20)."""
        return game.players * (game.exchange_limit or 0)

    def public(self, MetroState st, obj):
        """The company stations, profits and values, face-up shares, pile sizes, exchanges and
        who knows which share (M11-M18), after the base game's fields."""
        g = st.game
        obj["stations"] = [list(g.owners[k]) for k in range(CO_COMPANIES)]     # per company (M11)
        obj["profits"] = profits(st)
        obj["company_values"] = company_values(st)
        obj["face_up"] = face_up(st)
        obj["pile_sizes"] = [st.co.pile_n[i] for i in range(CO_PCTS)]
        obj["exchanges"] = exchanges_made(st)
        obj["exchanges_open"] = exchanges_open(st)
        obj["known"] = _knowledge(st)

    def state_fields(self, MetroState st, obj):
        obj["shares"] = {"held": [shares(st, p) for p in range(st.t.players)], "face_up": face_up(st),
                         "piles": piles(st)}

    def observe(self, MetroState st, obs, int player):
        """M18: no scores (they depend on shares the player may not know); their own shares, and
        every share place they know (``holdings``, ``pile_known``)."""
        c = st.co
        del obs["scores"]
        obs["shares"] = shares(st, player)
        obs["holdings"] = [[c.hold[q][i] if (c.hold_known[q][i] >> player) & 1 else None for i in range(CO_PCTS)]
                           for q in range(st.t.players)]
        obs["pile_known"] = [[c.pile[i][j] if (c.pile_known[i][j] >> player) & 1 else None
                              for j in range(c.pile_n[i])] for i in range(CO_PCTS)]

    def render(self, MetroState st, rows, player):
        """The company profits and values, the face-up shares, exchanges made and, if `player` is
        given, that player's shares."""
        rows.append("profits: " + "  ".join(f"C{k}={v}" for k, v in enumerate(profits(st)))
                    + "   values: " + " ".join(str(v) for v in company_values(st)))
        rows.append("face up: " + "  ".join(share_name(s) for s in face_up(st))
                    + f"   face down: {[st.co.pile_n[i] for i in range(CO_PCTS)]}"
                    + f"   exchanges {'open' if exchanges_open(st) else 'closed'}: "
                    + " ".join(f"P{p}={e}" for p, e in enumerate(exchanges_made(st))))
        if player is not None:
            rows.append(f"P{player} shares: " + "  ".join(share_name(s) for s in shares(st, player)))

    def summary(self, MetroState st):
        return f", profits {profits(st)}, exchanges " + ("open" if co_exchanges_open(&st.d) else "closed")


MODULE = CompaniesModule()

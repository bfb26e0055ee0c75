# cython: language_level=3
"""The Metro companies expansion (rules M11-M14, decisions M15-M19 of ``docs/rules/metro.md``):
a state subclass of the base game's ``MetroState``, chosen by ``MetroGame(companies=True)``.

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

from libc.stdint cimport uint64_t

from metro_ai.engine.core cimport GameState
from metro_ai.engine.rng cimport rng_t, rng_shuffle
from metro_ai.engine.metro.rules cimport (
    MetroGame, MetroState, MetroData, MetroTables, METRO_DRAW, METRO_MAX_HAND, METRO_SQUARES,
    METRO_TILES, METRO_CENTRAL_ACTION, PHASE_TURN, PHASE_OVER, deal_tiles, pass_turn, tile_actions,
    clear_central, space_free, place_piece, check_space, R_CE_PIECE, R_CE_SHARE, R_CE_SHOWN)
from metro_ai.engine.core import as_seed
from metro_ai.engine.errors import StateFormatError

from .rules import _load_state
from .loader import brief, int_in

# Weight of an open line's tiles in the heuristic's projected profits: the base game's heuristic
# weight (rules.pyx, METRO_OPEN_LINE_WEIGHT), for the same reason: open lines keep growing.
cdef double CO_OPEN_LINE_WEIGHT = 3.0
# The greedy bot's open-line constant (greedy_values): the base game's (METRO_GREEDY_OPEN_BONUS).
cdef double CO_GREEDY_OPEN_BONUS = 10.0
cdef uint64_t CO_DETERMINIZE_SALT = 0xC0A1E5CE5EED5EEDULL

# Reason codes of c_check for exchanges (the base game's are 1-9).
cdef enum:
    R_EX_PHASE = 20
    R_EX_CLOSED = 21
    R_EX_LIMIT = 22
    R_EX_NOT_HELD = 23
    R_EX_RANGE = 24

_REASONS = {
    R_EX_PHASE: "a tile was drawn this turn and must be placed; an exchange is a whole turn instead (M13)",
    R_EX_CLOSED: "a company has reached 25 profit points: exchanges are over (M13)",
    R_EX_LIMIT: "the player has made all the exchanges allowed (exchange_limit, M17)",
    R_EX_NOT_HELD: "the player does not hold that share (M13)",
    R_EX_RANGE: "not a Metro companies action (exchanges are 6145 + 2 * share + src, share 0..31)",
}
PCTS = (10, 20, 30, 40)
SOURCES = ("face-up", "face-down")
_EX_RE = re.compile(r"^\s*exchange\s+(10|20|30|40)\s*%\s*\(\s*company\s+([0-7])\s*\)\s*take\s+face[- ]?(up|down)\s*$",
                    re.I)


def share_name(int share):
    """Text of a share id (0..31): e.g. "20% (company 3)"."""
    return f"{PCTS[share & 3]}% (company {share >> 2})"


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


# ---- the module's hooks (rules.pyx MODULES) ----

def owns_action(MetroGame game, action):
    """An exchange's id (or any int past the draw): its text is ``exchange_to_string``'s."""
    return not isinstance(action, bool) and isinstance(action, int) and action > METRO_DRAW


def action_to_string(MetroGame game, action):
    return exchange_to_string(action)


def owns_text(MetroGame game, text):
    return text.strip().lower().startswith("exchange")


def string_to_action(MetroGame game, text):
    return string_to_exchange(text)


def reference_game(MetroGame game):
    """The companies game on ``reference_companies.py``."""
    from .reference_companies import RefCompaniesGame
    o = game.reference_options()
    return RefCompaniesGame(players=o["players"], orientation=o["orientation"], hand_size=o["hand_size"],
                            chart=o["chart"], exchange_limit=o["exchange_limit"], turn_limit=o["turn_limit"])


cdef CompaniesState _blank(MetroGame game):
    cdef CompaniesState st = CompaniesState.__new__(CompaniesState)
    st.game = game
    st.t = &game.tables
    if game.tables.ncentral:            # the central part (C2, C18)
        clear_central(&st.cd)
    return st


def new_state(MetroGame game, seed, CompaniesState st=None):
    """A new companies game dealt from `seed`: the base game's deal, then the shares (M15);
    into `st` (a blank state, e.g. of a subclass; None: a new one)."""
    cdef rng_t rng = as_seed(seed)
    if st is None:
        st = _blank(game)
    cdef CompanyData* c = &st.c
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


cdef class CompaniesState(MetroState):
    """A Metro companies position (M11-M14), hidden parts included: the base game's board,
    tiles and turn, with company profits, the players' shares and the share piles. With central
    stations (C2, C18; the base state's central part, switched on by the tables' ``ncentral``) a
    player places a company's piece by showing one of its shares."""

    # ---- the C-level contract ----
    cdef int c_max_actions(self) noexcept nogil:
        return METRO_MAX_HAND * METRO_SQUARES * 4 + 1 + 2 * CO_PCTS + (32 if self.t.ncentral else 0)

    cdef int c_num_actions(self) noexcept nogil:
        return METRO_CENTRAL_ACTION + 256 if self.t.ncentral else CO_EXCHANGE + 2 * CO_SHARES

    cdef bint c_exchanges_open(self) noexcept nogil:
        cdef int k
        for k in range(CO_COMPANIES):
            if self.d.score[k] >= CO_CUTOFF:
                return False
        return True

    cdef int c_turns(self) noexcept nogil:
        """Turns taken (M13, C2): tiles placed, exchanges made, central-station pieces placed."""
        cdef int p, n = self.d.nplaced
        cdef uint64_t pieces = self.d.central
        for p in range(self.t.players):
            n += self.c.exchanges[p]
        while pieces:
            pieces &= pieces - 1
            n += 1
        return n

    cdef void c_end_at_turn_limit(self) noexcept nogil:
        """M20 (exchange_limit=None): once a turn ends with ``turn_limit`` turns taken, the game
        is over there; returns rank by the final scoring (M14, M19) as at any end."""
        if self.t.turn_limit > 0 and self.d.phase == PHASE_TURN and self.c_turns() >= self.t.turn_limit:
            self.d.current = -1
            self.d.phase = PHASE_OVER

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        cdef int n = tile_actions(&self.d, self.t, out)
        cdef int p = self.d.current, i, j, s
        cdef int held[4]
        cdef bint exchanges
        if self.d.phase != PHASE_TURN:
            return n
        exchanges = self.c.exchanges[p] < self.t.exchange_limit and self.c_exchanges_open()
        if not (exchanges or self.t.ncentral):
            return n
        for i in range(CO_PCTS):                  # the 4 shares held, ascending (insertion sort)
            s = self.c.hold[p][i]
            j = i
            while j > 0 and held[j - 1] > s:
                held[j] = held[j - 1]
                j -= 1
            held[j] = s
        if exchanges:
            for i in range(CO_PCTS):
                if self.t.ncentral and (self.cd.shown[p] >> (held[i] & 3)) & 1:
                    continue                      # a shown share cannot be exchanged (C18)
                out[n] = CO_EXCHANGE + 2 * held[i]
                out[n + 1] = CO_EXCHANGE + 2 * held[i] + 1
                n += 2
        if self.t.ncentral:                       # the central part (C2, C18): show a share, place its company's piece
            for i in range(CO_PCTS):
                s = held[i]
                if (self.cd.shown[p] >> (s & 3)) & 1 or self.cd.piece_space[s >> 2] >= 0:
                    continue
                for j in range(8):
                    if space_free(&self.d, &self.cd, j):
                        out[n] = METRO_CENTRAL_ACTION + 8 * s + j
                        n += 1
        return n

    cdef int c_check(self, int action) noexcept nogil:
        cdef int share, p = self.d.current
        if self.t.ncentral and action >= METRO_CENTRAL_ACTION:      # the central part (C2, C18)
            share = check_space(&self.d, &self.cd, action, 32)
            if share:
                return share
            share = (action - METRO_CENTRAL_ACTION) >> 3
            if self.c.hold[p][share & 3] != share or (self.cd.shown[p] >> (share & 3)) & 1:
                return R_CE_SHARE
            if self.cd.piece_space[share >> 2] >= 0:
                return R_CE_PIECE
            return 0
        if action < CO_EXCHANGE or self.d.phase == PHASE_OVER:
            return MetroState.c_check(self, action)
        if action >= CO_EXCHANGE + 2 * CO_SHARES:
            return R_EX_RANGE
        if self.d.phase != PHASE_TURN:
            return R_EX_PHASE
        if not self.c_exchanges_open():
            return R_EX_CLOSED
        if self.c.exchanges[p] >= self.t.exchange_limit:
            return R_EX_LIMIT
        share = (action - CO_EXCHANGE) >> 1
        if self.c.hold[p][share & 3] != share:
            return R_EX_NOT_HELD
        if self.t.ncentral and (self.cd.shown[p] >> (share & 3)) & 1:
            return R_CE_SHOWN
        return 0

    cdef void c_apply(self, int action) noexcept nogil:
        cdef CompanyData* c = &self.c
        cdef int p = self.d.current, share, src, i, j, n
        if action < CO_EXCHANGE:
            MetroState.c_apply(self, action)
            self.c_end_at_turn_limit()
            return
        if action >= METRO_CENTRAL_ACTION:        # the central part (C2, C18): show the share, place the piece
            share = (action - METRO_CENTRAL_ACTION) >> 3
            self.cd.shown[p] |= <unsigned char>(1 << (share & 3))
            c.hold_known[p][share & 3] = <unsigned char>((1 << self.t.players) - 1)    # public now (C18)
            place_piece(&self.d, self.t, &self.cd, share >> 2, (action - METRO_CENTRAL_ACTION) & 7)
            pass_turn(&self.d, self.t, p)
            self.c_end_at_turn_limit()            # a piece is a turn (M20)
            return
        share = (action - CO_EXCHANGE) >> 1
        src = (action - CO_EXCHANGE) & 1
        i = share & 3
        n = c.pile_n[i]
        # put the share back, face down, at the bottom of its pile (M16): who knew it still does
        c.pile[i][n] = c.hold[p][i]
        c.pile_known[i][n] = c.hold_known[p][i]
        n += 1
        if src == 0:          # the face-up share (everyone sees it), then turn the top one up
            c.hold[p][i] = c.face_up[i]
            c.hold_known[p][i] = <unsigned char>((1 << self.t.players) - 1)
            c.face_up[i] = c.pile[i][0]
        else:                 # the top face-down share: the player sees it now
            c.hold[p][i] = c.pile[i][0]
            c.hold_known[p][i] = c.pile_known[i][0] | <unsigned char>(1 << p)
        for j in range(n - 1):
            c.pile[i][j] = c.pile[i][j + 1]
            c.pile_known[i][j] = c.pile_known[i][j + 1]
        n -= 1
        c.pile[i][n] = -1
        c.pile_known[i][n] = 0
        c.pile_n[i] = n
        c.exchanges[p] += 1
        pass_turn(&self.d, self.t, p)
        self.c_end_at_turn_limit()

    cdef void c_company_values(self, const double* profit, int* value) noexcept nogil:
        """Company values (M14): 8 for the most profit, 7 for the next distinct profit, and so
        on; tied companies share a value."""
        cdef int k, j, i, above
        for k in range(CO_COMPANIES):
            above = 0
            for j in range(CO_COMPANIES):       # distinct profits above company k's
                if profit[j] > profit[k]:
                    above += 1
                    for i in range(j):
                        if profit[i] == profit[j]:
                            above -= 1
                            break
            value[k] = 8 - above

    cdef void c_scores(self, double* out) noexcept nogil:
        """The final scoring (M14) on the profits as they stand (M19): each share is worth
        (percent / 10) x its company's value; the players holding the highest total percentage
        of a company (above 0) each get floor(profit / 10). At the end, the final scores."""
        cdef double profit[8]
        cdef int value[8]
        cdef int total[6][8]
        cdef int k, p, i, best, n = self.t.players
        for k in range(CO_COMPANIES):
            profit[k] = self.d.score[k]
        self.c_company_values(profit, value)
        for p in range(n):
            out[p] = 0.0
            for k in range(CO_COMPANIES):
                total[p][k] = 0
            for i in range(CO_PCTS):
                k = self.c.hold[p][i] >> 2
                out[p] += (i + 1) * value[k]
                total[p][k] += i + 1
        for k in range(CO_COMPANIES):
            best = 0
            for p in range(n):
                if total[p][k] > best:
                    best = total[p][k]
            if best > 0:
                for p in range(n):
                    if total[p][k] == best:
                        out[p] += self.d.score[k] // 10

    cdef void c_heuristic(self, double* out) noexcept nogil:
        """Each player's expected final score from what that player knows (M19): profits
        projected as the base game's heuristic does (open lines weighted), company values from
        them; the player's own shares exactly; a company's bonus if the player's total in it is
        at least every other player's expected total, unknown holdings counted by expectation
        over the shares of that percentage the player has not seen."""
        self.c_expected(CO_OPEN_LINE_WEIGHT, 0.0, out)

    def greedy_values(self, double open_bonus=CO_GREEDY_OPEN_BONUS):
        """One value per player for the one-ply greedy bot: the heuristic's expected share
        value, with each company's open lines projected as their tiles so far plus
        ``open_bonus`` (the base game's greedy line value, rules.pyx) instead of weighted."""
        cdef int n = self.c_num_players()
        cdef double out[8]
        self.c_expected(1.0, open_bonus, out)
        return [out[i] for i in range(n)]

    cdef void c_expected(self, double weight, double bonus, double* out) noexcept nogil:
        """The expected final scores of c_heuristic, an open line's projected profit being
        ``weight`` times its tiles so far plus ``bonus``."""
        cdef double profit[8]
        cdef int value[8]
        cdef int unknown[4]             # companies (bitmask) whose pct-i share p has not seen
        cdef int nunknown[4]
        cdef int mine[8]
        cdef double other, best
        cdef int k, p, q, i, j, l, s, n = self.t.players
        cdef const MetroTables* t = self.t
        for k in range(CO_COMPANIES):
            profit[k] = self.d.score[k]
        for l in range(t.nlines + t.ncentral):
            if self.d.line_arr[l] < 0:
                profit[t.line_owner[l]] += weight * self.d.line_len[l] + bonus
        self.c_company_values(profit, value)
        for p in range(n):
            out[p] = 0.0
            for k in range(CO_COMPANIES):
                mine[k] = 0
            for i in range(CO_PCTS):
                s = self.c.hold[p][i]
                out[p] += (i + 1) * value[s >> 2]
                mine[s >> 2] += i + 1
                unknown[i] = 0
                nunknown[i] = 0
                for q in range(n):
                    if q != p and not (self.c.hold_known[q][i] >> p) & 1:
                        unknown[i] |= 1 << (self.c.hold[q][i] >> 2)
                        nunknown[i] += 1
                for j in range(self.c.pile_n[i]):
                    if not (self.c.pile_known[i][j] >> p) & 1:
                        unknown[i] |= 1 << (self.c.pile[i][j] >> 2)
                        nunknown[i] += 1
            for k in range(CO_COMPANIES):
                if mine[k] == 0:
                    continue
                best = 0.0
                for q in range(n):
                    if q == p:
                        continue
                    other = 0.0
                    for i in range(CO_PCTS):
                        s = self.c.hold[q][i]
                        if (self.c.hold_known[q][i] >> p) & 1:
                            if s >> 2 == k:
                                other += i + 1
                        elif (unknown[i] >> k) & 1:
                            other += (i + 1) / <double>nunknown[i]
                    if other > best:
                        best = other
                if mine[k] >= best:
                    out[p] += <int>(profit[k] / 10)

    cdef int c_observed_action(self, int action, int player) noexcept nogil:
        """M18: others see an exchange's percentage and source, not the company put back: for
        a player other than the mover, the exchange of company 0's share of that percentage."""
        cdef int share
        if action < CO_EXCHANGE or player == self.d.current:
            return action
        share = (action - CO_EXCHANGE) >> 1
        return CO_EXCHANGE + 2 * (share & 3) + ((action - CO_EXCHANGE) & 1)

    cdef void c_copy_from(self, GameState other) noexcept nogil:
        self.d = (<CompaniesState>other).d
        self.c = (<CompaniesState>other).c
        if self.t.ncentral:
            self.cd = (<CompaniesState>other).cd

    cdef void c_determinize_from(self, GameState source, int player, uint64_t seed) noexcept nogil:
        """The base game's redeal of the tiles, then the shares `player` does not know, per
        percentage, dealt uniformly over the places they do not know (M18; order in the module
        docstring)."""
        cdef CompanyData* c = &self.c
        cdef rng_t rng = seed ^ CO_DETERMINIZE_SALT
        cdef signed char pool[8]
        cdef signed char* slot[8]
        cdef int i, j, q, n, k, a, b, tmp
        MetroState.c_determinize_from(self, source, player, seed)
        self.c = (<CompaniesState>source).c
        for i in range(CO_PCTS):
            n = 0
            for q in range(self.t.players):
                if q != player and not (c.hold_known[q][i] >> player) & 1:
                    slot[n] = &c.hold[q][i]
                    pool[n] = c.hold[q][i]
                    n += 1
            for j in range(c.pile_n[i]):
                if not (c.pile_known[i][j] >> player) & 1:
                    slot[n] = &c.pile[i][j]
                    pool[n] = c.pile[i][j]
                    n += 1
            for a in range(1, n):                  # the unknown shares, ascending
                b = a
                while b > 0 and pool[b - 1] > pool[b]:
                    tmp = pool[b]
                    pool[b] = pool[b - 1]
                    pool[b - 1] = tmp
                    b -= 1
            rng_shuffle(&rng, pool, n)
            for k in range(n):
                slot[k][0] = pool[k]

    cdef GameState c_new_blank(self):
        return _blank(<MetroGame>self.game)

    # ---- Python face ----
    def _reason(self, int code):
        return _REASONS[code] if code in _REASONS else MetroState._reason(self, code)

    def _summary(self):
        return (MetroState._summary(self) + f", profits {self.profits()}, exchanges "
                + ("open" if self.c_exchanges_open() else "closed"))

    def profits(self):
        """The 8 companies' profit points, company 0 first (M14)."""
        return [self.d.score[k] for k in range(CO_COMPANIES)]

    def company_values(self):
        """Each company's value now (M14): 8 for the most profit, down by distinct profits."""
        cdef double profit[8]
        cdef int value[8]
        for k in range(CO_COMPANIES):
            profit[k] = self.d.score[k]
        self.c_company_values(profit, value)
        return [value[k] for k in range(CO_COMPANIES)]

    @property
    def exchanges_open(self):
        """Whether exchanges are still allowed: no company has reached 25 profit (M13)."""
        return bool(self.c_exchanges_open())

    def shares(self, int player):
        """The share ids `player` holds, 10% first (hidden from the others, M12)."""
        self._check_player(player)
        return [self.c.hold[player][i] for i in range(CO_PCTS)]

    def face_up(self):
        """The face-up share of each pile, 10% first (public)."""
        return [self.c.face_up[i] for i in range(CO_PCTS)]

    def piles(self):
        """The face-down shares of each pile, top first, 10% pile first (hidden)."""
        return [[self.c.pile[i][j] for j in range(self.c.pile_n[i])] for i in range(CO_PCTS)]

    def exchanges_made(self):
        """Exchanges each player has made so far (public, M17)."""
        return [self.c.exchanges[p] for p in range(self.t.players)]

    def observed_action(self, int action, int player):
        """How `player` sees `action` taken by the player to move now (M18): the action itself
        for the mover and for placements; for the others an exchange reads as the exchange of
        company 0's share of the same percentage from the same source."""
        self._check_player(player)
        if not 0 <= action < CO_EXCHANGE + 2 * CO_SHARES:
            raise ValueError(f"not a Metro action: {action!r}")
        return self.c_observed_action(action, player)

    def _known(self, int mask):
        return [p for p in range(self.t.players) if (mask >> p) & 1]

    def _knowledge(self):
        c = self.c
        return {"held": [[self._known(c.hold_known[p][i]) for i in range(CO_PCTS)] for p in range(self.t.players)],
                "piles": [[self._known(c.pile_known[i][j]) for j in range(c.pile_n[i])] for i in range(CO_PCTS)]}

    def shown(self, int player):
        """Pct indices (0..3 for 10%..40%) of the shares `player` has shown for central
        stations (C18), ascending."""
        self._check_player(player)
        if not self.t.ncentral:
            raise ValueError("this game has no central stations (option central_stations, C2)")
        return [i for i in range(CO_PCTS) if (self.cd.shown[player] >> i) & 1]

    def _central_public(self):
        return {"spaces": self.central_pieces(), "shown": [self.shown(p) for p in range(self.t.players)]}

    def _add_public(self, obj):
        """The companies part's public fields (M11-M18)."""
        g = self.game
        obj["stations"] = [list(g.owners[k]) for k in range(CO_COMPANIES)]     # per company (M11)
        obj["profits"] = self.profits()
        obj["company_values"] = self.company_values()
        obj["face_up"] = self.face_up()
        obj["pile_sizes"] = [self.c.pile_n[i] for i in range(CO_PCTS)]
        obj["exchanges"] = self.exchanges_made()
        obj["exchanges_open"] = self.exchanges_open
        obj["known"] = self._knowledge()

    def observation(self, player):
        """What `player` sees (M18): the base game's view (board, lines, profits as the lines'
        scores, their own tiles) with the company profits and values, the face-up shares, pile
        sizes, exchanges made, their own shares, and every share place they know: ``holdings``
        (per player, per percentage: the share id, or None where they do not know it),
        ``pile_known`` (per pile, per face-down position, top first: the same), and ``known``
        (the public record of who knows each place). Scores are left out: they depend on shares
        the player may not know (the majority bonus, M14); the profits and values are there."""
        obs = MetroState.observation(self, player)
        del obs["scores"]
        c = self.c
        obs["shares"] = self.shares(player)
        obs["holdings"] = [[c.hold[q][i] if (c.hold_known[q][i] >> player) & 1 else None for i in range(CO_PCTS)]
                           for q in range(self.t.players)]
        obs["pile_known"] = [[c.pile[i][j] if (c.pile_known[i][j] >> player) & 1 else None
                              for j in range(c.pile_n[i])] for i in range(CO_PCTS)]
        return obs

    def _state_fields(self):
        obj = MetroState._state_fields(self)
        obj["shares"] = {"held": [self.shares(p) for p in range(self.t.players)], "face_up": self.face_up(),
                         "piles": self.piles()}
        return obj

    def _add_render(self, rows, player):
        """The base game's drawing gets the company profits and values, the face-up shares,
        exchanges made and, if `player` is given, that player's shares."""
        rows.append("profits: " + "  ".join(f"C{k}={v}" for k, v in enumerate(self.profits()))
                    + "   values: " + " ".join(str(v) for v in self.company_values()))
        rows.append("face up: " + "  ".join(share_name(s) for s in self.face_up())
                    + f"   face down: {[self.c.pile_n[i] for i in range(CO_PCTS)]}"
                    + f"   exchanges {'open' if self.c_exchanges_open() else 'closed'}: "
                    + " ".join(f"P{p}={e}" for p, e in enumerate(self.exchanges_made())))
        if player is not None:
            rows.append(f"P{player} shares: " + "  ".join(share_name(s) for s in self.shares(player)))


_int_in = int_in            # (the loaders' checkers live in loader.pyx)


def load_state(MetroGame game, obj, CompaniesState st=None, central=(), extra_profit=None):
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
        st = _blank(game)
    _load_state(game, obj, st, exchanges=sum(exchanges) + len(central), central=central)
    for k in range(CO_COMPANIES if extra_profit is not None else 0):
        st.d.score[k] += extra_profit[k]
    cdef CompanyData* c = &st.c
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
    for key, value in (("scores", st.scores()), ("lines", st.lines()), ("profits", st.profits())):
        if key in obj and obj[key] != value:
            bad(f"{key} {brief(obj[key])} do not match the board and shares, which give {brief(value)}")
    for key, value in (("exchanges_open", st.exchanges_open), ("pile_sizes", [size] * CO_PCTS),
                       ("known", st._knowledge())):
        if key in obj and obj[key] != value:
            bad(f"{key} {brief(obj[key])} does not match the state, which gives {brief(value)}")
    return st

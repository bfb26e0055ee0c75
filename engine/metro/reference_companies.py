"""Independent pure-Python reference engine for the *Metro companies* expansion (M11-M19).

Written from the rule text (the English rules' "Expansion module 1: Metro companies") and the
project's readings in ``docs/rules/metro.md`` (M11-M14, decisions M15-M19), on top of the base
reference engine beside it (``reference.py``), which it extends: the board, tiles, lines and turn
are the base game's; lines belong to companies instead of players. Like ``reference.py`` it
imports nothing from ``metro_ai``'s engines (only its file reader) and uses plain Python values; clarity beats speed. The fast
engine (``companies.pyx``) is differentially tested against it.

Rules as implemented here
-------------------------
* Companies (M11): 8 companies, each owning 4 stations of the chart file
  (``data/companies_chart.csv``, reconstructed; or a file given as ``chart``); every one of the
  32 stations carries a wagon, so the one-tile rule (M6) guards all of them. A finished line's
  points (M7) are profit points of its station's company.
* Shares (M12): share ``4 * company + p`` is company's ``10 * (p + 1)`` percent share. Four piles,
  one per percentage.
* Deal (M15): one splitmix64 generator seeded with the game's seed shuffles the 60 tiles exactly
  as the base game does and deals the hands; then, for the 10%, 20%, 30% and 40% piles in this
  order, the pile's 8 shares, listed by company 0..7, are shuffled with the same generator
  (Fisher-Yates from the end); players 0, 1, ... each draw the top share; the next top share is
  turned face up; the rest stays face down, top first.
* Turn (M13): the player to move places a tile as in the base game (M4), or, instead and as
  their whole turn, exchanges: they put their share of some percentage face down at the bottom of
  that percentage's pile (M16), then take the face-up share (and the top face-down share is turned
  up) or the top face-down share. Exchanging is allowed while no company has 25 or more profit
  points, and at most ``exchange_limit`` times per player (M17); ``exchange_limit=None`` is the
  printed rule, no cap per player, and then the game ends after ``turn_limit`` turns (placements,
  exchanges, central-station pieces; default 60 + 30 per player), ranked by the final scoring as at
  the end of the tiles (M20). Exchange actions are
  ``6145 + 2 * share + source`` (source 0 face-up, 1 face-down), after the base game's actions.
* Final scoring (M14, M19): company values by profit, 8 for the most, then 7 for the next
  distinct profit and so on, ties sharing; each share is worth its percent / 10 times its
  company's value; for each company, the player(s) with the highest total percentage of it (more
  than 0) get floor(profit / 10) each. ``scores()`` applies this to the profits as they stand.

Public API (used by the differential test): ``RefCompaniesGame(players=4, orientation=True,
hand_size=1, chart=None, exchange_limit=8, turn_limit=None)``, ``.new_state(seed)``; ``RefCompaniesState`` with
the base attributes plus ``held`` (per player, 4 share ids, 10% first), ``face_up`` (4 ids),
``piles`` (4 lists, top first), ``exchanges`` (per player), ``turns`` (turns taken) and methods ``profits()``,
``company_values()``, ``exchanges_open()``.
"""

from __future__ import annotations

from pathlib import Path

from .reference import DRAW, RefMetroGame, _read_csv, RefMetroState, SplitMix64, TILE_COUNTS, NUM_KINDS

COMPANIES = 8
PERCENTS = (10, 20, 30, 40)
#: First exchange action: the base game's actions are 0..6144 (placements, then DRAW).
EXCHANGE = DRAW + 1
#: Exchanges end once a company's profit reaches this (M13).
CUTOFF = 25


def exchange_action(share, source):
    """Action number of exchanging ``share`` (put back) and taking from ``source`` (0 face-up, 1
    face-down)."""
    return EXCHANGE + 2 * share + source


def read_chart(path=None):
    """Company -> list of its 4 stations, from a CSV with columns company,stations ('#' lines
    are comments); default: the shipped chart beside this module."""
    path = Path(path) if path is not None else Path(__file__).resolve().parent / "data" / "companies_chart.csv"
    chart = {}
    for row in _read_csv(path):
        chart[int(row["company"])] = [int(x) for x in row["stations"].split()]
    stations = sorted(n for ns in chart.values() for n in ns)
    if sorted(chart) != list(range(COMPANIES)) or stations != list(range(1, 33)):
        raise ValueError(f"{path}: a chart gives each of the 8 companies 4 of the 32 stations (M11)")
    return chart


class RefCompaniesGame(RefMetroGame):
    """The companies expansion with the base game's options (M9, M10), the chart (M11) and the
    exchange limit (M17)."""

    def __init__(self, players=4, orientation=True, hand_size=1, chart=None, exchange_limit=8, turn_limit=None):
        super().__init__(players=players, orientation=orientation, hand_size=hand_size)
        if exchange_limit is not None and turn_limit is not None:
            raise ValueError("turn_limit is for exchange_limit=None only (M20)")
        self.exchange_limit = exchange_limit
        # M20: the printed rule (no cap) ends after turn_limit turns; None: 60 + 30 per player
        self.turn_limit = None if exchange_limit is not None else (
            turn_limit if turn_limit is not None else 60 + 30 * players)
        self.chart = read_chart(chart)
        # Every station belongs to a company (M11): lines, M6 and scoring use the companies.
        self.owner_of_station = {n: k for k, ns in self.chart.items() for n in ns}

    def new_state(self, seed):
        """The deal of M15: tiles and hands as the base game, then the shares."""
        rng = SplitMix64(seed)
        supply = [kind for kind in range(NUM_KINDS) for _ in range(TILE_COUNTS[kind])]
        rng.shuffle(supply)
        hands = [[] for _ in range(self.players)]
        for _ in range(self.hand_size):
            for player in range(self.players):
                hands[player].append(supply.pop(0))
        held = [[None] * 4 for _ in range(self.players)]
        face_up, piles = [], []
        for p in range(4):
            pile = [4 * company + p for company in range(COMPANIES)]
            rng.shuffle(pile)
            for player in range(self.players):
                held[player][p] = pile.pop(0)
            face_up.append(pile.pop(0))
            piles.append(pile)
        state = RefCompaniesState(self, [None] * 64, hands, supply, current_player=0)
        state.held, state.face_up, state.piles = held, face_up, piles
        state.exchanges = [0] * self.players
        state.turns = 0
        return state


class RefCompaniesState(RefMetroState):
    """A companies position: the base state plus shares (see the module docstring)."""

    held: list
    face_up: list
    piles: list
    exchanges: list
    turns: int

    def clone(self):
        other = super().clone()
        other.__class__ = RefCompaniesState
        other.held = [list(h) for h in self.held]
        other.face_up = list(self.face_up)
        other.piles = [list(p) for p in self.piles]
        other.exchanges = list(self.exchanges)
        other.turns = self.turns
        return other

    def profits(self):
        """Profit points per company: the points of its finished lines (M7 for companies)."""
        result = [0] * COMPANIES
        for station, (_, _, _, points) in self.lines.items():
            result[self.owner_of_station[station]] += points
        return result

    def company_values(self):
        """M14: 8 for the most profit, 7 for the next distinct profit, ..., ties share."""
        profits = self.profits()
        distinct = sorted(set(profits), reverse=True)
        return [8 - distinct.index(v) for v in profits]

    def exchanges_open(self):
        """M13: until the first company reaches or exceeds 25 profit points."""
        return max(self.profits()) < CUTOFF

    def scores(self):
        """M14 on the profits as they stand: share values plus majority bonuses."""
        values = self.company_values()
        profits = self.profits()
        n = self.game.players
        result = [0] * n
        percent = [[0] * COMPANIES for _ in range(n)]
        for player in range(n):
            for share in self.held[player]:
                company, pct = divmod(share, 4)
                result[player] += (pct + 1) * values[company]
                percent[player][company] += PERCENTS[pct]
        for company in range(COMPANIES):
            top = max(percent[player][company] for player in range(n))
            if top == 0:
                continue            # nobody holds any of it: no bonus (M19)
            for player in range(n):
                if percent[player][company] == top:
                    result[player] += profits[company] // 10
        return result

    def legal_actions(self):
        legal = super().legal_actions()
        player = self.current_player
        if (self.phase == "turn" and self.exchanges_open()
                and (self.game.exchange_limit is None or self.exchanges[player] < self.game.exchange_limit)):
            for share in self.held[player]:
                legal += [exchange_action(share, 0), exchange_action(share, 1)]
        return sorted(legal)

    def apply(self, action):
        """Play ``action``; ValueError (state unchanged) if it is not legal."""
        if isinstance(action, int) and not isinstance(action, bool) and action >= EXCHANGE:
            if action not in self.legal_actions():
                raise ValueError(f"illegal exchange {action}")
            share, source = divmod(action - EXCHANGE, 2)
            pct = share % 4
            player = self.current_player
            assert self.held[player][pct] == share
            pile = self.piles[pct]
            pile.append(share)                      # face down, at the bottom (M16)
            if source == 0:
                self.held[player][pct] = self.face_up[pct]
                self.face_up[pct] = pile.pop(0)     # reveal the next one
            else:
                self.held[player][pct] = pile.pop(0)
            self.exchanges[player] += 1
            self._legal = None
            self._advance(player)
            return
        super().apply(action)

    def _advance(self, player):
        """A turn is over (a placement, an exchange or a central-station piece): pass it on (M8),
        and with a turn limit end the game once that many turns are taken (M20)."""
        super()._advance(player)
        self.turns += 1
        if self.game.turn_limit is not None and self.turns >= self.game.turn_limit and self.phase != "over":
            self.current_player = -1
            self.phase = "over"

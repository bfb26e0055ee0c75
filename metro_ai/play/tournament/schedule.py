"""A tournament's schedule: its settings (`TournamentConfig`), its tables (multisets of bots),
their seatings, and every game of every deal with its seeds (see the package's docstring:
round robin, gauntlet, ladder; duplicate deals; seats rotated or permuted)."""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from metro_ai.bots.catalogue import BotSpec, parse_specs
from metro_ai.bots.limit import Limit
from metro_ai.bots.seeding import derive
from metro_ai.engine.datafile import dumps
from metro_ai.play.match import limit_from_dict, limit_to_dict
from metro_ai.registry import load_game

from .errors import TournamentError, _TooManyGames

MODES = ("round-robin", "gauntlet", "ladder")
LADDER_REACH = 2          # in a ladder, each bot meets the next LADDER_REACH bots of the list
SEATINGS = ("rotate", "all")
#: The most games one tournament may schedule (its settings, or a file that says more, are refused).
MAX_GAMES = 1_000_000


@dataclass
class TournamentConfig:
    """Everything that defines a tournament's games. Two configs that are equal play the same games."""
    game: str
    options: dict
    bots: list
    mode: str = "round-robin"
    deals: int = 20
    seatings: str = "rotate"
    seed: int = 1
    limit: Limit | None = None      # budget per move for search bots whose spec has none

    def __post_init__(self):
        self.bots = parse_specs(list(self.bots))
        self.options = dict(self.options)
        self._game = load_game(self.game, **self.options)          # validates name and options
        self.options = dict(self._game.options)
        if self.mode not in MODES:
            raise TournamentError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if self.seatings not in SEATINGS:
            raise TournamentError(f"seatings must be one of {', '.join(SEATINGS)}, got {self.seatings!r}")
        if isinstance(self.deals, bool) or not isinstance(self.deals, int) or self.deals < 1:
            raise TournamentError(f"deals must be a positive int, got {self.deals!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise TournamentError(f"seed must be an int, got {self.seed!r}")
        if len(self.bots) < 2:
            raise TournamentError(f"a tournament needs at least 2 bots, got {len(self.bots)}")
        self._total = self._count_games()
        for b in self.bots:
            if "elo" in b.options and b.limit is None:      # its game's ladder, now rather than in every game
                try:
                    b.make(0).calibrate_for(self._game)
                except ValueError as exc:
                    raise TournamentError(f"bot {b.display!r}: {exc}") from None
        seen: set = set()
        for lab in (b.display for b in self.bots):
            if lab in seen:
                raise TournamentError(f"bot {lab!r} is given twice; tell them apart with a label, "
                                      f"e.g. '{lab}{',' if ':' in lab else ':'}label={lab}-2'")
            seen.add(lab)

    def _count_games(self):
        """The number of games of the schedule, counted without making it; TournamentError when it
        is over :data:`MAX_GAMES` (counted no further than that)."""
        k, n = len(self.bots), self.players
        if self.mode == "gauntlet":
            tables = k - 1
        elif self.mode == "ladder":
            tables = sum(min(LADDER_REACH, k - 1 - i) for i in range(k)) * (2 if n > 2 else 1)
        else:
            tables = math.comb(k, n) if k >= n else math.comb(n - 1, k - 1)
        total = 0
        if tables * self.deals <= MAX_GAMES:            # each table has one seating at least
            for table in self.tables():
                total += len(self.seatings_of(table)) * self.deals
                if total > MAX_GAMES:
                    break
        if tables * self.deals > MAX_GAMES or total > MAX_GAMES:
            raise _TooManyGames(f"this tournament would have more than {MAX_GAMES:,} games ({self.deals:,} deals x "
                                  f"{tables:,} tables x their seatings): play fewer deals or bots")
        return total

    @property
    def players(self):
        return self._game.num_players

    @property
    def total(self):
        """The number of games of the schedule (at most :data:`MAX_GAMES`)."""
        return self._total

    @property
    def labels(self):
        return [b.display for b in self.bots]

    def to_dict(self):
        return {"game": self.game, "options": self.options, "bots": [b.to_dict() for b in self.bots],
                "mode": self.mode, "deals": self.deals, "seatings": self.seatings, "seed": self.seed,
                "limit": limit_to_dict(self.limit)}

    @classmethod
    def from_dict(cls, d):
        return cls(d["game"], d["options"], [BotSpec.from_dict(b) for b in d["bots"]], d["mode"], d["deals"],
                   d["seatings"], d["seed"], limit_from_dict(d.get("limit")))

    def key(self):
        return dumps(self.to_dict(), sort_keys=True)

    def __eq__(self, other):
        return isinstance(other, TournamentConfig) and self.key() == other.key()

    def tables(self):
        """The tables, each a tuple of bot indexes (see the module docstring)."""
        k, n = len(self.bots), self.players
        if self.mode == "gauntlet":
            return [(0,) + (j,) * (n - 1) for j in range(1, k)]
        if self.mode == "ladder":
            out = []
            for i in range(k):
                for j in range(i + 1, min(i + 1 + LADDER_REACH, k)):
                    out.append((i,) + (j,) * (n - 1))
                    if n > 2:
                        out.append((j,) + (i,) * (n - 1))
            return out
        if k >= n:
            return list(itertools.combinations(range(k), n))
        return [t for t in itertools.combinations_with_replacement(range(k), n) if len(set(t)) == k]

    def seatings_of(self, table):
        n = len(table)
        if self.seatings == "rotate":
            out = [tuple(table[r:] + table[:r]) for r in range(n)]
        else:
            out = sorted(set(itertools.permutations(table)))
        seen, unique = set(), []
        for s in out:
            if s not in seen:
                seen.add(s)
                unique.append(s)
        return unique

    def schedule(self):
        """Every game of the tournament, deal by deal: dicts with id, deal, table, seating, seats
        (a bot index per seat), seed (the deal's) and bot_seeds (one per seat)."""
        games: list = []
        tables = self.tables()
        for deal in range(self.deals):
            deal_seed = derive(self.seed, 0xDEA1, deal)
            for t, table in enumerate(tables):
                for s, seating in enumerate(self.seatings_of(table)):
                    games.append({"id": len(games), "deal": deal, "table": t, "seating": s, "seats": list(seating),
                                  "seed": deal_seed,
                                  "bot_seeds": [derive(self.seed, 0xB075, deal, t, s, p) for p in range(len(seating))]})
        return games

    def describe(self):
        tables = self.tables()
        per = sum(len(self.seatings_of(t)) for t in tables)
        return (f"{self.game}, {self.players} players, {self.mode}, {len(self.bots)} bots, {self.deals} deals x "
                f"{len(tables)} table(s) x {per // len(tables) if tables else 0} seatings = {self.deals * per} games, "
                f"seed {self.seed}")

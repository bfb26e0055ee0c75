"""A versus run's settings (`VersusSettings`, each checked) and the command line that gives
them: the options of ``benches/versus.py`` and those ``metro-ai bench --versus`` adds
(`add_arguments`), read into settings (`settings_from`)."""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from metro_ai.bots.catalogue import BotSpec, BotSpecError
from metro_ai.bots.limit import Limit
from metro_ai.registry import DEFAULT_GAME, game_class, load_game

from .sprt import Sprt

DEFAULT_TIME = 0.05
MAX_JOBS = 256              # pairs at a time: a sanity cap (each is a server process of the other build)


@dataclass
class VersusSettings:
    other: str
    game: str = DEFAULT_GAME
    options: dict = field(default_factory=dict)
    players: int = 2
    bot: str = "hard"
    other_bot: Optional[str] = None          # None: the same spec as bot
    time: Optional[float] = None             # seconds per move (default DEFAULT_TIME unless iterations)
    iterations: Optional[int] = None
    games: Optional[int] = None              # fixed mode (rounded up to even); None: SPRT
    max_games: int = 1000
    elo0: float = 0.0
    elo1: float = 30.0
    alpha: float = 0.05
    beta: float = 0.05
    seed: int = 2026
    jobs: int = 1                            # pairs at a time (0: one per CPU)

    def __post_init__(self):
        if self.other_bot is None:
            self.other_bot = self.bot
        for spec in (self.bot, self.other_bot):
            try:
                BotSpec.parse(spec)
            except BotSpecError as exc:
                raise ValueError(str(exc)) from None
        if self.time is not None and self.iterations is not None:
            raise ValueError("give --time or --iterations, not both")
        if self.time is None and self.iterations is None:
            self.time = DEFAULT_TIME
        if self.time is not None and not (0 < self.time < math.inf):
            raise ValueError(f"--time must be a positive number of seconds, not {self.time}")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError(f"--iterations must be positive, not {self.iterations}")
        if self.games is not None and self.games < 1:
            raise ValueError(f"--games must be positive, not {self.games}")
        if self.max_games < 2:
            raise ValueError(f"--max-games must be at least 2, not {self.max_games}")
        if self.jobs == 0:
            self.jobs = os.cpu_count() or 1
        if not 1 <= self.jobs <= MAX_JOBS:
            raise ValueError(f"--jobs must be 0 (one per CPU) or 1 to {MAX_JOBS} pairs at a time, not {self.jobs}")
        if "players" in self.options:
            raise ValueError("give the player count with --players, not --option players")
        cls = game_class(self.game)          # ValueError naming the games
        if not cls.min_players <= self.players <= cls.max_players or self.players < 2:
            raise ValueError(f"--players {self.players}: {self.game} takes {max(2, cls.min_players)} to "
                             f"{cls.max_players} players")
        load_game(self.game, players=self.players, **self.options)      # ValueError naming a bad option
        self.other_game()                                                # ValueError: files in two folders
        Sprt(self.elo0, self.elo1, self.alpha, self.beta)                # ValueError for bad hypotheses

    def other_game(self) -> tuple[Optional[str], dict]:
        """The other build's data folder and game options. A server reads no file a client names
        by its path, so a game option naming a file (``--option cards=FILE``, a company chart) goes
        to the other build as the file's name inside its folder, and the other build's servers are
        started to read from that folder (``serve --data-dir``); (None, the options) when no option
        names a file. ValueError when the files lie in more than one folder."""
        from metro_ai.protocol.files import game_file_options
        folders, options = set(), dict(self.options)
        for name in game_file_options(game_class(self.game)):
            if options.get(name) is not None:
                path = Path(os.fsdecode(options[name])).expanduser().resolve()
                folders.add(str(path.parent))
                options[name] = path.name
        if len(folders) > 1:
            raise ValueError("the game options name files in more than one folder "
                             f"({', '.join(sorted(folders))}): the other build reads them from one, so put them together")
        return (folders.pop() if folders else None), options

    @property
    def limit(self) -> Limit:
        return Limit(iterations=self.iterations, time=self.time)

    def budget_text(self) -> str:
        return f"{self.iterations:,} iterations" if self.iterations else f"{self.time:g} s"


def add_arguments(p, bench: bool = False) -> None:
    """The options of ``benches/versus.py``; with `bench`, those ``metro-ai bench`` lacks (it has
    --game, --option, --seed, --quiet, --json, --markdown and --games, read as a count here)."""
    if not bench:
        p.add_argument("other", metavar="OTHER", help="the other build's metro-ai executable or its python")
        p.add_argument("--game", default=DEFAULT_GAME, help=f"the game (default {DEFAULT_GAME})")
        p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a game option; repeat it")
        p.add_argument("--seed", type=int, default=2026, help="seed of the deals (default 2026)")
        p.add_argument("--games", type=int, default=None, metavar="N",
                       help="play N games (rounded up to even) and report; default: an SPRT")
        p.add_argument("--out", default=None, metavar="FILE.json", help="the JSON result file")
        p.add_argument("--markdown", default=None, metavar="FILE.md", help="the Markdown summary (also printed)")
        p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
        p.add_argument("--jobs", type=int, default=1, metavar="N",
                       help="pairs of games at a time, each with its own server of the other build (default 1; "
                            "0: one per CPU); more than the CPUs makes a time budget buy fewer iterations")
        g = p
    else:
        g = p.add_argument_group("versus (with --versus OTHER; --games N is then the number of games, "
                                 "--json and --markdown the result files)")
        g.add_argument("--versus", default=None, metavar="OTHER",
                       help="play this build against another build: its metro-ai executable or its python")
        g.add_argument("--out", default=None, metavar="FILE.json", help="with --versus: the JSON result file "
                       "(instead of --json)")
    d = (lambda value: None) if bench else (lambda value: value)     # bench: None, to tell what was given
    g.add_argument("--bot", default=d("hard"), metavar="SPEC", help="this build's bot spec (default hard)")
    g.add_argument("--other-bot", default=None, metavar="SPEC", help="the other build's bot spec (default: --bot)")
    g.add_argument("--players", type=int, default=d(2), metavar="N", help="players (default 2)")
    g.add_argument("--time", type=float, default=None, metavar="SECONDS",
                   help=f"seconds per move, both sides (default {DEFAULT_TIME})")
    g.add_argument("--iterations", type=int, default=None, metavar="N",
                   help="instead of --time: iterations per move, both sides")
    g.add_argument("--max-games", type=int, default=d(1000), metavar="N", help="an SPRT's cap on games (default 1000)")
    g.add_argument("--elo0", type=float, default=d(0.0), metavar="ELO", help="the SPRT's H0 Elo (default 0)")
    g.add_argument("--elo1", type=float, default=d(30.0), metavar="ELO", help="the SPRT's H1 Elo (default 30)")
    g.add_argument("--alpha", type=float, default=d(0.05), metavar="P", help="the SPRT's false-H1 rate (default 0.05)")
    g.add_argument("--beta", type=float, default=d(0.05), metavar="P", help="the SPRT's false-H0 rate (default 0.05)")


VERSUS_ONLY = ("out", "bot", "other_bot", "players", "time", "iterations", "max_games", "elo0", "elo1", "alpha", "beta")
DEFAULTS = {"bot": "hard", "players": 2, "max_games": 1000, "elo0": 0.0, "elo1": 30.0, "alpha": 0.05, "beta": 0.05}


def versus_only_given(args) -> list[str]:
    """The versus options given to ``metro-ai bench`` (an error without ``--versus``)."""
    return ["--" + k.replace("_", "-") for k in VERSUS_ONLY if getattr(args, k, None) is not None]


def settings_from(args) -> VersusSettings:
    from metro_ai.optionspec import parse_options
    games = args.games
    if isinstance(games, str):                 # metro-ai bench's --games is text
        try:
            games = int(games)
        except ValueError:
            raise ValueError(f"--games with --versus is a number of games, not {games!r}") from None
    other = getattr(args, "versus", None) or getattr(args, "other", None)
    if not other:
        raise ValueError("name the other build: its metro-ai executable or its python")
    given = {k: getattr(args, k) for k in DEFAULTS}
    given = {k: DEFAULTS[k] if v is None else v for k, v in given.items()}
    jobs = getattr(args, "jobs", None)
    return VersusSettings(other=str(other), game=args.game, options=parse_options(args.option),
                          other_bot=args.other_bot, time=args.time, iterations=args.iterations, games=games,
                          seed=args.seed, jobs=1 if jobs is None else jobs, **given)

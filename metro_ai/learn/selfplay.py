"""Self-play positions for learned evaluators (issue #44): games of one bot against itself, each
position seen by every seat (its observation features: the public part and its own hidden part,
never another seat's), labelled with that seat's final return.

A run keeps its positions in a folder, one file a game (``positions/game-000017.npz``, written
whole or not at all), beside ``settings.json``: running it again plays only the games missing,
so an interrupted run resumes, and more games can be added later with the same settings. Game
``g`` is dealt from ``derive(seed, g)`` and its bots seeded from it too, so a game's positions
are the same wherever and whenever it is played.

Each position also carries the game's **hand-written evaluation** of it for that seat (the soft
rank of the game's heuristic, ``cutoff_scale`` of its search settings, else 1: what the search's
play-out scores where it is cut off), the reference a learned evaluator is measured against.

A run with a **labeller** (``label``: a search bot's spec) also keeps each position's *search
value* ``v``: the labeller searches the position for the player to move (its own tree, seeded from
the deal; the game's moves are still the run's bot's) and the mean value of the action it would
choose is that player's ``v``; with 2 players the other seat's is ``1 - v`` (the search's values of
the two seats sum to 1), with more it is unknown (NaN). A fit can take it as its target, in part or
whole (``train_evaluator(target=...)``): a deeper look than the final result of one game, with far
less noise (search bootstrapping, TD-Leaf's idea).
"""
from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from metro_ai.bots.catalogue import BotSpec
from metro_ai.bots.seeding import derive
from metro_ai.engine.datafile import dumps, read_json
from metro_ai.engine.errors import MetroAIError

#: The folder layout's version (settings.json and the position files).
POSITIONS_VERSION = 1


class TrainError(MetroAIError, ValueError):
    """Training that cannot go on: bad settings, a folder of another run, a damaged file."""


@dataclass(frozen=True)
class SelfPlaySettings:
    """What a self-play run is: the game (name and options), the bot playing every seat (a spec),
    the seed, every how many plies a position is kept (``every``: 1 keeps every position) and the
    labeller (``label``: a search bot's spec whose analysis of each kept position gives its search
    value; None: none, the positions' ``v`` are NaN)."""
    game: str
    options: dict
    bot: str
    seed: int
    every: int = 2
    label: Optional[str] = None

    def check(self) -> "SelfPlaySettings":
        """These settings, or TrainError saying what is wrong (the game's features, the bot)."""
        from metro_ai.registry import load_game
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise TrainError(f"seed must be an int, got {self.seed!r}")
        if isinstance(self.every, bool) or not isinstance(self.every, int) or not 1 <= self.every <= 10_000:
            raise TrainError(f"every must be an int in [1, 10000], got {self.every!r}")
        try:
            game = load_game(self.game, **self.options)
            game.observation_features()
            BotSpec.parse(self.bot).make(seed=0)
            if self.label is not None:
                if not isinstance(self.label, str):
                    raise TrainError(f"label must be a bot spec (a str) or None, got {self.label!r}")
                from metro_ai.bots.mcts import SearchBot
                if not isinstance(BotSpec.parse(self.label).make(seed=0), SearchBot):
                    raise TrainError(f"label {self.label!r} is not a search bot: only a search reports values")
        except ValueError as exc:
            raise TrainError(str(exc)) from None
        return self


def soft_rank(h, seat: int, scale: float) -> float:
    """The soft rank of `seat` by the values `h`: the mean over the other seats of
    ``logistic((h[seat] - h[other]) / scale)`` (0.5 alone)."""
    others = [x for i, x in enumerate(h) if i != seat]
    if not others:
        return 0.5
    return sum(1.0 / (1.0 + math.exp(max(-700.0, min(700.0, (x - h[seat]) / scale)))) for x in others) / len(others)


def hand_written_scale(game) -> float:
    """The soft rank's scale of `game`'s hand-written evaluation: its search settings'
    ``cutoff_scale``, else 1."""
    return float(game.search_settings().get("cutoff_scale") or 1.0)


def hand_written(state, seat: int, scale: float) -> float:
    """The hand-written evaluation of `state` for `seat`: the soft rank of its heuristic."""
    return soft_rank(state.heuristic(), seat, scale)


def deal_game(settings: SelfPlaySettings, g: int, bot: Optional[str] = None) -> tuple:
    """Game `g` of a run as it starts: the game, its first state (dealt from the run's seed and
    `g` alone) and a bot for each seat (the run's, or `bot`, each seeded from the deal)."""
    from metro_ai.registry import load_game
    game = load_game(settings.game, **settings.options)
    deal = derive(settings.seed, g)
    spec = BotSpec.parse(bot or settings.bot)
    return game, game.new_state(deal), [spec.make(seed=derive(deal, 0xB07, p)) for p in range(game.num_players)]


def search_values(analysis, n: int) -> list[float]:
    """Each seat's search value from a search's `analysis` of a position: the mean value of the
    action chosen for the player to move; with 2 players the other's is 1 minus it; NaN where
    unknown (the other seats of a game of more players)."""
    mean = next(a.mean for a in analysis.actions if a.action == analysis.chosen)
    values = [math.nan] * n
    values[analysis.player] = mean
    if n == 2:
        values[1 - analysis.player] = 1.0 - mean
    return values


def _searched(bot, state):
    """`bot`'s analysis of `state`, a forced move searched too (``analyse`` reports none there)."""
    handle = bot.start(state, analyse=True)
    handle.result()
    return handle.analysis()


def play_game(settings: SelfPlaySettings, g: int) -> dict[str, np.ndarray]:
    """Game `g` of a run: its positions as arrays ``x`` (features, float32), ``y`` (the seat's
    return), ``base`` (the hand-written evaluation), ``v`` (the labeller's search value, NaN
    without one), ``seat``, ``ply``, one row per kept position and seat."""
    game, state, bots = deal_game(settings, g)
    labeller = None if settings.label is None else \
        BotSpec.parse(settings.label).make(seed=derive(settings.seed, g, 0x1AB))
    encoder = game.observation_features()
    scale = hand_written_scale(game)
    n = game.num_players
    rows: list = []
    base, values, seats, plies = [], [], [], []
    ply = 0
    while not state.is_terminal():
        if ply % settings.every == 0:
            h = state.heuristic()                           # (the hand-written evaluation's input, once)
            v = [math.nan] * n if labeller is None else search_values(_searched(labeller, state), n)
            for p in range(n):
                rows.append(encoder.encode(state.observation(p)))
                base.append(soft_rank(h, p, scale))
                values.append(v[p])
                seats.append(p)
                plies.append(ply)
        state.apply(bots[state.current_player].choose(state))
        ply += 1
    returns = state.returns()
    size = encoder.shape[0]
    return {"x": np.asarray(rows, np.float32).reshape(len(rows), size),
            "y": np.asarray([returns[p] for p in seats], np.float64),
            "base": np.asarray(base, np.float64), "v": np.asarray(values, np.float64),
            "seat": np.asarray(seats, np.int16), "ply": np.asarray(plies, np.int32)}


def _play_and_write(item) -> int:
    """One game of a run played and written to its file (a job: module level, so that it pickles)."""
    settings, g, folder = item
    data = play_game(settings, g)
    path = _game_path(folder, g)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        np.savez_compressed(f, x=data["x"], y=data["y"], base=data["base"], v=data["v"], seat=data["seat"],
                            ply=data["ply"])
    os.replace(tmp, path)
    return g


def _game_path(folder, g) -> Path:
    return Path(folder) / "positions" / f"game-{g:06d}.npz"


def open_run(folder, settings: Optional[SelfPlaySettings], overwrite: bool = False) -> SelfPlaySettings:
    """The settings of the run in `folder`: `settings` written there for a new run (the folder made
    if missing), checked against those stored for an old one (TrainError if they differ, unless
    `overwrite`, which discards the old positions); the stored ones if `settings` is None."""
    folder = Path(folder)
    stored_path = folder / "settings.json"
    stored = None
    if stored_path.exists():
        obj = read_json(stored_path, what="self-play settings", error=TrainError).data
        if not isinstance(obj, dict) or obj.get("format") != "metro-ai-selfplay" or obj.get("version") != POSITIONS_VERSION:
            raise TrainError(f"{stored_path}: not the settings of a metro-ai self-play run of this version")
        try:
            stored = SelfPlaySettings(**{k: obj[k] for k in ("game", "options", "bot", "seed", "every")},
                                      label=obj.get("label"))
        except (KeyError, TypeError):
            raise TrainError(f"{stored_path}: its fields are not a self-play run's") from None
    if settings is None:
        if stored is None:
            raise TrainError(f"{folder} holds no self-play run (settings.json)")
        return stored.check()
    settings.check()
    if stored is not None and stored != settings and not overwrite:
        raise TrainError(f"{folder} holds another run ({stored.game}, bot {stored.bot}, seed {stored.seed}, "
                         f"every {stored.every}, label {stored.label}); --overwrite starts afresh there")
    if stored != settings:
        if folder.exists() and not folder.is_dir():
            raise TrainError(f"{folder}: not a folder")
        (folder / "positions").mkdir(parents=True, exist_ok=True)
        for old in (folder / "positions").glob("game-*.npz"):
            old.unlink()
        fields = asdict(settings)
        if fields["label"] is None:
            del fields["label"]                             # (a run without one reads as before)
        stored_path.write_text(dumps({"format": "metro-ai-selfplay", "version": POSITIONS_VERSION,
                                      **fields}, indent=1) + "\n", encoding="utf-8")
    return settings


def self_play(folder, settings: SelfPlaySettings, games: int, jobs: int = 1, dask: Optional[str] = None,
              overwrite: bool = False, progress: Optional[Callable[[int, int], Any]] = None) -> list[int]:
    """Play games ``0 .. games - 1`` of the run in `folder` that are not there yet (see the module)
    and return the ids played now. Each game is one job: in this process (`jobs` 1), on `jobs`
    local processes (joblib; -1: one per core) or on the Dask cluster at `dask`.
    ``progress(done, total)`` counts the games of the run."""
    from metro_ai.play.tournament.runner import dask_client, run_unordered
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= 1_000_000:
        raise TrainError(f"games must be an int in [1, 1000000], got {games!r}")
    settings = open_run(folder, settings, overwrite)
    todo = [g for g in range(games) if not _game_path(folder, g).exists()]
    done = games - len(todo)
    if progress is not None:
        progress(done, games)
    played = []
    with dask_client(dask) as client:
        for g in run_unordered(_play_and_write, [(settings, g, Path(folder)) for g in todo], jobs, client):
            played.append(g)
            if progress is not None:
                progress(done + len(played), games)
    return sorted(played)


def load_positions(folder, held_out=lambda g: g % 5 == 4) -> tuple[dict, dict, SelfPlaySettings]:
    """The run's positions as two sets of arrays (``x``, ``y``, ``base``, ``v``, ``seat``, ``ply``,
    ``game``; ``v`` NaN in files written before runs had labellers): those of the games
    `held_out` marks (default: every fifth game, a fifth of the games kept apart to measure) and
    the rest, and the run's settings. A position file that
    cannot be read is a TrainError naming it."""
    settings = open_run(folder, None)
    paths = sorted((Path(folder) / "positions").glob("game-*.npz"))
    if not paths:
        raise TrainError(f"{folder} has no positions yet: play some games first")
    parts: dict[bool, list] = {True: [], False: []}
    for path in paths:
        g = int(path.stem.split("-")[1])
        try:
            with np.load(path, allow_pickle=False) as z:
                part = {k: z[k] for k in ("x", "y", "base", "seat", "ply")}
                part["v"] = z["v"] if "v" in z.files else np.full(len(part["y"]), np.nan)
        except (OSError, ValueError, KeyError) as exc:
            raise TrainError(f"{path}: not a position file of this run ({exc}); delete it to play that game again") \
                from None
        part["game"] = np.full(len(part["y"]), g, np.int32)
        parts[bool(held_out(g))].append(part)

    def join(items):
        if not items:
            return None
        return {k: np.concatenate([p[k] for p in items]) for k in items[0]}
    return join(parts[False]), join(parts[True]), settings

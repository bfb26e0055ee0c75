"""Opponents at a chosen Elo rating: the calibrated ladders and `EloBot`.

A *ladder* (measured by :func:`metro_ai.play.calibrate.calibrate`, ``metro-ai calibrate``) is a
list of levels with their Elo ratings on one scale, random at 0. Ladders for the games' default
options ship with the package (``metro_ai/bots/data/ladder-GAME-Np.json``); :func:`load_ladder`
reads them or a user's file, checking every field (:func:`check_ladder`).

``make_bot("ismcts", elo=1400)`` (or ``ismcts:elo=1400`` in a bot spec, the protocol or the
command line) is an :class:`EloBot`: at its first search it reads the ladder of the game it
plays and takes the iteration budget, the move-selection temperature and the margin that reach
the rating (:func:`budget_for`: between the two measured ISMCTS levels that bracket it, the
budget interpolated geometrically, the temperature and margin linearly). A rating outside the
measured ISMCTS levels is a clear error. The calibration itself, and why the levels are what
they are, is :mod:`metro_ai.play.calibrate`'s.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from metro_ai.engine.datafile import envelope_problem, kind_of, read_json, with_path
from metro_ai.engine.errors import MetroAIError

from .limit import Limit
from .mcts import ISMCTSBot

LADDER_FORMAT = "metro-ai-ladder"
LADDER_VERSION = 1
#: Where the shipped ladders live (``ladder-GAME-Np.json``).
DATA = Path(__file__).parent / "data"


class LadderError(MetroAIError, ValueError):
    """A ladder that cannot be used or made (a missing or malformed file, a rating out of range);
    the message says what is wrong."""


# ---- the ladder file ----

def ladder_path(game: str, players: int) -> Path:
    """Where the package keeps the ladder of `game` at `players` players (default options)."""
    return DATA / f"ladder-{game}-{players}p.json"


def _fail(source, what, at=()):
    """A LadderError about `source`, carrying the JSON path of the value at fault (for the line)."""
    raise with_path(LadderError(what if source is None else f"ladder {source}: {what}"), at)


def check_ladder(obj: Any, source: str | None = "file") -> dict:
    """`obj` if it is a well-formed ladder; LadderError naming the field (and carrying its JSON path,
    ``at``) otherwise, never quoting a value. `source` names the ladder (None: the message starts
    with the field)."""
    if not isinstance(obj, dict):
        _fail(source, f"expected a JSON object, got {type(obj).__name__}")
    problem = envelope_problem(obj, LADDER_FORMAT, (LADDER_VERSION,))
    if problem is not None:
        _fail(source, *problem)
    for key, kind in (("game", str), ("players", int), ("options", dict), ("levels", list)):
        if not isinstance(obj.get(key), kind) or isinstance(obj.get(key), bool):
            _fail(source, f"field {key!r} must be a {kind.__name__}, got {kind_of(obj.get(key))}", (key,))
    if len(obj["levels"]) < 2:
        _fail(source, "a ladder needs at least two levels", ("levels",))
    for i, level in enumerate(obj["levels"]):
        where = f"levels[{i}]"
        if not isinstance(level, dict):
            _fail(source, f"{where} must be an object", ("levels", i))
        for key in ("level", "spec"):
            if not isinstance(level.get(key), str) or not level[key]:
                _fail(source, f"{where}.{key} must be non-empty text", ("levels", i, key))
        for key in ("elo", "low", "high"):
            v = level.get(key)
            if key == "elo" and v is None:
                _fail(source, f"{where}.elo is missing", ("levels", i))
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)):
                _fail(source, f"{where}.{key} must be a finite number or null", ("levels", i, key))
        if level.get("iterations") is not None:
            it, temp = level.get("iterations"), level.get("temperature")
            if isinstance(it, bool) or not isinstance(it, int) or it < 1:
                _fail(source, f"{where}.iterations must be a positive int or null", ("levels", i, "iterations"))
            if isinstance(temp, bool) or not isinstance(temp, (int, float)) or temp < 0:
                _fail(source, f"{where}.temperature must be a number >= 0", ("levels", i, "temperature"))
            margin = level.get("margin")
            if margin is not None and (isinstance(margin, bool) or not isinstance(margin, (int, float))
                                       or not 0 <= margin <= 1):
                _fail(source, f"{where}.margin must be a number in [0, 1] or null", ("levels", i, "margin"))
    return obj


def load_ladder(game: str, players: int, options: dict | None = None, path=None) -> dict:
    """The ladder of `game` at `players` players: from `path` (a ladder file of
    ``metro-ai calibrate``) if given, else the package's. Its game, player count and options
    must be those asked for (`options`: the game's options besides ``players`` that differ from
    their defaults, compared with the ladder's; None: not compared). LadderError says what is missing or wrong."""
    source = Path(path) if path is not None else ladder_path(game, players)
    if path is None and not source.is_file():
        have = sorted(p.name[len("ladder-"):-len(".json")] for p in DATA.glob("ladder-*.json"))
        raise LadderError(f"no Elo ladder for {game} with {players} players (ladders: {', '.join(have) or 'none'}); "
                          f"make one with: metro-ai calibrate --game {game} --players {players} --out FILE, "
                          "then pass ladder=FILE")
    f = read_json(source, what="ladder", error=LadderError)
    obj = f.data
    try:
        check_ladder(obj, None)
    except LadderError as exc:
        raise f.error(exc) from None
    if obj["game"] != game or obj["players"] != players:       # the file's values are not quoted
        raise f.error(("is for another game" if obj["game"] != game else f"is for {obj['players']} players")
                      + f", not {game} with {players}", ("game",))
    if options is not None and options != obj["options"]:
        raise LadderError(f"{f.where} was measured with other options (its field 'options'), not {options}; "
                          f"make one with: metro-ai calibrate --game {game} --players {players} "
                          + " ".join(f"--option {k}={json.dumps(v)}" for k, v in sorted(options.items()))
                          + " --out FILE")
    return obj


def _game_options(game) -> dict:
    """A loaded game's options besides ``players`` that differ from their defaults, as a ladder
    records them (a ladder of the default game has none)."""
    return {k: v for k, v in game.options.items() if k != "players" and v != type(game).option(k).default}


def ladder_catalogue() -> dict:
    """The shipped ladders, for front ends that offer a rating dial: ``{"GAME-Np": {"game",
    "players", "options", "elo": {"min", "max"} (the range ``ismcts:elo=`` accepts; None where
    the ladder names no budget, see :func:`budgets_ordered`), "levels":
    {level: elo}}}``."""
    out = {}
    for path in sorted(DATA.glob("ladder-*.json")):
        ladder = check_ladder(read_json(path, what="ladder", error=LadderError).data, repr(path.name))
        rated = chain(ladder)[0]
        out[path.name[len("ladder-"):-len(".json")]] = {
            "game": ladder["game"], "players": ladder["players"], "options": ladder["options"],
            "elo": {"min": rated[0]["elo"], "max": rated[-1]["elo"]} if rated and budgets_ordered(ladder) else None,
            "levels": {lv["level"]: lv["elo"] for lv in ladder["levels"]}}
    return out


def rungs(ladder: dict) -> list[dict]:
    """The ladder's plain-ISMCTS levels (those with iterations), by rating."""
    return sorted((lv for lv in ladder["levels"] if lv.get("iterations") is not None), key=lambda lv: lv["elo"])


def _effective_margin(level: dict) -> float | None:
    """A rung's margin as its choice uses it: None where it plays the best move (temperature 0:
    a margin changes nothing), 1 where it samples with no margin (every mean lies in 0–1)."""
    if level["temperature"] == 0:
        return None
    margin = level.get("margin")
    return 1.0 if margin is None else float(margin)


def _budget_key(level: dict) -> tuple:
    """A rung's place in budget order: more iterations, or as many at a lower temperature, or
    as many at the same temperature with a narrower margin, is more search."""
    margin = _effective_margin(level)
    return level["iterations"], -level["temperature"], -(1.0 if margin is None else margin)


def chain(ladder: dict) -> tuple[list[dict], list[dict]]:
    """``(kept, left_out)``: the longest run of the ladder's ISMCTS levels that climbs both in
    budget and in rating (kept, by rating; the first such run where several are as long), and
    the levels outside it, each rated at or below a level of smaller budget (near-equal levels
    the games could not tell apart, or a budget that plays no better). :func:`budget_for`
    interpolates along the kept ones."""
    levels = sorted(rungs(ladder), key=lambda lv: (_budget_key(lv), lv["elo"]))
    best: list[list[int]] = []
    for i, lv in enumerate(levels):
        before = [best[j] for j in range(i) if levels[j]["elo"] < lv["elo"] and _budget_key(levels[j]) < _budget_key(lv)]
        best.append(max(before, key=len, default=[]) + [i])
    run = max(best, key=len, default=[])
    return [levels[i] for i in run], [lv for i, lv in enumerate(levels) if i not in run]


def budgets_ordered(ladder: dict) -> bool:
    """Whether the ladder's results rank its ISMCTS levels by budget well enough for a rating
    to name a budget (:func:`budget_for`): all of them, or all but at most a third, climb in
    budget and rating together (:func:`chain`). More left out means the games could not tell
    the budgets apart (Leduc, whose hands the cards decide)."""
    return _ordered(*chain(ladder))


def _ordered(kept: list, left_out: list) -> bool:
    """:func:`budgets_ordered` from the ladder's :func:`chain`."""
    return bool(kept) and 3 * len(left_out) <= len(kept) + len(left_out)


def budget_for(ladder: dict, elo: float) -> dict:
    """The ISMCTS budget, temperature and margin that reach rating `elo` on `ladder`:
    ``{"iterations", "temperature", "margin", "elo", "between": [level, level]}``. Between the
    two measured ISMCTS levels that bracket `elo` (by rating), the budget is interpolated
    geometrically and the temperature and margin linearly in the rating (a level that samples
    without a margin counts as margin 1, which keeps every move; a level that plays the best
    move takes its neighbour's margin, since it uses none); at a level's own rating, exactly
    that level. Only the levels that climb in budget and rating together take part
    (:func:`chain`). LadderError when `elo` lies outside them, or when the ladder does not rank
    its levels by budget (:func:`budgets_ordered`)."""
    if isinstance(elo, bool) or not isinstance(elo, (int, float)) or not math.isfinite(elo):
        raise LadderError(f"elo must be a finite number, got {elo!r}")
    levels, left_out = chain(ladder)
    if len(levels) < 1:
        raise LadderError(f"the ladder of {ladder['game']} has no ISMCTS level to set a budget from")
    if not _ordered(levels, left_out):
        raise LadderError(f"the ladder of {ladder['game']} with {ladder['players']} players does not rank its ISMCTS "
                          "levels by budget (its games could not tell them apart: "
                          + ", ".join(f"{lv['level']} {lv['elo']:.0f}" for lv in rungs(ladder))
                          + "), so no budget is known to reach a chosen rating; use a preset or a bot spec")
    lo, hi = levels[0], levels[-1]
    if not lo["elo"] - 1e-9 <= elo <= hi["elo"] + 1e-9:
        others = ", ".join(f"{lv['level']} {lv['elo']:.0f}" for lv in ladder["levels"] if lv.get("iterations") is None)
        raise LadderError(f"elo {elo:g} is outside the {ladder['players']}-player {ladder['game']} ladder "
                          f"({lo['elo']:.0f}–{hi['elo']:.0f}), out of range: ISMCTS levels span "
                          f"{lo['elo']:.0f} ({lo['level']}) to {hi['elo']:.0f} ({hi['level']})"
                          + (f"; the other levels are {others}" if others else ""))
    for a, b in zip(levels, levels[1:]):
        if elo <= b["elo"] + 1e-9:
            break
    else:
        a = b = levels[0]
    if len(levels) == 1 or b["elo"] - a["elo"] < 1e-9:
        f = 1.0 if len(levels) > 1 else 0.0
    else:
        f = min(1.0, max(0.0, (elo - a["elo"]) / (b["elo"] - a["elo"])))
    iterations = round(math.exp((1 - f) * math.log(a["iterations"]) + f * math.log(b["iterations"])))
    temperature = (1 - f) * a["temperature"] + f * b["temperature"]
    ma, mb = _effective_margin(a), _effective_margin(b)
    ma, mb = (mb if ma is None else ma), (ma if mb is None else mb)
    margin = None if ma is None or mb is None else (1 - f) * ma + f * mb
    if margin is not None and (margin >= 1.0 - 1e-9 or temperature == 0):
        margin = None                           # no filter: every mean lies within 1 of the best
    return {"iterations": max(1, int(iterations)), "temperature": round(temperature, 6),
            "margin": None if margin is None else round(margin, 6), "elo": float(elo),
            "between": [a["level"], b["level"]]}


# ---- the bot ----

class EloBot(ISMCTSBot):
    """ISMCTS at a target rating: ``make_bot("ismcts", elo=1400)``. At its first search (or at
    once with ``game=``) it reads the ladder of the game it plays (:func:`load_ladder`; `ladder`:
    a ladder file of one's own) and sets its iteration budget (``default_limit``),
    ``temperature`` and ``margin`` from :func:`budget_for`; ``level`` then says what it chose. A
    rating the game's ladder does not reach is a LadderError naming the ladder's range, raised
    when the bot meets the game.

    An explicit budget replaces the rating: one given to ``choose``, ``analyse`` or ``start``
    (a `Limit` with iterations or time), or to the bot itself (``budget``: ``make_bot("ismcts",
    elo=1400, iterations=100)``). The bot then reads no ladder and plays ISMCTS's best move
    (temperature 0, no margin) at that budget. Other options as ``ismcts``; ``temperature``
    and ``margin`` are the ladder's to set."""
    name = "ismcts"
    rated = True

    def __init__(self, seed=0, elo=None, ladder=None, game=None, budget=None, **options):
        for key in ("temperature", "margin"):
            if key in options:
                raise ValueError(f"elo sets the {key} from the ladder: give elo or {key}, not both")
        if isinstance(elo, bool) or not isinstance(elo, (int, float)) or not math.isfinite(elo):
            raise ValueError(f"elo must be a finite number, got {elo!r}")
        super().__init__(seed, **options)
        self.elo = float(elo)
        self.ladder = None if ladder is None else str(ladder)
        self.level: dict | None = None
        self._for: tuple | None = None
        #: An explicit budget (a `Limit`) that replaces the rating; None: the ladder's.
        self.budget: Limit | None = budget
        if budget is not None:
            self.default_limit = budget
        if game is not None and budget is None:
            self.calibrate_for(game)

    def calibrate_for(self, game) -> dict:
        """Read `game`'s ladder and set the budget, temperature and margin for this bot's rating
        (once per game kind); returns ``level``. LadderError if the game has no ladder or the
        rating is out of its range."""
        key = (game.name, game.num_players, json.dumps(_game_options(game), sort_keys=True))
        if self._for != key:
            ladder = load_ladder(game.name, game.num_players, _game_options(game), self.ladder)
            try:
                self.level = budget_for(ladder, self.elo)
            except LadderError as exc:
                raise LadderError(f"{exc}; an explicit budget (iterations=N or time=S, or a Limit passed to choose) "
                                  "replaces the rating") from None
            self.default_limit = Limit(iterations=self.level["iterations"]) if self.budget is None else self.budget
            self._for = key
        assert self.level is not None
        self.temperature = self.level["temperature"]
        self.margin = self.level["margin"]
        return self.level

    def _prepare(self, state, limit):
        """Before a search: the ladder's settings, or ISMCTS's best move when an explicit budget
        (`limit` with iterations or time, or the bot's ``budget``) replaces the rating."""
        if self.budget is not None or (isinstance(limit, Limit) and (limit.iterations is not None
                                                                      or limit.time is not None)):
            self.temperature, self.margin = 0.0, None
        else:
            self.calibrate_for(state.game)

    def start(self, state, limit=None, *, analyse=False, chunk=None):
        self._prepare(state, limit)
        return super().start(state, limit, analyse=analyse, chunk=chunk)

    def __repr__(self):
        return super().__repr__()[:-1] + f", elo={self.elo:g})"

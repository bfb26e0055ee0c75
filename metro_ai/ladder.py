"""Difficulty levels calibrated in Elo: the ladder, and ISMCTS opponents at a chosen rating.

A *ladder* is measured once per game and player count by :func:`calibrate` (``metro-ai
calibrate``): a list of levels, weakest first (random, then ISMCTS at growing budgets with the
presets among them, and greedy where it falls), plays a ladder tournament (each level against
the next two, over duplicate deals with the seats rotated; :mod:`metro_ai.play.tournament`),
and every level gets an Elo rating with its 95% interval from a Bradley–Terry fit of all the
games (:mod:`metro_ai.play.ratings`), on one scale with **random fixed at 0**: random is the one
level that means the same in every game, needs no budget and cannot drift with a change of
the code. The ladder also records, per level, how often it plays the strongest level's move on
a set of positions (:func:`agreement`), and which neighbours the results cannot tell apart.

The levels' budgets are iterations, not seconds, so a ladder holds on any machine; the machine
it was measured on is recorded all the same. Ladders for the games' default options ship with
the package (``metro_ai/data/ladder-GAME-Np.json``); :func:`load_ladder` reads them or a user's
file.

``make_bot("ismcts", elo=1400)`` (or ``ismcts:elo=1400`` in a bot spec, the protocol or the
command line) is an :class:`EloBot`: at its first search it reads the ladder of the game it
plays and takes the iteration budget, the move-selection temperature and the margin that reach
the rating (:func:`budget_for`: between the two measured ISMCTS levels that bracket it, the
budget interpolated geometrically, the temperature and margin linearly). A rating outside the measured ISMCTS
levels is a clear error. Weak levels stay plausible rather than random: they sample the root's
moves by ``visits ** (1 / T)`` among only those whose mean value the search found within a
``margin`` (0.03) of its best move's, so they play worse moves, but not moves their search has
seen lose. (Below a game's weakest plausible level, which in Metro already beats random nearly
always, the rungs that reach down to random are weak by noise: too few iterations to tell the
moves apart. The README's tables say which.)
"""
from __future__ import annotations

import json
import math
import os
import platform
import random
import time
from pathlib import Path
from typing import Any

from metro_ai.bots.limit import Limit
from metro_ai.bots.mcts import ISMCTSBot
from metro_ai.bots.seeding import derive
from metro_ai.engine.datafile import read_json, with_path
from metro_ai.engine.errors import MetroAIError

LADDER_FORMAT = "metro-ai-ladder"
LADDER_VERSION = 1
DATA = Path(__file__).parent / "data"

#: The levels of a calibration, weakest first: one family, ISMCTS whose sampled levels keep to
#: the moves within 0.03 of the best, at growing budgets and falling temperatures (the presets
#: easy, medium and hard among them), with greedy where it falls (short trial matches put it
#: near ISMCTS at 500 iterations in Metro and Breakthrough). At the bottom, 50 iterations with
#: no margin and then with one bridge the step from random, which every level with a margin
#: beats nearly always in Metro (a step no game can measure leaves the scale's anchor loose);
#: 500 at temperature 0.1 splits the step from medium to 500 at 0, which is wide in
#: Breakthrough. ``max`` (50,000 iterations on two threads) is left out of the default: its games
#: alone would cost hours of a two-core machine; ``--levels`` adds it.
DEFAULT_LEVELS = ("random", "ismcts:iterations=50,temperature=1", "ismcts:iterations=50,temperature=1,margin=0.03",
                  "easy", "medium",
                  "ismcts:iterations=500,temperature=0.1,margin=0.03", "ismcts:iterations=500",
                  "greedy", "ismcts:iterations=1500", "hard")
#: Where a game's steps need other bridges. Breakthrough: the root's values lie close together,
#: so the margin is a steep dial there (at 150 iterations, 0.1 rates about 540, 0.05 about 1,150
#: and 0.03 above, each sweeping the one before in a trial of 40 games), and at 50 iterations
#: the noisy means make 0.03 filter harder than at 150 (it rated above easy): the bridges from
#: random are 150 iterations at margins 0.1 and 0.07 instead.
GAME_LEVELS = {
    "breakthrough": ("random", "ismcts:iterations=50,temperature=1", "ismcts:iterations=150,temperature=1,margin=0.1",
                     "ismcts:iterations=150,temperature=1,margin=0.07", "easy", "medium",
                     "ismcts:iterations=500,temperature=0.1,margin=0.03", "ismcts:iterations=500",
                     "greedy", "ismcts:iterations=1500", "hard"),
}


def default_levels(game: str) -> tuple[str, ...]:
    """The levels a calibration of `game` plays unless told otherwise: :data:`GAME_LEVELS`'
    for the game, else :data:`DEFAULT_LEVELS`."""
    return GAME_LEVELS.get(game, DEFAULT_LEVELS)
DEFAULT_DEALS = 50
DEFAULT_SEED = 2026
DEFAULT_POSITIONS = 200
#: A move that loses at least this much of the chance of finishing above (by the strongest
#: level's values) counts as a blunder in the agreement table.
BLUNDER = 0.1


class LadderError(MetroAIError, ValueError):
    """A ladder that cannot be used or made (a missing or malformed file, a rating out of range);
    the message says what is wrong."""


# ---- levels ----

def level_parameters(spec) -> dict | None:
    """``{"iterations", "temperature", "margin"}`` of a level that is plain single-threaded
    ISMCTS (the ``ismcts`` bot with an iteration budget and at most a temperature and a margin,
    or a preset that is one), which :func:`budget_for` can interpolate between; None for any
    other level. ``margin`` is None where the level has none."""
    from metro_ai.play.botspec import BotSpec
    from metro_ai.registry import PRESETS
    spec = BotSpec.parse(spec)
    if spec.time is not None:
        return None
    if spec.name in PRESETS:
        opts, limit, _ = PRESETS[spec.name]
        options = {**opts, **spec.options}
        iterations = spec.iterations or limit.iterations
    elif spec.name == "ismcts":
        options, iterations = dict(spec.options), spec.iterations or ISMCTSBot.default_limit.iterations
    else:
        return None
    if set(options) - {"temperature", "margin"} or iterations is None:
        return None
    margin = options.get("margin")
    return {"iterations": int(iterations), "temperature": float(options.get("temperature", 0.0)),
            "margin": None if margin is None else float(margin)}


# ---- the ladder file ----

def ladder_path(game: str, players: int) -> Path:
    """Where the package keeps the ladder of `game` at `players` players (default options)."""
    return DATA / f"ladder-{game}-{players}p.json"


def _fail(source, what, at=()):
    """A LadderError about `source`, carrying the JSON path of the value at fault (for the line)."""
    raise with_path(LadderError(what if source is None else f"ladder {source}: {what}"), at)


def _kind_of(v) -> str:
    """What a value is, without quoting it (errors about a file never quote it)."""
    return {bool: "true or false", type(None): "null", int: "an integer", float: "a number", str: "text",
            list: "a list", dict: "an object"}.get(type(v), type(v).__name__)


def check_ladder(obj: Any, source: str | None = "file") -> dict:
    """`obj` if it is a well-formed ladder; LadderError naming the field (and carrying its JSON path,
    ``at``) otherwise, never quoting a value. `source` names the ladder (None: the message starts
    with the field)."""
    if not isinstance(obj, dict):
        _fail(source, f"expected a JSON object, got {type(obj).__name__}")
    if obj.get("format") != LADDER_FORMAT:
        _fail(source, f"format must be {LADDER_FORMAT!r}", ("format",))
    if obj.get("version") != LADDER_VERSION:
        _fail(source, f"version must be {LADDER_VERSION}", ("version",))
    for key, kind in (("game", str), ("players", int), ("options", dict), ("levels", list)):
        if not isinstance(obj.get(key), kind) or isinstance(obj.get(key), bool):
            _fail(source, f"field {key!r} must be a {kind.__name__}, got {_kind_of(obj.get(key))}", (key,))
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
        raise LadderError(f"elo {elo:g} is out of range for {ladder['game']} with {ladder['players']} players: "
                          f"ISMCTS levels span {lo['elo']:.0f} ({lo['level']}) to {hi['elo']:.0f} ({hi['level']})"
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
    budget given to ``choose`` explicitly replaces the calibrated one (and the rating then no
    longer holds). Other options as ``ismcts``; ``temperature`` and ``margin`` are the ladder's
    to set."""
    name = "ismcts"

    def __init__(self, seed=0, elo=None, ladder=None, game=None, **options):
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
        if game is not None:
            self.calibrate_for(game)

    def calibrate_for(self, game) -> dict:
        """Read `game`'s ladder and set the budget, temperature and margin for this bot's rating
        (once per game kind); returns ``level``. LadderError if the game has no ladder or the
        rating is out of its range."""
        key = (game.name, game.num_players, json.dumps(_game_options(game), sort_keys=True))
        if self._for != key:
            ladder = load_ladder(game.name, game.num_players, _game_options(game), self.ladder)
            self.level = budget_for(ladder, self.elo)
            self.temperature = self.level["temperature"]
            self.margin = self.level["margin"]
            self.default_limit = Limit(iterations=self.level["iterations"])
            self._for = key
        assert self.level is not None
        return self.level

    def _search(self, state, limit):
        self.calibrate_for(state.game)
        return super()._search(state, limit)

    def start(self, state, limit=None, *, analyse=False, chunk=None):
        self.calibrate_for(state.game)
        return super().start(state, limit, analyse=analyse, chunk=chunk)

    def __repr__(self):
        return super().__repr__()[:-1] + f", elo={self.elo:g})"


# ---- calibration ----

def _positions(records, seed):
    """One position from each record: a seeded random decision point with two or more legal
    actions, as a state."""
    from metro_ai.play.match import replay
    rng = random.Random(seed)
    out = []
    for record in records:
        states = [s for s in replay(record)[:-1] if len(s.legal_actions()) > 1]
        if states:
            out.append(states[rng.randrange(len(states))])
    return out


def agreement(levels, positions, seed=DEFAULT_SEED):
    """How often each level plays the strongest (last) level's move, and what its move costs by
    that level's reckoning: per level ``{"level", "agree", "positions", "low", "high", "loss",
    "blunders"}``.

    The strongest level searches each position with one seed; its move is the reference, and if
    it searches, the mean value (chance of finishing above, 0–1) it found for each action prices
    the moves: a level's ``loss`` is the mean, over the positions, of the reference move's value
    less its own move's (an action the search never tried counts at the lowest value it found).
    ``blunders``: the share of its moves whose loss is :data:`BLUNDER` or more.
    Each level (the strongest too: its row is the ceiling that search noise leaves) chooses with
    another seed. ``low``/``high``: the 95% Wilson interval of ``agree``. `positions`: states."""
    from metro_ai.play.botspec import BotSpec
    from metro_ai.play.ratings import wilson
    specs = [BotSpec.parse(s) for s in levels]
    strongest = specs[-1]
    reference: list[int] = []
    values: list[dict | None] = []
    for i, state in enumerate(positions):
        bot = strongest.make(derive(seed, 0xA9E, i, 0))
        if hasattr(bot, "analyse"):
            found = bot.analyse(state, strongest.limit)
            reference.append(found.chosen)
            values.append({a.action: a.mean for a in found.actions if a.visits > 0})
        else:
            reference.append(bot.choose(state, strongest.limit))
            values.append(None)
    rows = []
    for j, spec in enumerate(specs):
        agree, losses = 0, []
        for i, state in enumerate(positions):
            pick = spec.make(derive(seed, 0xA9E, i, 1, j)).choose(state, spec.limit)
            agree += pick == reference[i]
            q = values[i]
            if q is not None:
                losses.append(q[reference[i]] - q.get(pick, min(q.values())))
        n = len(positions)
        lo, hi = wilson(agree / n, n) if n else (0.0, 1.0)
        rows.append({"level": spec.display, "agree": agree / n if n else None, "positions": n, "low": lo, "high": hi,
                     "loss": round(sum(losses) / len(losses), 4) if losses else None,
                     "blunders": round(sum(x >= BLUNDER - 1e-12 for x in losses) / len(losses), 4) if losses else None})
    return rows


def _head_to_head(games, labels):
    from metro_ai.play.ratings import pairwise_matrix, wilson
    m = pairwise_matrix(games, len(labels))
    rows = []
    for i in range(len(labels)):
        for j in range(i + 1, len(labels)):
            n = m[i, j] + m[j, i]
            if n:
                score = m[j, i] / n
                lo, hi = wilson(score, int(round(n)))
                rows.append({"weaker": labels[i], "stronger": labels[j], "pairings": int(round(n)),
                             "score": float(score), "low": lo, "high": hi})
    return rows


def neighbours(levels: list[dict], head_to_head: list[dict]) -> list[dict]:
    """The levels in rating order, each with the next: whether their 95% rating intervals are
    apart (an unbounded end counts as overlapping), and their direct score if they met."""
    ranked = sorted(levels, key=lambda lv: lv["elo"])
    h2h = {(r["weaker"], r["stronger"]): r for r in head_to_head}
    out = []
    for a, b in zip(ranked, ranked[1:]):
        apart = a.get("high") is not None and b.get("low") is not None and a["high"] < b["low"]
        direct = h2h.get((a["level"], b["level"]))
        reverse = h2h.get((b["level"], a["level"]))       # the list had them the other way round
        if direct is None and reverse is not None:
            direct = {**reverse, "score": 1 - reverse["score"], "low": 1 - reverse["high"], "high": 1 - reverse["low"]}
        out.append({"lower": a["level"], "upper": b["level"], "gap": b["elo"] - a["elo"], "intervals_apart": apart,
                    **{k: None if direct is None else direct[f] for k, f in
                       (("score", "score"), ("pairings", "pairings"), ("score_low", "low"), ("score_high", "high"))}})
    return out


def calibrate(game: str = "metro", players: int = 2, options: dict | None = None, levels=None,
              deals: int = DEFAULT_DEALS, seed: int = DEFAULT_SEED, jobs: int = 1, db=None,
              positions: int = DEFAULT_POSITIONS, bootstrap: int = 1000, progress=None, command: str | None = None) -> dict:
    """Measure a ladder (see the module docstring) and return it, JSON-ready.

    `levels`: bot specs weakest first (default :func:`default_levels`; the first is the anchor,
    at 0: random unless you list another first); `deals`: duplicate deals per pairing; `db`: the
    tournament's SQLite file (resumable: an interrupted calibration goes on where it stopped);
    `positions`: positions for the agreement table; `jobs`, `progress`: as for tournaments."""
    from metro_ai.play.ratings import elo as fit_elo
    from metro_ai.play.tournament import Tournament, TournamentConfig, TournamentError
    options = dict(options or {})
    if players < 2:
        raise LadderError(f"an Elo ladder needs two or more players; {game} with {players} has no opponent to rate against")
    levels = list(default_levels(game) if levels is None else levels)
    if len(levels) < 2:
        raise LadderError(f"a ladder needs at least two levels, got {len(levels)}")
    try:
        config = TournamentConfig(game, {"players": players, **options}, levels, mode="ladder", deals=deals, seed=seed)
    except TournamentError as exc:
        raise LadderError(str(exc)) from None
    t0 = time.perf_counter()
    tournament = Tournament(config, db)
    result = tournament.run(jobs=jobs, progress=progress)
    seconds = time.perf_counter() - t0
    if not result.complete:
        raise LadderError(f"{len(result.failures)} game(s) of the calibration failed: {result.failures[:1]}")
    labels = config.labels
    fit = fit_elo(result.games, labels, bootstrap=bootstrap, seed=seed, anchor=labels[0])
    def shift(v):                               # the fit's scale has its anchor at 1500
        return None if v is None else round(v - 1500.0, 1)

    rows = []
    for spec, r in zip(config.bots, fit["rows"]):
        params = level_parameters(spec)
        rows.append({"level": spec.display, "spec": str(spec), "elo": shift(r["rating"]), "low": shift(r["low"]),
                     "high": shift(r["high"]), "interval": r["interval"],
                     "iterations": None if params is None else params["iterations"],
                     "temperature": None if params is None else params["temperature"],
                     "margin": None if params is None else params["margin"]})
    h2h = _head_to_head(result.games, labels)
    picked = sorted({result.games[k * len(result.games) // positions]["id"] for k in range(positions)}) \
        if positions else []
    states = _positions(tournament.records(picked), derive(seed, 0x9051))
    ladder = {
        "format": LADDER_FORMAT, "version": LADDER_VERSION,
        "game": game, "players": players, "options": _game_options(config._game),
        "anchor": f"{labels[0]} = 0",
        "scale": "Elo: 400 points = 10:1 odds of finishing above; " + fit["method"],
        "levels": rows,
        "neighbours": neighbours(rows, h2h),
        "head_to_head": h2h,
        "agreement": agreement(levels, states, seed),
        "notes": fit["notes"],
        "tournament": config.to_dict(),
        "games": len(result.games),
        "game_seconds": round(sum(g["seconds"] or 0.0 for g in result.games), 1),
        "seconds": round(seconds, 1),
        "machine": _machine() + "; budgets are iterations, so the ladder holds on any machine",
        "created": time.strftime("%Y-%m-%d", time.gmtime()),
        "command": command,
    }
    from metro_ai import __version__
    ladder["metro_ai"] = __version__
    return check_ladder(ladder, "made")


def _machine() -> str:
    """The machine a ladder was measured on, in words."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            model = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), model)
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, {platform.python_implementation()} {platform.python_version()}"


def format_ladder(ladder: dict) -> str:
    """The ladder as Markdown tables: levels with ratings, neighbours, agreement."""
    def num(v, fmt="{:.0f}"):
        return "–" if v is None else fmt.format(v)
    agree = {a["level"]: a for a in ladder.get("agreement", [])}
    lines = [f"{ladder['game']}, {ladder['players']} players ({ladder['anchor']}; {ladder.get('games', '?')} games)", "",
             "| level | Elo | 95% interval | iterations | temperature | margin | plays the strongest level's move | "
             f"mean loss | blunders (loss ≥ {BLUNDER:g}) |",
             "|---|---:|---|---:|---:|---:|---|---:|---:|"]
    for lv in sorted(ladder["levels"], key=lambda lv: lv["elo"]):
        kind = lv.get("interval")
        interval = ("anchor" if kind == "anchor" else f"{num(lv['low'])} … {num(lv['high'])}"
                    if lv.get("low") is not None or lv.get("high") is not None else "not bounded")
        a = agree.get(lv["level"])
        agreed = "–" if a is None or a["agree"] is None else f"{a['agree']:.0%} ({a['low']:.0%}–{a['high']:.0%})"
        loss = "–" if a is None else num(a.get("loss"), "{:.3f}")
        blunders = "–" if a is None else num(a.get("blunders"), "{:.0%}")
        lines.append(f"| {lv['level']} | {num(lv['elo'])} | {interval} | {num(lv.get('iterations'), '{:d}')} | "
                     f"{num(lv.get('temperature'), '{:g}')} | {num(lv.get('margin'), '{:g}')} | {agreed} | {loss} | {blunders} |")
    kept, left_out = chain(ladder)
    if not _ordered(kept, left_out):
        lines += ["", "`ismcts:elo=` refuses this ladder: its results do not rank its ISMCTS levels by budget."]
    elif left_out:
        lines += ["", "Left out of `ismcts:elo=` (rated at or below a level of smaller budget): "
                  + ", ".join(f"{lv['level']} ({lv['elo']:.0f})" for lv in left_out) + "."]
    lines += ["", "| neighbours | gap | intervals apart | direct score of the upper (95%) |", "|---|---:|---|---|"]
    for nb in ladder.get("neighbours", []):
        score = "did not meet" if nb["score"] is None else \
            f"{nb['score']:.1%} ({nb['score_low']:.1%}–{nb['score_high']:.1%}, {nb['pairings']} pairings)"
        lines.append(f"| {nb['lower']} < {nb['upper']} | {nb['gap']:.0f} | {'yes' if nb['intervals_apart'] else 'no'} | {score} |")
    return "\n".join(lines)


def plot_ladder(ladder: dict, path) -> str:
    """Draw the ladder (ratings with 95% intervals) to a PNG at `path`; returns the path."""
    from metro_ai.play.report import require_matplotlib
    plt = require_matplotlib()
    levels = sorted(ladder["levels"], key=lambda lv: lv["elo"])
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(levels) + 1.4))
    ys = list(range(len(levels)))
    vals = [lv["elo"] for lv in levels]
    lo = [lv["elo"] - lv["low"] if lv.get("low") is not None else 0 for lv in levels]
    hi = [lv["high"] - lv["elo"] if lv.get("high") is not None else 0 for lv in levels]
    ax.errorbar(vals, ys, xerr=[lo, hi], fmt="o", capsize=4)
    ax.set_yticks(ys)
    ax.set_yticklabels([lv["level"] for lv in levels], fontsize=8)
    ax.set_xlabel(f"Elo, 95% interval ({ladder['anchor']})")
    ax.set_title(f"{ladder['game']}, {ladder['players']} players: difficulty ladder", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)

"""The search's settings, one owner: the search options declared once (`SEARCH_OPTIONS`) and
`SearchSettings`, a frozen set of their values, checked by those declarations and resolved for
one game, which is what a search core reads.

A search option is declared here and read by the core (``bots/search.pyx``, ``settings.NAME``),
and nothing between passes it on: the search bots take these options (``SearchBot.options``),
``SearchBot.settings_for(game)`` makes the settings of a search, and ``SearchCore(root, player,
seed, settings)`` takes them whole.

Resolving for a game (`SearchSettings.for_game`): the options in `GAME_SETTINGS` left as None take
the game's value (``game.search_settings()``, read through `game_search_settings`, which refuses a
key that is not one of them and a value its option does not allow); ``c`` still None is `DEFAULT_C`,
``prior``, ``minimax`` and ``leaf_mix`` 0 (off); and the play-out options become one `Playout`
object (``settings.playout``). A `Playout` object given as ``rollout`` keeps its own depth, samples,
scales and learned value except those given besides it; the game's do not replace them. The game's
``rollout_samples`` are its heuristic play-out's and its ``rollout_epsilon`` (or ``rollout_tau``)
its MAST play-out's: another play-out named by the bot leaves them, as MAST's other rule named by
the bot leaves the game's. ``eval="learned"`` without an ``evaluator`` reads the one shipped for the
game and its players (`shipped_evaluator`), and the evaluator file becomes the play-out's
`LearnedValue` (``load_learned``: read once while the file is unchanged). A game's own
``eval="learned"`` holds for the rules its shipped evaluator was trained on: with other options (a
variant, another card set) its search scores cut-offs by hand, as a bot that names ``eval=learned``
there is refused with what differs; the game's ``eval_mix`` and ``leaf_mix`` go with it (each was
measured with the learned evaluator), a bot's own stay.
"""
from __future__ import annotations

import json
from typing import Any

from metro_ai.engine.options import Option, check_options

from .evaluator import load_learned, shipped_evaluator
from .search import HeuristicPlayout, MastPlayout, Playout, RandomPlayout

__all__ = ["DEFAULT_C", "GAME_SETTINGS", "MAX_NODES", "MAX_WORKERS", "PLAYOUTS", "SEARCH_OPTIONS", "SearchSettings",
           "game_search_settings"]

MAX_WORKERS = 256           # a fixed cap, so that a bot spec valid on one machine is valid on all
MAX_NODES = 1 << 30         # node arrays double up to this size without overflowing a C int
DEFAULT_C = 0.7            # the exploration constant where the game gives none (measured per game: bots.md)
PLAYOUTS = {"random": RandomPlayout, "heuristic": HeuristicPlayout, "mast": MastPlayout}

SEARCH_OPTIONS: tuple[Option, ...] = (
    Option.number("c", None, "UCB exploration constant", low=0, finite=True,
                  none=f"the game's default, else {DEFAULT_C}"),
    Option.custom("rollout", None, "play-out policy: uniform, the best of rollout_samples random actions by "
                  "the game's heuristic, or MAST (epsilon-greedy on the search's mean return per action)",
                  "None (the game's default) or 'random' or 'heuristic' or 'mast' or a Playout",
                  lambda v: v is None or (isinstance(v, str) and v in PLAYOUTS) or isinstance(v, Playout)),
    Option.integer("rollout_depth", None, "actions played out before the game's heuristic scores the "
                   "position", low=-1, none="the game's default",
                   words="-1 (to the end) or an int >= 0"),
    Option.integer("rollout_samples", None, "the heuristic play-out's random actions compared a move (the best "
                   "by the game's heuristic is played)", low=1, high=1000,
                   none="the game's default with its heuristic play-out, else 3"),
    Option.number("rollout_epsilon", None, "the MAST play-out's chance of a uniformly random legal action "
                  "(else the action of best mean return)", low=0, high=1,
                  none="the game's default with its MAST play-out, else 0.2"),
    Option.number("rollout_tau", None, "given, the MAST play-out samples each action by softmax, weight "
                  "exp(mean return / tau), instead of its epsilon-greedy rule (rollout_epsilon then unused)",
                  low=0.001, high=1000, none="the game's default with its MAST play-out, else epsilon-greedy"),
    Option.number("cutoff_scale", None, "scoring at a cut-off: 0 ranks the players by the heuristic, "
                  "> 0 is a logistic soft rank with this scale", low=0, none="the game's default"),
    Option.number("end_scale", None, "scoring at the end of a play-out: 0 by the game's returns, > 0 a "
                  "logistic soft rank of the final scores with this scale (a wide win counts more)", low=0,
                  finite=True, none="the game's default"),
    Option.number("lead_weight", None, "weight w of a lead term where a play-out stops: (1 - w) * value + w * "
                  "(1/2 + atan((lead - lead at the root) / scale) / pi), the lead the game's heuristic less the "
                  "others' mean (alone: the heuristic), the scale cutoff_scale's (1 where 0): the search keeps "
                  "gaining where every value is near 0 or 1 (0: off)", low=0, high=0.99,
                  none="the game's default, else 0"),
    Option.choice("final", "visits", "the action played: the most visited, or the best mean value",
                  ("visits", "value")),
    Option.number("temperature", 0.0, "0 plays the best action; > 0 samples by visits^(1/T)", low=0),
    Option.number("margin", None, "with a temperature, sample only among the actions whose mean value is "
                  "within this much of the most visited action's (a weak level's guard against blunders)",
                  low=0, high=1, none="no filter"),
    Option.integer("workers", 1, "threads (or processes) searching at once: ISMCTS and flat Monte Carlo "
                   "grow one independent tree each, merged by summing root statistics; PIMC shares its "
                   "worlds' trees out among them", low=1, high=MAX_WORKERS),
    Option.choice("backend", "threads", "where workers run: threads (the search releases the GIL) "
                  "or processes (one per worker, kept idle between searches)", ("threads", "processes")),
    Option.integer("max_nodes", 5_000_000, "nodes, all trees together, at which the tree stops growing",
                   low=2, high=MAX_NODES),
    Option.number("widen", 0.0, "progressive widening: a node of n visits grows a new child only while "
                  "it has fewer than widen * (n + 1) ** widen_power children (0: off)", low=0, finite=True),
    Option.number("widen_power", 0.5, "the exponent of progressive widening", low=0, high=1),
    Option.number("prior", None, "progressive bias at the root: weight w of w * P / (visits + 1), P the "
                  "action's one-ply greedy value (the greedy bot's), scaled to [0, 1] over the root's "
                  "actions; untried root actions are expanded best P first (0: off)", low=0, finite=True,
                  none="the game's default, else 0"),
    Option.integer("prior_worlds", 1, "determinisations the root prior averages each action over", low=1,
                   high=64),
    Option.number("minimax", None, "implicit minimax back-ups (Lanctot et al. 2014): each node keeps the "
                  "max^n of the evaluations of new leaves below it (the game's heuristic as a cut-off scores "
                  "it), and selection reads (1 - w) * mean + w * that value (0: off)", low=0, high=1,
                  none="the game's default, else 0"),
    Option.number("leaf_mix", None, "each iteration's value: leaf_mix * the evaluation of the world where the "
                  "tree steps ended (as a cut-off there scores it: eval's) + (1 - leaf_mix) * the play-out's "
                  "(AlphaGo's mixing of a value at the leaf with a roll-out; 0: the play-out's alone)", low=0,
                  high=1, none="the game's default, else 0"),
    Option.choice("eval", None, "what scores a play-out cut off before the end: the game's hand-written "
                  "evaluation, or a learned evaluator (metro-ai train's; evaluator=FILE, else the one "
                  "shipped for the game and its players) mixed with it by eval_mix",
                  ("hand-written", "learned"), none="the game's default, else hand-written"),
    Option.number("eval_mix", None, "with eval=learned, the learned value's weight at a cut-off: "
                  "eval_mix * learned + (1 - eval_mix) * hand-written", low=0, high=1,
                  none="the game's default, else 1"),
    Option.path("evaluator", None, "the evaluator file eval=learned reads (metro-ai train's)"),
    Option.choice("opponents", "uniform", "how a dealt world draws the other players' secret choices not yet "
                  "shown: uniformly, or from the game's model of them (games with one: Metro 2033's threat "
                  "declarations and attacker's combat pick)", ("uniform", "model")),
    Option.boolean("chance_keys", False, "key the tree's children by what chance has shown the observer too "
                   "(the game's chance key: Leduc's public card, Metro 2033's threats and draws), so worlds "
                   "the observer could tell apart do not share a node"),
)

_DECLARED = {o.name: o for o in SEARCH_OPTIONS}
_PLAYOUT_OPTIONS = ("rollout_depth", "rollout_samples", "rollout_epsilon", "rollout_tau", "cutoff_scale", "end_scale",
                    "lead_weight")
#: The options of one play-out policy alone: name -> (the policy's `rollout` name, its class, its
#: keyword argument).
_POLICY_OPTIONS = {"rollout_samples": ("heuristic", HeuristicPlayout, "samples"),
                   "rollout_epsilon": ("mast", MastPlayout, "epsilon"),
                   "rollout_tau": ("mast", MastPlayout, "tau")}
#: MAST's two rules, each option naming the other: a bot's choice of one leaves the game's other.
_MAST_RULES = {"rollout_epsilon": "rollout_tau", "rollout_tau": "rollout_epsilon"}
_MAST_REFUSAL = "rollout_epsilon is MAST's epsilon-greedy rule and rollout_tau its softmax: give one"


def _policy_refusal(name: str) -> str:
    """Why option `name` of one play-out policy is refused beside another."""
    kind = _POLICY_OPTIONS[name][0]
    return f"{name} is a setting of the {kind} play-out: give it with rollout={kind}"


def _is_policy(rollout: Any, name: str) -> bool:
    """Whether `rollout` (a name or a Playout) is the play-out that option `name` belongs to."""
    kind, cls, _ = _POLICY_OPTIONS[name]
    return rollout == kind or isinstance(rollout, cls)


#: The settings a game may give (``search_defaults``, ``search_settings()``): the search options
#: whose None means "the game's default".
GAME_SETTINGS = ("c", "rollout") + _PLAYOUT_OPTIONS + ("prior", "minimax", "leaf_mix", "eval", "eval_mix")
for _name in GAME_SETTINGS:
    if _DECLARED[_name].default is not None:
        raise ImportError(f"GAME_SETTINGS names {_name!r}, whose default is not None (the game's)")


def game_search_settings(game) -> dict[str, Any]:
    """``game.search_settings()``, checked: each key one of `GAME_SETTINGS` and each value one its
    option allows, so that a misspelt key or a value out of range in a game's ``search_defaults``
    is an error naming the game, not a setting silently ignored."""
    settings = game.search_settings()
    owner = f"game {getattr(game, 'name', type(game).__name__)!r}, search_settings()"
    if not isinstance(settings, dict):
        raise ValueError(f"{owner} must be a dict of search settings, got {type(settings).__name__}")
    for name, value in settings.items():
        if name not in GAME_SETTINGS:
            raise ValueError(f"{owner}: {name!r} is not a setting a game gives (those: {', '.join(GAME_SETTINGS)})")
        _DECLARED[name].check(owner, value)
    for name in _POLICY_OPTIONS:
        if name in settings and not _is_policy(settings.get("rollout"), name):
            raise ValueError(f"{owner}: {_policy_refusal(name)}")
    if all(name in settings for name in _MAST_RULES):
        raise ValueError(f"{owner}: {_MAST_REFUSAL}")
    return settings


#: `_trained_on`'s answers, by evaluator (its content's hash) and game (class, name, players, options).
_TRAINED_ON: dict[tuple, bool] = {}


def _trained_on(path, game) -> bool:
    """Whether the evaluator file at `path` was trained on `game` as it is (its options too).
    Asked at every search of a game whose default reads an evaluator, so the answer is kept for
    the file's content and the game's configuration (``check_game`` builds the game's feature
    layout, some 45 us in Metro 2033 at 3 players)."""
    learned = load_learned(path)            # (a damaged file is an error, not a reason to score by hand)
    key = (learned.key, type(game), game.name, game.num_players,
           json.dumps(dict(game.options), sort_keys=True, default=repr))
    known = _TRAINED_ON.get(key)
    if known is None:
        try:
            learned.check_game(game)
            known = True
        except ValueError:
            known = False
        if len(_TRAINED_ON) >= 64:
            _TRAINED_ON.clear()
        _TRAINED_ON[key] = known
    return known


class SearchSettings:
    """The settings of a search, frozen: a value for each of `SEARCH_OPTIONS` (read as attributes,
    ``settings.c``), those given checked by their declarations and the rest their defaults, plus
    ``playout``, the `Playout` the play-out options make. ``c`` left as None is `DEFAULT_C`,
    ``prior``, ``minimax`` and ``leaf_mix`` 0 (off). ``SearchSettings.for_game(game, **values)`` first fills in what the game gives.

    ``SearchSettings(c=1.0, rollout="heuristic")``; ``settings.replace(c=0.5)``; equal settings
    compare and hash equal, and pickle."""
    __slots__ = ("_values", "playout")
    _values: dict[str, Any]
    playout: Playout

    def __init__(self, **values: Any) -> None:
        checked = check_options("search settings", SEARCH_OPTIONS, values)
        for name in ("prior", "minimax", "leaf_mix"):
            if checked[name] is None:
                checked[name] = 0.0
        if checked["c"] is None:
            checked["c"] = DEFAULT_C
        object.__setattr__(self, "_values", checked)
        object.__setattr__(self, "playout", _playout(checked))

    @classmethod
    def for_game(cls, game, **values: Any) -> SearchSettings:
        """The settings of a search of `game`: `values`, and for each of `GAME_SETTINGS` left as
        None (or not given) the game's, where it gives one (see the module docstring)."""
        merged = dict(values)
        own_playout = isinstance(values.get("rollout"), Playout)
        game_settings = game_search_settings(game)
        for name, value in game_settings.items():
            if own_playout and name in _PLAYOUT_OPTIONS + ("eval", "eval_mix"):
                continue                    # a Playout object keeps its own (its evaluator too), bar those given with it
            if name in _POLICY_OPTIONS and not _is_policy(merged.get("rollout") or game_settings.get("rollout"), name):
                continue                    # the game's per-policy settings are its own play-out's, not another's
            if name in _MAST_RULES and values.get(_MAST_RULES[name]) is not None:
                continue                    # the bot chose MAST's other rule (epsilon-greedy or softmax)
            if merged.get(name) is None:
                merged[name] = value
        if merged.get("opponents") == "model" and not getattr(game, "models_opponents", False):
            raise ValueError(f"opponents='model' needs a game with a model of its players' secret choices; "
                             f"{getattr(game, 'name', type(game).__name__)!r} has none (Metro 2033 has)")
        if merged.get("eval") == "learned" and merged.get("evaluator") is None:
            shipped = shipped_evaluator(game)
            if values.get("eval") is None and not _trained_on(shipped, game):
                merged["eval"] = None                # the game's default, for the rules it was trained on
                for name in ("eval_mix", "leaf_mix"):       # measured with the learned evaluator
                    if values.get(name) is None:
                        merged[name] = None
            else:
                merged["evaluator"] = str(shipped)
        return cls(**merged)

    def replace(self, **changes: Any) -> SearchSettings:
        """These settings with some changed (checked as any)."""
        return type(self)(**{**self._values, **changes})

    def as_dict(self) -> dict[str, Any]:
        """Each option's value, by name, in declaration order."""
        return dict(self._values)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"no search setting {name!r}; the settings are {', '.join(_DECLARED)}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("SearchSettings are frozen: use replace()")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SearchSettings) and type(other) is type(self) and self._values == other._values

    def __hash__(self) -> int:
        return hash(tuple(self._values.items()))

    def __reduce__(self):
        return _rebuild, (self._values,)

    def __repr__(self) -> str:
        changed = [f"{k}={v!r}" for k, v in self._values.items() if v != _DECLARED[k].default]
        return "SearchSettings(" + ", ".join(changed) + ")"


def _rebuild(values):
    return SearchSettings(**values)


def _playout(values) -> Playout:
    """The `Playout` of checked settings: ``rollout`` (None: random) with the depth (-1: to the end)
    and scales given; a `Playout` object keeps its own, bar those given (not None)."""
    rollout, depth, scale, end = values["rollout"], values["rollout_depth"], values["cutoff_scale"], values["end_scale"]
    lead = values["lead_weight"]
    policy = {_POLICY_OPTIONS[name][2]: values[name] for name in _POLICY_OPTIONS if values[name] is not None}
    extra: dict[str, Any] = {} if lead is None else {"lead_weight": lead}
    kind, mix, evaluator = values["eval"], values["eval_mix"], values["evaluator"]
    if kind == "hand-written" and evaluator is not None:
        raise ValueError("evaluator is the file eval=learned reads: drop it or give eval=learned")
    if kind != "learned" and evaluator is None:
        if mix is not None:
            raise ValueError("eval_mix is a setting of eval=learned (give eval=learned)")
    elif evaluator is None:
        raise ValueError("eval=learned needs an evaluator file (evaluator=FILE), or the game to find the one "
                         "shipped for it (SearchSettings.for_game)")
    else:
        extra.update(learned=load_learned(evaluator), eval_mix=1.0 if mix is None else mix)
    for name in _POLICY_OPTIONS:
        if values[name] is not None and not _is_policy(rollout, name):
            raise ValueError(f"{_policy_refusal(name)} (or a game whose default play-out is that)")
    if values["rollout_tau"] is not None:
        if values["rollout_epsilon"] is not None:
            raise ValueError(_MAST_REFUSAL)
        policy["policy"] = "gibbs"
    if isinstance(rollout, Playout):
        changes: dict[str, Any] = {}
        if depth is not None:
            changes["depth"] = None if depth == -1 else depth
        if scale is not None:
            changes["cutoff_scale"] = scale
        if end is not None:
            changes["end_scale"] = end
        changes.update(policy)
        changes.update(extra)
        return rollout.replace(**changes) if changes else rollout
    more = {**policy, **extra}
    return PLAYOUTS["random" if rollout is None else rollout](
        depth=None if depth == -1 else depth, cutoff_scale=0.0 if scale is None else scale,
        end_scale=0.0 if end is None else end, **more)

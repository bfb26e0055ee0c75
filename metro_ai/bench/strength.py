"""``metro-ai bench``'s strength section: bot pairs at equal time (or iterations) per move, win rates
with 95% intervals."""
from __future__ import annotations

import json
import os
import statistics
import time

from metro_ai.bots.catalogue import list_bots, make_bot
from metro_ai.bots.limit import Limit
from metro_ai.bots.seeding import derive
from metro_ai.play.loop import play_game
from metro_ai.play.ratings import wilson
from metro_ai.registry import DEFAULT_GAME, game_class, load_game

from . import common
from .common import DEFAULT_PAIRS, OPENSPIEL, UCT_C, _bar, _say


def parse_pairs(text):
    """Strength pairs from ``--strength-pairs``: comma-separated ``BOT:OPPONENT`` (bot names of
    ``metro-ai bots``, or ``openspiel`` as the opponent); ValueError says what is wrong."""
    pairs = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            continue
        bot, sep, opponent = (s.strip() for s in item.partition(":"))
        if not sep or not bot or not opponent:
            raise ValueError(f"--strength-pairs: expected BOT:OPPONENT, got {item!r}")
        for name in (bot, opponent):
            if name != OPENSPIEL and name not in list_bots():
                raise ValueError(f"--strength-pairs: unknown bot {name!r}; bots are "
                                 f"{', '.join(list_bots())} (and {OPENSPIEL} as the opponent)")
        if bot == OPENSPIEL:
            raise ValueError(f"--strength-pairs: {OPENSPIEL} plays the opponent's seat only ({item!r})")
        pairs.append((bot, opponent))
    if not pairs:
        raise ValueError("--strength-pairs: no pair given")
    return tuple(pairs)


def _pair_name(pair):
    return f"{pair[0]} vs {pair[1]}"


def _seat(name, seed, game_name, options, seconds, iterations, its):
    """A seat of a strength game (play_game's chooser): bot `name` seeded with `seed`; the
    iterations of each of its searches are appended to `its` (search bots and OpenSpiel's)."""
    if name == OPENSPIEL:
        bridge, osb = common._openspiel()
        game = bridge.load(game_name, players=2, **options)
        theirs = osb.python_bot(game, seed, UCT_C, iterations=iterations, seconds=seconds)

        def their_seat(state, limit):
            action = osb.choose(theirs, game, state)
            its.append(iterations or theirs.last_simulations)
            return action
        return their_seat
    bot = make_bot(name, seed=seed)
    if not bot.searches:
        return lambda state, limit: bot.choose(state, limit)

    def our_seat(state, limit):
        r = bot.analyse(state, limit)
        its.append(r.iterations)
        return r.chosen
    return our_seat


def strength_game(seed, index, seconds=None, iterations=None, game_name=DEFAULT_GAME, pair=DEFAULT_PAIRS[0],
                  options=None):
    """One 2-player game of `game_name` (with game `options`): bot ``pair[0]`` in seat
    ``index % 2`` of deal ``index // 2`` against ``pair[1]`` (``openspiel``: OpenSpiel's Python
    ISMCTS), both with ``seconds`` or both with ``iterations`` per move (bots that do not search
    ignore the budget); a player with a single legal action plays it without a search.
    ``first``: 1 if the tested bot scored more, 0.5 on a tie, else 0."""
    options = dict(options or {})
    deal, seat = divmod(index, 2)
    state = load_game(game_name, players=2, **options).new_state(derive(seed, deal))
    its: dict[str, list] = {"bot": [], "opponent": []}
    seats = [_seat(pair[1], derive(seed, deal, seat, 2), game_name, options, seconds, iterations, its["opponent"])] * 2
    seats[seat] = _seat(pair[0], derive(seed, deal, seat, 1), game_name, options, seconds, iterations, its["bot"])
    play_game(state, seats, [Limit(time=seconds, iterations=iterations)] * 2, play_forced=True)
    scores = state.scores()
    first = 1.0 if scores[seat] > scores[1 - seat] else 0.5 if scores[seat] == scores[1 - seat] else 0.0
    return {"pair": _pair_name(pair), "deal": deal, "seat": seat, "scores": list(scores), "first": first,
            "bot_iterations": statistics.median(its["bot"]) if its["bot"] else 0,
            "opponent_iterations": statistics.median(its["opponent"]) if its["opponent"] else 0}


def _options_note(options):
    return (" with " + ", ".join(f"{k}={json.dumps(v)}" for k, v in options.items())) if options else ""


def strength_section(cfg, progress):
    if any(OPENSPIEL in pair for pair in cfg.strength_pairs):
        common._openspiel()
    from joblib import Parallel, delayed
    games = cfg.strength_games + cfg.strength_games % 2
    jobs = cfg.jobs or os.cpu_count() or 1
    options = dict(cfg.options)
    load_game(cfg.game, players=2, **options)          # bad options fail before any game
    if cfg.strength_iterations:
        budget, per_move = (None, cfg.strength_iterations), f"{cfg.strength_iterations:,} iterations"
    else:
        budget, per_move = (cfg.strength_time, None), f"{cfg.strength_time} s"
    rows, out = [], []
    for pair in cfg.strength_pairs:
        done, t0 = [], time.perf_counter()
        results = Parallel(n_jobs=jobs, return_as="generator")(
            delayed(strength_game)(cfg.seed, i, *budget, cfg.game, pair, options) for i in range(games))
        bar = _bar(progress, games, f"  strength {_pair_name(pair)}")
        for i, r in enumerate(results, 1):
            done.append(r)
            if bar is not None:
                bar.set_postfix_str(f"first {sum(x['first'] for x in done) / i:.1%}", refresh=False)
                bar.update(1)
        if bar is not None:
            bar.close()
        _say(progress, f"  strength {_pair_name(pair)} {games}/{games} games, first "
                       f"{sum(x['first'] for x in done) / games:.1%}, {time.perf_counter() - t0:.0f} s")
        first = sum(r["first"] for r in done) / games
        lo, hi = wilson(first, games)
        rows.append({"pair": _pair_name(pair), "players": 2, "games": games, "budget": per_move,
                     "wins": sum(r["first"] == 1.0 for r in done), "draws": sum(r["first"] == 0.5 for r in done),
                     "losses": sum(r["first"] == 0.0 for r in done), "first_rate": first, "ci_low": lo, "ci_high": hi,
                     "bot_iterations": statistics.median(r["bot_iterations"] for r in done),
                     "opponent_iterations": statistics.median(r["opponent_iterations"] for r in done),
                     "wall_seconds": time.perf_counter() - t0})
        out += done
    openspiel = ("OpenSpiel's Python ISMCTSBot (its C++ bot does not run on games registered from Python) "
                 f"searches the same engine through the bridge, random play-outs, uct_c {UCT_C}, for the same "
                 "budget. " if any(OPENSPIEL in pair for pair in cfg.strength_pairs) else "")
    return {
        "title": ("Strength at equal " + ("iterations" if cfg.strength_iterations else "time") + " per move: " +
                  ", ".join(_pair_name(p) for p in cfg.strength_pairs)),
        "note": (f"{game_class(cfg.game).title}{_options_note(options)}, 2 players, {games} games a pair: "
                 f"{games // 2} deals (seeds derived from {cfg.seed}), each played twice with the seats swapped; "
                 f"{per_move} per move for both sides (greedy and random ignore it), {jobs} games at a time. "
                 "Our search bots at their defaults (the game's c and play-out settings). " + openspiel +
                 "The win rate is the first-named bot's; a draw counts one half. 95% Wilson interval. "
                 "'Iterations a move': median over games of each side's median (0: the bot does not search). " +
                 ("Iteration budgets: the same seed plays the same games." if cfg.strength_iterations else
                  "Time budgets are not reproducible bit for bit.")),
        "columns": [("pair", "match", "{}"), ("players", "players", "{}"), ("games", "games", "{}"),
                    ("budget", "budget a move", "{}"), ("wins", "wins", "{}"), ("draws", "draws", "{}"),
                    ("losses", "losses", "{}"), ("first_rate", "win rate", "{:.1%}"),
                    ("ci_low", "95% low", "{:.1%}"), ("ci_high", "95% high", "{:.1%}"),
                    ("bot_iterations", "bot iterations a move", "{:,.0f}"),
                    ("opponent_iterations", "opponent iterations a move", "{:,.0f}"),
                    ("wall_seconds", "wall s", "{:,.0f}")],
        "rows": rows, "games": out, "game": cfg.game, "options": options}

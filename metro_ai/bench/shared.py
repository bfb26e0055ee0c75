"""``metro-ai bench --sections openspiel``, second half: games OpenSpiel has too
(``Game.openspiel_game``, e.g. Leduc poker), searched natively on both sides with no bridge: our
ismcts on our engine against OpenSpiel's C++ ``ISMCTSBot`` on its own, simulations per second side
by side, and strength at equal iterations and at equal time. :mod:`metro_ai.bench.openspiel`
calls :func:`shared_section`; the helpers below are its own."""
from __future__ import annotations

import statistics
import time

from metro_ai.bots.limit import Limit
from metro_ai.bots.seeding import derive
from metro_ai.play.ratings import wilson
from metro_ai.registry import game_class, list_games, load_game

from .common import DEAL, SAME_PLAYOUTS, UCT_C, _say, searcher, two_counts


SHARED_ITERATIONS = 20_000          # simulations per search in the speed rows (OpenSpiel's usual figure)
SHARED_STRENGTH_ITERATIONS = 1_000  # per move, both sides, in the equal-iterations match
SHARED_STRENGTH_SECONDS = 0.01      # per move in the equal-time match (budgets from the measured rates)
SHARED_STRENGTH_GAMES = 200


def shared_games():
    """Registered games that OpenSpiel has too (``Game.openspiel_game``, e.g. a benchmark game):
    searched natively on both sides, no bridge."""
    return [name for name in list_games() if getattr(game_class(name), "openspiel_game", None)]


def _their_game(game):
    import pyspiel
    return pyspiel.load_game(game.openspiel_game, game.openspiel_parameters())


def _their_state(their_game, game, state):
    """OpenSpiel's state of the same position: the game's ``openspiel_history`` replayed."""
    t = their_game.new_initial_state()
    for a in game.openspiel_history(state):
        t.apply_action(a)
    return t


def _their_bot(seed, uct_c, iterations):
    import pyspiel
    return pyspiel.ISMCTSBot(int(seed), pyspiel.RandomRolloutEvaluator(1, int(seed)), float(uct_c), int(iterations))


def _their_uct_c(game):
    """OpenSpiel's uct_c for the same selection rule as our c = UCT_C: OpenSpiel's returns are the
    game's raw returns (chips), ours are them mapped onto [0, 1] (``1/2 + chips / (2 * max_win)``),
    so the exploration term scales by the width of the range, ``2 * max_utility``."""
    return UCT_C * 2 * _their_game(game).max_utility()


def shared_speed(name, players, iterations, repeats, progress):
    """Simulations per second of our ismcts and OpenSpiel's C++ ISMCTSBot from the first decision
    of the same deal, same budget, alternating, medians of `repeats`."""
    game = load_game(name, players=players)
    state = game.benchmark_position("opening", DEAL)
    their_game = _their_game(game)
    their_c = _their_uct_c(game)
    ours, theirs = [], []
    for rep in range(repeats):
        r = searcher("ismcts", seed=rep, c=UCT_C, **SAME_PLAYOUTS).analyse(state, Limit(iterations=iterations))
        ours.append(r.iterations / r.seconds)
        bot, t = _their_bot(rep, their_c, iterations), _their_state(their_game, game, state)
        t0 = time.perf_counter()
        bot.step(t)
        theirs.append(iterations / (time.perf_counter() - t0))
    a, b = statistics.median(ours), statistics.median(theirs)
    _say(progress, f"  openspiel {name} {players}p (native): ours {a:,.0f} sims/s, OpenSpiel C++ {b:,.0f} sims/s")
    return {"game": name, "players": players, "iterations": iterations, "ours": a, "openspiel": b,
            "ratio": a / b, "ours_all": ours, "openspiel_all": theirs, "uct_c": UCT_C, "openspiel_uct_c": their_c}


def shared_hand(name, seed, index, our_iterations, their_iterations):
    """One 2-player hand of `name`: our ismcts in seat ``index % 2`` of deal ``index // 2``
    against OpenSpiel's C++ ISMCTSBot on OpenSpiel's own game, each with its iterations per move;
    the same actions and chance outcomes in both engines. Our chips (``scores()``) at the end."""
    deal, seat = divmod(index, 2)
    game = load_game(name, players=2)
    state = game.new_state(derive(seed, deal))
    their_game = _their_game(game)
    ours = searcher("ismcts", seed=derive(seed, deal, seat, 1), c=UCT_C, **SAME_PLAYOUTS)
    theirs = _their_bot(derive(seed, deal, seat, 2) % 2 ** 31, _their_uct_c(game), their_iterations)
    limit = Limit(iterations=our_iterations)
    while not state.is_terminal():
        if state.current_player == seat:
            action = ours.choose(state, limit)
        else:
            action = int(theirs.step(_their_state(their_game, game, state)))
        state.apply(action)
    chips = state.scores()[seat]
    return {"deal": deal, "seat": seat, "chips": chips,
            "first": 1.0 if chips > 0 else 0.5 if chips == 0 else 0.0}


def shared_strength(name, seed, games, our_iterations, their_iterations, budget, progress):
    """`games` hands (rounded up to even: each deal twice, seats swapped): our mean chips a hand
    with a 95% interval (normal), and win/tie/loss with a 95% Wilson interval."""
    games += games % 2
    out = [shared_hand(name, seed, i, our_iterations, their_iterations) for i in range(games)]
    chips = [r["chips"] for r in out]
    mean = statistics.fmean(chips)
    half = 1.96 * statistics.stdev(chips) / len(chips) ** 0.5 if len(chips) > 1 else float("inf")
    first = sum(r["first"] for r in out) / games
    lo, hi = wilson(first, games)
    _say(progress, f"  openspiel {name} strength ({budget}): ours {mean:+.3f} chips a hand +- {half:.3f}")
    return {"game": name, "budget": budget, "games": games, "ours_iterations": our_iterations,
            "openspiel_iterations": their_iterations, "chips": mean, "chips_low": mean - half,
            "chips_high": mean + half, "wins": sum(r["first"] == 1.0 for r in out),
            "draws": sum(r["first"] == 0.5 for r in out), "losses": sum(r["first"] == 0.0 for r in out),
            "first_rate": first, "ci_low": lo, "ci_high": hi, "hands": out}


def shared_section(cfg, progress):
    """Speed and strength of our ismcts against OpenSpiel's C++ ISMCTSBot on every game OpenSpiel
    also has: tables to add to the openspiel section (none if there is no such game)."""
    names = shared_games()
    if not names:
        return []
    scale = 50 if cfg.quick else 1
    iterations = SHARED_ITERATIONS // scale
    games = 4 if cfg.quick else SHARED_STRENGTH_GAMES
    speed, strength = [], []
    for name in names:
        for players in two_counts(name):
            speed.append(shared_speed(name, players, iterations, cfg.openspiel_repeats, progress))
        two = next(r for r in speed if r["game"] == name and r["players"] == 2)
        equal = SHARED_STRENGTH_ITERATIONS // scale
        strength.append(shared_strength(name, cfg.seed, games, equal, equal, f"{equal:,} iterations", progress))
        t = SHARED_STRENGTH_SECONDS / scale
        strength.append(shared_strength(name, cfg.seed, games, max(2, round(two["ours"] * t)),
                                        max(2, round(two["openspiel"] * t)), f"{t * 1000:g} ms", progress))
    return [{
        "title": "Against OpenSpiel's C++ ISMCTSBot on the same game (OpenSpiel's own engine): simulations per second",
        "note": (f"The first decision of deal {DEAL}, {iterations:,} simulations per search, one thread, random "
                 f"play-outs to the end on both sides, alternating, median of {cfg.openspiel_repeats}. Ours: ismcts, "
                 f"c {UCT_C}, on our engine; OpenSpiel: pyspiel.ISMCTSBot with RandomRolloutEvaluator(1) on its own "
                 "game (its name and parameters from Game.openspiel_game), resampling worlds natively; its "
                 "uct_c is ours times the width of its return range (2 * max_utility), because its returns are "
                 "chips and ours are them mapped onto [0, 1]: the same selection rule."),
        "columns": [("game", "game", "{}"), ("players", "players", "{}"), ("iterations", "simulations", "{:,}"),
                    ("ours", "metro-ai ismcts sims/s", "{:,.0f}"), ("openspiel", "OpenSpiel C++ sims/s", "{:,.0f}"),
                    ("ratio", "ratio", "{:.2f}x"), ("openspiel_uct_c", "OpenSpiel uct_c", "{:g}")],
        "rows": speed,
    }, {
        "title": "Against OpenSpiel's C++ ISMCTSBot on the same game: strength at equal iterations and equal time",
        "note": (f"2 players, each deal (seeds derived from {cfg.seed}) played twice with the seats swapped; every "
                 "hand is played in both engines with the same chance outcomes and actions. Equal time: each side "
                 "gets the iterations its measured rate (the 2-player row above) does in that time, so the match "
                 "is reproducible. 'Chips a hand': our mean winnings with a 95% interval (normal); win rate: a "
                 "tied hand counts one half, 95% Wilson interval. The same algorithm should be level (0 chips)."),
        "columns": [("game", "game", "{}"), ("budget", "budget a move", "{}"), ("games", "hands", "{}"),
                    ("ours_iterations", "ismcts iterations", "{:,}"),
                    ("openspiel_iterations", "OpenSpiel iterations", "{:,}"),
                    ("chips", "chips a hand", "{:+.3f}"), ("chips_low", "95% low", "{:+.3f}"),
                    ("chips_high", "95% high", "{:+.3f}"), ("wins", "wins", "{}"), ("draws", "ties", "{}"),
                    ("losses", "losses", "{}"), ("first_rate", "win rate", "{:.1%}"),
                    ("ci_low", "95% low", "{:.1%}"), ("ci_high", "95% high", "{:.1%}")],
        "rows": strength,
    }]

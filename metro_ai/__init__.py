"""metro-ai: AI opponents for the Metro family of board and card games.

>>> import metro_ai
>>> game = metro_ai.load_game("metro", players=4)
>>> state = game.new_state(seed=7)
>>> bot = metro_ai.make_bot("random", seed=3)
>>> state.apply(bot.choose(state))
>>> record = metro_ai.play_match(game, ["hard", "greedy", "random", "medium"], seed=1)
>>> t = metro_ai.Tournament(game="metro", options={"players": 2}, bots=["ismcts", "greedy", "random"],
...                         deals=20, seed=1, db="t.sqlite")
>>> result = t.run(jobs=2)          # t.resume() continues after an interruption; t.results() reads
>>> handle = bot.start(state, metro_ai.Limit(iterations=10_000))   # searches in the background
>>> handle.progress().best, handle.stop()                         # best so far; stop early
>>> metro_ai.review(record, bot="hard", workers=2).table()         # each decision's cost, luck

Users import from here only; ``metro_ai.engine``, ``metro_ai.bots`` and ``metro_ai.play`` are
the floors below.
"""
from metro_ai.bots.background import Progress, SearchHandle
from metro_ai.bots.limit import Limit
from metro_ai.engine.errors import DataError, IllegalActionError, MetroAIError, PythonGameError, StateFormatError
from metro_ai.bots.catalogue import BotSpec, BotSpecError, describe_bots, list_bots, make_bot, parse_specs
from metro_ai.play.match import RecordError, load_state, play_match, replay
from metro_ai.play.report import format_report
from metro_ai.play.tournament import (Tournament, TournamentConfig, TournamentError, TournamentResult,
                                      load_tournament, run_tournament)
from metro_ai.registry import list_games, load_game, register_game
from metro_ai.version import __version__



def svg(state, player=None, lastmove=None, labels=False) -> str:
    """An SVG picture of `state`, drawn by its game (``Game.svg``): a Metro board with its
    tracks, stations and scored lines, a Breakthrough table. With `player`, what that player sees
    (their hand); `lastmove` (an action id) is marked. States show it in Jupyter too. `labels`
    asks for the extras a person playing wants, where the game's drawing has them (a Metro
    board: open lines in their owner's colour, the hand's tile ids; its edges name the squares
    either way);
    without it the picture is ``state.svg``'s."""
    from metro_ai.play.pictures import picture
    return picture(state, player=player, lastmove=lastmove, labels=labels)

_LAZY = {"Review", "ReviewError", "ReviewStopped", "review"}      # metro_ai.play.review, loaded when first used


def __getattr__(name):
    if name in _LAZY:
        from metro_ai.play import review as module
        return getattr(module, name)
    raise AttributeError(f"module 'metro_ai' has no attribute {name!r}")


__all__ = [
    "BotSpec", "BotSpecError", "DataError", "IllegalActionError", "Limit", "MetroAIError", "Progress",
    "PythonGameError", "RecordError", "Review", "ReviewError", "ReviewStopped", "SearchHandle", "StateFormatError", "Tournament", "TournamentConfig", "TournamentError", "TournamentResult",
    "describe_bots", "format_report", "list_bots", "list_games", "load_game", "load_state", "load_tournament", "make_bot",
    "parse_specs", "play_match", "register_game", "replay", "review", "run_tournament", "svg",
]

"""Difficulty levels calibrated in Elo, in one place for users: the ladder files and `EloBot`
(the bots floor's, :mod:`metro_ai.bots.elo`) and the calibration that measures them
(:mod:`metro_ai.play.calibrate`, ``metro-ai calibrate``). This module only re-exports them.
"""
from metro_ai.bots.elo import (DATA, LADDER_FORMAT, LADDER_VERSION, EloBot, LadderError, budget_for,  # noqa: F401
                               budgets_ordered, chain, check_ladder, ladder_catalogue, ladder_path, load_ladder, rungs)
from metro_ai.play.calibrate import (BLUNDER, DEFAULT_DEALS, DEFAULT_LEVELS, DEFAULT_POSITIONS,  # noqa: F401
                                     DEFAULT_SEED, agreement, calibrate, default_levels, format_ladder,
                                     level_parameters, neighbours, plot_ladder)

__all__ = ["BLUNDER", "DATA", "DEFAULT_DEALS", "DEFAULT_LEVELS", "DEFAULT_POSITIONS", "DEFAULT_SEED", "LADDER_FORMAT",
           "LADDER_VERSION", "EloBot", "LadderError", "agreement", "budget_for", "budgets_ordered", "calibrate", "chain",
           "check_ladder", "default_levels", "format_ladder", "ladder_catalogue", "ladder_path", "level_parameters",
           "load_ladder", "neighbours", "plot_ladder", "rungs"]

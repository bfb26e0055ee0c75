"""The errors of tournaments: `TournamentError` (settings that cannot be played, a file that
cannot be used) and `TournamentFileError` (a tournament file damaged or altered)."""
from __future__ import annotations

from metro_ai.engine.errors import MetroAIError


class TournamentError(MetroAIError, ValueError):
    """A tournament that cannot be set up or continued; the message says what is wrong."""


class TournamentFileError(TournamentError):
    """A metro-ai tournament file that cannot be used: of another schema version, or damaged or
    altered (a value of the wrong type, a row that is not its schedule's, a return that is not a
    finite number in [0, 1]). The message names the file and what is wrong, and never quotes what
    it holds; ``metro-ai tournament`` and ``calibrate`` exit with status 1 on it (``exit_status``;
    a file that is no tournament at all, or a link, is a usage error, status 2)."""

    exit_status = 1


class _TooManyGames(TournamentError):
    """Settings that schedule more than :data:`~metro_ai.play.tournament.schedule.MAX_GAMES` games."""

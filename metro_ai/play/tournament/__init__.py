"""Tournaments: round robin, gauntlet or ladder over bot specs, seats rotated over duplicate deals, games
in parallel (joblib processes, or a Dask cluster), every result stored in SQLite as it finishes,
resumable after an interruption.

Schedule. A *table* is a multiset of bots, one per seat: in a round robin every set of
``players`` distinct bots (with fewer bots than seats, every multiset holding each bot at least
once, so 2 bots at 3 seats give AAB and ABB); in a gauntlet the first bot (the challenger)
against ``players - 1`` copies of each other bot; in a ladder (the bots listed weakest first,
``metro-ai calibrate``) each bot against the next two in the list, one bot against
``players - 1`` copies of the other and the other way round. Each *deal* (a seed derived from the tournament
seed) is played at every table in every seating: the table's cyclic rotations (``rotate``,
each bot in each seat once) or all its distinct permutations (``all``). So every bot meets the
same chance events (the deal and every draw) from every seat (duplicate deals) and the luck of
the deal cancels out.
Bot seeds derive from the tournament seed too: the same tournament, with iteration budgets,
plays the same games with the same results on any machine, whatever the order or place the
games run in (time budgets are not reproducible).

Storage: see :class:`TournamentDB`.

The package, one idea a module: ``schedule`` (`TournamentConfig`: the settings, tables,
seatings and games), ``store`` (`TournamentDB`: the SQLite file), ``lock`` (`RunLock`),
``runner`` (`Tournament`: playing the games, in parallel or on Dask, and their results) and
``errors``. What is imported from ``metro_ai.play.tournament`` is its public face.
"""

from .errors import TournamentError, TournamentFileError
from .lock import RunLock
from .runner import Tournament, TournamentResult, dask_client, load_tournament, play_scheduled, run_tournament
from .schedule import MAX_GAMES, TournamentConfig
from .store import TournamentDB

__all__ = ["MAX_GAMES", "RunLock", "Tournament", "TournamentConfig", "TournamentDB", "TournamentError",
           "TournamentFileError", "TournamentResult", "dask_client", "load_tournament", "play_scheduled", "run_tournament"]

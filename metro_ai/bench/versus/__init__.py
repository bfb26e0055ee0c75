"""``metro-ai bench --versus OTHER``: this build against another installed build of metro-ai, the
way chess engines are tested against their last version.

The other build runs as a subprocess, ``OTHER serve`` (its ``metro-ai`` executable) or ``OTHER -m
metro_ai serve`` (its Python), and is spoken to over stdio in the protocol of docs/protocol.md.
The game is owned by this build's engine; the other build keeps a copy of it (``new_game`` with
the same game, options and seed) into which every move is replayed (``apply``), and is asked only
for its moves (``go``). Before each of its moves its legal actions are compared with ours, and
after each move its player to move, the move's text and at the end its returns: any difference is
an error (the two builds do not play the same game) that names the game, the ply and what
differs.

Each deal is played twice with the seats swapped (same seed; the builds exchange seats); with
more than two players this build takes the even seats in the first game of a pair and the odd
seats in the second. A game's score for this build is the mean, over every (this build's seat,
the other build's seat) pair, of 1 if its return is higher, 1/2 if equal, 0 if lower: win 1, draw
1/2, loss 0 with two players; by rank among the two builds' seats with more.

With ``jobs`` above 1 that many pairs are played at a time, each on its own server of the other
build; the SPRT still reads the pairs in deal order, so a run stops where the same run one pair
at a time would (pairs under way beyond that are left out), and with an iteration budget it
gives the same games.

Statistics (fishtest's, for game pairs):

- the pair score (the mean of a pair's two game scores) takes the values of a grid, with two
  players the pentanomial 0, 1/4, 1/2, 3/4, 1; the SPRT's log-likelihood ratio is the
  generalised SPRT of fishtest (Van den Bergh): the pair scores' empirical distribution,
  re-weighted by maximum likelihood to the expected score of each hypothesis, each grid value
  given a small prior count. Pairs rather than games, because the two games of a deal share
  its cards and tiles, so they are not independent (the pentanomial model counts that; a
  trinomial over games would overstate the variance when seats matter, understate it when deals
  do);
- Elo is logistic: score = 1 / (1 + 10^(-elo/400));
- a fixed number of games reports the score with its 95% Wilson interval (over games) and the
  Elo with the interval of the pair scores' normal approximation (and of the Wilson bounds).

The package, one idea a module: ``sprt`` (the statistics), ``other`` (the other build's
server), ``settings`` (the settings and their command-line options), ``match`` (the games, the
pairs, the run, the command), ``report`` (the JSON and Markdown files) and ``pool`` (several
runs' reports read as one, for ``benches/versus_pool.py``). What is imported from
``metro_ai.bench.versus`` is its public face: ``metro-ai bench --versus`` and
``benches/versus.py`` call `add_arguments` and `execute`.
"""
from .match import execute
from .settings import add_arguments

__all__ = ["add_arguments", "execute"]

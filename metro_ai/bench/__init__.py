"""``metro-ai bench``: speed, memory and strength, every comparison measured in one run.

Sections (``--sections``, default all):

``engine``
    random full games per second: the Cython engine driven by its C-level play-out loop and from
    Python, against the game's pure-Python reference engine (``Game.reference``, shipped in the
    game's package), for every registered game that has one, at two player counts.
``options``
    random full games per second in the C-level loop of every game option set
    (``Game.option_sets``: each bool or choice option at its other values) next to the same game
    at its default options, timed in interleaved rounds: the ratio option / base.
``growth``
    how ``ismcts`` scales with the number of players and the stage of the game: iterations per
    second next to the engine's random play-outs per second from the same position, and tree
    bytes per iteration (ismcts, and mo-ismcts with its tree per player).
``parallel``
    iterations per second at 1, 2, ... workers (threads, and processes), speed-up against one
    worker, and how far past a 0.1 s time budget a search returns.
``memory``
    bytes per tree node, and the peak resident memory of a 1,000,000-iteration search in a fresh
    process.
``server-memory``
    what a protocol client's open games hold (256 games of each game in one session, in a fresh
    process): bytes per open game, per move kept for ``undo``, and per move past ``max_undo``.
``openspiel``
    our ``ismcts`` against OpenSpiel's ISMCTS on the same game, position and iteration budget
    (iterations per second); OpenSpiel's C++ bot if it runs on the bridged game (probed in a
    child process), else its Python bot; the table says which.  Extra ``openspiel``.
``strength``
    bot pairs (``--strength-pairs``, default ``ismcts:openspiel``: our ``ismcts`` against
    OpenSpiel's Python ISMCTS, extra ``openspiel``) at equal time per move (or equal iterations,
    ``--strength-iterations``), 2 players of ``--game`` (default: the default game) with game
    options ``--option NAME=VALUE``, 200 games a pair with the seats swapped on each deal; the
    first bot's win rate with a 95% Wilson interval.

``--versus OTHER`` (instead of the sections)
    this build against another installed build of metro-ai (its ``metro-ai`` executable or its
    python), through that build's ``metro-ai serve``: each deal twice with the seats swapped, an
    SPRT over game pairs that stops at a verdict, or ``--games N`` with Wilson and Elo intervals
    (``versus``; also ``benches/versus.py``).

Every game-specific fact (players, positions, reference engine, action space) comes from the game
classes in the registry; ``--games`` limits the per-game sections (engine, growth, memory,
server-memory) and
``--game`` picks the game of the others (parallel, openspiel, strength).

The package has one module per section (``engine``, ``options``, ``growth``, ``parallel``,
``memory`` with server-memory, ``openspiel`` with ``shared``, ``strength``, ``versus``), their common
settings and helpers (``common``), the run and its report (``runner``), and the child programs the
memory, server-memory and openspiel sections start (``peak``, ``gamemem``, ``cpp_probe``:
``python -m metro_ai.bench.peak ...``).
``python -m metro_ai.bench [options]`` is ``metro-ai bench [options]``.

Writes a Markdown report and a JSON file (with the machine's description); ``--quick`` runs every
section briefly (CI uses it to keep them working; its figures are not for quoting).

Everything is seeded; timings and time-budgeted matches are wall clock, so they vary with the
machine and its load: the figures to quote are the ratios, measured side by side in one run.
"""

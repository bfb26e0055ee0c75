"""Playing one game between bots, its JSON record (:func:`match_record`, the one writer of the
format, which the protocol's ``save`` uses too), replaying a record (and taking one position from
it), loading a saved state."""
from __future__ import annotations

import os
import platform
import time

from metro_ai.bots.base import Bot
from metro_ai.bots.limit import Limit
from metro_ai.bots.seeding import derive
from metro_ai.engine.datafile import describe, envelope_problem, parse_json, read_json, read_text, with_path
from metro_ai.engine.errors import MetroAIError, StateFormatError
from metro_ai.bots.catalogue import BotSpec
from metro_ai.play.loop import play_game
from metro_ai.registry import load_game
from metro_ai.version import __version__

RECORD_FORMAT = "metro-ai-match"
RECORD_VERSION = 1


class RecordError(MetroAIError, ValueError):
    """A match record that cannot be replayed: malformed, or an action that is not legal where it
    was recorded, or final scores that differ from the replay's."""


def _versions(**more):
    return {"metro_ai": __version__, "python": platform.python_version(), **more}


def limit_to_dict(limit):
    return None if limit is None else {"iterations": limit.iterations, "time": limit.time}


def limit_from_dict(d):
    return None if d is None else Limit(iterations=d.get("iterations"), time=d.get("time"))


def _as_game(game, seats):
    if isinstance(game, str):
        return load_game(game, players=seats)
    return game


def _labelled_seat(label):
    """The description of a seat no bot spec describes (a person, a client, bots taking turns):
    its label, and the fields of :func:`_seat_info` empty."""
    return {"bot": label, "spec": None, "name": label, "options": {}, "seed": None, "limit": None}


def _seat_info(bot, spec, seat_limit):
    if not isinstance(bot, Bot):            # another seat that chooses (see metro_ai.play.loop)
        return {**_labelled_seat(getattr(bot, "name", type(bot).__name__)), "seed": getattr(bot, "seed", None)}
    effective = seat_limit if seat_limit is not None else bot.default_limit
    return {
        "bot": spec.display if spec is not None else bot.name,
        "spec": str(spec) if spec is not None else None,
        "name": bot.name,
        "options": dict(spec.options) if spec is not None else bot.option_values(),
        "seed": bot.seed,
        "limit": limit_to_dict(effective) if bot.searches else None,
    }


def make_seats(bots, seed=0, limit: Limit | None = None, bot_seeds=None, game=None):
    """The seats of a match: ``(players, limits, seats)``, one entry per seat.

    Each of `bots` is a bot spec (text or :class:`BotSpec`), made here with the seed
    ``bot_seeds[seat]`` (default: derived from `seed` and the seat) and given its spec's budget,
    else `limit`; or any other seat (a bot object, a person's seat: see
    :mod:`metro_ai.play.loop`), used as it is with `limit`. `players` are the seats to play,
    `limits` their budgets, `seats` the record's description of each (see :func:`play_match`).
    A spec at an Elo rating (``ismcts:elo=R``) keeps its ladder's budget rather than `limit`,
    and with `game` (a loaded game) reads that game's ladder here (a rating the ladder does not
    reach fails before any move); with a budget of its own (``ismcts:elo=R,iterations=N``) it
    reads no ladder.
    """
    if bot_seeds is not None and len(bot_seeds) != len(bots):
        raise ValueError(f"bot_seeds has {len(bot_seeds)} seeds for {len(bots)} bots")
    players, limits, seats = [], [], []
    for p, b in enumerate(bots):
        if isinstance(b, (str, BotSpec)):
            spec = BotSpec.parse(b)
            bot = spec.make(bot_seeds[p] if bot_seeds is not None else derive(seed, 0x5EA7, p))
            # an Elo bot's budget is its ladder's, not the match's
            seat_limit = spec.limit if spec.limit is not None else None if bot.rated else limit
            if game is not None and bot.rated and seat_limit is None:
                bot.calibrate_for(game)         # a game without a ladder fails here, before any move
        else:
            spec, bot, seat_limit = getattr(b, "spec", None), b, limit
        players.append(bot)
        limits.append(seat_limit)
        seats.append(_seat_info(bot, spec, seat_limit))
    return players, limits, seats


def play_match(game, bots, seed=0, limit: Limit | None = None, on_action=None, bot_seeds=None):
    """Play one game between `bots`, one per seat, from `seed`, and return its JSON-ready record.

    `game` is a loaded game (``load_game("metro", players=2)``) or a game name (then the number of
    bots is the number of players). Each of `bots` is a bot object, or a bot spec (text such as
    ``"ismcts:c=1.0,iterations=200"`` or a :class:`BotSpec`) which is made here with the seed
    ``bot_seeds[seat]`` (default: derived from `seed` and the seat). `limit` is the budget per
    move for bots without one of their own (a spec's budget wins; None: the bot's default).

    Each bot is asked to choose only on its own turns and is given only the state, from which a
    well-behaved bot reads what its player may see. The record holds the game and options, the
    seed, which bot sat where (``bots``: names; ``seats``: spec, options, seed and budget of
    each), every action with its text and the seconds the bot took, the final scores and
    returns, the total seconds and the versions. ``on_action(state, player, action)`` is called
    after each action if given. :func:`replay` rebuilds every state from the record. The game
    is played by :func:`metro_ai.play.loop.play_game`.
    """
    game = _as_game(game, len(bots))
    if len(bots) != game.num_players:
        raise ValueError(f"{game.name} with {game.num_players} players needs {game.num_players} bots, got {len(bots)}")
    players, limits, seats = make_seats(bots, seed, limit, bot_seeds, game=game)
    t_start = time.perf_counter()
    state = game.new_state(seed)
    hook = None if on_action is None else (lambda s, move: on_action(s, move["player"], move["action"]))
    moves = play_game(state, players, limits, on_move=hook)
    return match_record(game, seed, seats, moves, state, limit=limit, seconds=time.perf_counter() - t_start)


def match_record(game, seed, seats, actions, state, *, limit: Limit | None = None, seconds=None,
                 names=None, versions=None, people=()):
    """The match record of a game dealt by ``game.new_state(seed)`` and played by `actions`
    (``[{"player", "action", "text", "seconds", ...}]``, each move's dict kept as it is) to `state`:
    the one writer of the format, used by :func:`play_match` and by the protocol's ``save``
    (:mod:`metro_ai.protocol.session`); :func:`replay` reads it.

    `seats` are the seats' descriptions (see :func:`make_seats`); a seat given as text (a label:
    a person, a client, several bots by turns) is described by that label alone. ``options``
    are ``game.state_options`` (the added options at their defaults left out, as in a saved
    state), with a file option shown by the name in `names` (``{option: name}``, the file as
    the user named it) rather than its path. ``people`` lists the seats (sorted) played by
    someone other than a metro-ai bot: a person at ``metro-ai play``, or a protocol client's
    moves (the web page's player); empty for a match of bots. ``scores`` and ``returns`` are
    there once the game is over. `seconds` default: the sum of the moves' seconds; `versions`: more version
    entries (``{"protocol": ...}``) beside metro-ai's and Python's.
    """
    seats = [_labelled_seat(s) if isinstance(s, str) else s for s in seats]
    options = dict(game.state_options)
    if names:
        options.update({k: v for k, v in names.items() if k in options})
    record = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "game": game.name,
        "options": options,
        "seed": seed,
        "bots": [s["bot"] for s in seats],
        "seats": seats,
        "limit": limit_to_dict(limit),
        "people": sorted(set(people)),
        "actions": [dict(m) for m in actions],
    }
    if state.is_terminal():
        record["scores"] = state.scores()
        record["returns"] = state.returns()
    record["seconds"] = round(sum(m["seconds"] for m in actions) if seconds is None else seconds, 6)
    record["versions"] = _versions(**(versions or {}))
    return record


def replay(record):
    """Every state of a recorded game, from the deal to the end: a list of ``len(actions) + 1``
    states. `record` is a record dict (from :func:`play_match`), its JSON text, or the path of a
    record file (a ``pathlib.Path`` or other ``os.PathLike``; read by :func:`read_record`).

    Checks that the record is of a version this metro-ai reads (``format`` "metro-ai-match",
    ``version`` 1), that each recorded action was the recorded player's to make and legal there,
    that its text matches, and that the replay ends in the recorded scores and returns; raises
    :class:`RecordError` saying where a corrupt record goes wrong.
    """
    return replay_record(record)[1]


def replay_record(record):
    """``(data, states)``: the record as a dict and :func:`replay`'s states, read and checked
    once (`record` as :func:`replay` takes it)."""
    if isinstance(record, os.PathLike):
        f = _record_file(record)
        try:
            return f.data, replay_record(f.data)[1]
        except RecordError as exc:               # named with the file, and the line of the action
            raise f.error(exc) from None
    if isinstance(record, (str, bytes)):
        record = parse_json(record, lambda msg: _raise(RecordError(f"a match record must be JSON: {msg}")))
    if not isinstance(record, dict):
        raise RecordError(f"a match record must be a JSON object, got {type(record).__name__}")
    _check_envelope(record)
    missing = [k for k in ("game", "options", "seed", "actions") if k not in record]
    if missing:
        raise RecordError(f"match record lacks {', '.join(missing)}")
    if not isinstance(record["actions"], list):
        raise with_path(RecordError("match record: field 'actions' must be a list"), ("actions",))
    try:
        game = load_game(record["game"], **(record["options"] or {}))
        state = game.new_state(record["seed"])
    except (ValueError, TypeError) as exc:
        raise RecordError("match record: cannot set up its game from its fields 'game', 'options' and 'seed'"
                          ) from None
    people = record.get("people", [])
    if not isinstance(people, list) or any(isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < state.num_players
                                           for p in people):
        raise with_path(RecordError(f"match record: field 'people' must be a list of seats 0-{state.num_players - 1}"),
                        ("people",))
    states = [state.clone()]
    for i, move in enumerate(record["actions"]):
        if not isinstance(move, dict) or "action" not in move:
            raise with_path(RecordError(f"action {i}: expected an object with 'action'"), ("actions", i))
        action = move["action"]
        if state.is_terminal():
            raise with_path(RecordError(f"action {i}: the game was already over"), ("actions", i))
        if "player" in move and move["player"] != state.current_player:
            raise with_path(RecordError(f"action {i}: recorded for another player, but player {state.current_player} "
                                        "is to move"), ("actions", i))
        if isinstance(action, bool) or not isinstance(action, int) or action not in state.legal_actions():
            raise with_path(RecordError(f"action {i}: not legal for player {state.current_player} here"), ("actions", i))
        text = state.action_to_string(action)
        if "text" in move and move["text"] != text:
            raise with_path(RecordError(f"action {i}: its recorded text is not that of action {action} here ({text!r})"),
                            ("actions", i))
        state.apply(action)
        states.append(state.clone())
    if "scores" in record and record["scores"] != state.scores():
        raise RecordError(f"replay ends with scores {state.scores()}, not those the record says")
    if "returns" in record and [round(x, 9) for x in record["returns"]] != [round(x, 9) for x in state.returns()]:
        raise RecordError(f"replay ends with returns {state.returns()}, not those the record says")
    if "scores" in record and not state.is_terminal():
        raise RecordError(f"the record ends after {len(record['actions'])} actions but the game is not over")
    return record, states


def _raise(exc):
    raise exc


def _check_envelope(record):
    """RecordError (carrying the field's JSON path) unless `record` is a match record of a version
    this metro-ai reads (``RECORD_FORMAT``, ``RECORD_VERSION``)."""
    problem = envelope_problem(record, RECORD_FORMAT, (RECORD_VERSION,))
    if problem is not None:
        raise with_path(RecordError(f"match record: {problem[0]}"), problem[1])


def read_record(path):
    """The match record in the file `path` (a dict, not yet replayed), read by
    :mod:`metro_ai.engine.datafile` (a regular file of at most 4 MiB, UTF-8 JSON) and refused
    unless it is a match record of a version this metro-ai reads. RecordError names the file and
    the line and column, never quoting the file."""
    return _record_file(path).data


def _record_file(path):
    f = read_json(path, what="match record", error=RecordError)
    if not isinstance(f.data, dict):
        raise f.error("a match record must be a JSON object", ())
    try:
        _check_envelope(f.data)
    except RecordError as exc:
        raise f.error(exc) from None
    return f


def is_record(data):
    """Whether `data` (parsed JSON) is a match record, as :func:`play_match` returns and
    ``metro-ai match --save`` writes."""
    return isinstance(data, dict) and data.get("format") == RECORD_FORMAT


def record_position(record, move=None):
    """A position of a recorded game: ``(state, move)``, the state before action `move` of the
    record (its actions are numbered from 0, so 0 is the deal and ``len(actions)`` the end),
    rebuilt and checked by :func:`replay`. Default: the last position with a real choice (more
    than one legal action), else the last with a move to make (before the last action of a
    finished game). Raises RecordError for a move out of range."""
    states = replay(record)
    last = len(states) - 1
    if move is None:
        open_ = [i for i, s in enumerate(states) if not s.is_terminal()]
        choices = [i for i in open_ if len(states[i].legal_actions()) > 1]
        move = choices[-1] if choices else open_[-1] if open_ else last
    if isinstance(move, bool) or not isinstance(move, int) or not 0 <= move <= last:
        raise RecordError(f"the record has actions 0-{last - 1}: the move must be 0 (the deal) to {last} "
                          f"(the end), got {move!r}")
    return states[move], move


def load_state(text_or_path):
    """A state from the JSON of ``state.to_json()`` (text, or the path of a file holding it, read
    by :mod:`metro_ai.engine.datafile`: a regular file of at most 4 MiB).

    The game and its options are read from the JSON's "game" and "options" fields. Raises
    StateFormatError saying what is wrong (a missing or unreadable file included).
    """
    where = "a saved state"
    if isinstance(text_or_path, os.PathLike) or (isinstance(text_or_path, str)
                                                 and not text_or_path.lstrip().startswith("{")):
        where = describe(text_or_path, "saved state")
        text = read_text(text_or_path, what="saved state", error=StateFormatError)
    else:
        text = text_or_path
    data = parse_json(text, lambda msg: _raise(StateFormatError(f"{where}: {msg}; it must be the JSON of "
                                                                "state.to_json()")))
    if is_record(data):
        raise StateFormatError("this is a match record (metro-ai match --save), not a saved state: rebuild its "
                               "positions with metro_ai.replay(record), or analyse one with "
                               "metro-ai analyse FILE --move N")
    if not isinstance(data, dict) or "game" not in data:
        raise StateFormatError("a saved state must be a JSON object with a 'game' field (the JSON of state.to_json())")
    try:
        game = load_game(data["game"], **(data.get("options") or {}))
    except (ValueError, TypeError) as exc:
        if where != "a saved state":             # a file: its values are not quoted
            raise StateFormatError(f"{where}: its fields 'game' and 'options' name no game metro-ai can set up") from None
        raise StateFormatError(f"saved state: {exc}") from None
    if where == "a saved state":
        return game.state_from_json(text)
    try:
        return game.state_from_json(text)
    except StateFormatError as exc:
        raise StateFormatError(f"{where}: {exc}") from None

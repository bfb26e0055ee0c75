"""Every Metro state loader refuses what the engine cannot play safely (DESIGN, "Trust at the edges"):
an input is either refused with a StateFormatError naming the field, or accepted and playable to
the end (legal actions, clone, the JSON round trip, determinize, a short ISMCTS search); never a
crash, a hang or another exception.

- The reported inputs (``tests/data/security/``, from the security audit): Berlin's ``city.piles[0]``
  with 1,000 entries and ``city.vp[0][0]`` with 618 used to be written into fixed C arrays before
  their length was checked (heap corruption, a segfault); they are loaded in a child process, so a
  crash fails the test instead of killing pytest. Paris' and Stockholm's ``city.tourists`` with
  ``[null, null]`` or ``[{}, {}]`` used to raise a bare TypeError.
- A structural mutation sweep over every Metro loader (the base game, companies, central stations
  and tracks, each city, the solo game): real states from random play, one field changed at a
  time: lists lengthened to 1,000, entries and keys deleted, types swapped (null, {}, [], a string,
  a bool, a float, 2**64, -1), values nested. Each result is refused with a short
  StateFormatError or plays safely.

Rules are cited by id (docs/rules/metro.md): C2 central stations, C3 central tracks, C4 solo,
C5-C10 the cities (C32 Berlin's VP pieces, C27 the tourists), M11-M19 companies.
"""
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import metro_ai
from metro_ai.engine.errors import StateFormatError
from json_paths import DELETE, get, mutated_text

DATA = Path(__file__).parents[1] / "data" / "security"
SEARCH = metro_ai.Limit(iterations=20)
LONG = 1000                      # a list lengthened this far overruns any fixed C array of the state
MAX_MESSAGE = 400                # errors name the field and never quote a huge value


def load(name, **options):
    return metro_ai.load_game(name, **options)


def game_of(obj):
    """The game a saved state names (the envelope's game and options)."""
    return load(obj["game"], **obj["options"])


# ---- the reported inputs ----

_CHILD = """
import json, sys
import metro_ai
from metro_ai.engine.errors import StateFormatError
obj = json.load(open(sys.argv[1]))
game = metro_ai.load_game(obj["game"], **obj["options"])
try:
    game.state_from_json(json.dumps(obj))
except StateFormatError as exc:
    print("refused:", exc)
else:
    print("accepted")
"""


@pytest.mark.parametrize("name, field", [("berlin_piles_1000.json", "piles[0]"), ("berlin_vp_618.json", "vp[0][0]")])
def test_berlin_long_piece_lists_are_refused_before_any_write(name, field):
    """C32: a colour has at most 8 VP pieces; a longer pile or holding is refused before it is
    copied into the state's fixed arrays (it used to corrupt the heap and crash the process)."""
    run = subprocess.run([sys.executable, "-c", _CHILD, str(DATA / name)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, f"the loader crashed (exit {run.returncode}): {run.stderr[-2000:]}"
    out = run.stdout.strip()
    assert out.startswith("refused:") and f"city: {field}" in out, out
    assert len(out) < MAX_MESSAGE


@pytest.mark.parametrize("city", ["paris", "stockholm"])
@pytest.mark.parametrize("junk", [None, {}, [], "x", 1.5, True])
def test_tourists_of_the_wrong_type_are_refused(city, junk):
    """C27: tourists are colours 0..7; anything else on a square is a StateFormatError naming the
    square (it used to be a bare TypeError from sorting the list)."""
    game = load("metro", city=city)
    obj = game.new_state(3).to_dict()
    square = next(iter(obj["city"]["tourists"]))
    obj["city"]["tourists"][square] = [junk, junk]
    with pytest.raises(StateFormatError, match=f"tourists.{square}"):
        game.state_from_json(json.dumps(obj))


def test_paris_pending_colours_of_the_wrong_type_are_refused():
    """C28: the pending tourists are ascending colours; [null, null] is refused, not a TypeError."""
    game = load("metro", city="paris")
    obj = game.new_state(3).to_dict()
    obj["city"]["pending"] = {"player": 0, "square": "B2", "colours": [None, None]}
    with pytest.raises(StateFormatError, match="pending"):
        game.state_from_json(json.dumps(obj))


def test_central_track_rotation_must_be_an_int():
    """C3: a central-track piece's rotation 1.0 is refused, as a tile's is (it used to be accepted,
    the float converted by the copy into the board's C array)."""
    game = load("metro", central_tracks=True)
    obj = game.new_state(1).to_dict()
    for row in obj["board"]:
        for cell in row:
            if cell is not None and cell["tile"].startswith("CT"):
                cell["rotation"] = float(cell["rotation"])
    with pytest.raises(StateFormatError, match="central-track"):
        game.state_from_json(json.dumps(obj))


def test_huge_values_are_not_quoted():
    """An error names the field and cuts what it quotes (a 1,000-entry list is not echoed)."""
    game = load("metro", city="berlin")
    obj = game.new_state(2).to_dict()
    obj["city"]["name"] = "x" * 10000
    with pytest.raises(StateFormatError, match="city: name") as err:
        game.state_from_json(json.dumps(obj))
    assert len(str(err.value)) < MAX_MESSAGE


# ---- the structural sweep over every loader ----

CONFIGS = [
    ("metro", {}),
    ("metro", {"players": 6, "hand_size": 3}),
    ("metro", {"orientation": False}),
    ("metro", {"companies": True}),
    ("metro", {"companies": True, "players": 6}),
    ("metro", {"central_stations": True}),
    ("metro", {"central_stations": True, "companies": True}),
    ("metro", {"central_tracks": True}),
    ("metro", {"central_tracks": True, "companies": True}),
    ("metro", {"city": "paris"}),
    ("metro", {"city": "stockholm", "players": 3}),
    ("metro", {"city": "london"}),
    ("metro", {"city": "new_york"}),
    ("metro", {"city": "new_york", "companies": True}),
    ("metro", {"city": "berlin", "berlin_sides": "mixed", "berlin_tickets": True}),
    ("metro", {"city": "berlin", "players": 5}),
    ("metro-solo", {}),
]
JUNK = [None, {}, [], "x", True, 1.5, 2 ** 64, -1, -2 ** 63, 10 ** 6]


def _states(game, seed):
    """Real states of `game`: the deal, one from the middle and one near the end of a random game
    (``STAGES``)."""
    s = game.new_state(seed)
    rng = random.Random(seed)
    out = [s.clone()]
    for step in range(400):
        if s.is_terminal():
            break
        s.apply(rng.choice(s.legal_actions()))
        if step in (25, 45):
            out.append(s.clone())
    return out


def _paths(obj, prefix=()):
    """Paths into `obj` (the empty one first); in a list longer than 6 only the first two entries
    and the last (on the board, the edge and central rows and columns)."""
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        keep = {0, 3, 4, 7} if prefix[:1] == ("board",) else {0, 1, len(obj) - 1} if len(obj) > 6 else None
        for i, v in enumerate(obj):
            if keep is None or i in keep:
                yield from _paths(v, prefix + (i,))


def _mutations(obj):
    """(path, value) pairs: every field (a sample of long lists' entries) swapped for junk of
    every type, lists lengthened to LONG, shortened, nested and their entries swapped for junk,
    and the keys of objects deleted."""
    for path in _paths(obj):
        if not path or path[0] in ("format", "version", "game", "options"):
            continue
        v = get(obj, path)
        for junk in JUNK:
            yield path, junk
        yield path, [v]
        yield path, {"v": v}
        if isinstance(v, list):
            yield path, v + [v[-1] if v else 0] * LONG
            yield path, v * LONG if v else [None] * LONG
            if v:
                yield path, v[:-1]
                yield path, [None] * len(v)
                yield path, [{}] * len(v)
                yield path, [[x] for x in v]
        elif isinstance(v, dict):
            for key in v:
                yield path, {k: x for k, x in v.items() if k != key}
            yield path, dict(v, extra=0)
        elif isinstance(v, int) and not isinstance(v, bool):
            yield path, v + 1
            yield path, v - 1
    for key in obj:
        if key not in ("format", "version", "game", "options"):
            yield (key,), DELETE


def _check_playable(game, s, seed):
    """Play an accepted state to the end with random legal actions, checking what a search uses."""
    rng = random.Random(seed)
    n, nda = game.num_players, game.num_distinct_actions
    metro_ai.make_bot("ismcts", seed=seed).choose(s.clone(), SEARCH) if not s.is_terminal() else None
    for step in range(game.max_game_length + 1):
        text = s.to_json()
        assert game.state_from_json(text).to_json() == text, "a loaded state's JSON does not load back"
        assert s.clone().to_json() == text
        if s.is_terminal():
            assert s.legal_actions() == [] and s.current_player == -1
            s.returns()
            return
        legal = s.legal_actions()
        assert legal, "not over, and no legal action"
        assert all(0 <= a < nda for a in legal) and legal == sorted(set(legal)), "bad legal actions"
        assert 0 <= s.current_player < n
        if step % 10 == 0:
            p = s.current_player
            assert s.determinize(p, step).observation(p) == s.observation(p)
        s.apply(rng.choice(legal))
    raise AssertionError("the game did not end within max_game_length")


#: The swept states of each configuration: the deal, the middle, near the end (``_states``). The
#: default tier sweeps every loader once (the base game, each module and city, the solo game), one
#: state of each in turn; the slow tier the rest.
STAGES = ("deal", "middle", "late")
EACH_LOADER = [("metro", {}), ("metro", {"companies": True, "players": 6}),
               ("metro", {"central_stations": True, "companies": True}), ("metro", {"central_tracks": True}),
               ("metro", {"city": "paris"}), ("metro", {"city": "stockholm", "players": 3}),
               ("metro", {"city": "london"}), ("metro", {"city": "new_york", "companies": True}),
               ("metro", {"city": "berlin", "berlin_sides": "mixed", "berlin_tickets": True}), ("metro-solo", {})]
SWEEPS = [pytest.param(name, options, k, id=f"{name}-{'-'.join(f'{o}={v}' for o, v in options.items())}-{stage}",
                       marks=() if k == c % len(STAGES) and (name, options) in EACH_LOADER else pytest.mark.slow)
          for c, (name, options) in enumerate(CONFIGS) for k, stage in enumerate(STAGES)]


@pytest.mark.parametrize("name, options, k", SWEEPS)
def test_mutated_states_are_refused_cleanly_or_play_safely(name, options, k):
    game = load(name, **options)
    refused = accepted = 0
    played = set()
    problems = []
    base = _states(game, 7)[k].to_dict()
    for i, (path, value) in enumerate(list(_mutations(base))):
        text = mutated_text(base, path, value)
        where = f"state {k}, {'.'.join(map(str, path))} = {text_of(value)}"
        try:
            loaded = game.state_from_json(text)
        except StateFormatError as exc:
            refused += 1
            if len(str(exc)) >= MAX_MESSAGE:
                problems.append(f"{where}: a message of {len(str(exc))} characters: {str(exc)[:100]}...")
            continue
        except Exception as exc:  # noqa: BLE001 - the point of the test
            problems.append(f"{where}: {type(exc).__name__}: {str(exc)[:100]}")
            continue
        accepted += 1
        key = loaded.to_json()
        if key in played:         # (fields the loader recomputes, e.g. hand_sizes: the same state)
            continue
        played.add(key)
        try:
            _check_playable(game, loaded, i)
        except Exception as exc:  # noqa: BLE001
            problems.append(f"{where}: accepted, then {type(exc).__name__}: {str(exc)[:100]}")
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(problems[:30])
    assert refused > 100       # the sweep reached the loader's checks


def text_of(value):
    text = "<deleted>" if value is DELETE else json.dumps(value)
    return text if len(text) < 80 else text[:80] + "..."

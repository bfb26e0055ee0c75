"""The Metro 2033 state loader (``load_state`` in engine/metro2033/loader.pyx) cannot corrupt memory or
accept an unplayable state: every input is refused with a StateFormatError naming the field, or
accepted and playable to the end (legal actions in range, clone, JSON round trip, determinize, a
short ISMCTS search). The repro files of tests/data/security/ once crashed the engine (a segfault)
or led to a dead end, so they are loaded in a child process."""
import copy
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import metro_ai

from json_paths import get, paths, put
from tiers import tiered

DATA = Path(__file__).parents[1] / "data" / "security"
SEARCH = metro_ai.Limit(iterations=20)


def _game(players=2):
    return metro_ai.load_game("metro2033", players=players)


def _state_text(path):
    """A repro file's state as JSON text: the file itself, or the text in its "state" field."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    return doc["state"] if isinstance(doc.get("state"), str) else json.dumps(doc)


def check_playable(game, s, rng, cap=None):
    """Play uniformly random actions to the end from `s`, checking what search relies on."""
    n, nda = game.num_players, game.num_distinct_actions
    cap = game.max_game_length if cap is None else cap
    for step in range(cap):
        text = s.to_json()
        assert game.state_from_json(text).to_json() == text, "a state's JSON does not load back"
        if s.is_terminal():
            assert s.legal_actions() == [] and s.current_player == -1
            return step
        legal = s.legal_actions()
        assert legal, f"not over, no legal action (phase {s.phase}, player {s.current_player})"
        assert all(0 <= a < nda for a in legal) and legal == sorted(set(legal))
        assert 0 <= s.current_player < n
        if step % 40 == 0:
            p = s.current_player
            assert s.determinize(p, step).observation(p) == s.observation(p)
            assert s.clone().to_json() == text
            if step % 120 == 0:
                assert metro_ai.make_bot("ismcts", seed=step).choose(s, SEARCH) in legal
        s.apply(rng.choice(legal))
    assert cap < game.max_game_length, "the game did not end within max_game_length actions"
    return cap


# ---- the repro files, in a child process (they crashed the interpreter before the fix)

_CHILD = """
import json, random, sys
import metro_ai
sys.path[:0] = sys.argv[2:]
from test_metro2033_loader_safety import check_playable, _state_text
from pathlib import Path
g = metro_ai.load_game("metro2033", players=2)
try:
    s = g.state_from_json(_state_text(Path(sys.argv[1])))
except metro_ai.StateFormatError as exc:
    print("refused:", exc)
    sys.exit(0)
for seed in range(3):
    check_playable(g, s.clone(), random.Random(seed))
print("played")
"""


@pytest.mark.parametrize("name", ["m2033_tampered.json", "crash_629.json", "crash_68709.json"])
def test_repro_file_is_refused_naming_the_agenda(name):
    out = subprocess.run([sys.executable, "-c", _CHILD, str(DATA / name), str(Path(__file__).parent),
                          str(Path(__file__).parents[1])],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"child died ({out.returncode}): {out.stderr[-2000:]}"
    # each lost the bottom of its agenda (end_round, or the setup's round_start): a shape the
    # engine never produces
    assert out.stdout.startswith("refused: metro2033 state: agenda:"), out.stdout


def test_tampered_state_is_the_valid_one_less_its_end_round():
    """m2033_tampered.json is a state the engine reaches, with ``agenda[0]`` deleted: put back,
    it loads and plays to the end (so the refusal is about the agenda only)."""
    obj = json.loads(_state_text(DATA / "m2033_tampered.json"))
    obj["agenda"].insert(0, ["end_round", 0, 0, 0])
    g = _game(2)
    check_playable(g, g.state_from_json(json.dumps(obj)), random.Random(1))


def test_the_determinisations_of_a_quest_check_are_worlds_the_loader_accepts():
    """m2033_det_reload_1371.json (issue #41): player 1 decides at a quest check, holding one
    quest. The others' determinisations deal that quest anew; when a quest check asked only the
    holders of a fulfilled quest, a world dealing one that could not be completed was refused
    ("phase 'quest_complete': not a decision here"). G38: every holder is asked, so every deal of
    the same size is a world the game can be in."""
    g = _game(4)
    s = g.state_from_json(_state_text(DATA / "m2033_det_reload_1371.json"))
    assert s.phase == "quest_complete" and s.current_player == 1
    nothing_to_complete = 0
    for p in range(4):
        for seed in range(6):
            d = s.determinize(p, seed)
            assert g.state_from_json(d.to_json()) == d
            assert d.observation(p) == s.observation(p)
            assert d.phase == "quest_complete" and d.current_player == 1
            nothing_to_complete += [d.action_to_string(a) for a in d.legal_actions()] == ["done"]
    assert nothing_to_complete          # the worlds the loader refused before are among them
    check_playable(g, s.determinize(0, 1), random.Random(2))


# ---- type errors that escaped as bare TypeError / ValueError / AttributeError

def _good(players=3, moves=150, seed=2):
    g = _game(players)
    s = g.new_state(seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if s.is_terminal():
            break
        s.apply(rng.choice(s.legal_actions()))
    return g, s.to_dict()


@pytest.mark.parametrize("field, value, word", [
    ("agenda", 1.5, "agenda"),
    ("agenda", "end_round", "agenda"),
    ("agenda", [[["end_round"], 0, 0, 0]], "agenda"),
    ("agenda", [{"end_round": 0}], "agenda"),
    ("rng_state", "\u00b2", "rng_state"),           # str.isdigit() is true, int() fails
    ("rng_state", "9" * 5000, "rng_state"),
    ("rng_state", 5, "rng_state"),
    ("decks", {1: [], "quest": []}, "decks"),
    ("decks", [], "decks"),
    ("pending", {0: 0}, "pending"),
    ("vote", {"law": None, "for": 0, "against": 0}, "vote"),
    ("last_vote", {"law": [1], "for": 0, "against": 0}, "last_vote"),
    ("declared", [[0, ["hero"]], None, None], "declared"),
    ("phase", ["army"], "phase"),
    ("phase", {}, "phase"),
    ("combat", [], "combat"),
    ("fight", {"kind": 0, "side": 1, "station": 0, "who": [0, 0]}, "fight.side"),
    ("owner", [[0]] * 78, "owner"),
    ("res", [[1.5, 0, 0]] * 3, "res"),
    ("wounded", [0, 0, 0], "wounded"),
])
def test_wrong_types_are_refused_naming_the_field(field, value, word):
    g, obj = _good()
    obj[field] = value
    with pytest.raises(metro_ai.StateFormatError, match=word):
        g.state_from_json(obj)


@pytest.mark.parametrize("value", [[[0]], [[0], [1]], [0.5], [True], "0", {"0": 0}, [], [0, 0], [1, 0], [7]])
def test_a_wrong_known_entry_is_refused(value):
    g, obj = _good()
    for seed in range(3, 40):
        if obj["known"]:
            break
        g, obj = _good(moves=150 + 13 * seed, seed=seed)
    assert obj["known"], "no deck place known in these games"
    key = next(iter(obj["known"]))
    obj["known"][key] = value
    with pytest.raises(metro_ai.StateFormatError, match="known"):
        g.state_from_json(obj)


@pytest.mark.parametrize("key", [12, "\u0661\u0662", "\u00b2", "012", "9" * 5000, "", (1,)])
def test_a_known_key_that_is_not_a_card_number_is_refused(key):
    """A dict passed directly may have keys JSON cannot: they are refused like the rest."""
    g, obj = _good()
    obj["known"] = dict(obj["known"])
    obj["known"][key] = [0]
    with pytest.raises(metro_ai.StateFormatError, match="known"):
        g.state_from_json(obj)


def test_error_messages_never_quote_huge_values():
    g, obj = _good()
    for field, value in (("agenda", [["x" * 100000, 0, 0, 0]]), ("owner", list(range(100000))),
                         ("rng_state", "1" * 100000), ("phase", "p" * 100000)):
        bad = dict(obj, **{field: value})
        with pytest.raises(metro_ai.StateFormatError, match=field) as info:
            g.state_from_json(bad)
        assert len(str(info.value)) < 1000


# ---- the agenda grammar

def _states(players, seeds=(1,), every=1):
    """States met in random play (each `every`-th), at `players` players, to the end."""
    g = _game(players)
    for seed in seeds:
        s = g.new_state(seed)
        rng = random.Random(seed)
        k = 0
        while True:
            if k % every == 0:
                yield g, s
            if s.is_terminal():
                break
            s.apply(rng.choice(s.legal_actions()))
            k += 1


@pytest.mark.parametrize("players", tiered([2, 3, 4, 5, 6], fast=lambda p: p in (2, 6)))
def test_every_state_of_random_play_loads_back(players):
    """The loader accepts every state the engine reaches (no shape is refused that play makes),
    and the loaded state is the same state."""
    phases = set()
    for g, s in _states(players, seeds=(players,), every=1):
        text = s.to_json()
        assert g.state_from_json(text).to_json() == text
        phases.add(s.phase)
    assert {"draft_faction", "place_hero", "army", "hero_move", "over"} <= phases


def _agenda_mutations(agenda, n):
    """Deletions, duplications, swaps and renamings of single tasks."""
    out = []
    for i in range(len(agenda)):
        out.append(agenda[:i] + agenda[i + 1:])
        out.append(agenda[:i] + [agenda[i]] + agenda[i:])
        if i + 1 < len(agenda) and agenda[i] != agenda[i + 1]:
            out.append(agenda[:i] + [agenda[i + 1], agenda[i]] + agenda[i + 2:])
    for name in ("end_round", "round_start", "combat_resolve", "threat_fight", "discard_equipment", "buy"):
        out.append(agenda + [[name, 0, 0, 0]])
        out.append([[name, 0, 0, 0]] + agenda)
    out.append([["end_round", 0, 0, 0]] + [["army", 0, 0, 0]] * 40)
    out.append([])
    return out


@pytest.mark.parametrize("players", tiered([2, 4, 6], fast=lambda p: p == 4))
def test_agenda_mutations_are_refused_or_play_to_the_end(players):
    rng = random.Random(players)
    picked = [(g, s.to_dict()) for g, s in _states(players, seeds=(10 + players,), every=37)]
    accepted = refused = 0
    for g, obj in picked[::3]:
        for agenda in _agenda_mutations(obj["agenda"], players):
            if agenda == obj["agenda"]:
                continue
            try:
                s = g.state_from_json(dict(obj, agenda=agenda))
            except metro_ai.StateFormatError as exc:
                assert "agenda" in str(exc) or "canonical" in str(exc) or "legal" in str(exc)
                refused += 1
                continue
            # a few mutations give another shape the engine makes (a discard after a purchase
            # without the purchase to go on is the discard after equipment taken in a fight)
            accepted += 1
            check_playable(g, s, rng)
    assert refused > 20 * max(accepted, 1)


# ---- structural mutations of every field

def _structural(value):
    """Structure as well as values: lists lengthened to thousands, entries deleted, types
    swapped, nesting."""
    out = [None, 1.5, "x", [value], {"x": value}, True, -1, 2 ** 70]
    if isinstance(value, list):
        out += [value * 2000 if value else [0] * 2000, value[1:], value[:-1], value + value[-1:], value[::-1]]
    if isinstance(value, dict):
        out += [{k: v for k, v in value.items() if k != drop} for drop in value]
        out += [dict(value, extra=0), list(value.values())]
    if isinstance(value, int) and not isinstance(value, bool):
        out += [value + 1, value - 1, str(value)]
    return out


@pytest.mark.parametrize("players", tiered([2, 3, 4, 5, 6], fast=lambda p: p == 2))
def test_structural_mutations_are_refused_or_play_to_the_end(players):
    rng = random.Random(100 + players)
    states = [(g, s.to_dict()) for g, s in _states(players, seeds=(20 + players,), every=97)]
    states = [states[i] for i in sorted(rng.sample(range(len(states)), min(2, len(states))))]
    refused = accepted = 0
    for g, obj in states:
        fields = [k for k in obj if k not in ("game", "options", "format", "version")]
        where = [p for p in paths({k: obj[k] for k in fields}) if p]
        for path in rng.sample(where, min(len(where), 15)) + [(k,) for k in fields]:
            for value in _structural(get(obj, path)):
                bad = copy.deepcopy(obj)
                put(bad, path, value)
                try:
                    s = g.state_from_json(json.dumps(bad))
                except metro_ai.StateFormatError as exc:
                    assert len(str(exc)) < 1500
                    refused += 1
                    continue
                accepted += 1
                check_playable(g, s, random.Random(accepted), cap=40)
    assert refused > 0


@pytest.mark.parametrize("players", [2, 5])
def test_every_field_deleted_or_swapped_names_a_field(players):
    g, obj = _good(players, moves=200, seed=players)
    for key in g.state_fields:
        for value in (None, 1.5, [], {}, "x", [[[]]]):
            bad = dict(obj, **{key: value})
            try:
                s = g.state_from_json(bad)
            except metro_ai.StateFormatError as exc:
                assert "metro2033 state:" in str(exc)
                continue
            check_playable(g, s, random.Random(0), cap=120)
        bad = {k: v for k, v in obj.items() if k != key}
        with pytest.raises(metro_ai.StateFormatError, match=key):
            g.state_from_json(bad)

"""The Breakthrough loader refuses every state the engine cannot play safely (docs DESIGN, "The
contract": a state the loader accepts is one the engine can play safely to the end).

- The fuzzer's states in ``tests/data/breakthrough_fuzz/`` (real ``to_json()`` output with one
  field changed, which used to load and then corrupt the state) are refused with a
  StateFormatError naming the problem.
- A property test takes real states from random games (several player counts and survival
  options, random and greedy play, every phase), changes one field, and checks that the loader
  either refuses the result or that it plays 300 random legal actions safely: every legal action
  in range and applicable, hands of at most five cards, ``to_json()`` round-tripping. The play
  runs in a child process, so a crash fails the test instead of killing pytest.

Rules are cited by id: B1-B9 and R1-R24 (docs/rules/breakthrough.md).
"""
import copy
import json
import random
import select
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import metro_ai
from json_paths import put
from metro_ai.engine.breakthrough import BreakthroughGame
from test_breakthrough_reference import _policy

HERE = Path(__file__).resolve().parents[1]
FUZZ = HERE / "data" / "breakthrough_fuzz"
HAND = 5                     # B1
PHASES = ("main", "quest_hero", "keep_station", "discard3", "draw", "protect", "free_play",
          "lose_station", "over", "quest_pay")

# What each fuzzer state gets wrong: `pending.left` 2 -> 1 during discard-three, or (133462)
# `current_player` and `active` 3 -> 4, so that a player with five cards is picking.
REPRO = {
    "bt_focus_11042.json": (1, 4), "bt_focus_13284.json": (1, 4), "bt_focus_133462.json": (4, 5),
    "bt_focus_3365.json": (0, 4), "bt_focus_3906.json": (2, 4), "bt_focus_52460.json": (1, 4),
    "bt_focus_68232.json": (0, 4), "case_281864_mutated.json": (1, 4),
}                            # file -> (the player picking, the cards they still hold)

_GAMES = {}


def game_for(options):
    key = json.dumps(options, sort_keys=True)
    if key not in _GAMES:
        _GAMES[key] = metro_ai.load_game("breakthrough", **{k: v for k, v in options.items()
                                                            if k != "card_set"})
    return _GAMES[key]


def _fuzz_file(name):
    text = (FUZZ / name).read_text()
    return text, game_for(json.loads(text)["options"])


def test_every_repro_file_is_here():
    assert sorted(p.name for p in FUZZ.glob("*.json")) == sorted(REPRO)


@pytest.mark.parametrize("name", sorted(REPRO))
def test_repro_state_is_refused(name):
    text, g = _fuzz_file(name)
    p, held = REPRO[name]
    # B1, R5: two picks made and `held` cards left: the hand held held + 2 > 5 cards before the
    # first pick, and the three cards drawn after the third pick would overfill it. The one with
    # the active player moved is refused first for that: turn t is player (t - 1) mod n's (B1).
    why = (f"pending discard3: left 1 means 2 picks made, but player {p} still holds "
           f"{held} cards, so it held {held + 2} \\(more than 5\\)")
    if name == "bt_focus_133462.json":
        why = f"turn 4 is player 3's turn .*, but active is {p}"
    with pytest.raises(metro_ai.StateFormatError, match=why):
        g.state_from_json(text)


@pytest.mark.parametrize("name", sorted(REPRO))
def test_repro_state_unmutated_loads(name):
    """Undoing the fuzzer's change (left back to 2, the active player back) gives a state that
    loads and plays: the checks refuse the change, not the position."""
    text, g = _fuzz_file(name)
    obj = json.loads(text)
    if name == "bt_focus_133462.json":
        obj["current_player"] = obj["active"] = 3
    else:
        obj["pending"]["left"] = 2
    s = g.state_from_json(obj)
    r = random.Random(0)
    for _ in range(50):
        if s.is_terminal():
            break
        s.apply(r.choice(s.legal_actions()))


def _discard3_state(left):
    g = game_for({"players": 3})
    for seed in range(200):
        s = g.new_state(seed)
        r = random.Random(seed)
        for _ in range(400):
            if s.phase == "discard3" and s.pending()["left"] == left:
                return g, json.loads(s.to_json())
            if s.is_terminal():
                break
            la = s.legal_actions()
            d3 = [a for a in la if 3 * 133 <= a < 4 * 133]
            s.apply(r.choice(d3) if d3 and r.random() < 0.5 else r.choice(la))
    raise AssertionError("no discard-three decision found")


def test_discard_three_picks_must_be_the_increasing_top_of_the_pile():
    """R5, R24: the picks made are the top of the discard pile, in increasing id order."""
    g, obj = _discard3_state(1)
    g.state_from_json(obj)
    bad = copy.deepcopy(obj)
    bad["discard"][-2], bad["discard"][-1] = bad["discard"][-1], bad["discard"][-2]
    bad["pending"]["last"] = bad["discard"][-1]
    with pytest.raises(metro_ai.StateFormatError, match="must be increasing card ids"):
        g.state_from_json(bad)
    bad = copy.deepcopy(obj)
    bad["pending"]["last"] = bad["discard"][-2]
    with pytest.raises(metro_ai.StateFormatError, match="on top of the discard pile"):
        g.state_from_json(bad)


def test_discard_three_hand_size():
    """B1, R5: with one pick made the hand holds at most four cards."""
    g, obj = _discard3_state(2)
    assert len(obj["hands"][obj["active"]]) == 4
    bad = copy.deepcopy(obj)
    bad["pending"]["left"] = 1
    with pytest.raises(metro_ai.StateFormatError, match="so it held 6 \\(more than 5\\)"):
        g.state_from_json(bad)


# =============================================================================================
# the child process that plays risky states
# =============================================================================================
WORKER = r"""
import json, random, sys
import metro_ai
games = {}
for line in sys.stdin:
    job = json.loads(line)
    key = json.dumps(job["options"], sort_keys=True)
    if key not in games:
        games[key] = metro_ai.load_game("breakthrough", **{k: v for k, v in job["options"].items()
                                                         if k != "card_set"})
    g = games[key]
    out = {}
    try:
        try:
            s = g.state_from_json(job["state"])
        except metro_ai.StateFormatError as exc:
            out = {"refused": str(exc)}
        else:
            out = {"played": 0}
            r = random.Random(job["seed"])
            N = g.num_distinct_actions
            for step in range(job["steps"]):
                text = s.to_json()
                back = g.state_from_json(text)
                if back.to_json() != text or back != s:
                    raise AssertionError(f"step {step}: to_json does not round-trip")
                hands = [len(s.hand(p)) for p in range(g.num_players)]
                if max(hands) > 5:
                    raise AssertionError(f"step {step}: hand sizes {hands}")
                if s.is_terminal():
                    if s.legal_actions():
                        raise AssertionError(f"step {step}: legal actions in a terminal state")
                    break
                la = s.legal_actions()
                if not la:
                    raise AssertionError(f"step {step}: not over and no legal action (phase {s.phase})")
                if la != sorted(set(la)) or not all(0 <= a < N for a in la):
                    raise AssertionError(f"step {step}: legal actions out of range or unsorted: {la}")
                for a in la:
                    c = s.clone()
                    c.apply(a)                   # IllegalActionError if not applicable
                    if max(len(c.hand(p)) for p in range(g.num_players)) > 5:
                        raise AssertionError(f"step {step}: {a} overfills a hand")
                s.apply(r.choice(la))
                out["played"] = step + 1
            if job.get("search") and not s.is_terminal():
                bot = metro_ai.make_bot("ismcts", seed=1)
                a = bot.choose(s, metro_ai.Limit(iterations=job["search"]))
                if a not in s.legal_actions():
                    raise AssertionError(f"ismcts chose {a}, not a legal action")
    except Exception as exc:                           # noqa: BLE001 - reported to the parent
        out = {"error": f"{type(exc).__name__}: {exc}", **out}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"""


class Child:
    """A Python child process that loads and plays states sent to it, one JSON line each."""

    def __init__(self):
        self.proc = None
        self.err = None

    def _start(self):
        self.err = tempfile.TemporaryFile(mode="w+")       # a file: a full pipe would block
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err, text=True)

    def run(self, options, state, seed=0, steps=300, search=0, timeout=120):
        """The child's report on `state`: {"refused": msg}, {"played": n} or {"error": ...};
        a crash or a hang is reported as {"crash": ...} and the child is restarted."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        job = {"options": options, "state": state, "seed": seed, "steps": steps, "search": search}
        try:
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else ""
        if line:
            return json.loads(line)
        if ready:                                  # end of file: the child died
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        hung = self.proc.poll() is None
        self.close()
        why = f"timed out after {timeout}s" if hung else \
            f"exit code {self.proc.returncode}: {self._stderr()}"
        self.proc = None
        return {"crash": why}

    def _stderr(self):
        if self.err is None:
            return ""
        self.err.seek(0)
        return self.err.read()[-2000:]

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def child():
    c = Child()
    yield c
    c.close()


@pytest.mark.parametrize("name", sorted(REPRO))
def test_repro_state_in_a_child_process(child, name):
    """The fuzzer's recipe (play 8 random actions, then search with ismcts) in a child process:
    the loader refuses the state, so nothing is played; a crash would fail here, not kill pytest."""
    text, g = _fuzz_file(name)
    seed = int("".join(ch for ch in name if ch.isdigit()))
    out = child.run(json.loads(text)["options"], text, seed=seed, steps=8, search=200)
    assert "refused" in out, out
    assert "pending discard3" in out["refused"] or "but active is" in out["refused"]


def test_child_reports_crashes():
    """The harness itself: a child that dies (here by SIGABRT, as a segmentation fault would)
    is reported as a crash, not fatal, and a fresh child takes the next job."""
    c = Child()
    c.proc = subprocess.Popen([sys.executable, "-c", "import os, sys; sys.stdin.readline(); os.abort()"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    out = c.run({"players": 2}, "{}", timeout=60)
    assert "crash" in out and "exit code" in out["crash"]
    out = c.run({"players": 2}, "{}", timeout=60)
    assert "refused" in out
    c.close()


# =============================================================================================
# real states from random games, at every phase
# =============================================================================================
OPTION_SETS = [
    dict(players=2),
    dict(players=3, full_protection_required=True),
    dict(players=4, failed_defence_tokens_down=True),
    dict(players=5, quest_tokens_stay_down=True),
    dict(players=3, full_protection_required=True, failed_defence_tokens_down=True,
         quest_tokens_stay_down=True, turn_limit=40),
]
PER_PHASE = 3                 # states kept per (option set, policy, phase)
_POOL = []


def state_pool():
    """(options, state JSON) from seeded random and greedy games, a few per phase."""
    if _POOL:
        return _POOL
    for oi, opts in enumerate(OPTION_SETS):
        g = BreakthroughGame(**opts)
        for greedy in (False, True):
            kept = {ph: [] for ph in PHASES}
            for seed in range(6):
                r = random.Random(1000 * oi + 10 * seed + greedy)
                s = g.new_state(seed)
                for _ in range(900 if greedy else 500):
                    ph = s.phase
                    if len(kept[ph]) < PER_PHASE * (seed + 1) and r.random() < 0.2 or \
                            ph in ("protect", "lose_station", "quest_hero", "quest_pay", "over") and \
                            len(kept[ph]) < PER_PHASE * (seed + 1):
                        kept[ph].append(s.to_json())
                    if s.is_terminal():
                        break
                    s.apply(_policy(s, r, greedy))
            for ph in PHASES:
                _POOL.extend((g.options, text) for text in kept[ph][:PER_PHASE])
    return _POOL


def test_pool_covers_every_phase():
    phases = {json.loads(text)["phase"] for _, text in state_pool()}
    assert phases == set(PHASES)
    partial = [text for opts, text in state_pool() if opts["full_protection_required"]
               and json.loads(text)["phase"] == "protect"]
    assert partial


def _leaves(o, path=()):
    """(path, value) for every int, bool and string leaf, and every list, of a JSON value."""
    if isinstance(o, dict):
        for k, v in o.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(o, list):
        yield path, o
        for i, v in enumerate(o):
            yield from _leaves(v, path + (i,))
    else:
        yield path, o


def mutations(obj):
    """Every single-field change of a state: ints +-1, booleans flipped, two list values
    swapped, current_player / active set to another player, pending and agenda fields changed."""
    out = []
    n = obj["options"]["players"]
    for path, v in _leaves({k: v for k, v in obj.items() if k not in ("format", "version", "game",
                                                                       "options")}):
        if isinstance(v, bool):
            out.append((path, "flip", not v))
        elif isinstance(v, int):
            out += [(path, "+1", v + 1), (path, "-1", v - 1)]
        elif path == ("rng_state",):
            out += [(path, "+1", str(int(v) + 1))]
        elif isinstance(v, list):
            for i in range(len(v)):
                for j in range(i + 1, min(len(v), i + 4)):
                    if v[i] != v[j]:
                        w = list(v)
                        w[i], w[j] = w[j], w[i]
                        out.append((path, f"swap {i} {j}", w))
            if path and path[0] == "pending" and v:
                out.append((path, "drop last", v[:-1]))
    for key in ("current_player", "active"):
        for q in range(-1, n):
            if q != obj[key]:
                out.append(((key,), f"= {q}", q))
    both = [q for q in range(n) if q != obj["active"]]
    for q in both:
        out.append((("active+current_player",), f"= {q}", q))
    if obj["pending"] is not None and "left" in obj["pending"]:
        for v in (0, 1, 2, 3):
            out.append((("pending", "left"), f"= {v}", v))
    for i, task in enumerate(obj["agenda"]):
        if task["task"] == "draw":
            for v in (1, 2, 3):
                out.append((("agenda", i, "left"), f"= {v}", v))
        if "order" in task and len(task["order"]) > 1:
            out.append((("agenda", i, "order"), "drop first", task["order"][1:]))
    return out


def apply_mutation(obj, m):
    path, _, value = m
    new = copy.deepcopy(obj)
    if path == ("active+current_player",):
        new["active"] = new["current_player"] = value
    else:
        put(new, path, value)
    return new


def _check_a_mutated_state(child, data):
    options, text = data.draw(st.sampled_from(state_pool()), label="state")
    obj = json.loads(text)
    muts = mutations(obj)
    m = data.draw(st.sampled_from(muts), label="mutation")
    bad = apply_mutation(obj, m)
    out = child.run(options, json.dumps(bad), seed=data.draw(st.integers(0, 2 ** 32), label="seed"))
    assert "crash" not in out and "error" not in out, (m[:2], out, json.dumps(bad))


# 150 mutated states in all: 40 in the default tier, 110 others (another test, another derandomized
# stream of examples) in the slow tier (tests/tiers.py).
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_states_are_refused_or_play_safely(child, data):
    _check_a_mutated_state(child, data)


@pytest.mark.slow
@settings(max_examples=110, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_more_mutated_states_are_refused_or_play_safely(child, data):
    _check_a_mutated_state(child, data)


def test_real_states_play_safely(child):
    """Every pooled state, unchanged, loads and plays 300 random legal actions safely."""
    for options, text in state_pool()[::3]:
        out = child.run(options, text, seed=len(text), steps=60)
        assert out.get("played") is not None and "error" not in out, (out, text)


def _pooled(pred):
    """A state from the pool, or else from seeded random games, for which pred holds."""
    for options, text in state_pool():
        obj = json.loads(text)
        if pred(obj):
            return game_for(options), obj
    for players in (3, 4):
        g = game_for({"players": players})
        for seed in range(50):
            s = g.new_state(seed)
            r = random.Random(seed)
            for _ in range(600):
                obj = json.loads(s.to_json())
                if pred(obj):
                    return g, obj
                if s.is_terminal():
                    break
                s.apply(_policy(s, r, True))
    raise AssertionError("no such state found")


def _move_hand_card_to_discard(obj, p):
    c = obj["hands"][p][0]
    obj["hands"][p] = obj["hands"][p][1:]
    obj["known"][p] = [x for x in obj["known"][p] if x != c]
    obj["hand_gen"][p].pop(str(c), None)
    obj["discard"].append(c)


def test_players_already_refilled_hold_five_cards():
    """R17: each player draws until five before the next one starts."""
    n_of = lambda o: o["options"]["players"]                              # noqa: E731
    g, obj = _pooled(lambda o: o["phase"] == "draw" and any(
        t["task"] == "refill" and len(t["order"]) < n_of(o) for t in o["agenda"]))
    g.state_from_json(obj)
    order = next(t["order"] for t in obj["agenda"] if t["task"] == "refill")
    done = [(obj["active"] + i) % n_of(obj) for i in range(n_of(obj) - len(order))]
    bad = copy.deepcopy(obj)
    _move_hand_card_to_discard(bad, done[0])
    with pytest.raises(metro_ai.StateFormatError, match=f"player {done[0]} was refilled before"):
        g.state_from_json(bad)


def test_refill_waits_for_the_monster_attack():
    """B7: hands refill from the discarder after the whole attack."""
    g, obj = _pooled(lambda o: o["phase"] in ("protect", "free_play", "lose_station"))
    bad = copy.deepcopy(obj)
    task = next(t for t in bad["agenda"] if t["task"] == "refill")
    task["order"] = task["order"][1:]
    with pytest.raises(metro_ai.StateFormatError, match="during a monster attack"):
        g.state_from_json(bad)


def test_only_the_winner_holds_ten_tokens():
    """B8, R4: the first player to hold 10 tokens ends the game."""
    g, obj = _pooled(lambda o: o["phase"] == "over" and o["winner"] is not None)
    g.state_from_json(obj)
    bad = copy.deepcopy(obj)
    q = (obj["winner"] + 1) % obj["options"]["players"]
    bad["above"][q] += bad["supply"][q]
    bad["supply"][q] = 0
    bad["tokens"][q] = 10
    with pytest.raises(metro_ai.StateFormatError, match=f"player {q} holds 10 tokens too"):
        g.state_from_json(bad)


def test_full_protection_covers_the_uncovered_icons():
    """R13: under full_protection_required the protection in play covers every icon still
    uncovered (else the player could give up nothing and the game would stall)."""
    hits = 0
    for options, text in state_pool():
        obj = json.loads(text)
        if obj["phase"] != "protect" or not options["full_protection_required"]:
            continue
        g = game_for(options)
        g.state_from_json(obj)
        p = obj["current_player"]
        for i, e in enumerate(obj["tableaux"][p]):
            bad = copy.deepcopy(obj)                  # the card cleaned up, to the discard pile
            del bad["tableaux"][p][i]
            bad["discard"].append(e["card"])
            bad["above"][p] += e["tokens"]
            try:
                g.state_from_json(bad)
            except metro_ai.StateFormatError as exc:
                hits += "does not cover the uncovered icons" in str(exc)
    assert hits


def test_the_active_player_is_the_turns_player():
    """B1: player 0 plays turn 1, then clockwise, so turn t is player (t - 1) mod n's; a state
    with both the active player and the player to move moved to another seat is refused."""
    g = BreakthroughGame(players=3)
    s = g.new_state(4)
    r = random.Random(4)
    while s.turn < 5 or s.phase != "main":
        s.apply(_policy(s, r))
    obj = json.loads(s.to_json())
    assert g.state_from_json(obj) == s
    obj["active"] = obj["current_player"] = (obj["active"] + 1) % 3
    with pytest.raises(metro_ai.StateFormatError, match=f"turn {s.turn} is player {s.active}'s turn .*"
                                                        f"but active is {(s.active + 1) % 3}"):
        g.state_from_json(obj)

"""Fuzzing the library's inputs: saved states, card-set files and bot specs, for every game.

Run as a script (a child process, so that a crash is a failed run, not a dead test runner)::

    python tests/fuzz_inputs.py [--examples N] [--seed S] [--target states|cards|specs|all]

Hypothesis drives the mutations (``derandomize``: a seed gives the same inputs). Each input must be
refused with a ValueError (the library's StateFormatError, DataError and BotSpecError are
ValueErrors) or accepted and then safe: a state plays random legal actions to the end or to a
cap, with every legal action in range and applicable, the JSON round trip, clone and determinize
at each step, and a short search; a card set gives a game that deals and plays; a bot spec gives a
bot that chooses a legal action. Anything else (another exception type, a wrong action, a crash)
fails, and Hypothesis prints the smallest input it found. The exit code is 0 if every example
passed; the last line of output counts the examples by outcome.
"""
from __future__ import annotations

import argparse
import collections
import json
import random
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

import metro_ai
from metro_ai.engine.breakthrough.cards import DEFAULT_PATH as CARDS_PATH

from json_paths import get, paths, put

COUNTS: collections.Counter = collections.Counter()
PLAY_CAP = 300            # random actions played from an accepted state
SEARCH = metro_ai.Limit(iterations=30)


# ---- a real state to start from, then one mutation of its JSON ----

@st.composite
def real_states(draw):
    """(game, JSON object) of a state reached by random play in a registered game."""
    name = draw(st.sampled_from(metro_ai.list_games()))
    cls = metro_ai.registry.game_class(name)
    options = draw(st.sampled_from(cls.option_sets()))
    game = metro_ai.load_game(name, **options)
    s = game.new_state(draw(st.integers(0, 2 ** 32)))
    rng = random.Random(draw(st.integers(0, 2 ** 32)))
    for _ in range(draw(st.integers(0, 250))):
        if s.is_terminal():
            break
        s.apply(rng.choice(s.legal_actions()))
    return game, json.loads(s.to_json())


def _replacements(value, strings):
    """A strategy of values to put in place of `value`."""
    options = [st.none(), st.booleans(), st.integers(-3, 300), st.sampled_from([2 ** 31, -2 ** 31 - 1, 2 ** 64, 10 ** 40]),
               st.sampled_from(strings), st.just([]), st.just({})]
    if isinstance(value, bool):
        options.append(st.just(not value))
    elif isinstance(value, int):
        options.append(st.sampled_from([value - 1, value + 1, -value, value * 2 + 1]))
    elif isinstance(value, list) and value:
        options += [st.just(value[::-1]), st.just(value[1:]), st.just(value + value[-1:]),
                    st.just(value * 3)]
    elif isinstance(value, dict) and value:
        options.append(st.sampled_from([{k: v for k, v in value.items() if k != drop} for drop in value]))
    return st.one_of(options)


@st.composite
def mutated_states(draw):
    game, obj = draw(real_states())
    where = [p for p in paths(obj) if p]
    strings = sorted({v for p in where for v in [get(obj, p)] if isinstance(v, str)} | {"", "x"})
    for _ in range(draw(st.integers(1, 2))):
        path = draw(st.sampled_from(where))
        put(obj, path, draw(_replacements(get(obj, path), strings)))
        where = [p for p in paths(obj) if p]
    return game, obj


def check_playable(game, s, rng):
    """Play on from an accepted state, checking everything a search relies on."""
    n, nda = game.num_players, game.num_distinct_actions
    for step in range(PLAY_CAP):
        text = s.to_json()
        assert game.state_from_json(text).to_json() == text, "a loaded state's JSON does not load back"
        if s.is_terminal():
            assert s.legal_actions() == [] and s.current_player == -1
            return
        legal = s.legal_actions()
        assert legal, "not over, and no legal action"
        assert all(0 <= a < nda for a in legal) and legal == sorted(set(legal)), "bad legal actions"
        assert 0 <= s.current_player < n
        if step % 25 == 0:
            p = s.current_player
            w = s.determinize(p, step)
            assert w.observation(p) == s.observation(p)
            assert s.clone().to_json() == text
            metro_ai.make_bot("ismcts", seed=step).choose(s, SEARCH)
        s.apply(rng.choice(legal))


@given(mutated_states(), st.integers(0, 2 ** 32))
def fuzz_states(case, seed):
    game, obj = case
    try:
        s = game.state_from_json(json.dumps(obj))
    except ValueError:
        COUNTS["states refused"] += 1
        return
    COUNTS["states accepted"] += 1
    check_playable(game, s, random.Random(seed))


# ---- card-set files ----

@given(st.data())
def fuzz_cards(data):
    doc = json.loads(CARDS_PATH.read_text(encoding="utf-8"))
    where = [p for p in paths(doc) if p]
    strings = sorted({v for p in where for v in [get(doc, p)] if isinstance(v, str)} | {"", "x"})
    # 0 mutations: the file as shipped, so the accepting path is always among the inputs (most
    # mutations are refused; which few are accepted depends on the generator's stream).
    for _ in range(data.draw(st.integers(0, 3))):
        path = data.draw(st.sampled_from(where))
        put(doc, path, data.draw(_replacements(get(doc, path), strings)))
        where = [p for p in paths(doc) if p]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cards.json"
        path.write_text(json.dumps(doc))
        try:
            game = metro_ai.load_game("breakthrough", players=data.draw(st.integers(2, 5)), card_set=path)
        except ValueError:
            COUNTS["card sets refused"] += 1
            return
    COUNTS["card sets accepted"] += 1
    check_playable(game, game.new_state(data.draw(st.integers(0, 1000))), random.Random(1))


# ---- bot specs ----

def _spec_texts():
    bots = metro_ai.list_bots()
    keys = sorted({o.name for name in metro_ai.registry.BOTS for o in metro_ai.registry.BOTS[name][0].options}
                  - {"backend"}) + ["iterations", "time", "label", "colour"]
    values = st.one_of(st.integers(-5, 300).map(str), st.sampled_from(["none", "true", "false", "inf", "nan", "-1",
                                                                      "1e9", "random", "heuristic", "value", "x", ""]),
                       st.floats(allow_nan=True, allow_infinity=True).map(repr))
    item = st.tuples(st.sampled_from(keys), values).map(lambda kv: f"{kv[0]}={kv[1]}")
    spec = st.tuples(st.sampled_from(bots + ["nobot", ""]), st.lists(item, max_size=4)).map(
        lambda t: t[0] + (":" + ",".join(t[1]) if t[1] else ""))
    return st.one_of(spec, st.text(max_size=30))


@given(_spec_texts(), st.integers(0, 2 ** 32))
def fuzz_specs(text, seed):
    try:
        spec = metro_ai.BotSpec.parse(text)
        bot = spec.make(seed)
    except ValueError:
        COUNTS["bot specs refused"] += 1
        return
    COUNTS["bot specs accepted"] += 1
    state = metro_ai.load_game("metro", players=2).new_state(seed)
    assert bot.choose(state, SEARCH if hasattr(bot, "analyse") else None) in state.legal_actions()


TARGETS = {"states": fuzz_states, "cards": fuzz_cards, "specs": fuzz_specs}


def main(argv=None):
    ap = argparse.ArgumentParser(description="Fuzz states, card sets and bot specs (see the module docstring).")
    ap.add_argument("--examples", type=int, default=100, help="examples per target (default 100)")
    ap.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    ap.add_argument("--target", choices=[*TARGETS, "all"], default="all")
    args = ap.parse_args(argv)
    targets = TARGETS if args.target == "all" else {args.target: TARGETS[args.target]}
    for name, test in targets.items():
        run = settings(max_examples=args.examples, deadline=None, derandomize=args.seed == 0,
                       database=None, suppress_health_check=list(HealthCheck), print_blob=True)(test)
        if args.seed:
            run = __import__("hypothesis").seed(args.seed)(run)
        run()
    print("fuzz: " + ", ".join(f"{k} {v}" for k, v in sorted(COUNTS.items())), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

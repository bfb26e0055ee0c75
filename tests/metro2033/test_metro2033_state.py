"""Metro 2033 (board game) on the contract: ``Metro2033Game`` / ``Metro2033State``
(engine/metro2033/state.pyx) against the reference engine through the contract's face (returns,
action texts, observed actions, determinize), the loader's refusals, and the renderers. The
generic checks (random play, JSON round trips, observation and determinize, C play-outs, bots)
are the contract suite's (tests/contract)."""
import json
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import metro_ai
from metro_ai.engine.core import random_playouts
from metro_ai.engine.metro2033.reference import RefMetro2033Game


def pair(players, seed):
    return metro_ai.load_game("metro2033", players=players).new_state(seed), \
        RefMetro2033Game(players=players).new_state(seed)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_contract_state_plays_as_the_reference(players):
    """Same seeds and actions: the same legal actions and texts, the same observed actions for
    every player (G32), the same returns (determinize against the reference's: test_metro2033_fast.py)."""
    for seed in range(3):
        s, r = pair(players, seed)
        rng = random.Random(seed)
        steps = 0
        while not s.is_terminal():
            legal = s.legal_actions()
            assert legal == r.legal_actions()
            assert [s.action_to_string(a) for a in legal] == [r.action_to_string(a) for a in legal]
            a = rng.choice(legal)
            for p in range(players):
                assert s.observed_action(a, p) == r.observed_action(a, p)
            s.apply(a)
            r.apply(a)
            steps += 1
        assert s.scores() == r.scores() and s.returns() == r.returns()
        assert s.winner == r.winner and s.phase == "over"
        assert steps > 100


def test_the_state_machine_has_no_python_face_of_its_own():
    """#25: the state machine is nogil functions over a ``Machine`` struct that each state holds by
    value; the module exports no class (no second Python API besides the contract's state), and a
    state's copy is its own struct, not a second object."""
    import metro_ai.engine.metro2033.machine as machine
    assert [k for k, v in vars(machine).items() if isinstance(v, type) and v.__module__ == machine.__name__] == []
    assert not hasattr(metro_ai.engine.metro2033, "FastMetro2033")
    s = metro_ai.load_game("metro2033", players=3).new_state(4)
    c = s.clone()
    before = s.to_json()
    c.apply(c.legal_actions()[0])
    assert s.to_json() == before and c.to_json() != before


def test_phase_and_task_names_are_built_beside_their_enums():
    """#42: PHASES, TASK_NAMES and TASK_ARGS are made from (enum, name, ...) rows in the enums'
    order; a table that skips or repeats an enum value stops the import instead of shifting every
    name after it."""
    import metro_ai.engine.metro2033.machine as machine
    assert machine.PHASES[0] == "none" and machine.PHASES[-1] == "over" and len(set(machine.PHASES)) == 31
    assert len(machine.TASK_NAMES) == len(machine.TASK_ARGS) == len(set(machine.TASK_NAMES)) == 37
    assert machine._by_value(((1, "b"), (0, "a")), "test") == [(0, "a"), (1, "b")]
    assert machine._by_value(((1, "b"), (0, "a")), "test", 2) == [(0, "a"), (1, "b")]
    for bad, count in ((((0, "a"), (2, "b")), None), (((0, "a"), (0, "b")), None), (((1, "a"),), None),
                       (((0, "a"), (1, "b")), 3)):         # the last: the enum's last member has no row
        with pytest.raises(ImportError, match="the test table does not number its enums"):
            machine._by_value(bad, "test", count)
    # the phase a state shows is named from the table
    s = metro_ai.load_game("metro2033", players=2).new_state(1)
    assert s.observation(0)["phase"] in machine.PHASES


MACHINE = Path(__file__).resolve().parents[2] / "engine" / "metro2033"        # the sources


def _enum_members(prefix):
    """The members of rules.pxd's enum of `prefix` (P_ or J_), in order, its _COUNT left out."""
    text = (MACHINE / "rules.pxd").read_text(encoding="utf-8")
    block = re.search(rf"cdef enum:\n((?:    {prefix}.*\n)+)", text).group(1)
    names = re.findall(rf"\b({prefix}\w+)", re.sub(r"#.*", "", block))
    assert names[-1] == prefix + "COUNT"
    return names[:-1]


def test_every_phase_and_task_has_its_row_in_the_machine_tables():
    """#42: the state machine is one table of phases (legal and do) and one of tasks (run), filled
    once at import: every member of rules.pxd's enums has its row, in the enum's order, naming
    functions that the machine's files define; the compiled tables hold no empty entry, and the
    name tuples are the rows' names."""
    import metro_ai.engine.metro2033.machine as machine
    sources = {f.name: f.read_text(encoding="utf-8") for f in [MACHINE / "machine.pyx", *MACHINE.glob("machine_*.pxi")]}
    assert sorted(sources) == ["machine.pyx", "machine_actions.pxi", "machine_end.pxi", "machine_events.pxi",
                               "machine_fights.pxi", "machine_setup.pxi"]
    assert all(f'include "{name}"' in sources["machine.pyx"] for name in sources if name.endswith(".pxi"))
    defined = {m.group(1) for text in sources.values()
               for m in re.finditer(r"^cdef \w+ (\w+)\(Machine\* m", text, re.M)}
    for prefix, call, kinds in (("P_", "_phase", ("legal_", "do_")), ("J_", "_task", ("run_",))):
        rows = re.findall(rf"^{call}\(({prefix}\w+), \"(\w+)\", (.*)\)$", sources["machine.pyx"], re.M)
        assert [r[0] for r in rows] == _enum_members(prefix), f"{call} rows not one per enum member in order"
        names = tuple(r[1] for r in rows)
        assert names == (machine.PHASES if prefix == "P_" else machine.TASK_NAMES)
        for enum, _, rest in rows:
            functions = [f.strip() for f in rest.split(",") if not f.strip().startswith('"')]
            assert [f.startswith(k) for f, k in zip(functions, kinds)] == [True] * len(kinds), (enum, functions)
            assert set(functions) <= defined, f"{enum}: {set(functions) - defined} not defined"
    phases, tasks = machine._table_rows()
    assert [row[0] for row in phases] == list(machine.PHASES)
    assert [row[0] for row in tasks] == list(machine.TASK_NAMES)
    assert all(legal and do for _, legal, do in phases) and all(run for _, run in tasks)


def test_returns_rank_the_g2_winner_first():
    """G2/G30: the winner ranks first whatever the VP; at the round limit the VP rank."""
    g = metro_ai.load_game("metro2033", players=3)
    seen_winner = seen_limit = False
    for seed in range(200):
        s = g.new_state(seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            s.apply(rng.choice(s.legal_actions()))
        r = s.returns()
        if s.winner is not None:
            seen_winner = True
            assert r[s.winner] == 1.0
        else:
            seen_limit = True
            assert s.round == g.options["round_limit"]
            vp = s.scores()
            assert r == [(sum(vp[q] < vp[p] for q in range(3)) + 0.5 * sum(vp[q] == vp[p] for q in range(3) if q != p))
                         / 2 for p in range(3)]
        if seen_winner and seen_limit:
            break
    assert seen_winner and seen_limit


def test_loader_refuses_broken_states_and_names_the_field():
    g = metro_ai.load_game("metro2033", players=3)
    s = g.new_state(2)
    rng = random.Random(2)
    for _ in range(120):
        s.apply(rng.choice(s.legal_actions()))
    good = s.to_dict()

    def broken(**changes):
        d = json.loads(json.dumps(good))
        for path, value in changes.items():
            obj = d
            keys = path.split("__")
            for k in keys[:-1]:
                obj = obj[int(k)] if isinstance(obj, list) else obj[k]
            last = keys[-1]
            if isinstance(obj, list):
                obj[int(last)] = value
            else:
                obj[last] = value
        return d
    market = [c for c in good["market"] if c is not None]
    cases = [
        (broken(vp__0=good["vp"][0] + 1), "vp"),
        (broken(army__1=9), "army"),
        (broken(owner__5=7), "owner"),
        (broken(decks__law=good["decks"]["law"] + [market[0]]), "decks.law"),
        (broken(market__0=good["decks"]["equipment"][0] if good["decks"]["equipment"] else market[1]),
         "exactly one place"),
        (broken(agenda=good["agenda"] + [["no_such_task", 0, 0, 0]]), "agenda"),
        (broken(agenda=good["agenda"] + [["army", 9, 0, 0]]), "agenda"),
        (broken(phase="dance"), "phase"),
        (broken(rng_state="-1"), "rng_state"),
        (broken(res__0=[1, 2]), "res"),
        (broken(pending__max=99), "pending.max"),
    ]
    for d, word in cases:
        with pytest.raises(metro_ai.StateFormatError, match=word):
            g.state_from_json(d)
    assert g.state_from_json(good) == s
    early = g.new_state(2).to_dict()                     # the faction draft: the setup to come
    early["owner"][0] = 0
    with pytest.raises(metro_ai.StateFormatError, match="before the setup"):
        g.state_from_json(early)


def test_render_svg_and_tensor_show_only_what_the_seat_sees():
    g = metro_ai.load_game("metro2033", players=3)
    s = g.new_state(6)
    rng = random.Random(6)
    while not any(s.observation(p)["quests"] for p in range(3)) and not s.is_terminal():
        s.apply(rng.choice(s.legal_actions()))
    holder = next(p for p in range(3) if s.observation(p)["quests"])
    other = (holder + 1) % 3
    quest = g.card_names[s.observation(holder)["quests"][0]]
    assert quest in s.render(holder) and quest in s.render()
    assert quest not in s.render(other)
    text = s.render()
    for p in range(3):
        assert f"P{p} {g.card_names[s.observation(0)['faction'][p]]}" in text
    root = ET.fromstring(s.svg(player=other))
    stations = [e for e in root.iter() if e.get("class") == "station"]
    obs = s.observation(other)
    assert len(stations) == 78
    assert [e.get("data-owner") for e in stations] == ["" if o is None else str(o) for o in obs["owner"]]
    assert len([e for e in root.iter() if e.get("class") == "link"]) == 69 + 42
    heroes = [e for e in root.iter() if e.get("class") == "hero"]
    assert sorted((int(e.get("data-player")), int(e.get("data-station"))) for e in heroes) == \
        sorted((p, at) for p, at in enumerate(obs["hero_at"]) if at is not None)
    assert quest not in s.svg(player=other)
    x = s.observation_tensor(other)
    feats = g.observation_features()
    assert x.shape == feats.shape and x.dtype == np.float32 and 0 <= x.min() and x.max() <= 1
    twin = s.determinize(other, 3)
    assert np.array_equal(twin.observation_tensor(other), x)


def test_c_loop_matches_the_fast_engines_own_playout_count():
    """random_playouts through the contract plays whole games: its returns sum to n/2 a game."""
    g = metro_ai.load_game("metro2033", players=5)
    total = random_playouts(g.new_state(3), 20, 8)
    assert sum(total) == pytest.approx(20 * 5 / 2) and all(0 <= t <= 20 for t in total)


def test_every_phase_round_trips_and_plays_on_identically():
    """A saved state of each decision met in random play (the defender's choice before the combat
    cards are dealt included) loads to the same state, which plays on as the original."""
    g = metro_ai.load_game("metro2033", players=3)
    seen = set()
    for seed in range(12):
        s = g.new_state(seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            if s.phase not in seen:
                seen.add(s.phase)
                back = g.state_from_json(s.to_json())
                a, b = s.clone(), back
                for _ in range(30):
                    if a.is_terminal():
                        break
                    assert a.legal_actions() == b.legal_actions()
                    move = rng.choice(a.legal_actions())
                    a.apply(move)
                    b.apply(move)
                    assert a.to_json() == b.to_json()
            s.apply(rng.choice(s.legal_actions()))
    assert {"defender", "combat_pick", "declare", "vote", "hire", "army", "hero_move", "buy", "upkeep",
            "quest_complete", "law_look"} <= seen

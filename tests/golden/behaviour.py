"""The behaviour the library must keep bit for bit: random games of every game and option set,
determinisations, C-level play-outs and every bot's choices at fixed iteration budgets, by seed.

``python tests/golden/behaviour.py`` (re)records ``behaviour.json`` from the installed build;
``tests/project/test_golden.py`` recomputes every entry and compares. Entries are SHA-256 digests of the
exact texts (state JSON, observations, action strings, analyses), so any change of state, legal
actions, text or choice shows up under the entry's name. Record it again only when an issue
changes behaviour on purpose, and say so in the change.
"""
import hashlib
import json
import random
import sys
from pathlib import Path

import metro_ai
from metro_ai.engine.core import random_playouts

HERE = Path(__file__).resolve().parent
FILE = HERE / "behaviour.json"

# Every option set recorded, per game (explicit here: the file must not depend on the code that
# it checks).
OPTION_SETS = {
    "metro": [dict(players=p, orientation=o, hand_size=h)
              for p in (2, 3, 4, 5, 6) for o in (True, False) for h in (1, 2, 3)],
    "breakthrough": [dict(players=p) for p in (2, 3, 4, 5)] + [
        dict(players=2, full_protection_required=True),
        dict(players=3, failed_defence_tokens_down=True),
        dict(players=2, quest_tokens_stay_down=True, turn_limit=40),
        dict(players=4, full_protection_required=True, failed_defence_tokens_down=True,
             quest_tokens_stay_down=True),
        dict(players=2, factions=["Hansa", "Polis"]),
    ],
    "leduc": [dict(players=p) for p in (2, 3, 4, 8)],
    # 3 players first: its bots (the shipped learned evaluator and play-out settings) recorded
    "metro2033": [dict(players=p) for p in (3, 2, 4, 5, 6)] + [dict(players=2, strict_counts=False)],
}
BOTS = ["random", "greedy", "flat-mc", "pimc", "ismcts", "mo-ismcts", "easy", "medium",
        "ismcts:workers=2", "ismcts:rollout=heuristic,rollout_depth=8", "pimc:worlds=3",
        "ismcts:final=value,c=1.3"]
ITERATIONS = 150


def _digest(items):
    h = hashlib.sha256()
    for x in items:
        h.update(x.encode() if isinstance(x, str) else json.dumps(x, sort_keys=True).encode())
        h.update(b"\0")
    return h.hexdigest()


def _key(game, options):
    return game + ":" + json.dumps(options, sort_keys=True)


def random_game(game, seed, max_steps=4000):
    """Digest of a seeded random game: every state's JSON, legal actions and their texts, each
    player's observation every 7 steps, the final scores and returns; and apart, the digest of
    the final text drawing (so that a new drawing is recorded without touching the rest)."""
    s = game.new_state(seed)
    rng = random.Random(seed)
    parts = []
    steps = 0
    while not s.is_terminal() and steps < max_steps:
        legal = s.legal_actions()
        parts += [s.to_json(), legal, [s.action_to_string(a) for a in legal[:40]]]
        if steps % 7 == 0:
            parts += [s.observation(p) for p in range(game.num_players)]
            parts.append(s.heuristic())
        s.apply(rng.choice(legal))
        steps += 1
    parts += [s.to_json(), s.scores(), s.returns()]
    return {"steps": steps, "digest": _digest(parts), "drawing": _digest([s.render(player=0)])}


def midgame(game, seed, steps):
    s = game.new_state(seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if s.is_terminal():
            break
        s.apply(rng.choice(s.legal_actions()))
    while not s.is_terminal() and len(s.legal_actions()) < 2:
        s.apply(s.legal_actions()[0])
    return s


def determinizations(game, seed):
    s = midgame(game, seed, 23)
    return _digest([s.determinize(p, 1000 + p).to_json() for p in range(game.num_players)])


def playouts(game, seed):
    return random_playouts(midgame(game, seed, 9), 40, seed)


def bot_choices(game, seed):
    out = {}
    for spec in BOTS:
        s = midgame(game, seed, 15)
        bot = metro_ai.make_bot(spec.split(":")[0], seed=seed,
                                **metro_ai.BotSpec.parse(spec).options)
        limit = metro_ai.Limit(iterations=ITERATIONS)
        chosen = []
        analyses = []
        for _ in range(3):
            if s.is_terminal():
                break
            if bot.searches:
                r = bot.analyse(s, limit).to_dict()
                r.pop("seconds")
                r.pop("tree")       # the tree's shape: reported since the record, not part of it
                analyses.append(r)
                a = r["chosen"]
            else:
                a = bot.choose(s, limit)
            chosen.append(a)
            s.apply(a)
        out[spec] = {"chosen": chosen, "digest": _digest(analyses)}
    return out


def matches():
    out = {}
    for name, options, bots in (("metro", dict(players=3), ["easy", "greedy", "random"]),
                                ("breakthrough", dict(players=2), ["ismcts:iterations=60", "greedy"])):
        rec = metro_ai.play_match(metro_ai.load_game(name, **options), bots, seed=5)
        out[name] = _digest([[m["action"], m["text"]] for m in rec["actions"]] + [rec["scores"], rec["returns"]])
    return out


def compute(select=None):
    """Every entry, as a dict (``select(key)`` may skip entries)."""
    entries = {}
    for name, sets in OPTION_SETS.items():
        for i, options in enumerate(sets):
            game = metro_ai.load_game(name, **options)
            key = _key(name, options)
            if select is not None and not select(key):
                continue
            seeds = (1, 2) if name == "metro" else (1,)
            entries[key] = {
                "games": {str(sd): random_game(game, sd) for sd in seeds},
                "determinize": determinizations(game, 3),
                "playouts": playouts(game, 4),
            }
            if i % 5 == 0:          # bots on every fifth option set (each game's first included)
                entries[key]["bots"] = bot_choices(game, 6)
    if select is None or select("matches"):
        entries["matches"] = matches()
    return entries


if __name__ == "__main__":
    data = compute()
    FILE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(data)} entries in {FILE}", file=sys.stderr)

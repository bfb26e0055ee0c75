# cython: language_level=3
"""Metro 2033 (board game): rebuilding a state from its JSON form (``_dump``'s layout in
``state.pyx``), checked against the rules.

``Metro2033Game.state_from_json`` checks the envelope (``engine/core``) and calls ``load_state``
here, whose ``_load`` works in two steps:
``_validate`` reads every field into plain Python values, checking types, ranges, lengths, the
invariants between fields and the agenda against the grammar the engine produces; ``_copy_in``
then writes them into the C struct. A state it accepts is one the engine can play.
"""
import re
import reprlib

from libc.stdint cimport uint64_t
from libc.string cimport memset

from metro_ai.engine.errors import StateFormatError
from metro_ai.engine.metro2033.rules cimport *
from metro_ai.engine.metro2033.machine cimport m33_amount_fl
from metro_ai.engine.metro2033.state cimport Metro2033Game, Metro2033State
from metro_ai.engine.metro2033.machine import (PHASES, TASK_NAMES, TASK_ARGS as _TASK_ARGS, TRACK_EVENTS, DECK_KEYS,
                                               HIDDEN_PENDING as _HIDDEN_PENDING, THE_MAP)
from metro_ai.engine.metro2033.state import _dump
from metro_ai.engine.metro2033.board import BOARD, RESOURCES

cdef Metro2033Map MAP = THE_MAP
TRACK = TRACK_EVENTS


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


_DIGITS = re.compile(r"0|[1-9][0-9]{0,19}")     # a decimal int as the dump writes it (ASCII only)
_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 40
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 6
_REPR.maxlevel = 3


def _short(v):
    """`v` quoted for an error message, cut short: never the whole of a huge value."""
    try:
        text = _REPR.repr(v)
    except (ValueError, RecursionError):       # an int too long to print, or a nest too deep
        text = f"<{type(v).__name__}>"
    return text if len(text) <= 120 else text[:117] + "..."


# ---- the agenda grammar (G7, G8 and the sub-steps of G9-G29): the shapes the engine produces.
# The agenda is a stack (its end is the front). The task whose decision is open has been taken off
# it; below it lies one of three bases, and above the base only what the running step pushed:
#   setup:  round_start, place_hero n-1..0, setup, draft_hero 0..n-1, draft_faction n-1..0, cut
#           where the open draft or placement was taken off (G7);
#   round:  end_round, then (quest_check, hero) and (quest_check, army) per seat, mobilise per seat
#           (the seats in turn order, the first on top), quest_check (G29), then as the round's
#           track space says (G8) produce, threat_reveal + declare per seat, law_event, cut where
#           the running step was taken off;
#   stage2: round_start, stage2_equipment for the seats still to choose (G34's new equipment).
# Above a round base, by the running step: law_event: nothing under the look or the peek (G31),
# law_result + the votes still to cast (G13); quest_check: the seats' quest offers still to come
# (G29); mobilise: nothing under the upkeep or the hire (G33);
# threat_reveal: threat_done + the threat fights still to come (G14); produce: the polis choices
# still to make (G10); army / hero: a neutral fight waiting for a scouted threat's return (G24),
# the combat still to resolve with the picks to come (G21), a lost station's free replacement
# under a capture (G15, G28), a purchase to go on with under a discard (G18). A game over has an
# empty agenda. Nothing else is accepted: every accepted agenda keeps end_round or round_start at
# the bottom, so the engine never runs it dry, and stays a few dozen tasks deep.
_BASE_TASKS = frozenset(("end_round", "hero", "army", "mobilise", "produce", "threat_reveal", "declare",
                         "law_event", "quest_check"))
_OWN_PHASES = {"army": ("army",),
               "hero": ("hero_move", "hero_act", "buy", "exchange_from", "exchange_to", "exchange_amount",
                        "quest_keep")}
_FIGHT_PHASES = ("scout_return", "artyom", "capture", "defender", "combat_pick", "free_station",
                 "take_equipment", "strip_equipment", "discard_equipment")
MAX_AGENDA = 64                                  # the grammar's deepest agenda is 6n + 13 <= 49


def _check_agenda(v, bad):
    """Check the agenda `v["agenda"]` (tuples (name, a, b, c)) against the grammar above and the
    open decision (`phase`, `decider`), with the fields each frame relies on. Returns the frame:
    "over", "setup", "round" or "stage2", and the running step's name."""
    ag, ph, dd, n = v["agenda"], v["phase"], v["decider"], v["n"]
    order = [(v["first"] + i) % n for i in range(n)]
    rnd = v["round"]

    def want(cond, msg):
        if not cond:
            bad(f"agenda: {msg} (phase {ph!r}, decider {dd}, agenda {_short([list(x) for x in ag])})")

    if v["over"]:
        want(not ag, "a finished game has no tasks left")
        return "over", None
    want(ag, "empty while the game goes on: end_round or round_start must be at the bottom")
    bottom = ag[0][0]
    if bottom == "round_start" and ph in ("draft_faction", "draft_hero", "place_hero"):
        seq = ([("round_start", 0, 0, 0)] + [("place_hero", p, 0, 0) for p in range(n - 1, -1, -1)]
               + [("setup", 0, 0, 0)] + [("draft_hero", p, 0, 0) for p in range(n)]
               + [("draft_faction", p, 0, 0) for p in range(n - 1, -1, -1)])
        k = len(ag)
        want(k < len(seq) and ag == seq[:k], "not the setup's order (G7)")
        want(seq[k][0] == ph and seq[k][1] == dd, "the open decision is not the setup's next one (G7)")
        want(rnd == 0 and v["stage"] == 1, "the setup comes before round 1")
        return "setup", seq[k]
    if bottom == "round_start":
        j = n - len(ag)
        want(j >= 0 and ag == [("round_start", 0, 0, 0)] + [("stage2_equipment", order[i], 0, 0)
                                                            for i in range(n - 1, j, -1)],
             "not round_start under the stage-2 equipment still to choose (G34)")
        want(ph in ("stage2_equipment", "discard_equipment") and dd == order[j],
             "the open decision is not the stage-2 equipment choice of the next seat (G34)")
        want(v["stage"] == 2 and 1 <= rnd < v["round_limit"], "the stage-2 equipment comes at the end of a round")
        return "stage2", ("stage2_equipment", order[j], 0, 0)
    want(bottom == "end_round", "the bottom task must be end_round (or round_start before a round)")
    want(1 <= rnd, "a round is played from round 1")
    ev = TRACK[0] if rnd == 1 else TRACK[1 + (rnd - 2) % 9]
    seq = [("end_round", 0, 0, 0)]
    for name in ("hero", "army"):                  # G29: a quest check after each action
        for i in range(n - 1, -1, -1):
            seq += [("quest_check", 0, 0, 0), (name, order[i], 0, 0)]
    seq += [("mobilise", order[i], 0, 0) for i in range(n - 1, -1, -1)]
    seq.append(("quest_check", 0, 0, 0))
    if ev & 7:
        seq.append(("produce", ev & 7, 2 if rnd == 1 else 1, 0))
    if ev & 16:
        seq.append(("threat_reveal", 0, 0, 0))
        seq += [("declare", order[i], 0, 0) for i in range(n - 1, -1, -1)]
    if ev & 8:
        seq.append(("law_event", 0, 0, 0))
    k = 0
    while k < len(ag) and ag[k][0] in _BASE_TASKS:
        k += 1
    want(k < len(seq) and ag[:k] == seq[:k], f"not round {rnd}'s order of steps (G8, G9)")
    run, extra = seq[k], ag[k:]
    name, p = run[0], run[1]
    if name == "law_event":
        j = n - len(extra)
        want((not extra and ph in ("law_look", "law_peek")) or (
            ph == "vote" and 0 <= j < n and dd == order[j]
            and extra == [("law_result", 0, 0, 0)] + [("vote", order[i], 0, 0) for i in range(n - 1, j, -1)]),
            "not the law event's peek or vote (G13)")
    elif name == "declare":
        want(not extra and ph == "declare" and dd == p, "not the threat declaration in turn order (G14)")
    elif name == "threat_reveal":
        j = n - len(extra)
        want(ph == "free_station" and 0 <= j < n and dd == order[j]
             and extra == [("threat_done", 0, 0, 0)] + [("threat_fight", order[i], 0, 0)
                                                       for i in range(n - 1, j, -1)],
             "not the threat fights in turn order (G14)")
    elif name == "produce":
        # one choice per polis station held, the seats in turn order (the holdings do not change
        # while they choose)
        polis = [q for q in order for s in range(S) if MAP.m.kind[s] == M33_POLIS and v["owner"][s] == q]
        j = len(polis) - 1 - len(extra)
        want(ph == "polis_res" and 0 <= j and dd == polis[j]
             and extra == [("polis_res", polis[i], run[1], run[2]) for i in range(len(polis) - 1, j, -1)],
             "not the polis resource choices of the production (G10)")
    elif name == "mobilise":
        want(not extra and ph in ("upkeep", "hire") and dd == p, "not the mobilisation of the seat in turn (G16)")
    elif name == "quest_check":
        # one offer per seat in turn order; a completion asks the same seat again (G29)
        j = n - 1 - len(extra)
        want(ph == "quest_complete" and 0 <= j < n and dd == order[j]
             and extra == [("quest_offer", order[i], 0, 0) for i in range(n - 1, j, -1)],
             "not the quest checks in turn order (G29)")
    else:                                          # army or hero (G17-G29)
        w = 0 if name == "army" else 1
        if ph in _OWN_PHASES[name] or (ph == "discard_equipment" and name == "hero" and extra):
            want(dd == p and (not extra or (ph == "discard_equipment" and len(extra) == 1
                                            and extra[0][:3] == ("buy", p, 1))),
                 f"not the {name} phase of the seat in turn")
        elif ph in _FIGHT_PHASES and not (ph == "artyom" and w == 0):
            if ph == "scout_return":
                want(dd == p and len(extra) == 1 and extra[0][:3] == ("neutral_fight", p, w),
                     "a scouted threat's return waits over the neutral fight (G24)")
            elif ph == "capture":
                want(dd == p and (not extra or (len(extra) == 1 and extra[0][0] == "free_station"
                                                and extra[0][1] != p)),
                     "a capture is the attacker's, over the loser's free station at most (G15, G28)")
            elif ph == "combat_pick":
                side = v["pending"]["side"]
                want(extra == [("combat_resolve", 0, 0, 0)] + ([("combat_pick", 1, 0, 0)] if side == 0 else []),
                     "the combat picks come before the resolution, attacker first (G21)")
            else:
                want(not extra, f"nothing waits under {ph!r}")
            if ph in ("defender", "combat_pick"):
                fight = v["fight"]
                want(fight["side"][0] == p and fight["side"][1] != p and fight["who"][0] == w,
                     "fight: not the attack of the seat in turn")
        else:
            want(False, f"not a decision of the {name} phase")
    return "round", run


def load_state(Metro2033Game game, dict obj):
    """A new state of `game` from `obj` (``_dump``'s layout), every field and invariant checked
    (``_load``); StateFormatError naming the field otherwise."""
    cdef Metro2033State st = game._blank()
    _load(st, game, obj)
    return st


def _load(Metro2033State st, Metro2033Game game, dict obj):
    """Fill `st` (a fresh copy: nothing half-built is ever handed out) from `obj` (``_dump``'s
    layout). Two steps, in this order: ``_validate`` reads every field into plain Python values,
    checking type, range, length and the invariants between fields, the agenda against the
    grammar the engine produces; then ``_copy_in`` writes them into the C struct, each length
    checked against its array before the write. StateFormatError naming the field otherwise."""
    v = _validate(game, obj)
    _copy_in(st, v)

    def bad(msg):
        raise StateFormatError(f"metro2033 state: {msg}")
    if not st.m.d.over and not st.legal_actions():
        bad(f"phase {v['phase']!r}: player {v['decider']} has no legal action")
    if v["phase"] == "upkeep" and (len(st.legal_actions()) < 2
                                   or st.m.d.army[st.m.d.decider] <= m33_amount_fl(&st.m, st.m.d.decider, 1, 5)):
        bad("phase 'upkeep': not a decision here (G33: strength above the free strength, with a pig to pay)")
    if v["phase"] == "quest_complete" and st.m.d.quest_n[st.m.d.decider] == 0:
        bad("phase 'quest_complete': not a decision here (G29, G38: the player holds no uncompleted quest)")
    back = _dump(st)
    if back != {key: obj[key] for key in back}:
        bad("not in the engine's canonical form (a field disagrees with the rest once loaded)")


def _validate(Metro2033Game game, dict obj):
    """The checked Python layer of the loader: returns a dict of plain ints and lists of ints
    (cards as ids, nothing else) that ``_copy_in`` can write without a check of its own."""
    cdef Tables* t = &game.tab.t
    cdef int n = game.players, C = t.C, i, p, k, s
    types = game.card_types
    limit_rounds = game.options["round_limit"]

    def bad(msg):
        raise StateFormatError(f"metro2033 state: {msg}")

    def num(x, where, lo, hi):
        if not _is_int(x) or not lo <= x <= hi:
            bad(f"{where}: expected an int in {lo}..{hi}, got {_short(x)}")
        return int(x)

    def lst(x, where, size=None, most=None):
        if not isinstance(x, list) or (size is not None and len(x) != size) or (most is not None and len(x) > most):
            bad(f"{where}: expected a list" + (f" of {size} entries" if size is not None else "")
                + (f" of at most {most} entries" if most is not None else "") + f", got {_short(x)}")
        return x

    def keys(x, where, names):
        if not isinstance(x, dict) or len(x) != len(names) or any(not isinstance(key, str) for key in x) \
                or set(x) != set(names):
            bad(f"{where}: expected an object with keys {', '.join(sorted(names))}, got {_short(x)}")
        return x

    def cards(x, where, kinds, most):
        lst(x, where, most=most)
        out = []
        for c in x:
            num(c, where, 0, C - 1)
            if types[c] not in kinds:
                bad(f"{where}: card {c} ({game.card_names[c]}) is a {types[c]} card, not {' or '.join(kinds)}")
            out.append(int(c))
        return out

    def opt_card(x, where, kinds):
        return -1 if x is None else cards([x], where, kinds, 1)[0]

    def opt_num(x, where, lo, hi):
        return -1 if x is None else num(x, where, lo, hi)

    def boolean(x, where):
        if not isinstance(x, bool):
            bad(f"{where}: expected true or false, got {_short(x)}")
        return bool(x)

    def per_player(key):
        return lst(obj[key], key, n)

    v = {"n": n, "round_limit": limit_rounds}
    # ---- every field alone: type, range, length
    x = obj["rng_state"]
    if not isinstance(x, str) or not _DIGITS.fullmatch(x) or int(x) >= 2 ** 64:
        bad(f"rng_state: expected a 64-bit unsigned int as a decimal string, got {_short(x)}")
    v["rng"] = int(x)
    decks = keys(obj["decks"], "decks", DECK_KEYS)
    deck_kinds = (("equipment",), ("quest",), ("law",), ("threat",), ("threat",))
    v["decks"] = [cards(decks[key], f"decks.{key}", deck_kinds[k], MAXC) for k, key in enumerate(DECK_KEYS)]
    disc = keys(obj["discards"], "discards", ("equipment", "quest", "threat1", "threat2"))
    v["discards"] = [cards(disc[DECK_KEYS[k]], f"discards.{DECK_KEYS[k]}", deck_kinds[k], MAXC)
                     if k != K_LAW else [] for k in range(5)]
    for where, piles in (("decks", v["decks"]), ("discards", v["discards"])):
        for k in (K_THREAT1, K_THREAT2):
            for c in piles[k]:
                if t.stage[c] != k - 2:
                    bad(f"{where}.{DECK_KEYS[k]}: threat {game.card_names[c]} is of stage {t.stage[c]}")
    v["out"] = cards(obj["out"], "out", ("threat", "equipment", "quest"), MAXC)
    v["market"] = [opt_card(c, "market", ("equipment",)) for c in lst(obj["market"], "market", 4)]
    v["law"] = opt_card(obj["law"], "law", ("law",))
    known = obj["known"]
    if not isinstance(known, dict):
        bad(f"known: expected an object card -> players, got {_short(known)}")
    in_decks = {c for pile in v["decks"] for c in pile}
    v["known"] = {}
    for key, who in known.items():
        if not isinstance(key, str) or not _DIGITS.fullmatch(key) or int(key) not in in_decks:
            bad(f"known: {_short(key)} is not a card in a deck")
        if (not isinstance(who, list) or not who or len(who) > n or any(not _is_int(q) or not 0 <= q < n for q in who)
                or any(who[i] >= who[i + 1] for i in range(len(who) - 1))):
            bad(f"known.{key}: expected ascending distinct players 0..{n - 1}, got {_short(who)}")
        v["known"][int(key)] = sum(1 << q for q in who)
    v["owner"] = [opt_num(o, "owner", 0, n - 1) for o in lst(obj["owner"], "owner", S)]
    v["faction"] = [opt_card(c, "faction", ("faction",)) for c in per_player("faction")]
    v["hero"] = [opt_card(c, "hero", ("hero",)) for c in per_player("hero")]
    for name in ("faction", "hero"):
        real = [c for c in v[name] if c >= 0]
        if len(set(real)) != len(real):
            bad(f"{name}: a card is drafted twice: {_short(obj[name])}")
    v["hero_at"] = [opt_num(x, "hero_at", 0, S - 1) for x in per_player("hero_at")]
    v["wounded"] = [boolean(x, "wounded") for x in per_player("wounded")]
    v["vp"] = [num(x, "vp", 0, 200) for x in per_player("vp")]
    v["army"] = [num(x, "army", 0, 8) for x in per_player("army")]
    v["res"] = [[num(r, "res", 0, 35) for r in lst(x, "res", 3)] for x in per_player("res")]
    v["equipment"] = [cards(x, "equipment", ("equipment",), 4) for x in per_player("equipment")]
    v["quests"] = [cards(x, "quests", ("quest",), MAXQ) for x in per_player("quests")]
    v["done_quests"] = [cards(x, "done_quests", ("quest",), MAXQ) for x in per_player("done_quests")]
    v["quest_used"] = [cards(x, "quest_used", ("quest",), MAXQ) for x in per_player("quest_used")]
    for p in range(n):
        for key in ("equipment", "quests"):
            if v[key][p] != sorted(v[key][p]):
                bad(f"{key}: player {p}'s cards must be in ascending order")
        if len(set(v["quest_used"][p])) != len(v["quest_used"][p]) or not set(v["quest_used"][p]) <= set(v["done_quests"][p]):
            bad(f"quest_used: player {p} used a quest they have not completed, or one twice")
    v["scouted"] = [cards(x, "scouted", ("threat",), 1) for x in per_player("scouted")]
    v["scouted_round"] = [num(x, "scouted_round", 0, limit_rounds) for x in per_player("scouted_round")]
    v["declared"] = []
    for p, x in enumerate(per_player("declared")):
        if x is None:
            v["declared"].append((-1, 0))
            continue
        if not isinstance(x, list) or len(x) != 2 or not isinstance(x[1], str) or x[1] not in ("army", "hero"):
            bad(f"declared: player {p}: expected null or [station, 'army' or 'hero'], got {_short(x)}")
        v["declared"].append((num(x[0], "declared", 0, S - 1), int(x[1] == "hero")))
    v["threat_now"] = opt_card(obj["threat_now"], "threat_now", ("threat",))
    v["last_threat"] = opt_card(obj["last_threat"], "last_threat", ("threat",))
    for key in ("vote", "last_vote"):
        x = obj[key]
        v[key] = None if x is None else (
            cards([keys(x, key, ("law", "for", "against"))["law"]], f"{key}.law", ("law",), 1)[0],
            num(x["for"], f"{key}.for", 0, 999), num(x["against"], f"{key}.against", 0, 999))
    v["round"] = num(obj["round"], "round", 0, limit_rounds)
    v["first"] = num(obj["first"], "first", 0, n - 1)
    v["stage"] = num(obj["stage"], "stage", 1, 2)
    v["over"] = boolean(obj["over"], "over")
    v["winner"] = opt_num(obj["winner"], "winner", 0, n - 1)
    ph = obj["phase"]
    if not isinstance(ph, str) or ph not in PHASES or ph == "none" or (ph == "over") != v["over"]:
        bad(f"phase: {_short(ph)} is not one of {', '.join(PHASES[1:])} (over exactly when the field over is true)")
    v["phase"] = ph
    v["decider"] = dd = num(obj["decider"], "decider", -1 if v["over"] else 0, -1 if v["over"] else n - 1)
    want = ("amount", "bought", "cards", "forced", "from", "max", "refreshed", "resmask", "side", "station",
            "taken", "to", "votes", "who")
    pd = keys(obj["pending"], "pending", want)
    pkinds = {"law_peek": ("law",), "artyom": ("threat",), "quest_keep": ("quest",), "stage2_equipment": ("equipment",)}
    pc = cards(pd["cards"], "pending.cards", pkinds.get(ph, ()), 2 if ph in pkinds else 0)
    if ph in pkinds and (not pc or len(set(pc)) != len(pc) or (ph in ("law_peek", "artyom") and len(pc) != 2)
                         or pc != sorted(pc)):
        bad(f"pending.cards: expected the distinct cards being chosen among, ascending, got {_short(pc)}")
    v["pending"] = {"cards": pc}
    for key, hi in (("votes", 200), ("max", 8), ("side", 1), ("who", 1), ("station", S - 1), ("taken", 1),
                    ("from", n - 1 if ph in ("take_equipment", "strip_equipment", "discard_equipment") else 5),
                    ("to", 2), ("bought", 1), ("refreshed", 1), ("forced", 1), ("amount", 2), ("resmask", 7)):
        v["pending"][key] = num(pd[key], f"pending.{key}", 0, hi)
    fight = keys(obj["fight"], "fight", ("kind", "side", "station", "who"))
    v["fight"] = {"kind": num(fight["kind"], "fight.kind", 0, 1),
                  "station": num(fight["station"], "fight.station", 0, S - 1),
                  "side": [num(x, "fight.side", 0, n - 1) for x in lst(fight["side"], "fight.side", 2)],
                  "who": [num(x, "fight.who", 0, 1) for x in lst(fight["who"], "fight.who", 2)]}
    cb = obj["combat"]
    v["combat"] = None
    if cb is not None:
        keys(cb, "combat", ("aside", "hands", "picks", "side"))
        if cb["side"] != v["fight"]["side"]:
            bad("combat.side: not the sides of the fight (field 'fight')")
        hands = [cards(x, "combat.hands", ("combat",), 3) for x in lst(cb["hands"], "combat.hands", 2)]
        picks = [cards(x, "combat.picks", ("combat",), 1) for x in lst(cb["picks"], "combat.picks", 2)]
        aside = cards(cb["aside"], "combat.aside", ("combat",), MAXC)
        if any(h != sorted(h) for h in hands):
            bad("combat.hands: a hand is in ascending order")
        if sorted(aside + hands[0] + hands[1] + picks[0] + picks[1]) != [c for c in range(C) if types[c] == "combat"]:
            bad("combat: the combat cards must each be in exactly one place during a fight")
        if any(len(hands[s]) + len(picks[s]) != 3 for s in range(2)):
            bad("combat: each side holds three combat cards, hand and pick together (G21)")
        v["combat"] = {"hands": hands, "picks": picks, "aside": aside}
    v["agenda"] = []
    for task in lst(obj["agenda"], "agenda", most=MAX_AGENDA):
        if not isinstance(task, list) or len(task) != 4 or not isinstance(task[0], str) or task[0] not in TASK_NAMES:
            bad(f"agenda: {_short(task)} is not a task [name, a, b, c] (names: {', '.join(TASK_NAMES)})")
        kinds = _TASK_ARGS[TASK_NAMES.index(task[0])]
        args = []
        for j in range(3):
            kind = kinds[j] if j < len(kinds) else ""
            hi = {"": 0, "p": n - 1, "s": S - 1, "w": 1, "b": 1, "m": 7, "k": 2, "r": 2}[kind]
            args.append(num(task[1 + j], f"agenda: task {_short(task)}", 0, hi))
        v["agenda"].append((task[0], args[0], args[1], args[2]))

    # ---- the invariants between fields
    # every threat, equipment, quest and law card in exactly one place (G3, G5)
    places = [c for pile in v["decks"] + v["discards"] for c in pile] + v["out"] + pc
    places += [c for c in v["market"] + [v["law"], v["threat_now"]] if c >= 0]
    if v["vote"] is not None:
        places.append(v["vote"][0])
    for p in range(n):
        places += v["equipment"][p] + v["quests"][p] + v["done_quests"][p] + v["scouted"][p]
    if sorted(places) != [c for c in range(C) if types[c] in ("threat", "equipment", "quest", "law")]:
        bad("the threat, equipment, quest and law cards must each be in exactly one place")
    frame, run = _check_agenda(v, bad)
    if frame == "setup" and any(x[0] == "setup" for x in v["agenda"]):
        # G7's setup still to come: nothing on the board or in the players' hands yet
        if any(o >= 0 for o in v["owner"] + v["hero_at"]) or any(
                v[key][p] for key in ("vp", "army", "equipment", "quests", "done_quests", "quest_used", "scouted")
                for p in range(n)) or any(x != [0, 0, 0] for x in v["res"]):
            bad("before the setup (agenda task 'setup'), no station is held and no player has anything")
    else:
        for p in range(n):
            if v["faction"][p] < 0 or v["hero"][p] < 0:
                bad(f"faction, hero: player {p} has not drafted both, yet the setup is done")
            if v["vp"][p] != v["owner"].count(p) + len(v["done_quests"][p]):
                bad(f"vp: player {p} has {v['vp'][p]} VP, not their stations plus completed quests")
    # G7: the drafts in order (factions 0..n-1, heroes n-1..0), the heroes placed 0..n-1
    drafted = ([p < run[1] for p in range(n)], [False] * n, [False] * n) if run and run[0] == "draft_faction" else \
        ([True] * n, [p > run[1] for p in range(n)], [False] * n) if run and run[0] == "draft_hero" else \
        ([True] * n, [True] * n, [p < run[1] for p in range(n)]) if run and run[0] == "place_hero" else \
        ([True] * n, [True] * n, [True] * n)
    for name, done in zip(("faction", "hero", "hero_at"), drafted):
        if [x >= 0 for x in v[name]] != done:
            bad(f"{name}: {_short(obj[name])} is not what the draft order gives (G7)")
    if v["winner"] >= 0 and not v["over"]:
        bad("winner: a winner while the game goes on")
    stage, lim = v["stage"], 2 if v["stage"] == 1 else 3
    # G31, G34: the threat decks of the stage in play, the equipment limit
    if stage == 2 and (v["decks"][K_THREAT1] or v["discards"][K_THREAT1]):
        bad("decks.threat1, discards.threat1: stage 2 has put the stage-1 threats out of the game")
    if stage == 1 and v["discards"][K_THREAT2]:
        bad("discards.threat2: no stage-2 threat is fought in stage 1")
    for p in range(n):
        extra = 1 if ph == "discard_equipment" and p == dd else 0
        if len(v["equipment"][p]) > lim + extra or (extra and len(v["equipment"][p]) != lim + 1):
            bad(f"equipment: player {p} holds {len(v['equipment'][p])}, the limit is {lim} (G18)")
        if v["scouted"][p] and (t.stage[v["scouted"][p][0]] != stage or v["scouted_round"][p] > v["round"]):
            bad(f"scouted: player {p}'s threat is not of this stage, or scouted in a later round (G24)")
        if v["scouted_round"][p] > v["round"]:
            bad(f"scouted_round: player {p} scouted in round {v['scouted_round'][p]}, after round {v['round']}")
    for c in (v["threat_now"], v["pending"]["cards"][0] if ph == "artyom" else -1):
        if c >= 0 and t.stage[c] != stage:
            bad(f"threat_now, pending.cards: threat {game.card_names[c]} is not of stage {stage}")
    # G14: threat declarations: of the seats before the one declaring, all during the fights
    threat = frame == "round" and run[0] == "threat_reveal"
    if (v["threat_now"] >= 0) != threat:
        bad("threat_now: a threat is revealed exactly while its fights are on (G14)")
    pos = {q: i for i, q in enumerate((v["first"] + i) % n for i in range(n))}
    for q in range(n):
        st, hero = v["declared"][q]
        if ph == "declare" and frame == "round" and run[0] == "declare":
            should = pos[q] < pos[dd]
        else:
            should = threat
        if (st >= 0) != should:
            bad(f"declared: player {q}'s declaration is out of turn (G14)")
        if st >= 0 and not threat and (v["owner"][st] != q or (hero and (v["hero_at"][q] != st or v["wounded"][q]))):
            bad(f"declared: player {q} declared a station they do not hold, or a hero not there (G14)")
    # G13: the vote
    if (v["vote"] is not None) != (ph == "vote"):
        bad("vote: a vote is open exactly while votes are cast (G13)")
    if ph == "vote":
        def votes(q):
            return v["owner"].count(q) + t.votes[v["faction"][q]]
        cast = sum(votes(q) for q in range(n) if pos[q] < pos[dd])
        if v["vote"][1] + v["vote"][2] != cast or v["pending"]["votes"] != votes(dd):
            bad("vote, pending.votes: not the votes of the seats that voted, and of the one voting (G13)")
    # G21: the combat cards are dealt exactly while they are picked
    if (v["combat"] is not None) != (ph == "combat_pick"):
        bad("combat: combat cards are out exactly while they are picked (G21)")
    pdv, fg = v["pending"], v["fight"]
    if ph == "combat_pick":
        side = pdv["side"]
        if dd != fg["side"][side] or [bool(x) for x in v["combat"]["picks"]] != [side == 1, False]:
            bad("pending.side, combat.picks: the attacker picks first, then the defender (G21)")
    if ph in ("defender", "combat_pick"):
        q, st = fg["side"][1], fg["station"]
        if fg["kind"] == 0 and v["owner"][st] != q:
            bad("fight.station: the station attacked is not the defender's")
        if fg["kind"] == 1 and fg["who"][1] != 1:
            bad("fight.who: a hero attacked defends as a hero (G22)")
        if ph == "defender" and (dd != q or fg["kind"] != 0 or v["hero_at"][q] != st or v["wounded"][q]):
            bad("fight: the defender chooses only when their unwounded hero stands at the station (G20)")
    if ph in ("take_equipment", "strip_equipment"):
        if pdv["from"] == dd or sorted((pdv["from"], dd)) != sorted(fg["side"]) or not v["equipment"][pdv["from"]]:
            bad("pending.from: equipment is taken from the other side of the fight, who holds some (G25)")
    if ph == "discard_equipment" and pdv["from"] != dd:
        bad("pending.from: a player discards their own equipment (G18)")
    if ph == "hire":
        r = v["res"][dd]
        if pdv["max"] != min(r[0], r[2], 8 - v["army"][dd]) or pdv["max"] < 1:
            bad("pending.max: not what the player can hire (G16)")
    if ph == "law_look" and (not t.peek[v["faction"][dd]] or len(v["decks"][K_LAW]) < 2
                             or any(t.peek[v["faction"][q]] for q in range(n) if pos[q] < pos[dd])):
        bad("phase 'law_look': the first Confederation of 1905 in turn order looks at two laws or not (G31)")
    if ph == "polis_res":
        ev = TRACK[0] if v["round"] == 1 else TRACK[1 + (v["round"] - 2) % 9]
        if pdv["resmask"] != ev & 7 or pdv["amount"] != (2 if v["round"] == 1 else 1):
            bad("pending.resmask, pending.amount: not the round's production (G10)")
    if ph in ("exchange_to", "exchange_amount"):
        if pdv["from"] > 2 or v["res"][dd][pdv["from"]] == 0 or (ph == "exchange_amount" and pdv["to"] == pdv["from"]):
            bad("pending.from, pending.to: an exchange is from a resource held to another (G18)")
    if ph in ("scout_return", "artyom"):
        _, who, st = (v["agenda"][len(v["agenda"]) - 1][1:] if ph == "scout_return" else (dd, pdv["who"], pdv["station"]))
        if (v["owner"][st] >= 0 or MAP.m.kind[st] >= 3 or (who == 1 and v["hero_at"][dd] != st)
                or (ph == "artyom" and (who != 1 or not t.threat_choice[v["hero"][dd]]))):
            bad("pending.station, agenda: a neutral fight is at a neutral producing station (G23, G24)")
        if ph == "scout_return" and (not v["scouted"][dd] or v["scouted_round"][dd] >= v["round"]):
            bad("scouted: a scouted threat returns only in a later round (G24)")
    if ph == "capture":
        st = pdv["station"]
        cost = [1 - pdv["taken"], 1, 0]
        if v["law"] >= 0:
            cost = [cost[r] + t.capture_cost[v["law"]][r] for r in range(3)]
        if v["owner"][st] >= 0 or MAP.m.kind[st] in (M33_HANSA, M33_ABANDONED) or any(
                v["res"][dd][r] < cost[r] for r in range(3)):
            bad("pending.station: a capture is of a neutral station, paid for (G15)")
    return v


def _fit(int size, int room, where):
    """The copy-in's own guard: a length must fit its C array before anything is written."""
    if not 0 <= size <= room:
        raise StateFormatError(f"metro2033 state: {where}: {size} entries, room for {room}")
    return size


cdef int _put(signed char* dst, cards, int room, where) except -1:
    """Write the checked ids `cards` into the C array `dst` of `room` entries, its length checked
    first (``_fit``); returns how many."""
    cdef int n = _fit(len(cards), room, where), i
    for i in range(n):
        dst[i] = cards[i]
    return n


def _copy_in(Metro2033State st, dict v):
    """Write `_validate`'s values into the fresh struct, every length checked before its write."""
    cdef Data* d = &st.m.d
    cdef int n = v["n"], i, p, k, s
    memset(d, 0, sizeof(Data))
    d.n = _fit(n, sizeof(d.vp) // sizeof(d.vp[0]), "players")     # the per-player arrays' room (G1: 6)
    d.rng = <uint64_t>v["rng"]
    for k in range(5):
        d.deck_n[k] = _put(d.deck[k], v["decks"][k], MAXC, "decks")
        d.disc_n[k] = _put(d.disc[k], v["discards"][k], MAXC, "discards")
    d.out_n = _put(d.out, v["out"], MAXC, "out")
    _put(d.market, v["market"], 4, "market")
    d.law = v["law"]
    for c, mask in v["known"].items():
        _fit(c, MAXC - 1, "known")
        d.known[c] = mask
    _put(d.owner, v["owner"], S, "owner")
    for p in range(n):
        d.faction[p] = v["faction"][p]
        d.hero[p] = v["hero"][p]
        d.hero_at[p] = v["hero_at"][p]
        d.wounded[p] = v["wounded"][p]
        d.vp[p] = v["vp"][p]
        d.army[p] = v["army"][p]
        for i in range(3):
            d.res[p][i] = v["res"][p][i]
        d.equip_n[p] = _put(d.equip[p], v["equipment"][p], MAXE, "equipment")
        d.quest_n[p] = _put(d.quests[p], v["quests"][p], MAXQ, "quests")
        d.done_n[p] = _put(d.done[p], v["done_quests"][p], MAXQ, "done_quests")
        d.used_n[p] = _put(d.used[p], v["quest_used"][p], MAXQ, "quest_used")
        d.scouted[p] = v["scouted"][p][0] if v["scouted"][p] else -1
        d.scouted_round[p] = v["scouted_round"][p]
        d.decl_station[p], d.decl_hero[p] = v["declared"][p]
    d.threat_now = v["threat_now"]
    d.last_threat = v["last_threat"]
    if v["vote"] is not None:
        d.vote_on = True
        d.vote_law, d.vote_for, d.vote_against = v["vote"]
    if v["last_vote"] is not None:
        d.last_vote_on = True
        d.last_vote[0], d.last_vote[1], d.last_vote[2] = v["last_vote"]
    d.round, d.first, d.stage = v["round"], v["first"], v["stage"]
    d.over = v["over"]
    d.winner = v["winner"]
    d.phase = PHASES.index(v["phase"])
    d.decider = v["decider"]
    pd = v["pending"]
    d.pd_ncards = _put(d.pd_cards, pd["cards"], 2, "pending.cards")
    d.pd_votes, d.pd_max, d.pd_side, d.pd_who = pd["votes"], pd["max"], pd["side"], pd["who"]
    d.pd_station, d.pd_taken, d.pd_from, d.pd_to = pd["station"], pd["taken"], pd["from"], pd["to"]
    d.pd_bought, d.pd_refreshed, d.pd_forced = pd["bought"], pd["refreshed"], pd["forced"]
    d.pd_amount, d.pd_resmask = pd["amount"], pd["resmask"]
    fg = v["fight"]
    d.cx_kind, d.cx_station = fg["kind"], fg["station"]
    for s in range(2):
        d.cx_side[s] = fg["side"][s]
        d.cx_who[s] = fg["who"][s]
    cb = v["combat"]
    d.pick[0] = d.pick[1] = -1
    if cb is not None:
        d.combat_on = True
        for s in range(2):
            d.hand_n[s] = _put(d.hand[s], cb["hands"][s], 8, "combat.hands")
            if cb["picks"][s]:
                d.pick[s] = cb["picks"][s][0]
        d.aside_n = _put(d.aside, cb["aside"], MAXC, "combat.aside")
    d.ag_n = _fit(len(v["agenda"]), MAXT, "agenda")
    for i, (name, a, b, c) in enumerate(v["agenda"]):
        d.ag[i].name = TASK_NAMES.index(name)
        d.ag[i].a, d.ag[i].b, d.ag[i].c = a, b, c

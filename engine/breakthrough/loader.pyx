# cython: language_level=3
"""Metro 2033: Breakthrough: rebuilding a state from its JSON form, checked against the rules.

``BreakthroughGame.state_from_json`` checks the envelope (``engine/core``) and calls
``load_state`` here, which checks every field and the invariants between them before the state
is handed out: a state it accepts is one the engine can play.
"""
from libc.stdint cimport uint64_t

from metro_ai.engine.breakthrough.rules cimport *
from metro_ai.engine.breakthrough.state cimport BreakthroughGame, BreakthroughState
from metro_ai.engine.errors import StateFormatError, brief
from metro_ai.engine.breakthrough.rules import PHASES, THREAT_TYPES, names_of_bits



TASKS = ("draw", "monster", "refill", "next_turn")
PENDING_FIELDS = {"quest_hero": {"kind", "card"}, "quest_pay": {"kind", "card", "hero", "paid"},
                  "keep_station": {"kind", "card", "k"},
                  "discard3": {"kind", "last", "left"},
                  "protect": {"kind", "threats", "uncovered", "card"}, "free_play": {"kind", "card"},
                  "lose_station": {"kind", "card"}}


def _is_int(v, lo, hi):
    return not isinstance(v, bool) and isinstance(v, int) and lo <= v <= hi


def check_shapes(BreakthroughGame game, obj, bad):
    """The first pass (docs DESIGN, "Trust at the edges"): every field of `obj` has its JSON type,
    its length and its values' ranges (every int that reaches the C struct fits the field that
    holds it and the array it indexes), or ``bad(message)`` names the field. Nothing is written
    anywhere; ``load_state`` copies the values in only after this pass, then checks the rules'
    invariants between fields."""
    cdef int n = game.tables.players, C = game.tables.C
    cdef int turn_limit = game.tables.turn_limit

    def need_int(v, lo, hi, where):
        if not _is_int(v, lo, hi):
            bad(f"{where} must be an int in {lo}..{hi}, got "
                + (brief(v) if isinstance(v, int) and not isinstance(v, bool) else type(v).__name__))
        return v

    def need_list(v, where, length=None, most=None, least=0):
        if not isinstance(v, list):
            bad(f"{where} must be a list, got {type(v).__name__}")
        if length is not None and len(v) != length:
            bad(f"{where} must be a list of {length} entries, got {len(v)}")
        if most is not None and len(v) > most:
            bad(f"{where} must be a list of at most {most} entries, got {len(v)}")
        if len(v) < least:
            bad(f"{where} must be a list of at least {least} entries, got {len(v)}")
        return v

    def need_dict(v, where, keys=None):
        if not isinstance(v, dict):
            bad(f"{where} must be an object, got {type(v).__name__}")
        if keys is not None and set(v) != keys:
            bad(f"{where} must have exactly the fields {sorted(keys)}, got {brief(sorted(map(str, v)))}")
        return v

    def need_str(v, choices, where):
        if not isinstance(v, str) or v not in choices:
            bad(f"{where} must be one of {list(choices)}")
        return v

    def ints(v, where, lo, hi, **size):
        for i, x in enumerate(need_list(v, where, **size)):
            need_int(x, lo, hi, f"{where}[{i}]")

    need_int(obj["turn"], 1, turn_limit, "turn")
    need_int(obj["active"], 0, n - 1, "active")
    need_int(obj["current_player"], -1, n - 1, "current_player")
    phase = need_str(obj["phase"], PHASES, "phase")
    if not isinstance(obj["main_done"], bool):
        bad("main_done must be a boolean")
    if obj["winner"] is not None:
        need_int(obj["winner"], 0, n - 1, "winner")
    ints(obj["factions"], "factions", 0, C - 1, length=n)
    for i, x in enumerate(need_list(obj["faction_done"], "faction_done", length=n)):
        if not isinstance(x, bool):
            bad(f"faction_done[{i}] must be a boolean")
    for key in ("above", "below", "supply"):
        ints(obj[key], key, 0, TOKENS_PER_COLOUR, length=n)
    if "tokens" in obj:
        ints(obj["tokens"], "tokens", 0, TOKENS_PER_COLOUR, length=n)
    need_list(obj["hands"], "hands", length=n)
    need_list(obj["known"], "known", length=n)
    need_list(obj["hand_gen"], "hand_gen", length=n)
    need_list(obj["tableaux"], "tableaux", length=n)
    for p in range(n):
        ints(obj["hands"][p], f"hands[{p}]", 0, C - 1, most=BT_HAND)
        ints(obj["known"][p], f"known[{p}]", 0, C - 1, most=BT_HAND)
        if len(set(obj["known"][p])) != len(obj["known"][p]):
            bad(f"known[{p}] names a card twice")
        gens = need_dict(obj["hand_gen"][p], f"hand_gen[{p}]")
        if len(gens) > BT_HAND:
            bad(f"hand_gen[{p}] must have at most {BT_HAND} entries, got {len(gens)}")
        for key, g in gens.items():
            if not isinstance(key, str) or not key.isascii() or not key.isdigit() or len(key) > 3:
                bad(f"hand_gen[{p}]: keys must be card ids in decimal")
            need_int(g, 0, 2**31 - 1, f"hand_gen[{p}][{key}]")
        for i, e in enumerate(need_list(obj["tableaux"][p], f"tableaux[{p}]", most=C)):
            need_dict(e, f"tableaux[{p}][{i}]", {"card", "rotated", "tokens"})
            need_int(e["card"], 0, C - 1, f"tableaux[{p}][{i}].card")
            if not isinstance(e["rotated"], bool):
                bad(f"tableaux[{p}][{i}].rotated must be a boolean")
            need_int(e["tokens"], 0, TOKENS_PER_COLOUR, f"tableaux[{p}][{i}].tokens")
    for s, m in enumerate(need_list(obj["market"], "market", length=BT_MARKET)):
        if m is not None:
            need_int(m, 0, C - 1, f"market[{s}]")
    ints(obj["deck"], "deck", 0, C - 1, most=C)
    ints(obj["discard"], "discard", 0, C - 1, most=C)
    need_int(obj["deck_generation"], 0, 2**31 - 1, "deck_generation")
    rs = obj["rng_state"]
    if isinstance(rs, str):
        if not rs.isascii() or not rs.isdigit() or len(rs) > 20:
            bad("rng_state must be an unsigned 64-bit int (as a decimal string)")
        rs = int(rs)
    need_int(rs, 0, 2**64 - 1, "rng_state")
    for i, task in enumerate(need_list(obj["agenda"], "agenda", most=3)):
        kind = need_str(need_dict(task, f"agenda[{i}]").get("task"), TASKS, f"agenda[{i}].task")
        where = f"agenda[{i}] ({kind})"
        if kind == "draw":
            need_dict(task, where, {"task", "player", "left"})
            need_int(task["player"], 0, n - 1, f"{where}.player")
            need_int(task["left"], 1, 3, f"{where}.left")
        elif kind == "monster":
            need_dict(task, where, {"task", "card", "order", "stage"})
            need_int(task["card"], 0, C - 1, f"{where}.card")
            ints(task["order"], f"{where}.order", 0, n - 1, least=1, most=n)
            need_str(task["stage"], ("check", "protect", "free"), f"{where}.stage")
        elif kind == "refill":
            need_dict(task, where, {"task", "order"})
            ints(task["order"], f"{where}.order", 0, n - 1, least=1, most=n)
        else:
            need_dict(task, where, {"task"})
    pend = obj["pending"]
    if pend is None:
        return
    kind = need_str(need_dict(pend, "pending").get("kind"), tuple(PENDING_FIELDS), "pending.kind")
    need_dict(pend, f"pending ({kind})", PENDING_FIELDS[kind])
    if "card" in pend:
        need_int(pend["card"], 0, C - 1, "pending.card")
    if kind == "quest_pay":
        if pend["hero"] is not None:
            need_int(pend["hero"], 0, C - 1, "pending.hero")
        ints(pend["paid"], "pending.paid", 0, C - 1, most=C)
    elif kind == "keep_station":
        need_int(pend["k"], 1, TOKENS_PER_COLOUR, "pending.k")
    elif kind == "discard3":
        need_int(pend["last"], 0, C - 1, "pending.last")
        need_int(pend["left"], 1, 2, "pending.left")
    elif kind == "protect":
        for key in ("threats", "uncovered"):
            for i, x in enumerate(need_list(pend[key], f"pending.{key}", most=len(THREAT_TYPES))):
                need_str(x, THREAT_TYPES, f"pending.{key}[{i}]")


def load_state(BreakthroughGame game, obj):
    """The state `obj` describes (its envelope already checked by ``Game.state_from_json``), or
    StateFormatError saying what is wrong. Two passes: ``check_shapes`` checks every value's
    type, length and range before anything is written; then the values are copied into the C
    struct of a blank state (not handed out until every check passed), checking the rules'
    invariants between fields as they go."""
    def bad(msg):
        raise StateFormatError(f"breakthrough state: {msg}")
    cdef const BtTables* t = &game.tables
    cdef BreakthroughState st = game._blank()
    cdef BtData* d = &st.d
    cdef int n = t.players, C = t.C
    check_shapes(game, obj, bad)
    clear_state(d, t)
    names = game.card_names
    where_of = {}

    def is_int(v, lo=None, hi=None):
        return (not isinstance(v, bool) and isinstance(v, int) and (lo is None or v >= lo)
                and (hi is None or v <= hi))

    def card(v, where):
        if not is_int(v, 0, C - 1):
            bad(f"{where}: unknown card {v!r} (card ids are 0..{C - 1})")
        if v in where_of:
            bad(f"card {v} ({names[v]}) is both in {where_of[v]} and in {where}")
        where_of[v] = where
        return v

    def int_list(key, lo, hi):
        v = obj[key]
        if not isinstance(v, list) or len(v) != n or not all(is_int(x, lo, hi) for x in v):
            bad(f"{key} must be a list of {n} ints in {lo}..{hi}")
        return v

    def bool_list(key):
        v = obj[key]
        if not isinstance(v, list) or len(v) != n or not all(isinstance(x, bool) for x in v):
            bad(f"{key} must be a list of {n} booleans")
        return v

    # factions
    fids = game.faction_ids()
    facs = obj["factions"]
    if not isinstance(facs, list) or len(facs) != n:
        bad(f"factions must be a list of {n} faction card ids")
    for p, f in enumerate(facs):
        if f not in fids or isinstance(f, bool):
            bad(f"factions[{p}]: {f!r} is not a faction card")
        card(f, f"player {p}'s faction")
        d.faction[p] = f
    if game.factions != "random" and [names[f] for f in facs] != list(game.factions):
        bad(f"factions {facs!r} differ from the game's chosen factions {list(game.factions)!r}")
    for p, v in enumerate(bool_list("faction_done")):
        d.fdone[p] = v
    # hands
    hands, known, hand_gen = obj["hands"], obj["known"], obj["hand_gen"]
    if not isinstance(hands, list) or len(hands) != n:
        bad(f"hands must be a list of {n} lists")
    if not isinstance(known, list) or len(known) != n:
        bad(f"known must be a list of {n} lists")
    if not isinstance(hand_gen, list) or len(hand_gen) != n or not all(isinstance(x, dict) for x in hand_gen):
        bad(f"hand_gen must be a list of {n} objects")
    deck_gen = obj["deck_generation"]
    if not is_int(deck_gen, 0, 2**31 - 1):
        bad(f"deck_generation must be an int >= 0, got {deck_gen!r}")
    d.deck_gen = deck_gen
    for p in range(n):
        h = hands[p]
        if not isinstance(h, list) or len(h) > BT_HAND:
            bad(f"hand of player {p} must be a list of at most {BT_HAND} cards")
        if list(h) != sorted(h, key=lambda v: v if is_int(v) else -1):
            bad(f"hand of player {p} must be sorted by card id (R23)")
        kn = known[p]
        if not isinstance(kn, list):
            bad(f"known[{p}] must be a list")
        gens = hand_gen[p]
        for c in h:
            card(c, f"player {p}'s hand")
            if t.ctype[c] == CT_FACTION:
                bad(f"player {p}'s hand holds the faction card {c} ({names[c]})")
            if c in kn:
                if str(c) in gens:
                    bad(f"card {c} in player {p}'s hand is both known and a blind draw")
                hand_add(d, p, c, -1)
            else:
                g = gens.get(str(c))
                if not is_int(g, 0, deck_gen):
                    bad(f"hand_gen of player {p}: card {c} needs a deck generation 0..{deck_gen}, got {g!r}")
                hand_add(d, p, c, g)
        for c in kn:
            if c not in h:
                bad(f"known[{p}]: card {c!r} is not in player {p}'s hand")
        for key in gens:
            if not isinstance(key, str) or not key.isascii() or not key.isdigit() or int(key) not in h \
                    or int(key) in kn:
                bad(f"hand_gen of player {p}: {key!r} is not a blind draw in that hand")
    # tableaux
    tabs = obj["tableaux"]
    if not isinstance(tabs, list) or len(tabs) != n:
        bad(f"tableaux must be a list of {n} lists")
    for p in range(n):
        if not isinstance(tabs[p], list):
            bad(f"tableaux[{p}] must be a list")
        for e in tabs[p]:
            if not isinstance(e, dict) or set(e) != {"card", "rotated", "tokens"}:
                bad(f"tableaux[{p}]: each entry is {{\"card\", \"rotated\", \"tokens\"}}, got {e!r}")
            c = card(e["card"], f"player {p}'s tableau")
            if t.ctype[c] == CT_FACTION:
                bad(f"player {p}'s tableau holds the faction card {c} ({names[c]})")
            if not isinstance(e["rotated"], bool):
                bad(f"tableaux[{p}]: card {c}: rotated must be a boolean")
            if e["rotated"] and not t.rot_ok[c]:
                bad(f"tableaux[{p}]: card {c} ({names[c]}) cannot be played rotated")
            if not e["rotated"] and not t.play_ok[c]:
                bad(f"tableaux[{p}]: card {c} ({names[c]}) cannot be played face up")
            if not is_int(e["tokens"], 0, TOKENS_PER_COLOUR):
                bad(f"tableaux[{p}]: card {c}: tokens must be an int 0..10")
            if e["tokens"] and t.ctype[c] != CT_STATION:
                bad(f"tableaux[{p}]: card {c} ({names[c]}) is not a station and cannot carry tokens")
            bit_set(d.tab[p], c)
            if e["rotated"]:
                bit_set(d.rot, c)
            d.tok[c] = e["tokens"]
    # market, deck, discard
    mk = obj["market"]
    if not isinstance(mk, list) or len(mk) != BT_MARKET:
        bad("market must be a list of 3 slots (card id or null)")
    for s, m in enumerate(mk):
        if m is None:
            d.market[s] = BT_NONE
        else:
            c = card(m, f"market slot {s}")
            if t.ctype[c] == CT_FACTION:
                bad(f"market slot {s} holds a faction card")
            d.market[s] = c
    deck = obj["deck"]
    if not isinstance(deck, list):
        bad("deck must be a list (top card first)")
    for i, v in enumerate(deck):
        c = card(v, "the deck")
        if t.ctype[c] == CT_FACTION:
            bad(f"the deck holds the faction card {c}")
    d.deck_n = len(deck)
    for i in range(len(deck)):
        d.deck[i] = deck[len(deck) - 1 - i]
    disc = obj["discard"]
    if not isinstance(disc, list):
        bad("discard must be a list (oldest first)")
    for v in disc:
        c = card(v, "the discard pile")
        if t.ctype[c] == CT_FACTION:
            bad(f"the discard pile holds the faction card {c}")
        d.disc[d.disc_n] = c
        d.disc_n += 1
    for c in range(C):
        if c not in where_of and t.ctype[c] != CT_FACTION:
            bad(f"card {c} ({names[c]}) is missing: every card must be in exactly one place")
    # tokens
    above, below, supply = int_list("above", 0, 10), int_list("below", 0, 10), int_list("supply", 0, 10)
    for p in range(n):
        on = sum(e["tokens"] for e in tabs[p])
        if above[p] + below[p] + supply[p] + on != TOKENS_PER_COLOUR:
            bad(f"player {p} has {above[p]} above + {below[p]} below + {on} on stations + "
                f"{supply[p]} in the supply; a colour has {TOKENS_PER_COLOUR} tokens")
        d.above[p], d.below[p], d.supply[p] = above[p], below[p], supply[p]
    if "tokens" in obj and obj["tokens"] != st.scores():
        bad(f"tokens {obj['tokens']!r} do not match the token areas, which give {st.scores()!r}")
    # turn, players, phase
    turn = obj["turn"]
    if not is_int(turn, 1, t.turn_limit):
        bad(f"turn must be an int in 1..{t.turn_limit} (the turn limit), got {turn!r}")
    d.turn = turn
    active = obj["active"]
    if not is_int(active, 0, n - 1):
        bad(f"active must be a player 0..{n - 1}, got {active!r}")
    if active != (turn - 1) % n:
        bad(f"turn {turn} is player {(turn - 1) % n}'s turn (player 0 plays turn 1, then clockwise, B1), "
            f"but active is {active}")
    d.active = active
    if not isinstance(obj["main_done"], bool):
        bad("main_done must be a boolean")
    d.main_done = obj["main_done"]
    rs = obj["rng_state"]
    if isinstance(rs, str) and rs.isascii() and rs.isdigit():
        rs = int(rs)
    if not is_int(rs, 0, 2**64 - 1):
        bad(f"rng_state must be an unsigned 64-bit int (as a decimal string), got {rs!r}")
    d.rng = rs
    phase = obj["phase"]
    if phase not in PHASES:
        bad(f"phase must be one of {PHASES}, got {phase!r}")
    d.phase = PHASES.index(phase)
    cur = obj["current_player"]
    if not is_int(cur, -1, n - 1):
        bad(f"current_player must be -1..{n - 1}, got {cur!r}")
    winner = obj["winner"]
    if winner is not None and not is_int(winner, 0, n - 1):
        bad(f"winner must be null or a player, got {winner!r}")
    sc = st.scores()
    if phase == "over":
        if cur != -1:
            bad("current_player must be -1 once the game is over")
        if winner is None:
            if max(sc) >= WIN_TOKENS:
                bad("a player holds 10 tokens, so the game has a winner (B8)")
            if turn != t.turn_limit:
                bad(f"a game without winner ends at the turn limit {t.turn_limit} (R18)")
        elif sc[winner] < WIN_TOKENS:
            bad(f"winner {winner} holds {sc[winner]} tokens, not {WIN_TOKENS} (B8)")
        else:
            # B8, R4: only the player completing a quest gains tokens and the win is checked at
            # once, so no other player can also hold 10.
            for q in range(n):
                if q != winner and sc[q] >= WIN_TOKENS:
                    bad(f"winner {winner}: player {q} holds {sc[q]} tokens too; the first to reach "
                        f"{WIN_TOKENS} ends the game (B8)")
        d.winner = -1 if winner is None else winner
        d.decider = -1
    else:
        if winner is not None:
            bad("a game with a winner is over")
        if max(sc) >= WIN_TOKENS:
            bad("a player holds 10 tokens: the game should be over (B8)")
        if cur < 0:
            bad("current_player is -1 but the game is not over")
        d.decider = cur
    _load_agenda(st, obj, bad)
    _load_pending(st, obj, bad)
    return st


def _load_agenda(BreakthroughState st, obj, bad):
    cdef BtData* d = &st.d
    n = st.t.players
    ag = obj["agenda"]
    phase = obj["phase"]
    if not isinstance(ag, list) or not all(isinstance(x, dict) and "task" in x for x in ag):
        bad("agenda must be a list of tasks {\"task\": ...}")
    kinds = [x["task"] for x in ag]
    allowed = {"main": [[]], "quest_hero": [[]], "quest_pay": [[]], "keep_station": [[]], "discard3": [[]],
               "over": [[]],
               "draw": [["draw"], ["refill"], ["refill", "next_turn"]],
               "protect": [["monster", "refill"]], "free_play": [["monster", "refill"]],
               "lose_station": [["monster", "refill"]]}[phase]
    if kinds not in allowed:
        bad(f"agenda {kinds!r} does not fit phase {phase!r} (expected one of {allowed!r})")
    rot = [(d.active + i) % n for i in range(n)]
    cur = obj["current_player"]
    if phase in ("main", "quest_hero", "quest_pay", "keep_station", "discard3") and cur != d.active:
        bad(f"in phase {phase!r} the active player {d.active} decides, not {cur}")
    if phase in ("discard3", "draw", "protect", "free_play", "lose_station") and not d.main_done:
        bad(f"phase {phase!r} comes after the main action: main_done must be true")
    for task in ag:
        kind = task["task"]
        if kind == "draw":
            if set(task) != {"task", "player", "left"} or task["player"] != d.active or \
                    not _is_int(task["left"], 1, 3):
                bad(f"draw task must be {{\"task\": \"draw\", \"player\": {d.active}, \"left\": 1..3}}, got {task!r}")
            if cur != d.active:
                bad("the active player draws after the main action")
            if d.hand_n[d.active] + task["left"] > BT_HAND:
                bad(f"draw task: {task['left']} more cards would make a hand of more than {BT_HAND}")
            d.todo_draw = task["left"]
        elif kind == "monster":
            if set(task) != {"task", "card", "order", "stage"}:
                bad(f"monster task needs card, order and stage, got {task!r}")
            c = task["card"]
            if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < st.t.C or st.t.ctype[c] != CT_THREAT:
                bad(f"monster task: {c!r} is not a threat card")
            order = task["order"]
            if not isinstance(order, list) or not order or order != rot[n - len(order):]:
                bad(f"monster task: order must be the remaining players from the active one clockwise, got {order!r}")
            if order[0] != cur:
                bad(f"monster task: player {order[0]} is attacked, but player {cur} decides")
            if task["stage"] not in ("check", "protect", "free"):
                bad(f"monster task: stage must be check, protect or free, got {task['stage']!r}")
            stage = ("check", "protect", "free").index(task["stage"])
            want = {"protect": ST_PROTECT, "free_play": ST_FREE, "lose_station": ST_CHECK}[phase]
            if stage != want:
                bad(f"monster task: stage {task['stage']!r} does not fit phase {phase!r}")
            d.todo_monster = 1
            d.mon_card = c
            d.mon_pos = n - len(order)
            d.mon_stage = stage
        elif kind == "refill":
            order = task.get("order")
            if set(task) != {"task", "order"} or not isinstance(order, list) or \
                    not order or order != rot[n - len(order):]:
                bad(f"refill task: order must be the remaining players from the active one clockwise, got {order!r}")
            if phase == "draw" and order[0] != cur:
                bad(f"refill task: player {order[0]} draws next, but player {cur} decides")
            d.todo_refill = 1
            d.refill_pos = n - len(order)
        elif kind == "next_turn":
            if set(task) != {"task"}:
                bad(f"next_turn task takes no fields, got {task!r}")
            d.todo_next_turn = 1
        else:
            bad(f"unknown task {kind!r}")
    if phase == "draw":
        # B1, R17: a player draws during the refill only while holding fewer than five cards
        # (so each draw keeps the hand within BT_HAND).
        if d.hand_n[cur] >= BT_HAND and d.todo_refill:
            bad(f"player {cur} already holds {BT_HAND} cards and cannot be refilling")
        if not card_available(d):
            bad("no card can be drawn, so there is no draw decision")
        if d.todo_refill:
            # R17: each player draws until five before the next one starts, and cards only get
            # scarcer during the refill (nothing is discarded), so the players already refilled
            # hold five cards (else no card was left, and there would be no draw decision now).
            for i in range(d.refill_pos):
                q = (d.active + i) % n
                if d.hand_n[q] != BT_HAND:
                    bad(f"refill task: player {q} was refilled before player {cur} but holds "
                        f"{d.hand_n[q]} cards, not {BT_HAND} (R17)")
    if d.todo_monster and d.refill_pos != 0:
        # B7: the hands refill from the discarder after the whole attack, so while the monster
        # task runs the refill has not started.
        bad("refill task: during a monster attack the refill order is every player from the "
            "active one (B7)")


def _load_pending(BreakthroughState st, obj, bad):
    cdef BtData* d = &st.d
    cdef const BtTables* t = st.t
    cdef int tot[6]
    phase = obj["phase"]
    pend = obj["pending"]
    p = obj["current_player"]
    names = st.game.card_names
    needs = {"quest_hero": {"kind", "card"}, "quest_pay": {"kind", "card", "hero", "paid"},
             "keep_station": {"kind", "card", "k"},
             "discard3": {"kind", "last", "left"},
             "protect": {"kind", "threats", "uncovered", "card"}, "free_play": {"kind", "card"},
             "lose_station": {"kind", "card"}}
    if phase not in needs:
        if pend is not None:
            bad(f"phase {phase!r} has no pending decision data, got {pend!r}")
        return
    if not isinstance(pend, dict) or set(pend) != needs[phase] or pend.get("kind") != phase:
        bad(f"phase {phase!r} needs pending {{{', '.join(sorted(needs[phase]))}}} with kind {phase!r}, got {pend!r}")

    def card_ok(c):
        return not isinstance(c, bool) and isinstance(c, int) and 0 <= c < t.C

    if phase == "discard3":
        last, left = pend["last"], pend["left"]
        if not card_ok(last) or not _is_int(left, 1, 2):
            bad(f"pending discard3: last must be a card id and left 1 or 2, got {pend!r}")
        pile = st.discard()
        picked = 3 - left
        # B1, R5: the hand held at most five cards at the first pick, and the three cards drawn
        # afterwards (B2, R7) bring it back to at most five: hand + picks made <= BT_HAND.
        if d.hand_n[p] + picked > BT_HAND:
            bad(f"pending discard3: left {left} means {picked} picks made, but player {p} still holds "
                f"{d.hand_n[p]} cards, so it held {d.hand_n[p] + picked} (more than {BT_HAND}) before the "
                f"first pick (B1, R5)")
        # R5, R24: each pick goes on top of the discard pile at once, in pick order (strictly
        # increasing ids), and nothing else is discarded or drawn between the picks. Only the
        # market refill at the end of an action (R8) may reshuffle the pile (B3), and only when a
        # slot is empty with no card left anywhere; the pile then holds just the later picks.
        # So the top min(picks, pile size) cards are increasing, end with the last pick, and a
        # pile smaller than the picks made means such a reshuffle (the pile is only those picks).
        top = pile[len(pile) - picked:] if len(pile) >= picked else pile    # (wraparound=False)
        if top and top[len(top) - 1] != last:
            bad(f"pending discard3: the last pick {last} must be on top of the discard pile")
        if any(top[i] >= top[i + 1] for i in range(len(top) - 1)):
            bad(f"pending discard3: left {left} means {picked} picks made, so the top {len(top)} "
                f"cards of the discard pile {top!r} must be increasing card ids (R5, R24)")
        if not top and last not in st.deck() and last not in st.market():
            bad(f"pending discard3: the last pick {last} is neither on the discard pile nor, "
                f"reshuffled (B3), in the deck or the market")
        if sum(1 for c in st.hand(p) if c > last) < left:
            bad(f"pending discard3: fewer than {left} hand cards above id {last} remain (R5)")
        d.discard_last = last
        d.discard_left = left
        return
    c = pend["card"]
    if not card_ok(c):
        bad(f"pending {phase}: card must be a card id, got {c!r}")
    d.pending_card = c
    if phase == "quest_hero":
        if not quest_open(d, t, p, c):
            bad(f"pending quest_hero: card {c} ({names[c]}) is not an open quest of player {p}")
        resource_totals(d, t, p, tot)
        if not any_hero_fits(d, t, p, tot, t.qclass[c], t.qamount[c]):
            bad(f"pending quest_hero: no hero of player {p} can double for {names[c]} (R3)")
    elif phase == "quest_pay":
        _load_payment(st, pend, bad)
    elif phase == "keep_station":
        k = pend["k"]
        if t.ctype[c] != CT_STATION or not bit_has(d.tab[p], c) or d.tok[c] != 0:
            bad(f"pending keep_station: card {c} ({names[c]}) is not a station of player {p} without tokens")
        want = 1 + sum(1 for x, r, tk in st.tableau(p) if tk > 0)
        if k != want or not _is_int(k, 1, TOKENS_PER_COLOUR):
            bad(f"pending keep_station: k must be {want} (1 + stations carrying tokens, B5), got {k!r}")
        d.keep_tokens = k
    else:
        if c != d.mon_card:
            bad(f"pending {phase}: card {c} is not the attacking monster {d.mon_card}")
        if phase == "protect":
            thr = pend["threats"]
            unc = pend["uncovered"]
            if thr != names_of_bits(THREAT_TYPES, t.threats[c]):
                bad(f"pending protect: threats must be the monster's icons {names_of_bits(THREAT_TYPES, t.threats[c])!r}")
            if not isinstance(unc, list) or not unc or any(u not in thr for u in unc) or unc != sorted(set(unc)):
                bad(f"pending protect: uncovered must be a sorted, non-empty list of the monster's icons, got {unc!r}")
            mask = 0
            for u in unc:
                mask |= 1 << THREAT_TYPES.index(u)
            if mask != t.threats[c] and not t.full_protection:
                bad("pending protect: icons are given up one card at a time only under full_protection_required (R13)")
            d.uncovered = mask
            if not st.legal_actions():
                bad(f"pending protect: player {p} has no played protection against {unc!r}")
            # R13: under full_protection_required the player repelled with protection covering
            # every icon, and gives up cards one at a time, each covering an icon not yet covered;
            # the cards still in play then cover every icon still uncovered (else no card could
            # be given up next and the game would stall).
            cover = 0
            for x, r, tk in st.tableau(p):
                if r or t.ctype[x] == CT_HERO:
                    cover |= t.prot[x]
            if t.full_protection and mask & ~cover:
                bad(f"pending protect: player {p}'s protection in play does not cover the uncovered "
                    f"icons {names_of_bits(THREAT_TYPES, mask & ~cover)!r} (R13)")
        elif phase == "free_play":
            if d.hand_n[p] == 0:
                bad(f"pending free_play: player {p} has no card to play")
        elif phase == "lose_station":
            if t.loss[c] != 0:
                bad(f"pending lose_station: {names[c]} does not take a station")
            if not has_station(d, t, p):
                bad(f"pending lose_station: player {p} has no station")


def _load_payment(BreakthroughState st, pend, bad):
    """Pending quest_pay (B5, R2, R3): the quest open, the hero in play, the picks made so far
    on the discard pile as they went, short of the amount, and two or more ways to go on (the
    engine makes a pick with only one possibility itself, so a state waiting for the player has
    at least two)."""
    cdef BtData* d = &st.d
    cdef const BtTables* t = st.t
    cdef int i, total, least, last
    p = st.current_player
    c = pend["card"]
    names = st.game.card_names
    if not quest_open(d, t, p, c):
        bad(f"pending quest_pay: card {c} ({names[c]}) is not an open quest of player {p}")
    h = pend["hero"]
    if h is not None:
        if isinstance(h, bool) or not isinstance(h, int) or not 0 <= h < t.C or t.ctype[h] != CT_HERO \
                or not bit_has(d.tab[p], h):
            bad(f"pending quest_pay: hero must be null or a hero in player {p}'s tableau, got {h!r}")
        d.pay_hero = h
    paid = pend["paid"]
    if not isinstance(paid, list) or any(isinstance(x, bool) or not isinstance(x, int) or
                                                      not 0 <= x < t.C for x in paid) \
            or any(paid[i] >= paid[i + 1] for i in range(len(paid) - 1)):
        bad(f"pending quest_pay: paid must be a list of increasing card ids, got {paid!r}")
    qcls = t.qclass[c]
    for x in paid:
        if t.ctype[x] != CT_RESOURCE or not (qcls == 2 or t.rclass[x] == qcls):
            bad(f"pending quest_pay: {names[x]} (card {x}) is not a resource of the quest's class")
        if any(bit_has(d.tab[q], x) for q in range(t.players)):
            bad(f"pending quest_pay: paid card {x} ({names[x]}) is still in play")
    # R2, R24: each pick goes on top of the discard pile at once, in pick order; only the market
    # refill at the end of an action (R8) may reshuffle the pile in between (B3), so the pile's
    # top holds the later picks and the earlier ones went to the deck or the market.
    pile = st.discard()
    k = min(len(paid), len(pile))
    if pile[len(pile) - k:] != paid[len(paid) - k:]:
        bad(f"pending quest_pay: the picks {paid!r} must be the top of the discard pile, in order (R24)")
    gone = set(st.deck()) | set(st.market())
    if any(x not in gone for x in paid[:len(paid) - k]):
        bad(f"pending quest_pay: the picks {paid!r} not on the discard pile must have been reshuffled (B3)")
    for x in paid:
        bit_set(d.pay_mask, x)
    paid_so_far(d, t, &total, &least, &last)
    if total >= t.qamount[c]:
        bad(f"pending quest_pay: {total} paid already covers the amount {t.qamount[c]} of {names[c]}")
    if len(st.legal_actions()) < 2:
        bad(f"pending quest_pay: the picks {paid!r} do not leave two or more ways to complete a minimal "
            f"payment for {names[c]} (R2)")

# cython: language_level=3
"""Metro: the City Edition cities' loader (C5-C10, C34): ``load_state``, the cities module's
loader hook (``cities.CitiesModule``), by the discipline of every Metro loader (``loader.pyx``,
``docs/loaders.md``). Its own file beside ``cities.pyx``: the rules and the state there, the
checks of a state's JSON here."""
from libc.stdint cimport uint64_t

from metro_ai.engine.metro.state cimport MetroGame, MetroState, METRO_EMPTY
from metro_ai.engine.metro.cities cimport (
    CityRules, CityState, CityData, CityTables, CITY_BERLIN, has_tourist, set_points)
from metro_ai.engine.errors import StateFormatError

from .state import _load_state, square_name
from .loader import brief, int_in, ints_in
from .cities import (CITIES, INNER_SQUARES, BERLIN_SQUARES, QUARTER_NAMES, STOCKHOLM_MARKERS, TAXI_REACH, SIDES,
                     quarter_of, blank_state)


_KEYS = {
    "paris": {"name", "points", "tourists", "landmarks", "out", "pending"},
    "stockholm": {"name", "points", "tourists", "row", "set_aside", "marker_counts", "markers"},
    "london": {"name", "points", "tourists", "row", "taxi", "set_aside"},
    "new_york": {"name", "points", "stations", "boards"},
    "berlin": {"name", "points", "tourists", "landmarks", "carried", "sides", "pile_sizes", "vp_counts", "tickets",
               "vp", "piles"},
}


cdef int _set_points_of(const CityTables* ct, h) except? -1:
    """``set_points`` (C31, C33) of 8 checked counts 0..255."""
    cdef unsigned char counts[8]
    cdef int c
    for c in range(8):
        counts[c] = h[c]
    return set_points(ct, counts)


def load_state(MetroGame game, obj):
    """The city state `obj` describes (C5-C10, C34), by the loaders' discipline (``loader.pyx``):
    the ``city`` object is checked in full into plain Python values first (every type, length
    and index in range, every tourist, landmark and piece accounted for, the public points
    recomputed where the pieces give them), then copied into the city part of a blank state;
    then the base game's loader (or the companies') reads the rest and checks the scores (which
    include the city's public points); then the city's pieces are checked against the board
    (tourists and landmarks on empty squares, carried tourists on tiles, a pending choice)."""
    def bad(msg):
        raise StateFormatError(f"metro state: city: {msg}")
    cdef const CityTables* ct = (<CityRules>game.city_rules).ct_ptr()
    cdef int n = game.tables.players, i, j, c, p, lm, sq
    cdef int owners = 8 if game.companies else n       # New York's boards: the companies' (C35)
    name = CITIES[ct.city - 1]
    if "city" not in obj:
        raise StateFormatError(f"metro state: missing field 'city' (the {name} pieces, C5)")
    o = obj["city"]
    keys = _KEYS[name] | ({"row"} if ct.city == CITY_BERLIN and ct.tickets else set())   # C33
    if not isinstance(o, dict) or set(o) != keys:
        bad(f"must be an object with the fields {', '.join(sorted(keys))}")
    if o["name"] != name:
        bad(f"name {brief(o['name'])} is not this game's city {name!r}")

    def counts_list(v, where, length, hi):
        if not ints_in(v, 0, hi, length):
            bad(f"{where} must be a list of {length} integers in 0..{hi}")
        return v

    def colour_list(v, where, length, allow_none=True):
        if not isinstance(v, list) or len(v) != length or any(
                not ((x is None and allow_none) or int_in(x, 0, 7)) for x in v):
            bad(f"{where} must be a list of {length} colours 0..7" + (" or null" if allow_none else ""))
        return v

    def square(text, where):
        if not isinstance(text, str) or len(text) != 2 or text[0] not in "ABCDEFGH" or text[1] not in "12345678":
            bad(f"{where}: {brief(text)} is not a square name (A1..H8)")
        return (int(text[1]) - 1) * 8 + "ABCDEFGH".index(text[0])

    def set_points_of(h):
        return _set_points_of(ct, h)

    # 1. The city object checked into plain Python values; nothing is written into the state yet.
    points = counts_list(o["points"], "points", owners, 100000)
    per_colour = [0] * 8
    total = 0
    tourists = {}                     # square -> colours (ascending)
    row = []                          # landmark ids: Paris, player by player; Stockholm, London: the row
    fill = {}                         # landmark id -> colour or None per space
    removed = 0
    pend = None                       # Paris: (player, square, colours)
    markers = [None] * 8              # Stockholm: holder per colour
    taxi = -1
    stations = [None] * 32            # New York: colour waiting at station 1..32
    held = []                         # New York's boards, Berlin's tickets: 8 counts per owner
    sides = []                        # Berlin: side index per colour
    landmarks = {}                    # Berlin: square -> colour
    carried = {}                      # Berlin: square -> (colour, from a landmark)
    piles, vps = [], []               # Berlin: piles[c], vps[p][c] (value lists, at most npieces)
    if "tourists" in keys:
        t = o["tourists"]
        if not isinstance(t, dict):
            bad("tourists must be an object {square: [colours]}")
        if len(t) > len(INNER_SQUARES):
            bad(f"tourists: {len(t)} squares; tourists are on the {len(INNER_SQUARES)} inner squares at most (C5)")
        allowed = INNER_SQUARES if name != "berlin" or ct.tickets else \
            tuple(s for s in INNER_SQUARES if s not in BERLIN_SQUARES)
        for key, v in t.items():
            sq = square(key, "tourists")
            if sq not in allowed:
                bad(f"tourists: {key} is not a square tourists can be on (C5" + (", C33)" if name == "berlin" else ")"))
            if not isinstance(v, list) or not v or len(v) > 32 or any(not int_in(x, 0, 7) for x in v) \
                    or v != sorted(v):
                bad(f"tourists.{key} must be a non-empty ascending list of colours 0..7")
            if name != "paris" and len(v) > 1:
                bad(f"tourists.{key}: only Paris gathers several tourists on a square (C6)")
            tourists[sq] = v
            for x in v:
                per_colour[x] += 1
                total += 1

    def landmark(v, lm, where, colours_fixed):
        if not isinstance(v, dict) or set(v) != {"id", "filled"} or not int_in(v["id"], lm, lm):
            bad(f"{where} must be {{\"id\": {lm}, \"filled\": [...]}}")
        f = colour_list(v["filled"], f"{where}.filled", ct.lm_spaces[lm])
        for j, x in enumerate(f):
            if x is not None:
                if colours_fixed and x != ct.lm_colour[lm][j]:
                    bad(f"{where}.filled[{j}]: colour {x} on a space of colour {ct.lm_colour[lm][j]} (C6)")
                per_colour[x] += 1
        fill[lm] = f
        return sum(x is not None for x in f)

    def ids_row(v, where, count):
        ids = [x["id"] if isinstance(x, dict) and "id" in x else x for x in v] \
            if isinstance(v, list) and len(v) == count else None
        if ids is None or any(not int_in(x, 0, ct.nlm - 1) for x in ids) or len(set(ids)) != count:
            bad(f"{where} must list {count} distinct landmark ids 0..{ct.nlm - 1}")
        return ids

    if name == "paris":
        k = ct.nlm // n
        lms = o["landmarks"]
        if not isinstance(lms, list) or len(lms) != n or any(not isinstance(r, list) or len(r) != k for r in lms):
            bad(f"landmarks must be {n} rows of {k} landmarks (C6)")
        row = ids_row([x for r in lms for x in r], "landmarks", n * k)
        for p in range(n):
            want = 0
            for i in range(k):
                lm = row[p * k + i]
                filled = landmark(lms[p][i], lm, f"landmarks[{p}][{i}]", True)
                want += filled * ct.tourist_points + (ct.lm_points[lm] if filled == ct.lm_spaces[lm] else 0)
            if points[p] != want:
                bad(f"points[{p}] is {points[p]}, but player {p}'s landmarks give {want} (C28)")
        if not int_in(o["out"], 0, 32):
            bad("out must be an integer 0..32")
        removed = o["out"]
        pv = o["pending"]
        if pv is not None:
            if not isinstance(pv, dict) or set(pv) != {"player", "square", "colours"} \
                    or not int_in(pv["player"], 0, n - 1) or not isinstance(pv["colours"], list) \
                    or not 1 <= len(pv["colours"]) <= 32 or any(not int_in(x, 0, 7) for x in pv["colours"]) \
                    or pv["colours"] != sorted(pv["colours"]):
                bad("pending must be null or {\"player\": 0..n-1, \"square\": ..., \"colours\": [ascending colours]} (C28)")
            sq = square(pv["square"], "pending.square")
            if sq not in INNER_SQUARES:
                bad("pending.square must be an inner square: tourists are taken from there (C28)")
            pend = (pv["player"], sq, pv["colours"])
            for x in pv["colours"]:
                per_colour[x] += 1
    elif name == "stockholm":
        row = ids_row(o["row"], "row", ct.nlm)
        gap = False
        for i in range(ct.nlm):
            f = o["row"][i]
            landmark(f, row[i], f"row[{i}]", False)
            for x in fill[row[i]]:
                if x is not None and gap:
                    bad(f"row[{i}]: a tourist after a free space; tourists fill the leftmost free space (C7)")
                gap = gap or x is None
        if not int_in(o["set_aside"], 0, 32) or (o["set_aside"] and gap):
            bad("set_aside must be 0..32, and 0 while the row has a free space (C29)")
        removed = o["set_aside"]
        markers = colour_list(o["markers"], "markers", 8)   # (holders: checked as players below)
        for c, q in enumerate(markers):
            if q is not None and not int_in(q, 0, n - 1):
                bad(f"markers[{c}] must be a player 0..{n - 1} or null")
        counted = [sum(q == p for q in markers) for p in range(n)]
        if counted != [STOCKHOLM_MARKERS[n]] * n or o["marker_counts"] != counted:
            bad(f"every player holds {STOCKHOLM_MARKERS[n]} marker(s) at {n} players, and marker_counts says so (C7)")
        if any(points):
            bad("points must be 0: Stockholm scores its markers at the end (C29)")
    elif name == "london":
        row = ids_row(o["row"], "row", ct.nlm)
        if not int_in(o["taxi"], -1, ct.nlm - 1):
            bad(f"taxi must be -1 (on the start arrow) or a place 0..{ct.nlm - 1} in the row (C30)")
        taxi = o["taxi"]
        if not int_in(o["set_aside"], 0, 32):
            bad("set_aside must be an integer 0..32")
        removed = o["set_aside"]
        if sum(points) > TAXI_REACH * removed:
            bad(f"points {points} exceed {TAXI_REACH} for each of the {removed} tourists set aside (C8)")
        total += removed
    elif name == "new_york":
        stations = colour_list(o["stations"], "stations", 32)
        boards = o["boards"]
        if not isinstance(boards, list) or len(boards) != owners:
            bad(f"boards must be {owners} lists of 8 counts")
        for x in stations:
            if x is not None:
                per_colour[x] += 1
        for p in range(owners):
            held.append(counts_list(boards[p], f"boards[{p}]", 8, 32))
            for c in range(8):
                per_colour[c] += held[p][c]
            if points[p] != set_points_of(held[p]):
                bad(f"points[{p}] is {points[p]}, but player {p}'s board gives {set_points_of(held[p])} (C31)")
        if per_colour != [4] * 8:
            bad(f"tourists per colour on the stations and boards are {per_colour}; there are 4 of each (C27)")
    else:
        sv = o["sides"]
        if not isinstance(sv, list) or len(sv) != 8 or any(not isinstance(s, str) or s not in SIDES for s in sv) or (
                ct.side_mode < 2 and any(s != SIDES[ct.side_mode] for s in sv)):
            bad("sides must list 8 landmark sides" + (f", all {SIDES[ct.side_mode]!r}" if ct.side_mode < 2
                                                      else " 'A' or 'B'") + " (C32)")
        sides = [SIDES.index(s) for s in sv]
        lmk = [0] * 8
        if not isinstance(o["landmarks"], dict) or not isinstance(o["carried"], dict):
            bad("landmarks and carried must be objects keyed by square")
        if ct.tickets and o["landmarks"]:
            bad("landmarks must be {} with berlin_tickets: the landmark pieces lie in a row beside the board (C33)")
        for key, x in o["landmarks"].items():
            sq = square(key, "landmarks")
            if sq not in BERLIN_SQUARES or not int_in(x, 0, 7):
                bad(f"landmarks.{key}: landmarks are on the diagonal squares {', '.join(map(square_name, BERLIN_SQUARES))}, "
                    "with a colour 0..7 (C10)")
            landmarks[sq] = x
            lmk[x] += 1
        tk = [0] * 8
        for key, x in o["carried"].items():
            sq = square(key, "carried")
            if not isinstance(x, dict) or set(x) != {"colour", "from"} or not int_in(x["colour"], 0, 7) \
                    or not isinstance(x["from"], str) or x["from"] not in ("landmark", "tourist"):
                bad(f"carried.{key} must be {{\"colour\": 0..7, \"from\": \"landmark\" or \"tourist\"}}")
            if ct.tickets and (x["from"] == "landmark" or sq not in INNER_SQUARES):
                bad(f"carried.{key}: with berlin_tickets a tile carries only a ticket tourist, taken from an inner "
                    "square (no landmark is on the board, C33)")
            if not ct.tickets and (sq in BERLIN_SQUARES) != (x["from"] == "landmark"):
                bad(f"carried.{key}: a landmark's tourist is on a diagonal square, a ticket tourist elsewhere (C32, C33)")
            carried[sq] = (x["colour"], x["from"] == "landmark")
            if x["from"] == "landmark":
                lmk[x["colour"]] += 1
            else:
                tk[x["colour"]] += 1
        if ct.tickets:                # the tourists on the landmark pieces in their row (C33)
            row = o["row"]
            if not isinstance(row, list) or len(row) != 8 or any(not int_in(x, 0, 7) for x in row) \
                    or sorted(row) != list(range(8)):
                bad("row must list the colours of the tourists on the 8 landmark pieces, each colour once (C33)")
        elif lmk != [1] * 8:
            bad("each colour's landmark tourist must be on its landmark or on a tile, once (C32)")
        for c in range(8):
            tk[c] += per_colour[c]
        if tk != ([2] * 8 if ct.tickets else [0] * 8):
            bad("the ticket tourists (on squares and tiles) must be 2 of each colour with berlin_tickets, "
                "none without (C33)")
        if ct.tickets:                # the groups: 4 in each quarter, no colour twice (C33)
            quarters = [[] for _ in range(4)]
            for sq, v in tourists.items():
                quarters[quarter_of(sq)] += v
            for sq, (c, _) in carried.items():
                quarters[quarter_of(sq)].append(c)
            for i, q in enumerate(quarters):
                if len(q) != 4 or len(set(q)) != 4:
                    bad(f"the ticket tourists (waiting or carried) in quarter {QUARTER_NAMES[i]} are "
                        f"{brief(sorted(q))}: each quarter holds a group of 4 of 4 colours (C33)")
        vp, pv = o["vp"], o["piles"]
        if not isinstance(vp, list) or len(vp) != n or any(not isinstance(r, list) or len(r) != 8 for r in vp) \
                or not isinstance(pv, list) or len(pv) != 8:
            bad(f"vp must be {n} players x 8 colours of value lists, piles 8 value lists")
        # C32: a colour has npieces (at most CITY_MAX_PIECES) pieces, between its pile and the
        # players; each list's length is checked against that before anything is copied.
        for c in range(8):
            side = [ct.side_values[sides[c]][j] for j in range(ct.npieces)]
            if not ints_in(pv[c], 0, 20, most=ct.npieces):
                bad(f"piles[{c}] must be a list of at most {ct.npieces} VP pieces' values (C32)")
            values = list(pv[c])
            for p in range(n):
                if not ints_in(vp[p][c], 0, 20, most=ct.npieces):
                    bad(f"vp[{p}][{c}] must be a list of at most {ct.npieces} VP pieces' values (C32)")
                values += vp[p][c]
            if sorted(values) != sorted(side):
                bad(f"colour {c}'s VP pieces (piles and held) are {brief(sorted(values))}; side {sv[c]} has "
                    f"{sorted(side)} (C32)")
        if ct.tickets and any(vp[p][c] for p in range(n) for c in range(8)):
            bad("vp: with berlin_tickets no landmark is on the board, so no VP piece is won (C33)")
        piles = [list(pv[c]) for c in range(8)]
        vps = [[list(vp[p][c]) for c in range(8)] for p in range(n)]
        if o["pile_sizes"] != [len(x) for x in piles] or o["vp_counts"] != [[len(x) for x in r] for r in vps]:
            bad("pile_sizes and vp_counts must count the piles and the pieces held")
        tickets = o["tickets"]
        if not isinstance(tickets, list) or len(tickets) != n:
            bad(f"tickets must be {n} lists of 8 counts")
        for p in range(n):
            held.append(counts_list(tickets[p], f"tickets[{p}]", 8, 255))
            if points[p] != set_points_of(held[p]):
                bad(f"points[{p}] is {points[p]}, but player {p}'s tickets give {set_points_of(held[p])} (C33)")
            if not ct.tickets and any(held[p]):
                bad("tickets are only won with berlin_tickets (C33)")
    if name in ("paris", "stockholm", "london"):
        if any(x > 4 for x in per_colour):
            bad(f"tourists per colour {per_colour}: there are 4 of each (C27)")
        placed = sum(per_colour) if name != "london" else total
        if placed + (removed if name != "london" else 0) != 32:
            bad(f"{placed} tourists on the board and landmarks and {removed} {'out' if name == 'paris' else 'set aside'}: "
                "the game has 32 (C27)")

    # 2. The checked values copied into the city part of a blank state (every index bounded above:
    # squares 0..63, colours 0..7, landmark ids below nlm, spaces below lm_spaces, at most npieces
    # pieces a colour, players below n, owners below 8).
    cdef MetroState st = blank_state(game)
    cdef CityData* cd = &(<CityState>st).city
    for sq, v in tourists.items():
        for x in v:
            cd.tour[sq][x] += 1
    for i, lm in enumerate(row):
        cd.row[i] = lm
        if name == "paris":
            cd.lm_owner[lm] = i // (ct.nlm // n)
    for lm, f in fill.items():
        for j, x in enumerate(f):
            if x is not None:
                cd.fill[lm][j] = x
    cd.removed = removed
    if pend is not None:
        cd.pend_player, cd.pend_square = pend[0], pend[1]
        for x in pend[2]:
            cd.pend[x] += 1
    for c, q in enumerate(markers):
        if q is not None:
            cd.marker[c] = q
    cd.taxi = taxi
    for i, x in enumerate(stations):
        if x is not None:
            cd.station_tourist[i + 1] = x
    for p, h in enumerate(held):
        for c in range(8):
            cd.held[p][c] = h[c]
    for c, x in enumerate(sides):
        cd.side[c] = x
    for sq, x in landmarks.items():
        cd.landmark[sq] = x
    for sq, (c, from_landmark) in carried.items():
        cd.carried[sq] = c
        if from_landmark:
            cd.carried_vp |= (<uint64_t>1) << sq
    for c, values in enumerate(piles):
        for j, x in enumerate(values):
            cd.pile[c][j] = x
        cd.pile_n[c] = len(values)
    for p, r in enumerate(vps):
        for c, values in enumerate(r):
            for j, x in enumerate(values):
                cd.vp[p][c][j] = x
            cd.vp_n[p][c] = len(values)
    for p in range(owners):
        cd.pts[p] = points[p]

    # 3. The base game's fields (its own loader, by the same discipline), then the city's pieces
    # against the board.
    if game.companies:                # the boards' points are profits (C35): the loader checks them so
        from .companies import load_state as companies_load
        companies_load(game, obj, st, extra_profit=points)
    else:                             # the base game's fields; its score check includes the city's points
        _load_state(game, obj, st)
    if cd.pend_player >= 0:
        if st.d.cell[cd.pend_square] == METRO_EMPTY:
            bad("pending.square must hold the tile that took the tourists (C28)")
        if len(st.legal_actions()) < 2:
            bad("pending tourists wait only for a choice of two places or more; with one or none the "
                "engine places them itself (C28)")
    for sq in range(64):
        if (has_tourist(cd, sq) or cd.landmark[sq] >= 0) and st.d.cell[sq] != METRO_EMPTY:
            bad(f"{square_name(sq)} holds a tile: its tourist or landmark would have been taken (C5)")
        if cd.carried[sq] >= 0 and st.d.cell[sq] == METRO_EMPTY:
            bad(f"carried.{square_name(sq)}: a tourist is carried on a tile, and the square is empty (C10)")
    return st

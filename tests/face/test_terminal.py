"""What a person sees in the terminal (metro_ai/play/terminal.py, engine/metro2033/text.py): tile
pictures traced back to the tile data (M2), the compact Metro board within 80 x 24, colour only
on a terminal and never with NO_COLOR, the last move marked, Metro 2033's readable labels and
prompts, and `metro-ai play` driven through a pseudo-terminal."""
import os
import random
import re
import select
import subprocess
import sys
import time

import pytest

import metro_ai
from metro_ai.engine.metro import text as mtext
from metro_ai.engine.metro2033 import text as m33
from metro_ai.engine.metro2033.board import BOARD
from metro_ai.play import terminal as term
from metro_ai.play.human import HumanSeat

GAME = metro_ai.load_game("metro", players=2)
ANSI = re.compile(r"\x1b\[[0-9;]*m")
INVERSE = {v: k for k, v in mtext.GLYPH.items()}


def _parse_picture(rows):
    """{node: directions} read back from a tile picture (2 characters a node)."""
    nodes = {}
    for i, row in enumerate(rows):
        assert len(row) == 2 * mtext.N
        for j in range(mtext.N):
            glyph = row[2 * j]
            if glyph in INVERSE:
                nodes[(i, j)] = set(INVERSE[glyph])
    return nodes


def _trace(nodes, p):
    """The port reached from port p following a drawing (straight on through a crossing)."""
    node, came = mtext.PORT_NODES[p], mtext.OUT[p]
    for _ in range(100):
        dirs = nodes[node]
        if node != mtext.PORT_NODES[p] and node in mtext.PORT_NODES:
            return mtext.PORT_NODES.index(node)
        outs = {mtext.BACK[came]} if len(dirs) == 4 else set(dirs) - {came}
        assert len(outs) == 1
        d = outs.pop()
        node, came = (node[0] + mtext.STEP[d][0], node[1] + mtext.STEP[d][1]), mtext.BACK[d]
    raise AssertionError("no end")


def test_every_tile_picture_in_every_rotation_reads_as_its_tracks():
    """M2: a picture's tracks, read back from its characters alone, join the ports the tile's
    exits join, turned by the rotation; different layouts give different pictures."""
    by_layout = {}
    for kind in range(24):
        exits = GAME.data.tiles[kind].exits
        name = GAME.tile_ids[kind]
        for rot in range(4):
            pic = term.tile_picture(GAME, kind, rot)
            assert len(pic) == mtext.N and all(len(r) == 2 * mtext.N for r in pic)
            layout = tuple((exits[(p - 2 * rot) % 8] + 2 * rot) % 8 for p in range(8))
            by_layout.setdefault(layout, set()).add("\n".join(pic))
            if name == "T15":                     # four crossing tracks: its stubs and its id
                assert name in pic[mtext.N // 2]
                continue
            nodes = _parse_picture(pic)
            for p in range(8):
                assert _trace(nodes, p) == layout[p], (name, rot, p)
    assert all(len(pics) == 1 for pics in by_layout.values())          # one picture per layout
    pictures = [next(iter(p)) for p in by_layout.values()]
    assert len(set(pictures)) == len(pictures) == len(by_layout)       # and no two alike


def _played(seed=4, moves=24, players=2):
    game = metro_ai.load_game("metro", players=players)
    s = game.new_state(seed)
    r = random.Random(seed)
    for _ in range(moves):
        s.apply(r.choice(s.legal_actions()))
    return s


METRO_SETS = [o for o in metro_ai.registry.game_class("metro").option_sets() if o["players"] in (2, 6)] + [{"players": 3}]


def _check_fits(s, me, color, size=(80, 24)):
    """The view of `s` for `me` at `size`, with the line saying how to place, below a blank line
    and above the prompt (RESERVED), checked to fit; its plain lines."""
    view = term.MetroView(s, me, term.Paint(color), size, last_text="P1 place T05 at B1")
    actions = s.legal_actions()
    lines = view.render(actions)
    options = term.tile_options(s, actions)
    lines = [""] + lines + [term.how_to_place(options, ["draw"]), f"P{me}> "]
    assert term.RESERVED == 3
    assert max(term.visible_len(x) for x in lines) <= size[0]
    assert len(lines) <= size[1], "\n".join(lines)
    plain = [term.strip_ansi(x) for x in lines[1:]]
    assert plain[1][:term.BOARD_WIDTH].split() == list("ABCDEFGH")       # square names on the edges
    assert [row.split()[1] for row in plain[2:10]] == [str(r) for r in range(1, 9)]
    scores = "scores: P0=" if "scores" in s.observation(me) else "scores: hidden until the end"   # (companies: M18)
    assert any(x.startswith(scores) for x in plain) and any(x.startswith("to move: P") for x in plain)
    assert ("\x1b[" in "".join(lines)) == color
    for letter, kind, rot, squares in options:                     # the tiles drawn, where they fit
        title = f"{letter}: {s.game.piece_name(kind)}"
        assert any(re.search(rf"(^|  ){title}\b", x) for x in plain), title
        for sq in squares:
            row = plain[2 + sq // 8]
            cell = row[5 + 7 * (sq % 8): 5 + 7 * (sq % 8) + 7]
            assert letter in cell or cell[1:4].endswith("+"), (row, sq)     # "ab+": more than three
    return view, plain


@pytest.mark.parametrize("options", METRO_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_the_compact_board_fits_80x24_for_every_option_set(options):
    """Every Metro option set a person plays, 2 and 6 players: the board, the status (a
    variant's shares, profits and a city's pieces summarised), the tiles, the line saying how to
    place and the prompt fit 80 x 24 all game long; what the summary leaves out, ``info`` says in
    full, and so does a tall terminal."""
    game = metro_ai.load_game("metro", **options)
    s = game.new_state(11)
    r = random.Random(11)
    checked = summarised = 0
    for step in range(70):
        if s.is_terminal():
            break
        me = s.current_player
        if step % 5 == 0 and me >= 0:
            view, plain = _check_fits(s, me, color=step % 10 == 0)
            checked += 1
            rest = view.engine_rest()
            extra = [x for x in rest[3:] if term.summary(x)]
            full_text = " ".join(" ".join(term.strip_ansi(x).split()) for x in view.info())
            for line in rest:                              # 'info' has every line in full
                assert " ".join(line.split()) in full_text
            shown = " ".join(" ".join(plain).split())
            whole = [x for x in extra if " ".join(x.split()) in shown]
            short = [x for x in extra if x not in whole and term.summary(x) in shown]
            summarised += bool(whole or short)
            if len(whole) + len(short) < len(extra):       # some left out: 'info' is named
                assert "more: type 'info'" in shown
            tall = term.MetroView(s, me, term.Paint(False), (80, 60)).render(s.legal_actions())
            tall_text = " ".join(" ".join(x.split()) for x in tall)
            for line in rest[3:]:                          # a tall terminal: everything in full
                assert " ".join(line.split()) in tall_text
        s.apply(r.choice(s.legal_actions()))
    assert checked >= 5
    if options.get("companies") or options.get("city"):  # these variants' extras shown, whole or short
        assert summarised


def test_a_variant_status_line_summarised():
    shares = "P1 shares: 10% (company 0)  20% (company 0)  30% (company 7)  40% (company 4)"
    assert term.summary(shares) == "P1 shares: 10%C0 20%C0 30%C7 40%C4"
    assert term.summary("face up: 10% (company 1)  20% (company 2)   face down: [1, 1, 1, 1]") == \
        "face up: 10%C1 20%C2 face down: [1,1,1,1]"
    tourists = "tourists: " + " ".join(f"{c}{r}:{k}" for c in "BCDEFG" for r, k in
                                        zip(range(2, 8), ["green", "red", "blue+orange", "black", "white", "yellow"]))
    short = term.summary(tourists)
    assert len(tourists) > 80 and len(short) <= 80 and short.startswith("tourists (42): ")
    counts = dict((c, int(n)) for n, c in re.findall(r"(\d+) ([a-z]+)", short.split(": ", 1)[1]))
    assert counts == {"grn": 6, "red": 6, "blu": 6, "org": 6, "blk": 6, "wht": 6, "yel": 6}
    assert term.summary("tourists: ") == "" and term.summary("landmarks:") == ""
    assert term.summary("x" * 100, 80) == "x" * 79 + "…"


# What each track character of the compact board says, read off the character itself: the sides
# its arms point to (a curve: the one side it leaves and comes back to).
ARMS = {"│": "UD", "─": "LR", "└": "UR", "┘": "UL", "┌": "DR", "┐": "DL", "∪": "U", "⊂": "R", "∩": "D", "⊃": "L"}


def _sides(tracks):
    """The tracks (port pairs) as the sorted list of the sets of sides they join."""
    return sorted("".join(sorted({mtext.OUT[p], mtext.OUT[q]})) for p, q in tracks)


def _read_tracks(glyphs):
    return sorted("".join(sorted(ARMS[g])) for g in glyphs)


def test_a_tile_on_the_compact_board_is_its_tracks():
    """#43: the compact board shows Metro's lines: a tile as its four tracks, each the character
    of the sides it joins (T05: top-left, top-right, left-right and a curve back to the bottom;
    turned once: top-bottom, top-right, right-bottom and a curve back to the left)."""
    kind = GAME.tile_ids.index("T05")
    plain = term.Paint(False)
    assert term.compact_tile(GAME, 0, kind, 0, {}, plain) == "┘└─∩  "
    assert term.compact_tile(GAME, 0, kind, 1, {}, plain) == "│└┌⊃  "
    assert term.compact_tile(GAME, 0, GAME.tile_ids.index("T01"), 0, {}, plain) == "∪⊂∩⊃  "
    # the lines' tracks first, by owner, and whose they are: P1's left-right, P0's top-right
    owned = {(9, (3, 6)): 1, (9, (1, 2)): 0}
    assert term.compact_tile(GAME, 9, kind, 0, owned, plain) == "└─┘∩01"
    coloured = term.compact_tile(GAME, 9, kind, 0, owned, term.Paint(True))
    assert coloured.startswith(term.Paint(True)(0, "└") + term.Paint(True)(1, "─") + term.Paint(True)("dim", "┘"))


def test_tiles_on_the_compact_board_show_their_tracks_and_line_owners():
    """Every tile on a played board, read back from its square's characters alone: its tracks
    join the sides the tile's exits join, turned by its rotation (M2), the lines' tracks first,
    each in its owner's colour, and the digits after them say whose lines they are."""
    s = _played(moves=30)
    tracks, waiting = mtext.line_owners(s, 0)
    plain = [term.strip_ansi(x) for x in term.compact_board(s, 0, term.Paint(False))]
    coloured = term.compact_board(s, 0, term.Paint(True))
    board = s.board()
    assert tracks and waiting
    seen_owned = 0
    for sq in range(64):
        cell = plain[2 + sq // 8][5 + 7 * (sq % 8): 5 + 7 * (sq % 8) + 7]
        if board[sq] is not None:
            kind, rot = board[sq]
            exits = GAME.data.tiles[kind].exits
            layout = [(exits[(p - 2 * rot) % 8] + 2 * rot) % 8 for p in range(8)]
            pairs = [(p, q) for p, q in enumerate(layout) if p < q]
            assert _read_tracks(cell[1:5]) == _sides(pairs), (cell, GAME.piece_name(kind), rot)
            owned = sorted((k, p, q) for (at, (p, q)), k in tracks.items() if at == sq)
            assert _read_tracks(cell[1:1 + len(owned)]) == _sides([(p, q) for _, p, q in owned])
            digits = "".join(str(k) for k, _, _ in owned)
            assert cell[5:].strip() == (digits if len(digits) <= 2 else digits[0] + "+"), cell
            row = coloured[2 + sq // 8]
            for k, p, q in owned[:1]:               # the first track in its owner's colour
                assert term.Paint(True)(k, cell[1]) in row
            seen_owned += bool(owned)
        elif sq in waiting:
            assert set(cell[5:].strip()) == {str(k) for k in waiting[sq]}
    assert seen_owned >= 3


def test_the_full_board_when_the_terminal_is_large_and_its_plain_drawing_unchanged():
    s = _played(moves=30)
    big = term.MetroView(s, 0, term.Paint(True), (120, 70)).render(s.legal_actions())
    small = term.MetroView(s, 0, term.Paint(True), (80, 24)).render(s.legal_actions())
    assert len(big) > 2 + 8 * mtext.N and len(small) < 24
    plain = term.strip_ansi("\n".join(big))
    assert "│" in plain or "─" in plain
    assert mtext.board_text(s, 0) in s.render(0)              # render's drawing keeps its text
    coloured = mtext.board_text(s, 0, paint=term.Paint(True))
    assert "\x1b[" in coloured
    assert term.strip_ansi(coloured) == mtext.board_text(s, 0)   # colour adds codes, nothing else


def test_colour_only_on_a_terminal_and_never_with_no_color():
    class Tty:
        def isatty(self):
            return True

    class Pipe:
        def isatty(self):
            return False
    assert term.color_enabled(Tty(), {"TERM": "xterm"})
    assert not term.color_enabled(Pipe(), {"TERM": "xterm"})
    assert not term.color_enabled(Tty(), {"TERM": "xterm", "NO_COLOR": "1"})
    assert not term.color_enabled(Tty(), {"TERM": "dumb"})
    assert term.color_enabled(Pipe(), {"FORCE_COLOR": "1"})
    assert not term.color_enabled(Pipe(), {"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert term.Paint(False)(0, "P0") == "P0" and term.Paint(True)(0, "P0") != "P0"


def test_the_last_move_is_marked_compact_and_full():
    s = _played(moves=10)
    seat = HumanSeat(s.current_player, read=lambda p: "quit", write=lambda t: None, width=80, height=24, color=False)
    seat._remember(s, s.legal_actions()[0])              # the seat's own move, then the others'
    s.apply(s.legal_actions()[0])
    before = list(s.board())
    while s.current_player != seat.player:
        s.apply(s.legal_actions()[-1])
    changed = [sq for sq in range(64) if s.board()[sq] != before[sq]]
    assert changed
    sq = changed[0]
    compact = seat.view(s)
    cell = compact[2 + sq // 8][5 + 7 * (sq % 8):5 + 7 * (sq % 8) + 7]
    assert cell.startswith("*") and all(g in ARMS for g in cell[1:5])           # its tracks
    assert sum(row.count("*") for row in compact[2:10]) == len(changed)
    full = seat.view(s, full=True)
    assert "◆" in "\n".join(full)
    plain_row = full[2 + (sq // 8) * mtext.N]                      # the square's top row
    x = 5 + (sq % 8) * 2 * mtext.N
    assert plain_row[x] == "◆"


def test_a_typed_square_places_the_tile_that_fits_there():
    s = GAME.new_state(6)
    actions = s.legal_actions()
    options = term.tile_options(s, actions)
    letter, kind, rot, squares = options[0]
    sq, action = next(iter(squares.items()))
    name = term.square_name(sq)
    assert term.parse_placement(name, options, GAME) == action
    assert term.parse_placement(f"{letter} {name.lower()}", options, GAME) == action
    assert term.parse_placement(f"{GAME.piece_name(kind)} {name}", options, GAME) == action
    assert term.parse_placement("draw", options, GAME) is None
    taken = next(q for q in range(64) if all(q not in o[3] for o in options))
    with pytest.raises(ValueError, match=f"at {term.square_name(taken)}"):
        term.parse_placement(term.square_name(taken), options, GAME)


def test_station_labels_are_readable_and_distinct():
    assert m33.station_label("ulitsa_1905_goda") == "Ulitsa 1905 Goda"
    assert m33.station_label("kievskaya_H") == "Kievskaya (Hansa)"
    assert m33.station_label("kitay_gorod_orange") == "Kitay Gorod (orange)"
    assert m33.station_label("dostoevskaya_light_green") == "Dostoevskaya (light green)"
    labels = [m33.station_label(n) for n in BOARD.names]
    assert len(set(labels)) == len(labels) and not any("_" in x for x in labels)
    assert m33.readable("stations: kievskaya_H, aeroport") == "stations: Kievskaya (Hansa), Aeroport"


def _m33_walk(seeds=(1, 2, 3), steps=700):
    """Every (phase, action, label) and (phase, prompt) met in random Metro 2033 games."""
    game = metro_ai.load_game("metro2033", players=3)
    labels, prompts = [], {}
    for seed in seeds:
        s = game.new_state(seed)
        r = random.Random(seed)
        for _ in range(steps):
            if s.is_terminal():
                break
            prompts.setdefault(s.phase, m33.prompt(s))
            for a in s.legal_actions():
                labels.append((s.phase, a, m33.describe(s, a), s.action_to_string(a)))
            s.apply(r.choice(s.legal_actions()))
    return labels, prompts


def test_metro2033_labels_and_prompts_are_words():
    labels, prompts = _m33_walk()
    raw = re.compile("|".join(re.escape(n) for n in BOARD.names if "_" in n))
    kinds = set()
    for phase, a, label, text in labels:
        assert label and "_" not in label and not raw.search(label), (phase, text, label)
        assert not label.startswith("count "), (phase, text, label)
        kinds.add(text.split(" ")[0])
    # every kind of action text met in these games was labelled
    assert {"station", "count", "faction", "hero"} <= kinds
    hires = {label for phase, _, label, _ in labels if phase == "hire"}
    assert "hire no soldiers" in hires and any(re.fullmatch(r"hire \d+ soldiers?", x) for x in hires)
    defends = [(label, text) for _, _, label, text in labels if text.startswith("hero defends ")]
    assert defends and all(label == "hero defends " + m33.station_label(text[len("hero defends "):])
                           for label, text in defends)
    for phase, sentence in prompts.items():
        assert sentence and "{" not in sentence and "_" not in sentence, (phase, sentence)
        assert phase in m33.PROMPTS and not sentence.startswith("decide:"), (phase, sentence)
    assert {"draft_faction", "hire", "army", "hero_move"} <= set(prompts)


def _spawn_play(argv, script, env_extra, timeout=120):
    """Run `python -m metro_ai play ARGV` under a pseudo-terminal of 80 x 24 and type `script`
    (a line each time the prompt shows); the output as read from the terminal."""
    import fcntl
    import pty
    import struct
    import termios
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES")}
    env.update({"TERM": "xterm-256color", **env_extra})
    proc = subprocess.Popen([sys.executable, "-m", "metro_ai", "play", "--no-save", *argv], stdin=slave, stdout=slave,
                            stderr=slave, env=env, close_fds=True)
    os.close(slave)
    out = b""
    todo = list(script)
    end = time.monotonic() + timeout
    try:
        while time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
                if todo and out.rstrip().endswith(b"P0>"):
                    os.write(master, (todo.pop(0) + "\n").encode())
            elif proc.poll() is not None:
                break
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.close(master)
    return proc.returncode, out.decode("utf-8", "replace").replace("\r\n", "\n")


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
@pytest.mark.parametrize("no_color", [False, True])
def test_metro_ai_play_in_a_pseudo_terminal(no_color):
    s = GAME.new_state(3)
    options = term.tile_options(s, s.legal_actions())
    square = term.square_name(next(iter(options[0][3])))
    code, out = _spawn_play(["--players", "2", "--bots", "random", "--seed", "3", "--hint-bot", "ismcts:iterations=20"],
                            ["help", square, "Z9", "quit"], {"NO_COLOR": "1"} if no_color else {})
    assert code == 0, out[-2000:]
    plain = term.strip_ansi(out)
    assert ("\x1b[" in out) != no_color
    assert "you are player 0" in plain and "SQUARE" in plain                 # help for squares
    assert f"P0 (you): place {GAME.piece_name(options[0][1])} at {square}" in plain
    assert "P1 (random): " in plain and "you left the game" in plain
    assert "type a square marked a on the board" in plain and "not understood: 'Z9'" in plain
    turn = plain.split("P1 (random): ")[-1]                  # the second turn, after the bot's move
    screen = turn.splitlines()[1:]
    screen = screen[:next(i for i, x in enumerate(screen) if x.startswith("P0>")) + 1]
    assert screen[2][:term.BOARD_WIDTH].split() == list("ABCDEFGH") and len(screen) <= 24  # one screen
    assert max(len(x) for x in screen) <= 80
    assert sum(x.count("*") for x in screen[3:11]) == 1                    # the bot's move marked


def test_metro2033_in_the_terminal_says_what_is_decided(monkeypatch, capsys, tmp_path):
    from metro_ai.cli import main
    lines = iter(["help", "1", "1", "1", "hint"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines, "quit"))
    monkeypatch.chdir(tmp_path)                  # (the game's record is saved in the current folder)
    code = main(["play", "--game", "metro2033", "--players", "3", "--bots", "random", "--seed", "2",
                 "--hint-bot", "ismcts:iterations=10"])
    out = capsys.readouterr().out
    assert code == 0
    assert "\x1b[" not in out                                        # not a terminal: no colour
    assert "P0, decide: choose your faction" in out
    assert "_" not in "".join(x for x in out.splitlines() if x.lstrip()[:4].rstrip(":").strip().isdigit())
    listed = out.split("your legal actions")[-1].split("hint (")[0]
    assert "hire no soldiers" in listed and not re.search(r"\bcount \d", listed)
    table = out.split("hint (")[-1].split("you left")[0]
    assert re.search(r"\n    hire (no|\d) soldiers? +\d+%", table) and not re.search(r"\n    count \d", table)
    assert "you left the game" in out
    moves = [x for x in out.splitlines() if re.match(r"P\d \((you|random)\): ", x)]
    assert moves and not any("_" in x or re.search(r": (station|count) ", x) for x in moves)
    assert "P0 (you): hero starts at " in out                   # the third decision, in words


def test_a_metro2033_action_may_be_typed_as_its_label():
    from metro_ai.play.human import match_prefix
    game = metro_ai.load_game("metro2033", players=3)
    s = game.new_state(2)
    r = random.Random(0)
    while s.phase != "place_hero":
        s.apply(r.choice(s.legal_actions()))
    acts = s.legal_actions()
    label = m33.describe(s, acts[-1])
    assert label.startswith("hero starts at ")
    assert match_prefix(s, acts, label.upper()) == acts[-1]
    assert match_prefix(s, acts, s.action_to_string(acts[-1])) == acts[-1]       # the text still works


def test_a_short_terminal_summarises_a_variant_status_and_info_gives_it_all():
    """New York with the companies: with room for five status lines the shares, profits and the
    city's pieces are one short line each, cut where they do not fit and 'info' named for the
    rest; with room enough (or 'info') every engine line is there in full."""
    game = metro_ai.load_game("metro", players=2, city="new_york", companies=True)
    s = game.new_state(3)
    r = random.Random(3)
    for _ in range(20):
        s.apply(r.choice(s.legal_actions()))
    view = term.MetroView(s, s.current_player, term.Paint(False), (80, 24))
    rest = view.engine_rest()
    assert len(rest) > 5 and any("shares:" in x for x in rest)
    for room in (3, 4, 5):
        short = view.status(rest, room=room, drop_hand=True)
        assert len(short) <= room and max(len(x) for x in short) <= 80
        assert short[0].startswith("scores: ") and short[1].startswith("to move: P")
        assert short[-1].endswith("more: type 'info'")
    short = view.status(rest, room=6)
    assert any(re.search(r"\d+%C\d", x) for x in short)                   # shares as 10%C3
    full = view.info()
    assert len(full) > 6 and all(" ".join(x.split()) in " ".join(" ".join(full).split()) for x in rest)
    assert view.status(rest, room=len(full)) == full                      # room enough: all of it


def test_the_hint_says_its_moves_in_words_without_search_internals_or_guessed_cards():
    """#43: the hint's alternatives as a person reads them: each move labelled as the rest of the
    terminal says it (Metro 2033: 'hire 2 soldiers', station names in words), with the share of
    wins the search expects, its choice marked; no visits, worlds or nodes, and no expected line
    (it showed the other players' hidden cards as the search imagined them, as if known)."""
    from types import SimpleNamespace

    from metro_ai.play.human import HumanSeat
    game = metro_ai.load_game("metro2033", players=3)
    s = game.new_state(2)
    r = random.Random(0)
    while s.phase != "place_hero":
        s.apply(r.choice(s.legal_actions()))
    legal = s.legal_actions()[:3]
    raw = [s.action_to_string(a) for a in legal]
    assert any("_" in x or x.startswith(("count ", "station ")) for x in raw), raw
    stats = [SimpleNamespace(action=a, text=t, visits=v, share=v / 60, mean=m)
             for a, t, v, m in zip(legal, raw, (10, 40, 0), (0.31, 0.58, 0.0))]
    line = [(s.current_player, legal[1], raw[1])]
    analysis = SimpleNamespace(player=s.current_player, chosen=legal[1], chosen_text=raw[1], actions=stats,
                               line=line, iterations=50, table=lambda top=5: "unused")
    out = HumanSeat._hint_table(s, analysis)
    rows = out.splitlines()
    assert rows[0].startswith("  the moves it liked best") and rows[1].split()[-4:] == ["58%", "<-", "its", "choice"], rows
    assert m33.describe(s, legal[1]) in rows[1] and m33.describe(s, legal[0]) in rows[2] and rows[2].rstrip().endswith("31%")
    assert len(rows) == 4 and "imagined, not known" in rows[3] and "50 imagined continuations" in rows[3]
    for word in ("visits", "worlds", "nodes", "share", "line:", "iterations"):
        assert word not in out, (word, out)
    assert "_" not in out and not re.search(r"\b(count|station) ", out), out


@pytest.mark.parametrize("players", [2, 5])
def test_breakthrough_turn_fits_80x24_and_info_shows_it_all(players):
    """Breakthrough at 80 x 24: when the tableaux, market and hand with the actions do not fit,
    each card list is folded onto one line of names and the actions go in two columns, so the
    turn (a blank line above, the prompt below) fits; 'info' writes the text unfolded."""
    game = metro_ai.load_game("breakthrough", players=players)
    s = game.new_state(1)
    r = random.Random(1)
    compacted = 0
    for step in range(300):
        if s.is_terminal():
            break
        if step % 7 == 0:
            out = []
            seat = HumanSeat(s.current_player, read=lambda p: "quit", write=out.append, width=80, height=24,
                             color=False)
            acts = s.legal_actions()
            seat._show_turn(s, acts)
            lines = "\n".join(out).splitlines()
            assert term.screen_rows([""] + lines + ["P0> "], 80) <= 24, "\n".join(lines)
            text = " ".join(term.readable(s, s.render(player=s.current_player)).split())
            assert max(len(x) for x in lines) <= 80                             # long lines wrapped (#43)
            if not " ".join("\n".join(out).split()).startswith(text):
                compacted += 1
                assert f"P{s.current_player} hand:" in "\n".join(lines)
                assert len([x for x in lines if re.match(r" +\d+: ", x)]) <= (len(acts) + 1) // 2   # two columns
                info = []
                seat.write = info.append
                seat.show_info(s)
                assert " ".join(" ".join(info).split()).startswith(text) and max(len(x) for x in info) <= 80
        s.apply(r.choice(s.legal_actions()))
    assert compacted


def test_compact_text_folds_card_lists():
    lines = ["P0 Hansa (faction; quest 6): tokens 5, hand 2", "    Medicine (cost 2, 2 welfare)",
             "    rotated Knife (cost 1) [2 tokens]", "market:", "    1: Tea (cost 2)", "    2: Knife (cost 1)"]
    assert term.compact_text(lines, 90) == ["P0 Hansa (faction; quest 6): tokens 5, hand 2 | Medicine · rotated Knife"
                                            " [2 tokens]", "market: 1: Tea · 2: Knife"]
    narrow = term.compact_text(lines, 40)
    assert narrow[0] == "P0 Hansa: tokens 5, hand 2" and narrow[1] == "    Medicine · rotated Knife [2 tokens]"
    assert all(len(x) <= 40 for x in narrow)


def test_the_info_command_writes_the_status_in_full():
    game = metro_ai.load_game("metro", players=2, city="paris")
    s = game.new_state(3)
    r = random.Random(3)
    for _ in range(16):
        s.apply(r.choice(s.legal_actions()))
    from metro_ai.play.loop import Stop
    out, said, marks = [], iter(["info", "help", "quit"]), []

    def read(prompt):
        marks.append(len(out))
        return next(said)
    seat = HumanSeat(s.current_player, read=read, write=out.append, width=80, height=24, color=False)
    with pytest.raises(Stop):
        seat.choose(s)
    text = "\n".join(out[marks[0]:marks[1]])                       # what 'info' wrote
    tourists = next(x for x in s.render(player=seat.player).splitlines() if x.startswith("tourists:"))
    assert " ".join(tourists.split()) in " ".join(text.split())
    assert text.startswith("scores: ") and "to move: P" in text
    assert "info          everything the compact view summarises" in "\n".join(out[marks[1]:])


def test_long_lines_wrap_at_words_with_their_colours():
    """#43: a line wider than the terminal wraps at words (textwrap), its continuation indented
    under its start, a colour cut by the wrap closed at the line's end and opened again."""
    plain = "P1 (random): army attacks Ulitsa 1905 Goda and takes Barricadnaya (pink)"
    assert term.wrap(plain, 30) == ["P1 (random): army attacks", "  Ulitsa 1905 Goda and takes",
                                    "  Barricadnaya (pink)"]
    assert term.wrap("    stations: Beregovaya, Ulitsa 1905 Goda", 30) == ["    stations: Beregovaya,",
                                                                          "      Ulitsa 1905 Goda"]
    assert term.wrap(plain, 30, indent="    ")[1] == "    Ulitsa 1905 Goda and takes"
    assert term.wrap("short", 30) == ["short"]
    path = "/a/folder/deep/below/game-record-of-the-evening.json"          # longer than a line: kept whole
    assert term.wrap(f"game saved to {path} (review it)", 30) == ["game saved to", f"  {path}", "  (review it)"]
    paint = term.Paint(True)
    coloured = "last: " + paint(1, "P1 army attacks Ulitsa 1905 Goda") + " and " + paint(0, "more")
    lines = term.wrap(coloured, 21)
    assert [term.strip_ansi(x) for x in lines] == term.wrap(term.strip_ansi(coloured), 21)
    assert lines == ["last: " + paint(1, "P1 army attacks"),                   # closed at the end
                     "  " + paint(1, "Ulitsa 1905 Goda"),                      # and opened again
                     "  and " + paint(0, "more")]


def _seat_output(state, width, said):
    """What a seat `width` columns wide writes on its turn at `state` and to the commands in
    `said`, then 'quit'."""
    from metro_ai.bots.catalogue import BotSpec
    from metro_ai.play.loop import Stop
    out = []
    answers = iter(said + ["quit"])
    seat = HumanSeat(state.current_player, read=lambda p: next(answers), write=out.append, width=width,
                     height=200, color=False, hint=BotSpec.parse("ismcts:iterations=30"))
    with pytest.raises(Stop):
        seat.choose(state)
    return out


def test_a_narrow_terminal_gets_whole_words_in_every_line():
    """#43: at 44 columns every line Metro 2033's turn, help, list, hint and info write fits,
    and wraps between words: the text read across the lines is the text unwrapped."""
    game = metro_ai.load_game("metro2033", players=3)
    s = game.new_state(2)
    r = random.Random(0)
    while s.phase != "place_hero":
        s.apply(r.choice(s.legal_actions()))
    width = 44
    out = _seat_output(s, width, ["help", "list", "hint", "info"])
    assert max(len(x) for x in out) <= width, [x for x in out if len(x) > width]
    wide = _seat_output(s, 400, ["help", "list", "hint", "info"])
    assert " ".join(" ".join(out).split()) == " ".join(" ".join(wide).split())     # no word cut
    label = m33.describe(s, s.legal_actions()[-1])
    assert len(label) > 20 and label in " ".join(" ".join(out).split())
    assert any(x.startswith("  TEXT          play the action") for x in out)
    assert any(x.startswith(" " * 16) and x.strip() for x in out)   # help's words under its words

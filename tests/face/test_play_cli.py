"""The command line for people: play in the terminal, analyse a saved position, match with specs."""
import json
import re
import subprocess
import sys
import tempfile

import pytest

import metro_ai
from metro_ai.cli import main


def _play(monkeypatch, capsys, script, argv, then="1"):
    """Run `metro-ai play` with scripted input: the lines of `script`, then `then` forever (in a
    folder of its own: the game's record is saved in the current folder)."""
    monkeypatch.chdir(tempfile.mkdtemp())
    lines = iter(script)
    prompts = []

    def fake_input(prompt=""):
        prompts.append(prompt)
        if then is None:
            try:
                return next(lines)
            except StopIteration:
                raise EOFError from None
        return next(lines, then)

    monkeypatch.setattr("builtins.input", fake_input)
    code = main(["play", *argv])
    return code, capsys.readouterr(), prompts


def test_play_a_whole_game_with_bad_input_and_hints(monkeypatch, capsys):
    game = metro_ai.load_game("metro", players=2)
    first = game.new_state(5)
    text = first.action_to_string(first.legal_actions()[1])
    script = ["", "help", "999", "0", "what now", "place T99 at Z9", "list", "board", "hint", text]
    code, out, prompts = _play(monkeypatch, capsys, script,
                               ["--players", "2", "--bots", "greedy", "--seed", "5", "--hint-bot", "ismcts:iterations=50"])
    assert code == 0, out.err
    o = out.out
    assert "you are player 0" in o and "P1: greedy" in o
    assert "commands:" in o                                               # help
    assert "there is no action 999" in o and "there is no action 0" in o
    assert "not understood: 'what now'" in o and "not understood: 'place T99 at Z9'" in o
    assert "your legal actions" in o and o.count("scores: P0=") >= 2     # list and board
    assert "hint (ismcts:iterations=50): play" in o and "how often it expects each to win" in o
    assert "visits" not in o                                  # #43: in a person's words
    assert f"P0 (you): {text}" in o                                       # an action typed as text
    assert "P1 (greedy):" in o and "game over:" in o and ("you win" in o or "you lose" in o or "share" in o)
    assert prompts and all(p == "P0> " for p in prompts[:-1])
    assert prompts[-1] == "review your moves now with hard? [y/N] "          # answered "1": no
    assert "game saved to metro-ai-metro-5.json" in o and "review of" not in o


def test_play_saves_the_record_and_reviews_on_request(monkeypatch, capsys, tmp_path):
    """#43: the game's record written where --save says (a record replay reads, the person's seat
    labelled "you"), and a review of the person's moves when asked for at the end."""
    path = tmp_path / "game.json"
    prompts = []

    def answer(prompt=""):
        prompts.append(prompt)
        return "y" if prompt.startswith("review") else "1"
    monkeypatch.setattr("builtins.input", answer)
    code = main(["play", "--game", "leduc", "--bots", "random", "--seed", "3", "--save", str(path),
                 "--review-bot", "ismcts:iterations=200"])
    out = capsys.readouterr().out
    assert code == 0
    record = json.loads(path.read_text())
    assert record["bots"] == ["you", "random"] and record["seed"] == 3 and "returns" in record
    assert record["people"] == [0]                          # which seat was a person
    assert len(metro_ai.replay(record)) == len(record["actions"]) + 1
    assert f"game saved to {path}" in " ".join(out.split())          # (a long path wraps onto its own line)
    assert prompts[-1] == "review your moves now with ismcts:iterations=200? [y/N] "
    assert "review of leduc by ismcts:iterations=200" in out and "seat 0 (you): accuracy" in out
    assert "seat 1 (random)" not in out                                     # the person's seat only
    assert main(["play", "--game", "leduc", "--save", str(tmp_path / "no" / "g.json")]) == 2
    assert "--save" in capsys.readouterr().err


def test_play_quit_eof_and_other_seats(monkeypatch, capsys):
    code, out, _ = _play(monkeypatch, capsys, ["quit"], ["--players", "3", "--bots", "random", "--seat", "2"])
    assert code == 0 and "you left the game" in out.out and "P0 (random):" in out.out
    code, out, _ = _play(monkeypatch, capsys, ["1", "1"], ["--players", "2", "--bots", "random"], then=None)
    assert code == 0 and "end of input" in out.out


def test_play_breakthrough(monkeypatch, capsys):
    try:
        metro_ai.load_game("breakthrough", players=2).new_state(1)
    except Exception as exc:  # noqa: BLE001 - the engine is being finished elsewhere
        pytest.skip(f"breakthrough engine not available: {exc}")
    code, out, _ = _play(monkeypatch, capsys, ["hint", "2", "quit"],
                         ["--game", "breakthrough", "--bots", "random", "--hint-bot", "ismcts:iterations=20", "--seed", "1"],
                         then="quit")
    assert code == 0 and "P0 hand:" in out.out and "hint (" in out.out


@pytest.mark.parametrize("argv,err", [
    (["--seat", "5"], "--seat must be 0-1"),
    (["--bots", "random,random"], "2 bots for 1 seats"),
    (["--hint-bot", "greedy"], "does not search"),
    (["--bots", "nobody"], "unknown bot"),
])
def test_play_bad_usage(argv, err, monkeypatch, capsys):
    code, out, _ = _play(monkeypatch, capsys, [], ["--players", "2", *argv])
    assert code == 2 and err in out.err


def _saved_state(tmp_path, players=2, moves=6):
    state = metro_ai.load_game("metro", players=players).new_state(4)
    for _ in range(moves):
        state.apply(state.legal_actions()[-1])
    path = tmp_path / "state.json"
    path.write_text(state.to_json())
    return state, str(path)


def test_analyse_a_saved_position(tmp_path, capsys):
    state, path = _saved_state(tmp_path)
    assert main(["analyse", path, "--bot", "ismcts", "--iterations", "200", "--json"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert a["chosen"] in state.legal_actions() and a["iterations"] == 200 and a["player"] == state.current_player
    assert main(["analyse", path, "--bot", "hard", "--time", "0.2", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"player {state.current_player}:") and len(out.strip().splitlines()) <= 6
    assert "  tree: depth max " in out and "play-outs to the end" in out
    assert main(["analyze", path, "--bot", "pimc:iterations=100"]) == 0


@pytest.mark.parametrize("make,err", [
    (lambda p: p, "does not search"),
    (lambda p: p + ".missing", "no such file"),
    (lambda p: (open(p, "w").write("{broken"), p)[1], "state.json': not valid JSON"),
])
def test_analyse_errors(make, err, tmp_path, capsys):
    _, path = _saved_state(tmp_path)
    bot = "greedy" if err == "does not search" else "ismcts"
    assert main(["analyse", make(path), "--bot", bot]) == 2
    out = capsys.readouterr().err
    assert err in out
    if err == "does not search":            # the searching bots named from the catalogue, each of them
        assert "use flat-mc, ismcts, mo-ismcts, pimc or a preset (easy, hard, max, medium)" in out


def test_analyse_a_match_record(tmp_path, capsys):
    path = tmp_path / "rec.json"
    assert main(["match", "--players", "2", "--bots", "greedy", "random", "--seed", "3", "--save", str(path),
                 "--quiet"]) == 0
    capsys.readouterr()
    rec = json.loads(path.read_text())
    states = metro_ai.replay(rec)
    last = len(rec["actions"])
    choice = max(i for i, s in enumerate(states[:-1]) if len(s.legal_actions()) > 1)
    for move, expect in ((12, 12), (0, 0), (None, choice)):         # default: the last real choice
        argv = ["analyse", str(path), "--iterations", "50", "--json"] + ([] if move is None else ["--move", str(move)])
        assert main(argv) == 0, capsys.readouterr().err
        a = json.loads(capsys.readouterr().out)
        assert a["move"] == expect and a["player"] == states[expect].current_player
        assert a["chosen"] in states[expect].legal_actions()
    assert main(["analyse", str(path), "--iterations", "50", "--move", "12"]) == 0
    assert capsys.readouterr().out.startswith("the position before action 12 of the record:\nplayer ")
    assert main(["analyse", str(path), "--move", str(last)]) == 2
    assert f"the game is over at move {last}" in capsys.readouterr().err
    assert main(["analyse", str(path), "--move", str(last + 1)]) == 2
    assert f"the move must be 0 (the deal) to {last} (the end), got {last + 1}" in capsys.readouterr().err
    _, saved = _saved_state(tmp_path)
    assert main(["analyse", saved, "--move", "3"]) == 2
    assert "is a saved state" in capsys.readouterr().err
    with pytest.raises(metro_ai.StateFormatError, match="this is a match record"):
        metro_ai.load_state(str(path))


def test_match_with_specs_save_and_replay(tmp_path, capsys):
    path = tmp_path / "rec.json"
    assert main(["match", "--players", "3", "--bots", "ismcts:iterations=30,label=i", "greedy", "random",
                 "--seed", "2", "--save", str(path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "(i)" in out and "(greedy)" in out and "game over" not in out
    rec = json.loads(path.read_text())
    assert rec["bots"] == ["i", "greedy", "random"]
    assert metro_ai.replay(rec)[-1].scores() == rec["scores"]
    assert main(["match", "--players", "2", "--bots", "ismcts", "--iterations", "20", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["seats"][0]["limit"] == {"iterations": 20, "time": None}
    assert main(["match", "--players", "2", "--bots", "random,greedy,random"]) == 2
    assert "3 bots for 2 seats" in capsys.readouterr().err


def test_bots_listing_shows_options_and_presets(capsys):
    assert main(["bots"]) == 0
    out = capsys.readouterr().out
    assert "ismcts:" in out and "c=none" in out and "the game's default, else 0.7" in out and "presets" in out and "hard:" in out and "label=TEXT" in out
    assert main(["bots", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    from metro_ai.bots.catalogue import PRESETS
    assert info["bots"]["ismcts"]["options"]["c"] is None          # the game's (#44: Metro's at 2 players is 0.5)
    assert info["presets"]["hard"]["budget"]["iterations"] == PRESETS["hard"][1].iterations
    assert info["bots"]["random"]["searches"] is False


@pytest.mark.parametrize("command", ["games", "bots", "match", "tournament", "analyse", "play"])
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as e:
        main([command, "--help"])
    assert e.value.code == 0 and "usage: metro-ai" in capsys.readouterr().out


def test_console_script_exit_codes():
    ok = subprocess.run([sys.executable, "-m", "metro_ai", "games", "--json"], capture_output=True, text=True)
    assert ok.returncode == 0 and "metro" in json.loads(ok.stdout)
    bad = subprocess.run([sys.executable, "-m", "metro_ai", "match", "--bots", "ismcts:c=x=1"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "metro-ai: error:" in bad.stderr and "Traceback" not in bad.stderr
    usage = subprocess.run([sys.executable, "-m", "metro_ai", "frobnicate"], capture_output=True, text=True)
    assert usage.returncode == 2


def test_play_accepts_the_start_of_an_action_and_help_speaks_of_the_game(monkeypatch, capsys):
    """`play` takes the shortest unambiguous start of a legal action's text (case free); a start
    that several actions share is refused naming them; help names the game and its kinds of
    action."""
    from metro_ai.play.human import match_prefix
    game = metro_ai.load_game("breakthrough", players=2)
    s = game.new_state(3)
    acts = s.legal_actions()
    texts = {s.action_to_string(a) for a in acts}
    unique = next(t for t in sorted(texts) if t.startswith("discard ") and
                  sum(u.startswith(t[:12]) for u in texts) == 1)
    assert s.action_to_string(match_prefix(s, acts, unique[:12].upper())) == unique
    with pytest.raises(ValueError, match="actions start so"):
        match_prefix(s, acts, "discard")
    with pytest.raises(ValueError, match="no legal action starts so"):
        match_prefix(s, acts, "teleport")
    code, out, _ = _play(monkeypatch, capsys, ["help", unique[:12], "quit"],
                         ["--game", "breakthrough", "--players", "2", "--bots", "random", "--seed", "3"], then=None)
    o = out.out
    assert code == 0 and "Metro 2033: Breakthrough (card game), seat P0: phase main" in o
    assert "kinds: " in o and "discard" in o.split("kinds: ")[1].splitlines()[0]
    assert f"P0 (you): {unique}" in o


# ---- papercuts: forced moves, output paths, ports, random deals, ties, the kind of a state ----

def _forced_position(game="metro", players=2):
    """A position of `game` with exactly one legal action (random play from seeded deals)."""
    import random
    g = metro_ai.load_game(game, players=players)
    for seed in range(50):
        s, rng = g.new_state(seed), random.Random(seed)
        while not s.is_terminal():
            if len(s.legal_actions()) == 1:
                return s
            s.apply(rng.choice(s.legal_actions()))
    raise AssertionError(f"no forced move in 50 random {game} games")


@pytest.mark.parametrize("game", ["metro", "breakthrough"])
def test_analyse_answers_a_forced_move_at_once(game, tmp_path, capsys):
    state = _forced_position(game)
    path = tmp_path / "forced.json"
    path.write_text(state.to_json())
    assert main(["analyse", str(path), "--bot", "hard", "--json"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert a["forced"] is True and a["iterations"] == 0 and a["chosen"] == state.legal_actions()[0]
    assert main(["analyse", str(path), "--bot", "hard", "--time", "5"]) == 0
    assert "a forced move" in capsys.readouterr().out


def test_analyse_of_a_record_skips_forced_moves_at_its_end(tmp_path, capsys):
    """The default position is the last with more than one legal action, also when the record
    ends in forced moves."""
    from metro_ai.play.match import record_position
    game = metro_ai.load_game("metro", players=2)
    for seed in range(100):
        rec = metro_ai.play_match(game, ["random", "random"], seed=seed)
        states = metro_ai.replay(rec)
        if len(states[-2].legal_actions()) == 1:
            break
    else:
        raise AssertionError("no Metro game of 100 ending in a forced move")
    expect = max(i for i, s in enumerate(states[:-1]) if len(s.legal_actions()) > 1)
    assert expect < len(states) - 2
    assert record_position(rec, None)[1] == expect
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(rec))
    assert main(["analyse", str(path), "--iterations", "30", "--json"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert a["move"] == expect and a["forced"] is False


@pytest.mark.parametrize("argv,err", [
    (["--svg", "/proc/nope"], "metro-ai: error: --svg /proc/nope: cannot write there"),
    (["--save", "/proc/nope/rec.json"], "metro-ai: error: --save /proc/nope/rec.json: no such directory"),
    (["--save", "/proc"], "metro-ai: error: --save /proc: is a directory"),
])
def test_match_output_paths_that_cannot_be_written(argv, err):
    run = subprocess.run([sys.executable, "-m", "metro_ai", "match", "--bots", "random", *argv],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith(err) and len(run.stderr.splitlines()) == 1, run.stderr     # one line, no traceback


def test_match_defaults_to_two_players_and_a_random_printed_seed(capsys):
    assert main(["match", "--bots", "random", "--json"]) == 0
    out = capsys.readouterr()
    rec = json.loads(out.out)
    assert rec["options"]["players"] == 2
    seed = rec["seed"]
    assert f"metro-ai: seed {seed} (replay with --seed {seed})" in out.err
    assert main(["match", "--bots", "random", "--json", "--seed", str(seed)]) == 0
    again = capsys.readouterr()
    moves = [(m["player"], m["action"]) for m in rec["actions"]]
    assert [(m["player"], m["action"]) for m in json.loads(again.out)["actions"]] == moves
    assert "replay with" not in again.err
    seeds = {seed}
    for _ in range(3):
        assert main(["match", "--bots", "random", "--json", "--quiet"]) == 0
        seeds.add(json.loads(capsys.readouterr().out)["seed"])
    assert len(seeds) > 1                                   # not one deal every time


def test_play_deals_a_random_seed_and_prints_it(monkeypatch, capsys):
    code, out, _ = _play(monkeypatch, capsys, ["quit"], ["--bots", "random"])
    assert code == 0
    line = next(x for x in out.out.splitlines() if x.startswith("seed "))
    seed = int(line.split()[1])
    assert line == f"seed {seed} (replay with --seed {seed})"
    code, again, _ = _play(monkeypatch, capsys, ["quit"], ["--bots", "random", "--seed", str(seed)])
    assert code == 0 and "replay with" not in again.out
    first = [x for x in out.out.splitlines() if not x.startswith("seed ")]
    assert first == again.out.splitlines()                  # the same deal


def test_match_and_play_show_ties_as_shared_places(monkeypatch, capsys):
    from metro_ai.cli.common import standing_lines
    lines = standing_lines([0.5, 0.5, 0.5], [4, 4, 4], ["player 0 (a)", "player 1 (b)", "player 2 (c)"])
    assert [x.split(".")[0].strip() for x in lines] == ["=1", "=1", "=1"]
    lines = standing_lines([0.0, 0.75, 0.75, 0.5], [1, 9, 9, 5], [f"P{p}" for p in range(4)])
    assert [x.strip() for x in lines] == ["=1. P1: 9 points, return 0.750", "=1. P2: 9 points, return 0.750",
                                          "3. P3: 5 points, return 0.500", "4. P0: 1 points, return 0.000"]
    game = metro_ai.load_game("leduc", players=2)        # a hand that ends level, played through the CLI
    seed = next(s for s in range(500)
                if metro_ai.play_match(game, ["random", "random"], seed=s)["returns"] == [0.5, 0.5])
    assert main(["match", "--game", "leduc", "--bots", "random", "--seed", str(seed), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "=1. player 0" in out and "=1. player 1" in out and "2. player" not in out


@pytest.mark.parametrize("argv,hint", [(["web", "--no-browser", "--port"], "--port 0"),
                                       (["serve", "--ws"], "--ws 127.0.0.1:0")])
def test_a_port_in_use_says_so(argv, hint, capsys):
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        where = str(port) if argv[0] == "web" else f"127.0.0.1:{port}"
        assert main([*argv, where]) == 2
    err = capsys.readouterr().err
    assert err.startswith("metro-ai: error:") and "is in use" in err and hint in err and len(err.splitlines()) == 1


def test_another_games_state_is_named_by_its_kind():
    """A state of one game loaded as another's says which game it is, before any missing field."""
    from metro_ai.registry import list_games
    names = [n for n in list_games() if n != "metro-solo"][:4] + ["metro-solo"]
    states = {n: metro_ai.load_game(n).new_state(1).to_json() for n in names}
    for a in names:
        for b in names:
            if a != b:
                with pytest.raises(metro_ai.StateFormatError, match=f"this is a {a} state, not {b}"):
                    metro_ai.load_game(b).state_from_json(states[a])


# ---- #43: what a person meets in the terminal ----

def _readme_play_paragraph():
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    start = text.index("**Play in the terminal**")
    return " ".join(text[start:text.index("\n\n", start)].split())


def test_the_first_screens_are_as_the_readme_says(monkeypatch, capsys):
    """The README: on Metro's board a person types a square marked as playable, or `draw`, and
    `list` numbers every legal move; in the other games the legal moves are numbered on every
    turn. Metro's first screen says so in its last line, numbers nothing, and marks the squares;
    `list` numbers every legal action; Breakthrough's first screen numbers its moves."""
    said = _readme_play_paragraph()
    assert ("On Metro's board you type a square marked as playable, such as `A2`, or `draw`, and `list` "
            "numbers every legal move; in the other games the legal moves are numbered on every turn") in said
    first = metro_ai.load_game("metro", players=2).new_state(5)
    legal = first.legal_actions()
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = _play(monkeypatch, capsys, ["list", "quit"], ["--players", "2", "--bots", "random", "--seed", "5"],
                         then=None)
    assert code == 0
    screen, listing = out.out.split("your legal actions")
    screen = screen.splitlines()
    assert not any(re.match(r" +\d+: ", x) for x in screen)                  # nothing numbered
    square = next(x for x in screen if x.startswith("type a square")).split("e.g. ")[1][:2]
    assert screen[-1] == f"type a square marked a on the board, e.g. {square}; or draw; 'list' numbers every move"
    board = [x for x in screen if re.match(r"[ \d]{2} \d ", x)]
    row, col = int(square[1]) - 1, "ABCDEFGH".index(square[0])
    assert board[row][5 + 7 * col: 5 + 7 * col + 7].split()[0] == "a"        # the square marked
    numbered = re.findall(r"(\d+): ([^\n]+?)(?=\s{2,}\d+: |\n|$)", listing.split("you left")[0])
    assert listing.startswith(f" ({len(legal)}):")
    assert sorted(int(n) for n, _ in numbered) == list(range(1, len(legal) + 1))
    assert [t.strip() for _, t in sorted(numbered, key=lambda x: int(x[0]))] == \
        [first.action_to_string(a) for a in legal] and "draw" in listing
    code, out, _ = _play(monkeypatch, capsys, ["quit"], ["--game", "breakthrough", "--players", "2", "--bots",
                                                         "random", "--seed", "1"], then=None)
    assert code == 0 and re.search(r"your legal actions \(\d+\):\n +1: ", out.out)


def test_metro2033_help_hint_and_moves_speak_in_labels_and_wrap(monkeypatch, capsys):
    """#43: Metro 2033's help, hint and move lines say the moves as the list does (no station ids,
    no `count 2`), and at 50 columns every line wraps at words."""
    monkeypatch.setenv("COLUMNS", "50")
    code, out, _ = _play(monkeypatch, capsys, ["1", "1", "1", "help", "hint", "quit"],
                         ["--game", "metro2033", "--players", "3", "--bots", "random", "--seed", "5",
                          "--hint-bot", "ismcts:iterations=40"], then=None)
    assert code == 0
    o = out.out
    assert max(len(x) for x in o.splitlines()) <= 50, [x for x in o.splitlines() if len(x) > 50]
    assert "_" not in o.split("commands:")[1].split("hint (")[0]              # help: labels, not ids
    helped = " ".join(o.split("commands:")[1].split())
    assert "e.g. 'hire 2 soldiers', or the start of it" in helped and "these kinds: hire" in helped
    hint = " ".join(o.split("hint (")[1].split("the moves it liked")[0].split())
    assert re.fullmatch(r"ismcts:iterations=40\): play \d: hire (no|\d) soldiers?", hint), hint
    assert "P1 (random): hero starts at " in " ".join(o.split())
    moves = re.findall(r"^P\d \((?:you|random)\): .*(?:\n    .*)*", o, re.M)         # with their wrapped lines
    assert len(moves) >= 9 and not any(re.search(r"_|station |count ", x) for x in moves), moves
    assert o.startswith("metro2033, 3 players; you are player 0. P1:\n  random, P2: random.")   # the first line


def test_analyse_says_metro2033_moves_in_words(tmp_path, capsys):
    """#43: `metro-ai analyse` labels the moves as the terminal does (`hire 2 soldiers`, not
    `count 2`); --json keeps the engine's texts."""
    import random
    game = metro_ai.load_game("metro2033", players=3)
    s = game.new_state(2)
    r = random.Random(0)
    while s.phase != "hire":
        s.apply(r.choice(s.legal_actions()))
    path = tmp_path / "hire.json"
    path.write_text(s.to_json())
    assert main(["analyse", str(path), "--iterations", "200"]) == 0
    out = capsys.readouterr().out
    rows = out.splitlines()
    assert re.match(r"player 0: hire (no|\d) soldiers? ", rows[0]), rows[0]
    assert sum(bool(re.match(r"  hire (no|\d) soldiers? +visits", x)) for x in rows) == len(s.legal_actions())
    assert "count " not in out and "_" not in out.split("line:")[1]
    assert main(["analyse", str(path), "--iterations", "200", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["chosen_text"].startswith("count ")


def test_match_prints_metro2033s_end_in_words(capsys):
    """#43: the final position match prints names stations, not the engine's ids."""
    assert main(["match", "--game", "metro2033", "--players", "2", "--bots", "random", "random", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "Kievskaya" in out and not re.search(r"\b[a-z]+_(?:[a-z]+|[A-Z])\b", out)

"""What this file checks: the tutorials of docs/tutorials/ (issue #28) run and do what their pages
say.

Each tutorial is a page (``*.md``) and a script the page includes with ``literalinclude``, so that
what the page shows is code that runs. Here every script runs as a reader would run it, as a
subprocess in a fresh folder (nothing is written into the repository), with budgets small enough
for a few seconds, and its output is checked against what the page promises:

- embed.py plays a game to its end (a scripted person, typed moves, a bot made to move now) and
  the same seed plays the same game; embed.js does the same over the protocol against
  ``metro-ai serve`` (skipped where ``node`` is not installed);
- tournament.py stops, resumes, and prints a ratings table whose rows are its bots, the table
  ``metro-ai tournament`` prints from the same file;
- versus.py runs ``metro-ai bench --versus`` (this build against itself) and reads its score and
  games from the JSON, in fixed mode and as an SPRT;
- add_a_game.py registers its game and the bots play it; the contract suite passes on that game,
  as the page says, and the command line plays it with ``--game-module``.

And the pages and scripts stay one: every script is included by a page and run here, and every
``literalinclude`` names a file that exists and excerpts that are still in it.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TUTORIALS = ROOT / "docs" / "tutorials"
METRO_AI = Path(sys.executable).parent / "metro-ai"      # the command of the environment under test
ENV = {k: v for k, v in os.environ.items() if k != "METRO_AI_GAMES"}
NODE = shutil.which("node")


def python(script, *args, cwd, input=None, timeout=300):
    """Run docs/tutorials/`script` with this Python in `cwd`; the finished process, checked to exit 0."""
    done = subprocess.run([sys.executable, str(TUTORIALS / script), *map(str, args)], cwd=cwd, env=ENV,
                          input=input, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{script} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def node(script, *args, cwd, input=None, timeout=300):
    """Run docs/tutorials/`script` with node in `cwd`; the finished process, checked to exit 0."""
    done = subprocess.run([NODE, str(TUTORIALS / script), *map(str, args)], cwd=cwd, env=ENV,
                          input=input, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{script} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def _untimed(out):
    """`out` with the wall-clock seconds of each search ("in 0.01 s") left out."""
    return re.sub(r" in \d+\.\d+ s\b", " in ? s", out)


FINAL = re.compile(r"^final scores: P0 -?[\d.]+, P1 -?[\d.]+; (you win|you lose|you share first place)$", re.M)


# ---------------------------------------------------------------- embed

def test_embed_plays_a_game_to_its_end_and_the_same_seed_plays_it_again(tmp_path):
    args = ("--game", "leduc", "--auto", "random", "--iterations", 2000, "--seed", 3)
    run = python("embed.py", *args, cwd=tmp_path, input="")
    assert FINAL.search(run.stdout), run.stdout
    assert re.search(r"^P0 \(you\) plays (call|raise|fold)$", run.stdout, re.M)
    assert re.search(r"^P1 \(ismcts\) plays \w+ after 2,000 iterations", run.stdout, re.M), run.stdout
    # the same game again, move for move; only the seconds each search took may differ
    assert " iterations in ? s" in _untimed(run.stdout)
    assert _untimed(python("embed.py", *args, cwd=tmp_path, input="").stdout) == _untimed(run.stdout)


def test_embed_moves_now_with_the_best_move_so_far(tmp_path):
    """An hour's search a move, made to move after 0.2 s: the game ends, every search says it was
    stopped, and the progress bar showed the best move so far meanwhile. (No wall-clock bound here
    but the run's own timeout, far inside the hour: a loaded machine only makes it slower.)"""
    run = python("embed.py", "--game", "leduc", "--auto", "first", "--time", 3600, "--move-now-after", 0.2,
                 cwd=tmp_path, input="")
    assert FINAL.search(run.stdout), run.stdout
    searched = [line for line in run.stdout.splitlines() if " iterations in " in line]
    assert searched and all(line.endswith(", moved now") for line in searched), run.stdout
    assert "iterations, best so far: " in run.stderr


def test_embed_reads_numbers_and_words_and_asks_again(tmp_path):
    typed = "fly\n1\nraise\n" + "call\n" * 6     # unreadable, the first action (call), then in words
    run = python("embed.py", "--game", "leduc", "--iterations", 2000, "--seed", 3, cwd=tmp_path, input=typed)
    assert "your move (a number, the action in words, or quit): " in run.stdout
    assert "cannot read Leduc action 'fly'" in run.stdout
    assert "P0 (you) plays raise" in run.stdout and "P0 (you) plays call" in run.stdout
    assert FINAL.search(run.stdout), run.stdout


@pytest.mark.skipif(NODE is None, reason="node is not on PATH: the JavaScript part of the embed tutorial is not run")
def test_embed_js_plays_over_the_protocol_and_moves_now(tmp_path):
    run = node("embed.js", "--serve", f"{METRO_AI} serve", "--auto", "random", "--time", 30,
               "--move-now-after", 0.2, "--seed", 3, cwd=tmp_path, timeout=120)
    assert "you are P0, ismcts plays the others" in run.stdout
    assert FINAL.search(run.stdout), run.stdout
    searched = [line for line in run.stdout.splitlines() if " iterations in " in line]
    assert searched and all(line.endswith(", moved now") for line in searched), run.stdout
    assert "iterations, best so far: " in run.stderr


@pytest.mark.skipif(NODE is None, reason="node is not on PATH: the JavaScript part of the embed tutorial is not run")
def test_embed_js_reads_typed_moves(tmp_path):
    run = node("embed.js", "--serve", f"{METRO_AI} serve", "--time", 0.1, "--seed", 3, cwd=tmp_path,
               input="fly\n1\nraise\n" + "call\n" * 6, timeout=120)
    assert "you see: {" in run.stdout and "cannot read Leduc action 'fly'" in run.stdout
    assert "P0 (you) plays call" in run.stdout and "P0 (you) plays raise" in run.stdout
    assert FINAL.search(run.stdout), run.stdout


# ---------------------------------------------------------------- tournament

def table_rows(text):
    """The rows of the ratings table in a report's text: (bot, the rest of the row)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"\s*#\s+bot\s+games\s+mean score", line)) + 2
    rows = []
    for line in lines[start:]:
        found = re.match(r"\s*=?\d+\s+(\S+)\s+(.*)$", line)
        if not found:
            break
        rows.append((found.group(1), found.group(2)))
    return rows


@pytest.mark.slow          # the tutorial's whole tournament, twice
def test_tournament_stops_resumes_and_rates_its_bots(tmp_path):
    args = ("--deals", 2, "--iterations", 50, "--first", 3, "--bots", "ismcts", "greedy", "random")
    run = python("tournament.py", *args, cwd=tmp_path)
    out = run.stdout
    assert "first run: 3 of 12 games stored in tournament.sqlite" in out
    assert "resumed: 12 of 12 games stored, complete: True" in out
    rows = table_rows(out)
    assert sorted(bot for bot, _ in rows) == ["greedy", "ismcts", "random"], out
    assert all(re.match(r"8\s+\d", rest) for _, rest in rows), out        # 8 games each
    assert re.search(r"^the strongest here: (ismcts|greedy|random), Elo \d+", out, re.M)
    assert re.search(r"^game 0 replayed: \d+ moves by \S+, \S+; final scores \[", out, re.M)
    assert (tmp_path / "tournament.sqlite").is_file()
    # run again: the file holds the finished tournament, nothing is played
    assert "first run: 12 of 12 games stored" in python("tournament.py", *args, cwd=tmp_path).stdout
    # the command line reads the same file and prints the same table (the page says so)
    cli = subprocess.run([str(METRO_AI), "tournament", "--resume", "--db", "tournament.sqlite", "--quiet"],
                         cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    assert table_rows(cli.stdout) == rows


# ---------------------------------------------------------------- versus

@pytest.mark.parametrize("mode", [("--games", 4), ("--sprt", "--max-games", 4)], ids=["fixed", "sprt"])
def test_versus_plays_this_build_against_itself_and_reads_the_result(tmp_path, mode):
    run = python("versus.py", "--metro-ai", METRO_AI, "--game", "leduc", "--iterations", 100, *mode,
                 cwd=tmp_path)
    out = run.stdout
    assert out.startswith(f"$ {METRO_AI} bench --versus ")
    assert "4 games (2 deals, each played twice with the seats swapped)" in out
    assert re.search(r"^score \d+\.\d%, 95% Wilson interval \d+\.\d% to \d+\.\d%$", out, re.M), out
    assert re.search(r"^Elo [+-]\d+, 95% interval ", out, re.M)
    assert re.search(r"^A/A check: 50% is (inside|outside) the interval", out, re.M)
    verdict = "verdict inconclusive" if "--sprt" in mode else "verdict none (a fixed number of games)"
    assert verdict in out
    report = json.loads((tmp_path / "versus.json").read_text())
    assert report["summary"]["games"] == 4 and len(report["games"]) == 4
    assert report["mode"] == ("sprt" if "--sprt" in mode else "fixed")
    assert (tmp_path / "versus.md").is_file()


# ---------------------------------------------------------------- add a game

def test_add_a_game_registers_its_game_and_the_bots_play_it(tmp_path):
    run = python("add_a_game.py", "--games", 4, "--iterations", 300, cwd=tmp_path)
    out = run.stdout
    assert re.search(r"^registered: Stones .*; games now: .*\bstones\b", out, re.M), out
    assert "after 'take 2': Stones: 19 left, P1 to move; legal: ['take 1', 'take 2', 'take 3']" in out
    assert "refused: illegal action" in out and "saved and loaded: True" in out
    assert re.search(r"^player 0: take \d", out, re.M)                  # ismcts's analysis of the opening
    won = re.search(r"^4 games, seats alternating: ismcts won ([\d.]+), random won ([\d.]+)$", out, re.M)
    assert won and float(won.group(1)) + float(won.group(2)) == 4 and float(won.group(1)) > float(won.group(2)), out


def test_the_contract_suite_passes_on_the_tutorials_game():
    """The page's command as written, from the repository root: the contract suite over a game
    named in METRO_AI_GAMES, run by the venv's ``pytest``."""
    env = {**ENV, "METRO_AI_GAMES": "docs/tutorials/add_a_game.py:StonesGame", "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([str(Path(sys.executable).parent / "pytest"), "-q", "-p", "no:cacheprovider",
                           "tests/contract/test_contract.py", "-k", "stones"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert re.search(r"\d+ passed", done.stdout) and "failed" not in done.stdout


def test_the_command_line_plays_the_tutorials_game(tmp_path):
    spec = f"{TUTORIALS / 'add_a_game.py'}:StonesGame"
    done = subprocess.run([str(METRO_AI), "--game-module", spec, "match", "--game", "stones", "--bots", "ismcts", "random",
                           "--seed", "3", "--quiet"], cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "stones, 2 players, seed 3" in done.stdout


# ---------------------------------------------------------------- pages and scripts are one

INCLUDE = re.compile(r"^(\s*)```\{literalinclude\}\s+(\S+)\n((?:\1:[\w-]+:.*\n)*)", re.M)


def includes():
    """Every literalinclude of the tutorials' pages: (page, path as written, {option: value})."""
    out = []
    for page in sorted(TUTORIALS.glob("*.md")):
        for found in INCLUDE.finditer(page.read_text(encoding="utf-8")):
            options = dict(re.findall(r":([\w-]+):[ \t]*(.*)", found.group(3)))
            out.append((page, found.group(2), options))
    return out


def test_every_script_is_included_by_a_page_and_run_here():
    scripts = sorted(p.name for p in TUTORIALS.iterdir() if p.suffix in (".py", ".js"))
    assert scripts, "no tutorial scripts found"
    included = {(page.parent / path).resolve() for page, path, _ in includes()}
    run_here = set(re.findall(r"\b(?:python|node)\(\"([\w.]+)\"", Path(__file__).read_text(encoding="utf-8")))
    for name in scripts:
        assert (TUTORIALS / name).resolve() in included, f"docs/tutorials/{name} is included by no page"
        assert name in run_here, f"docs/tutorials/{name} is not run by {Path(__file__).name}"


@pytest.mark.parametrize("page, path, options", [pytest.param(*x, id=f"{x[0].stem}-{i}") for i, x in enumerate(includes())])
def test_every_excerpt_is_still_in_its_file(page, path, options):
    """A page's excerpts of a file (its own script, or an engine file that others edit) name text
    that is still there, in order: otherwise the page would show the wrong lines, or none."""
    target = (page.parent / path).resolve()
    assert target.is_file(), f"{page.name}: {path} does not exist"
    lines = target.read_text(encoding="utf-8").splitlines()
    if "pyobject" in options:
        name = options["pyobject"]
        assert any(re.match(rf"\s*(?:async\s+)?(?:def|class)\s+{re.escape(name)}\b", line) for line in lines), \
            f"{page.name}: {path} defines no {name}"
    at = 0
    for key in ("start-at", "start-after", "end-at", "end-before"):
        if key in options:
            hits = [i for i, line in enumerate(lines) if i >= at and options[key] in line]
            assert hits, f"{page.name}: {key} {options[key]!r} is not in {path} (after line {at + 1})"
            at = hits[0]


def test_each_page_has_one_title():
    for page in sorted(TUTORIALS.glob("*.md")):
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        titles = re.findall(r"^# \S.*$", text, re.M)
        assert len(titles) == 1, f"{page.name}: {len(titles)} '# ' titles"

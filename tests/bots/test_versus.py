"""The versus tool (metro_ai.bench.versus, benches/versus.py, metro-ai bench --versus): its
statistics against hand-computed values, the SPRT on seeded fake game-pair streams, the guard
against two builds that disagree, and one short match against this build's own ``metro-ai serve``."""
import json
import math
import random
import shutil
import stat
import sys

import pytest

import metro_ai
from metro_ai.bench.versus import match
from metro_ai.bench.versus.match import Interrupted, game_score, run_pairs, seats_of
from metro_ai.bench.versus.other import VersusError, serve_command
from metro_ai.bench.versus.report import markdown, report_json
from metro_ai.bench.versus.settings import MAX_JOBS, VersusSettings
from metro_ai.bench.versus.sprt import (Sprt, elo_from_score, elo_interval, llr, pair_grid, score_from_elo, sprt_bounds,
                                        summarise)
from metro_ai.cli import main as cli_main
from metro_ai.engine.metro.data import DATA_DIR as METRO_DATA
from metro_ai.engine.metro2033.cards import DEFAULT_PATH as M2033_CARDS
from tests.bench_scripts import bench_script


# ---- statistics, against values computed by hand

def test_elo_and_score():
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))       # 190.85
    assert elo_from_score(0.75) == pytest.approx(190.8485, abs=1e-4)
    assert elo_from_score(0.25) == pytest.approx(-190.8485, abs=1e-4)
    assert score_from_elo(0) == 0.5
    assert score_from_elo(400) == pytest.approx(10 / 11)                     # 1 / (1 + 10^-1)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    for elo in (-300, -35, 0, 12.5, 250):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)


def test_wilson_interval_of_a_summary():
    # 100 games at 50%: centre 0.5, half-width 1.96 sqrt(0.0025 + 1.96^2/40000) / (1 + 1.96^2/100) = 0.09617
    s = summarise([1.0, 0.0] * 50, Sprt())
    assert (s["games"], s["pairs"], s["score"]) == (100, 50, 0.5)
    assert s["wilson_low"] == pytest.approx(0.403830, abs=1e-6)
    assert s["wilson_high"] == pytest.approx(0.596170, abs=1e-6)
    assert (s["wins"], s["draws"], s["losses"]) == (50, 0, 50)
    assert s["pair_scores"] == {"0.5": 50}
    assert s["elo"] == 0.0


def test_sprt_bounds():
    lo, hi = sprt_bounds(0.05, 0.05)
    assert lo == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944439, abs=1e-6)
    assert hi == pytest.approx(2.944439, abs=1e-6)
    assert sprt_bounds(0.05, 0.1)[0] == pytest.approx(math.log(0.1 / 0.95))


def test_llr_with_two_outcomes_is_the_binomial_ratio():
    # Without the prior and with pair scores 0 and 1 only, the maximum-likelihood distribution
    # of mean s is Bernoulli(s): LLR = 70 ln(s1 / s0) + 30 ln((1 - s1) / (1 - s0)), s0 = 0.5,
    # s1 = 1 / (1 + 10^-0.25) = 0.640065 for Elo 0 against 100: 70 * 0.246962 - 30 * 0.328686 = 7.42678.
    s1 = 1 / (1 + 10 ** -0.25)
    assert llr({0.0: 30, 1.0: 70}, 0, 100, prior=0) == pytest.approx(
        70 * math.log(s1 / 0.5) + 30 * math.log((1 - s1) / 0.5))
    assert llr({0.0: 30, 1.0: 70}, 0, 100, prior=0) == pytest.approx(7.426775, abs=1e-5)
    assert llr({0.0: 70, 1.0: 30}, 0, 100, prior=0) < 0
    assert llr({}, 0, 30) == 0.0


def test_llr_of_pentanomial_counts_matches_the_normal_approximation():
    # Near the hypotheses (small Elo, a mean score near 1/2) the GSPRT's LLR is close to its
    # normal approximation N (s1 - s0) (2 mean - s0 - s1) / (2 var) over the pair scores.
    counts = {0.0: 25, 0.25: 190, 0.5: 400, 0.75: 195, 1.0: 25}
    n = sum(counts.values())
    mean = sum(v * c for v, c in counts.items()) / n
    var = sum(c * (v - mean) ** 2 for v, c in counts.items()) / n
    s0, s1 = score_from_elo(0), score_from_elo(5)
    approx = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    assert llr(counts, 0, 5, grid=pair_grid(2)) == pytest.approx(approx, rel=1e-3)
    assert llr(counts, 0, 5, grid=pair_grid(2)) < 0 < llr(counts, -5, 0, grid=pair_grid(2))


def test_seats_scores_and_grid():
    assert seats_of(2, False) == [0] and seats_of(2, True) == [1]
    assert seats_of(3, False) == [0, 2] and seats_of(3, True) == [1]
    assert seats_of(4, True) == [1, 3]
    assert game_score([1.0, 0.0], [0]) == 1.0
    assert game_score([1.0, 0.0], [1]) == 0.0
    assert game_score([0.5, 0.5], [1]) == 0.5
    # 4 players, ours 0 and 2: (0 v 1) 1, (0 v 3) 1, (2 v 1) 1/2, (2 v 3) 1 -> 7/8
    assert game_score([1.0, 0.5, 0.5, 0.0], [0, 2]) == 0.875
    assert pair_grid(2) == [0, 0.25, 0.5, 0.75, 1]
    assert len(pair_grid(4)) == 17 and len(pair_grid(3)) == 9 and pair_grid(3)[1] == 1 / 8


def _strict(text):
    """`text` parsed as strict JSON: NaN and Infinity are refused, as strict readers refuse them."""
    def refuse(constant):
        raise AssertionError(f"{constant} in the JSON")
    return json.loads(text, parse_constant=refuse)


def test_the_json_report_is_strict_with_null_for_an_unbounded_elo():
    summary = summarise([1.0, 1.0], Sprt())                  # one pair, won: Elo +inf, interval unbounded
    assert summary["elo"] == math.inf and summary["elo_low"] == -math.inf
    data = _strict(report_json({"summary": summary, "games": [{"score": math.nan, "actions": [1]}]}))
    assert data["summary"]["elo"] is None and data["summary"]["elo_low"] is None
    assert data["summary"]["elo_high"] is None and data["summary"]["games"] == 2
    assert data["games"] == [{"score": None, "actions": [1]}]


def test_elo_interval_of_pairs():
    elo, lo, hi = elo_interval([0.75, 0.25, 0.75, 0.25])
    assert elo == 0.0 and lo == pytest.approx(-hi)
    half = 1.96 * 0.25 / 2                                   # sd 0.25, 4 pairs
    assert hi == pytest.approx(elo_from_score(0.5 + half))
    assert elo_interval([0.75]) == (elo_from_score(0.75), -math.inf, math.inf)   # one pair: no spread yet
    assert elo_interval([]) == (0.0, -math.inf, math.inf)


# ---- the SPRT on fake game-pair streams (seeded)

def _stream(elo, seed, draws=0.2):
    """Game pairs of a bot `elo` stronger: each game a win, draw or loss with that expected score."""
    rng = random.Random(seed)
    s = score_from_elo(elo)
    win = s - draws / 2

    def game():
        u = rng.random()
        return 1.0 if u < win else 0.5 if u < win + draws else 0.0
    return lambda i: (game(), game())


def test_sprt_stops_with_h1_on_a_clearly_stronger_bot():
    sprt = Sprt(0, 30)
    scores = run_pairs(_stream(150, seed=1), sprt, max_pairs=2000)
    assert sprt.verdict() == "H1"
    assert sprt.llr >= sprt.bounds[1]
    assert len(scores) < 400                                 # it stopped early
    assert len(scores) == 2 * sum(sprt.counts.values())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sprt_never_says_h1_on_equal_bots(seed):
    sprt = Sprt(0, 30)
    run_pairs(_stream(0, seed=seed), sprt, max_pairs=3000)
    assert sprt.verdict() != "H1"


def test_fixed_mode_plays_the_number_asked():
    sprt = Sprt(0, 30)
    seen = []
    scores = run_pairs(_stream(150, seed=4), sprt, pairs=7, report=lambda i, s: seen.append(i))
    assert len(scores) == 14 and seen == list(range(1, 8))
    with pytest.raises(ValueError):
        run_pairs(_stream(0, 1), sprt)


def _slow_stream(elo, seed):
    """As `_stream`, but each pair's scores depend on its index alone and pairs take uneven
    times, so that pairs played at a time finish out of order."""
    import time

    def pair(i):
        rng = random.Random(seed * 100_003 + i)
        time.sleep(rng.random() * 0.004)
        s = score_from_elo(elo)
        return tuple(1.0 if rng.random() < s else 0.0 for _ in range(2))
    return pair


@pytest.mark.parametrize("elo", [200, 0])
def test_pairs_at_a_time_read_in_order_stop_where_one_at_a_time_stops(elo):
    """jobs > 1 plays pairs side by side but the SPRT reads them in pair order: the same scores,
    the same reports and the same stopping pair as one at a time."""
    results = {}
    for jobs in (1, 4):
        sprt, seen = Sprt(0, 50), []
        scores = run_pairs(_slow_stream(elo, 7), sprt, max_pairs=150, jobs=jobs,
                           report=lambda i, sc: seen.append((i, len(sc))))
        results[jobs] = (scores, seen, sprt.verdict(), sprt.llr)
    assert results[1] == results[4]
    assert results[1][1] == [(i, 2 * i) for i in range(1, len(results[1][0]) // 2 + 1)]
    if elo:
        assert results[4][2] == "H1" and len(results[4][0]) < 300       # stopped early, at the same pair
    fixed = run_pairs(_slow_stream(elo, 7), Sprt(0, 50), pairs=9, jobs=3)
    assert fixed == run_pairs(_slow_stream(elo, 7), Sprt(0, 50), pairs=9) and len(fixed) == 18


def test_a_failing_pair_stops_a_run_at_a_time():
    def pair(i):
        if i == 3:
            raise VersusError("pair 3 failed")
        return 1.0, 0.0
    with pytest.raises(VersusError, match="pair 3"):
        run_pairs(pair, Sprt(0, 50), pairs=10, jobs=3)


def test_bad_settings_are_refused():
    me = sys.executable
    with pytest.raises(ValueError, match="not both"):
        VersusSettings(me, time=0.1, iterations=10)
    with pytest.raises(ValueError, match="elo1"):
        VersusSettings(me, elo0=10, elo1=5)
    with pytest.raises(ValueError, match="players"):
        VersusSettings(me, game="metro", players=9)
    with pytest.raises(ValueError, match="--players"):
        VersusSettings(me, options={"players": 3})
    with pytest.raises(ValueError):
        VersusSettings(me, bot="no-such-bot")
    with pytest.raises(ValueError, match="--jobs"):
        VersusSettings(me, jobs=-1)
    with pytest.raises(ValueError, match="--jobs"):
        VersusSettings(me, jobs=MAX_JOBS + 1)
    assert VersusSettings(me, jobs=0).jobs >= 1                          # 0: one per CPU
    with pytest.raises(ValueError, match="no such file"):
        serve_command("/no/such/metro-ai")
    assert serve_command(me)[1:] == ["-m", "metro_ai", "serve"]


def test_a_relative_path_to_the_other_build_still_leads_there_from_the_servers_folder(tmp_path, monkeypatch):
    """The servers start in the temporary folder, so a path given relative to where the user
    stands (``--versus ../last/.venv/bin/metro-ai``, as the docs write it) is made absolute,
    symbolic links kept (a venv's python is a link whose target is outside the venv)."""
    link = tmp_path / "venv" / "bin" / "python3"
    link.parent.mkdir(parents=True)
    link.symlink_to(sys.executable)
    monkeypatch.chdir(tmp_path / "venv")
    command = serve_command("bin/python3")
    assert command == [str(link), "-m", "metro_ai", "serve"]


def test_a_game_file_goes_to_the_other_build_by_name_inside_its_folder(tmp_path):
    """A server reads no file a client names by its path: a game option naming a file is sent as
    the file's name, and the other build's servers read from the file's folder (--data-dir)."""
    chart = tmp_path / "charts" / "chart.csv"
    chart.parent.mkdir()
    shutil.copy(METRO_DATA / "companies_chart.csv", chart)
    cfg = VersusSettings(sys.executable, game="metro", options={"companies": True, "company_chart": str(chart)})
    assert cfg.other_game() == (str(chart.parent.resolve()), {"companies": True, "company_chart": "chart.csv"})
    assert VersusSettings(sys.executable, game="metro").other_game() == (None, {})
    other = tmp_path / "elsewhere" / "tracks.csv"
    other.parent.mkdir()
    shutil.copy(METRO_DATA / "central_tracks.csv", other)
    with pytest.raises(ValueError, match="more than one folder"):
        VersusSettings(sys.executable, game="metro", options={"companies": True, "company_chart": str(chart),
                                                              "central_tracks": True,
                                                              "central_track_layouts": str(other)})


# ---- against this build's own metro-ai serve

def test_bench_versus_with_out_writes_only_the_files_named(tmp_path, monkeypatch, capsys):
    """``metro-ai bench --versus OTHER --out F.json`` writes F.json and prints the Markdown; it
    used to write the bench's default bench.md into the working directory too."""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "r" / "v.json"
    out.parent.mkdir()
    assert cli_main(["bench", "--versus", sys.executable, "--game", "leduc", "--bot", "random", "--games", "2",
                     "--quiet", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["summary"]["games"] == 2
    assert capsys.readouterr().out.startswith("# metro-ai versus another build")   # the Markdown, printed
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["v.json"]


@pytest.mark.parametrize("jobs", [1, 3])
def test_ctrl_c_keeps_the_pairs_read_so_far(jobs):
    """Ctrl-C (KeyboardInterrupt in a pair, as the main thread sees it one at a time, or while
    waiting on pairs played at a time) ends the run with the scores of the pairs read before it."""
    import os
    import signal
    import threading
    import time
    stop = threading.Event()

    def pair(i):
        if i == 4:
            stop.set()
            if jobs == 1:
                raise KeyboardInterrupt
            time.sleep(8)                # still under way when Ctrl-C comes: abandoned, not waited for
        return 1.0, 0.5

    seen = []
    if jobs > 1:                         # Ctrl-C reaches the main thread, which waits on the pairs
        # Python's own Ctrl-C handler for the test's length, whatever the process had (a test
        # worker's may differ), and the signal sent only once pair 4 is under way.
        old = signal.signal(signal.SIGINT, signal.default_int_handler)
        threading.Thread(target=lambda: stop.wait(10) and (time.sleep(0.2), os.kill(os.getpid(), signal.SIGINT)),
                         daemon=True).start()
    else:
        old = None
    t0 = time.perf_counter()
    try:
        with pytest.raises(Interrupted) as stopped:
            run_pairs(pair, Sprt(0, 50), pairs=50, jobs=jobs, report=lambda i, sc: seen.append(i))
    finally:
        if old is not None:
            signal.signal(signal.SIGINT, old)
    assert time.perf_counter() - t0 < 6
    assert stopped.value.scores == [1.0, 0.5] * 4 and seen == [1, 2, 3, 4]


def test_an_interrupted_match_writes_the_games_played_and_exits_1(tmp_path, capsys, monkeypatch):
    played = match.play_game

    def play_game(cfg, other, deal, swapped):
        if deal == 2:
            raise KeyboardInterrupt
        return played(cfg, other, deal, swapped)
    monkeypatch.setattr(match, "play_game", play_game)
    out, md = tmp_path / "v.json", tmp_path / "v.md"
    code = cli_main(["bench", "--versus", sys.executable, "--game", "leduc", "--bot", "random", "--games", "10",
                     "--seed", "5", "--out", str(out), "--markdown", str(md)])
    assert code == 1
    report = json.loads(out.read_text())
    assert report["summary"]["games"] == len(report["games"]) == 4
    assert report["summary"]["interrupted"] is True and report["summary"]["verdict"] == "interrupted"
    assert "| interrupted |" in md.read_text()
    assert "interrupted after 4 games" in capsys.readouterr().err


def test_a_short_match_against_this_build_through_serve(tmp_path, capsys):
    out, md = tmp_path / "v.json", tmp_path / "v.md"
    code = cli_main(["bench", "--versus", sys.executable, "--game", "leduc", "--bot", "random", "--games", "4",
                     "--seed", "5", "--out", str(out), "--markdown", str(md)])
    assert code == 0
    report = json.loads(out.read_text())
    assert report["format"] == "metro-ai-versus" and report["mode"] == "fixed"
    assert report["other"]["version"] == metro_ai.__version__
    games = report["games"]
    assert len(games) == 4 and report["summary"]["games"] == 4
    assert [g["swapped"] for g in games] == [False, True, False, True]
    assert [g["this_seats"] for g in games] == [[0], [1], [0], [1]]
    assert games[0]["seed"] == games[1]["seed"] != games[2]["seed"] == games[3]["seed"]
    game = metro_ai.load_game("leduc", players=2)
    for g in games:
        assert set(g["by"]) <= set("tof") and "o" in g["by"] and len(g["by"]) == len(g["actions"]) == g["plies"]
        state = game.new_state(g["seed"])                       # the record replays to its returns
        for action, by in zip(g["actions"], g["by"]):
            if by != "f":
                assert (state.current_player in g["this_seats"]) == (by == "t")
            state.apply(action)
        assert state.is_terminal() and list(state.returns()) == g["returns"]
        assert g["score"] == game_score(g["returns"], g["this_seats"])
    assert report["summary"]["score"] == pytest.approx(sum(g["score"] for g in games) / 4)
    assert "| games |" in md.read_text() and "metro-ai bench --versus" in md.read_text()
    assert "pair 2:" in capsys.readouterr().err


def test_a_match_with_a_card_file_plays_it_on_both_sides(tmp_path, capsys):
    """#44's measurement of Metro 2033 at two players with a card file of its own: the other
    build's server is started to read the file's folder and plays the same game (the builds
    are checked against each other move by move); without it the server refuses the file."""
    cards = tmp_path / "cards" / "m2033.json"
    cards.parent.mkdir()
    data = json.loads(M2033_CARDS.read_text())
    for card in data["cards"]:                  # a file unlike the shipped one: the first seat's Reich tamed
        if card["type"] == "faction" and card["name"] == "Fourth Reich":
            card["start_bonus"] = [{"effect": "resource", "resource": "bullets", "amount": 1}]
    cards.write_text(json.dumps(data))
    out = tmp_path / "v.json"
    code = cli_main(["bench", "--versus", sys.executable, "--game", "metro2033", "--option", f"cards={cards}",
                     "--bot", "random", "--games", "2", "--seed", "3", "--out", str(out), "--quiet"])
    assert code == 0, capsys.readouterr().err
    report = json.loads(out.read_text())
    assert report["other"]["command"][-2:] == ["--data-dir", str(cards.parent.resolve())]
    assert report["summary"]["games"] == 2
    game = metro_ai.load_game("metro2033", players=2, cards=str(cards))
    for g in report["games"]:                   # the records replay in the card file's game
        state = game.new_state(g["seed"])
        for action in g["actions"]:
            state.apply(action)
        assert state.is_terminal() and list(state.returns()) == g["returns"]


def test_pairs_at_a_time_play_the_same_games_with_an_iteration_budget(tmp_path, capsys):
    """Each pair on its own server of the other build: with an iteration budget the games are the
    ones a run of one pair at a time plays, in the same order; `metro-ai bench --jobs` sets it."""
    def run(jobs):
        out = tmp_path / f"v{jobs}.json"
        assert cli_main(["bench", "--versus", sys.executable, "--game", "leduc", "--bot", "ismcts",
                         "--iterations", "40", "--games", "6", "--seed", "3", "--jobs", str(jobs),
                         "--quiet", "--out", str(out), "--markdown", str(tmp_path / f"v{jobs}.md")]) == 0
        return json.loads(out.read_text())
    one, three = run(1), run(3)
    keep = ("deal", "seed", "swapped", "actions", "by", "returns", "score")
    assert [{k: g[k] for k in keep} for g in three["games"]] == [{k: g[k] for k in keep} for g in one["games"]]
    assert three["settings"]["jobs"] == 3 and one["settings"]["jobs"] == 1
    assert three["summary"] == one["summary"]
    assert "3 pairs at a time" in (tmp_path / "v3.md").read_text()
    assert "at a time" not in (tmp_path / "v1.md").read_text()


FAKE_SERVER = """\
#!{python}
# A server that deals the same game but reports one legal action too few.
import json, sys
import metro_ai
state = None
for line in sys.stdin:
    m = json.loads(line)
    p, r = m.get("params", {{}}), None
    if m["method"] == "hello":
        r = {{"protocol": "metro-ai", "version": "fake", "games": {{"leduc": {{}}}}, "limits": {{}}}}
    elif m["method"] == "new_game":
        state = metro_ai.load_game(p["game"], players=p["options"]["players"]).new_state(p["seed"])
        r = {{"game_id": "g1", "current_player": state.current_player}}
    elif m["method"] == "legal_actions":
        r = {{"actions": [{{"id": a}} for a in state.legal_actions()[1:]]}}
    else:
        r = {{}}
    print(json.dumps({{"jsonrpc": "2.0", "id": m["id"], "result": r}}), flush=True)
"""


def test_builds_that_disagree_on_legal_actions_are_an_error(tmp_path):
    fake = tmp_path / "fake-metro-ai"
    fake.write_text(FAKE_SERVER.format(python=sys.executable))
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    cfg = VersusSettings(str(fake), game="leduc", bot="random", games=2)
    with pytest.raises(VersusError, match="disagree.*legal actions"):
        match.run_versus(cfg, progress=False)
    out = tmp_path / "v.json"
    assert cli_main(["bench", "--versus", str(fake), "--game", "leduc", "--bot", "random", "--games", "2",
                     "--out", str(out), "--quiet"]) == 1
    assert not out.exists()


def test_the_script_and_usage_errors(tmp_path, capsys):
    script = bench_script("versus")
    with pytest.raises(SystemExit) as e:
        script.main(["/no/such/metro-ai", "--games", "2"])
    assert e.value.code == 2 and "no such file" in capsys.readouterr().err
    assert cli_main(["bench", "--versus", sys.executable, "--games", "metro"]) == 2
    assert "number of games" in capsys.readouterr().err
    assert cli_main(["bench", "--sections", "engine", "--bot", "medium", "--time", "0.1"]) == 2
    assert "--bot, --time: only with --versus" in capsys.readouterr().err


def test_three_players_split_the_seats_by_parity():
    cfg = VersusSettings(sys.executable, game="metro", players=3, bot="random", games=2, seed=3)
    report = match.run_versus(cfg, progress=False)
    games = report["games"]
    assert [g["this_seats"] for g in games] == [[0, 2], [1]]
    game = metro_ai.load_game("metro", players=3)
    for g in games:
        assert g["score"] == game_score(g["returns"], g["this_seats"])
        state = game.new_state(g["seed"])
        for action, by in zip(g["actions"], g["by"]):
            if by != "f":
                assert (state.current_player in g["this_seats"]) == (by == "t")
            state.apply(action)
        assert list(state.returns()) == g["returns"]
    assert report["summary"]["games"] == 2 and report["settings"]["players"] == 3
    # the report says what a pair score can be with 3 players (one build holds 2 seats: eighths)
    assert "Pair scores (multiples of 1/8 with 3 players:" in markdown(report)

"""Tournaments: schedule, reproducibility, storage, interruption and resume (kill -9 and Ctrl-C),
Dask, reports."""
import collections
import importlib.util
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

import metro_ai
from metro_ai.cli import main
from metro_ai.play.report import build_report, format_report, plot, write_csv, write_games_csv
from metro_ai.play.tournament import TournamentConfig, TournamentDB, TournamentError, load_tournament, run_tournament

BOTS = ["ismcts:iterations=30", "greedy", "random"]


def config(players=2, deals=3, seed=7, bots=BOTS, **kw):
    return TournamentConfig(game="metro", options={"players": players}, bots=bots, deals=deals, seed=seed, **kw)


def outcomes(result):
    return [(g["id"], g["seats"], g["scores"], g["returns"]) for g in result.games]


def table(result):
    rep = build_report(result, bootstrap=50, seed=result.config.seed)
    return rep["standings"], rep["win_rate"], rep["first_place"]


# ---- schedule ----

@pytest.mark.parametrize("players,bots,mode,tables", [
    (2, 3, "round-robin", [(0, 1), (0, 2), (1, 2)]),
    (3, 4, "round-robin", [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]),
    (3, 2, "round-robin", [(0, 0, 1), (0, 1, 1)]),
    (4, 3, "gauntlet", [(0, 1, 1, 1), (0, 2, 2, 2)]),
])
def test_tables(players, bots, mode, tables):
    specs = ["random", "greedy", "ismcts", "pimc"][:bots]
    assert config(players, bots=specs, mode=mode).tables() == tables


@pytest.mark.parametrize("players,seatings,per_table", [(2, "rotate", 2), (4, "rotate", 4), (3, "all", 6)])
def test_duplicate_deals_rotate_every_seat(players, seatings, per_table):
    bots = ["random", "greedy", "ismcts", "pimc"][:players]
    cfg = config(players, deals=2, bots=bots, seatings=seatings)
    games = cfg.schedule()
    assert len(games) == 2 * len(cfg.tables()) * per_table
    assert [g["id"] for g in games] == list(range(len(games)))
    by_deal = collections.defaultdict(list)
    for g in games:
        by_deal[g["deal"]].append(g)
    assert by_deal[0][0]["seed"] != by_deal[1][0]["seed"]
    for deal_games in by_deal.values():
        assert len({g["seed"] for g in deal_games}) == 1               # one deal, one seed
        for seat in range(players):                                      # every bot sits in every seat
            assert {g["seats"][seat] for g in deal_games} == set(range(players))
    assert cfg.schedule() == games and config(players, deals=2, bots=bots, seatings=seatings, seed=8).schedule() != games


def test_config_errors():
    with pytest.raises(TournamentError, match="given twice"):
        config(bots=["random", "random"])
    with pytest.raises(TournamentError, match="at least 2 bots"):
        config(bots=["random"])
    with pytest.raises(TournamentError, match="deals must be"):
        config(deals=0)
    with pytest.raises(ValueError, match="unknown game"):
        TournamentConfig(game="chess", options={"players": 2}, bots=BOTS)
    with pytest.raises(metro_ai.BotSpecError, match="unknown bot"):
        config(bots=["random", "oracle"])
    assert config(bots=["random", "random:label=r2"]).labels == ["random", "r2"]


# ---- running ----

def test_same_seed_same_games_in_process_and_on_processes(tmp_path):
    one = run_tournament(config(), db=tmp_path / "a.sqlite", jobs=1)
    two = run_tournament(config(), db=None, jobs=2)
    assert one.complete and two.complete and len(one.games) == 18
    assert outcomes(one) == outcomes(two)
    assert outcomes(run_tournament(config(seed=8), jobs=1)) != outcomes(one)
    # the stored records replay to the stored scores
    with TournamentDB(tmp_path / "a.sqlite") as db:
        for g in one.games[:4]:
            rec = db.record(g["id"])
            assert metro_ai.replay(rec)[-1].scores() == g["scores"] == rec["scores"]
            assert rec["tournament"]["seats"] == g["seats"]


def test_stored_once_resume_and_refusals(tmp_path):
    path = tmp_path / "t.sqlite"
    calls = []
    part = run_tournament(config(), db=path, max_games=5, progress=lambda d, t, r: calls.append((d, t)))
    assert len(part.games) == 5 and not part.complete and calls[0] == (0, 18) and calls[-1] == (5, 18)
    with TournamentDB(path) as db:
        assert db.counts() == {"pending": 13, "done": 5, "failed": 0, "total": 18}
        assert db.store(0, {"record": {"scores": [0, 0], "returns": [0, 0]}}) is False   # done stays done
    rest = run_tournament(None, db=path)                          # continue from the stored settings
    assert rest.complete and outcomes(rest) == outcomes(run_tournament(config(), jobs=1))
    with pytest.raises(TournamentError, match="different tournament"):
        run_tournament(config(seed=99), db=path)
    assert len(run_tournament(config(seed=99), db=path, overwrite=True, max_games=1).games) == 1
    with pytest.raises(TournamentError, match="no tournament to resume"):
        run_tournament(None, db=tmp_path / "none.sqlite")


def test_tournament_configure_run_resume_results(tmp_path):
    path = tmp_path / "t.sqlite"
    t = metro_ai.Tournament(game="metro", options={"players": 2}, bots=BOTS, deals=3, seed=7, db=path)
    assert t.config == config() and t.config.players == 2 and "18 games" in repr(t)
    fresh = t.results()                                           # nothing played yet: nothing stored
    assert fresh.games == [] and fresh.total == 18 and not fresh.complete and not path.exists()
    part = t.run(max_games=5)
    assert len(part.games) == 5 and not part.complete and t.results() == part
    assert metro_ai.load_tournament(path) == part
    # another object on the same file, without settings, resumes the stored tournament
    other = metro_ai.Tournament(db=path)
    assert other.config == t.config and other.results() == part
    done = other.resume(jobs=2)
    assert done.complete and len(done.games) == 18
    assert outcomes(done) == outcomes(metro_ai.run_tournament(config(), jobs=1))
    assert t.results() == done == metro_ai.load_tournament(path)      # results equal a fresh load
    assert t.resume().games == done.games                              # nothing left to play
    assert metro_ai.Tournament(config(), db=path).results() == done    # a ready config works too
    with pytest.raises(TournamentError, match="different tournament"):
        metro_ai.Tournament(config(seed=99), db=path).results()
    with pytest.raises(TournamentError, match="different tournament"):
        metro_ai.Tournament(config(seed=99), db=path).run()
    assert len(metro_ai.Tournament(config(seed=99), db=path).run(overwrite=True, max_games=1).games) == 1


def test_tournament_in_memory_and_refusals():
    t = metro_ai.Tournament(config())
    assert t.results().games == [] and t.results().path is None
    part = t.run(max_games=4)
    assert len(part.games) == 4 and t.results() == part
    done = t.resume()
    assert done.complete and outcomes(done) == outcomes(run_tournament(config(), jobs=1))
    assert len(t.run(overwrite=True, max_games=2).games) == 2             # overwrite starts afresh
    with pytest.raises(TournamentError, match="no tournament given"):
        metro_ai.Tournament()
    with pytest.raises(TypeError, match="not both"):
        metro_ai.Tournament(config(), deals=4)
    with pytest.raises(TournamentError, match="no tournament file"):
        metro_ai.Tournament(db="/nonexistent/t.sqlite").results()


def test_failed_games_are_kept_apart_and_retried(tmp_path, monkeypatch):
    import metro_ai.play.tournament.runner as t
    real = t.play_match

    def flaky(game, specs, **kw):
        if kw["bot_seeds"][0] % 3 == 0:
            raise RuntimeError("bot crashed")
        return real(game, specs, **kw)

    monkeypatch.setattr(t, "play_match", flaky)
    t._setup.cache_clear()
    res = run_tournament(config(), db=tmp_path / "f.sqlite", jobs=1)
    assert res.failures and all("bot crashed" in f["error"] for f in res.failures)
    assert len(res.games) + len(res.failures) == res.total
    monkeypatch.setattr(t, "play_match", real)
    res = run_tournament(config(), db=tmp_path / "f.sqlite", jobs=1)
    assert res.complete and not res.failures


def test_ctrl_c_keeps_finished_games(tmp_path):
    path = tmp_path / "c.sqlite"

    def stop_after_4(done, total, result):
        if done == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tournament(config(), db=path, progress=stop_after_4)
    assert len(load_tournament(path).games) == 4
    assert outcomes(run_tournament(None, db=path)) == outcomes(run_tournament(config(), jobs=1))


KILL_BOTS, KILL_DEALS, KILL_GAMES = "ismcts:iterations=40,greedy:worlds=1,random", 20, 120
HELD_RUN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "held_run.py")


def _cli(*args):
    return [sys.executable, "-m", "metro_ai", "tournament", "--game", "metro", "--players", "2",
            "--bots", KILL_BOTS, "--deals", str(KILL_DEALS), "--seed", "3", "--bootstrap", "50", *args]


def _held(args, hold_after, gate=None):
    """A tournament process (the command line of `_cli`'s tournament with `args`) that holds after
    storing `hold_after` games until `gate` exists (forever without one: see tests/held_run.py),
    in its own process group, with Ctrl-C's SIGINT at its default even if this test run ignores it
    (as a shell's background job does)."""
    env = {**os.environ, "HOLD_AFTER": str(hold_after)}
    if gate is not None:
        env["HOLD_GATE"] = str(gate)
    return subprocess.Popen([sys.executable, HELD_RUN, *_cli(*args)[3:]], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


@pytest.fixture(scope="module")
def uninterrupted():
    cfg = TournamentConfig(game="metro", options={"players": 2}, bots=[KILL_BOTS], deals=KILL_DEALS, seed=3)
    return build_report(run_tournament(cfg, jobs=1), bootstrap=50, seed=3)


def _done(path):
    try:
        with sqlite3.connect(path, timeout=5) as c:
            return c.execute("SELECT COUNT(*) FROM games WHERE status = 'done'").fetchone()[0]
    except sqlite3.Error:
        return 0


def _wait_for_games(path, proc, n, timeout=60):
    t0 = time.monotonic()
    while _done(path) < n:
        assert proc.poll() is None, "the tournament ended before it could be interrupted"
        assert time.monotonic() - t0 < timeout
        time.sleep(0.02)


@pytest.mark.slow          # two processes and an uninterrupted reference run (test_ctrl_c_keeps_finished_games in-process)
@pytest.mark.parametrize("how", ["kill -9", "ctrl-c"])
def test_interrupted_process_resumes_to_the_same_table(tmp_path, how, uninterrupted, capsys):
    # The run holds after its 8th stored game until it is interrupted (the pool's workers play on),
    # so the signal always lands in the middle of the run: an unheld run of these quick games can
    # end before the signal on a loaded machine, and then exits 0, rightly.
    path = str(tmp_path / "k.sqlite")
    proc = _held(["--db", path, "--jobs", "2", "--quiet"], hold_after=8)
    try:
        _wait_for_games(path, proc, 8)
        if how == "kill -9":
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(30)
        else:
            os.killpg(proc.pid, signal.SIGINT)                   # what Ctrl-C sends: the whole group
            out, err = proc.communicate(timeout=60)
            assert proc.returncode == 1, err
            assert "interrupted" in err and "--resume" in err and "games played:" in out
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)                  # leftover pool workers, if any
        except ProcessLookupError:
            pass
        proc.wait(30)
    kept = _done(path)
    assert kept == 8
    capsys.readouterr()
    assert main(["tournament", "--resume", "--db", path, "--jobs", "2", "--quiet", "--json", "--bootstrap", "50"]) == 0
    report = json.loads(capsys.readouterr().out)
    with sqlite3.connect(path) as c:
        rows = c.execute("SELECT id, status, record FROM games ORDER BY id").fetchall()
    assert [r[0] for r in rows] == list(range(KILL_GAMES)) and {r[1] for r in rows} == {"done"}
    assert [json.loads(r[2])["tournament"]["id"] for r in rows] == list(range(KILL_GAMES))
    # the same as a run never interrupted
    assert report["games_played"] == KILL_GAMES and report["complete"]
    for key in ("standings", "win_rate", "first_place", "seats"):
        assert report[key] == uninterrupted[key]


@pytest.mark.slow          # waits on a running tournament; the lock's refusals are also test_tournament_files'
def test_a_second_run_on_the_same_file_is_refused_while_the_first_plays(tmp_path, uninterrupted, capsys):
    path, gate = str(tmp_path / "l.sqlite"), tmp_path / "go"
    first = _held(["--db", path, "--jobs", "1", "--quiet", "--json"], hold_after=5, gate=gate)
    try:
        _wait_for_games(path, first, 5)
        for extra in ([], ["--overwrite"], ["--resume"]):       # the same run, a fresh start, a resume
            t0 = time.monotonic()
            second = subprocess.run(_cli("--db", path, "--jobs", "1", "--quiet", *extra),
                                    capture_output=True, text=True, timeout=60)
            assert second.returncode == 2, second.stderr
            assert f"{path!r} is in use by another run (pid {first.pid})" in second.stderr
            assert "Traceback" not in second.stderr and time.monotonic() - t0 < 30     # at once, not after it
        assert _done(path) == 5                                  # nothing played twice, nothing lost
        gate.touch()
        out, err = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
        first.wait(30)
    assert first.returncode == 0, err
    report = json.loads(out)
    assert report["complete"] and report["games_played"] == KILL_GAMES
    assert report["standings"] == uninterrupted["standings"]
    assert not os.path.exists(path + ".lock")                   # released
    # the lock is the run's, not the file's: once the run is over the file can be run again
    assert main(["tournament", "--resume", "--db", path, "--quiet", "--bootstrap", "0"]) == 0
    assert "games played: 120/120" in capsys.readouterr().out


def test_run_lock_in_process(tmp_path):
    from metro_ai.play.tournament import RunLock
    path = tmp_path / "t.sqlite"
    with RunLock(path):
        assert (tmp_path / "t.sqlite.lock").read_text() == str(os.getpid())
        # flock locks belong to open files: a second lock in this process is refused too
        with pytest.raises(TournamentError, match=rf"is in use by another run \(pid {os.getpid()}\)"):
            RunLock(path).acquire()
        with pytest.raises(TournamentError, match="in use by another run"):
            run_tournament(config(), db=path, max_games=1)
    assert not (tmp_path / "t.sqlite.lock").exists()
    assert len(run_tournament(config(), db=path, max_games=1).games) == 1
    (tmp_path / "t.sqlite.lock").write_text("12345")           # left by a killed run: not locked, so no matter
    assert len(run_tournament(config(), db=path, max_games=1).games) == 2


def test_files_that_cannot_hold_a_tournament_say_why(tmp_path, capsys):
    missing = tmp_path / "no" / "such" / "t.sqlite"
    with pytest.raises(TournamentError, match=rf"the folder '{tmp_path / 'no' / 'such'}' does not exist"):
        run_tournament(config(), db=missing)
    assert main(["tournament", "--quiet", "--bots", "greedy,random", "--db", str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"the folder '{tmp_path / 'no' / 'such'}' does not exist" in err and "sqlite3" not in err
    text = tmp_path / "notes.txt"
    text.write_text("not a database, just some notes\n" * 20)
    for call in (lambda: load_tournament(text), lambda: metro_ai.Tournament(db=text).config,
                 lambda: run_tournament(config(), db=text), lambda: TournamentDB(text)):
        with pytest.raises(TournamentError, match=rf"'{text}' is not a metro-ai tournament file"):
            call()
    assert main(["tournament", "--quiet", "--bots", "greedy,random", "--db", str(text)]) == 2
    assert "is not a metro-ai tournament file" in capsys.readouterr().err
    assert main(["tournament", "--quiet", "--resume", "--db", str(text)]) == 2
    assert "is not a metro-ai tournament file" in capsys.readouterr().err
    assert text.read_text().startswith("not a database")       # left as it was


@pytest.mark.slow          # a Dask cluster's start (its refusals: test_cli_refuses_plots_and_dask_...)
def test_dask_cluster_gives_the_same_results(tmp_path, capsys):
    pytest.importorskip("dask.distributed")
    from dask.distributed import LocalCluster
    local = run_tournament(config(), jobs=1)
    with LocalCluster(processes=True, n_workers=2, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        remote = run_tournament(config(), db=tmp_path / "d.sqlite", dask=cluster.scheduler_address)
        assert outcomes(remote) == outcomes(local)
        code = main(["tournament", "--players", "2", "--bots", *BOTS, "--deals", "3", "--seed", "7", "--quiet",
                     "--db", str(tmp_path / "cli.sqlite"), "--dask", cluster.scheduler_address, "--json",
                     "--bootstrap", "50"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["standings"] == table(local)[0]


def test_breakthrough_tournament():
    try:
        metro_ai.load_game("breakthrough", players=2).new_state(1)
    except Exception as exc:  # noqa: BLE001 - the engine is being finished elsewhere
        pytest.skip(f"breakthrough engine not available: {exc}")
    cfg = TournamentConfig(game="breakthrough", options={"players": 2}, bots=["random", "greedy"], deals=1, seed=1)
    res = run_tournament(cfg, jobs=1)
    assert res.complete and len(res.games) == 2 and not res.failures


# ---- reports ----

def test_reports_table_csv_json_and_plots(tmp_path):
    res = run_tournament(config(players=3, deals=2, bots=["greedy", "random"]), jobs=1)
    rep = build_report(res, bootstrap=50)
    json.dumps(rep, allow_nan=False)
    assert rep["games_played"] == res.total == 12 and rep["rating"]["method"].startswith("Plackett-Luce")
    assert [r["bot"] for r in rep["standings"]] == ["greedy", "random"]
    g = rep["standings"][0]
    assert g["seat_games"] == 18 and g["games"] == 12 and 0 <= g["first"] <= 1
    assert rep["win_rate"][0][1] + rep["win_rate"][1][0] == pytest.approx(1.0)
    text = format_report(rep)
    assert "greedy" in text and "win rate" in text and "first place" in text and "openskill" in text
    write_csv(rep, tmp_path / "s.csv")
    write_games_csv(res, tmp_path / "g.csv")
    assert (tmp_path / "s.csv").read_text().splitlines()[0].startswith("rank,bot,spec,games")
    assert len((tmp_path / "g.csv").read_text().splitlines()) == 1 + 12 * 3
    pytest.importorskip("matplotlib")
    paths = plot(rep, tmp_path / "plots")
    assert [os.path.basename(p) for p in paths] == ["ratings.png", "winrate.png"]
    assert all(open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n" for p in paths)


def test_report_says_when_an_interval_cannot_be_estimated(tmp_path):
    # what the README's first set-up command gives: the first bot wins every pairing, the second beats the
    # third every time (the stored results of such a run; playing it takes half a minute)
    from metro_ai.play.tournament import TournamentResult
    cfg = config(bots=["ismcts", "greedy", "random"], deals=30)
    order = {0: 2, 1: 1, 2: 0}                                  # bot -> strength
    games = []
    for g in cfg.schedule():
        strong = max(g["seats"], key=order.get)
        games.append({**g, "scores": [10 if b == strong else 0 for b in g["seats"]],
                      "returns": [1.0 if b == strong else 0.0 for b in g["seats"]], "seconds": 0.0})
    result = TournamentResult(cfg, games, [], len(games), None)
    rep = build_report(result, bootstrap=100, seed=1)
    json.dumps(rep, allow_nan=False)
    rows = {r["bot"]: r for r in rep["standings"]}
    assert [rows[b]["rating_interval"] for b in ("ismcts", "greedy", "random")] == ["at-least", "none", "at-most"]
    assert rows["ismcts"]["rating_high"] is None and rows["random"]["rating_low"] is None
    text = format_report(rep)
    lines: dict = {}
    for line in text.splitlines():                              # the standings (before the matrices)
        if line[:2].strip().isdigit():
            lines.setdefault(line.split()[1], line)
    assert lines["ismcts"].rstrip().endswith(f"[{rows['ismcts']['rating_low']:.0f}, ∞)")
    assert lines["greedy"].rstrip().endswith("n/a")
    assert lines["random"].rstrip().endswith(f"(-∞, {rows['random']['rating_high']:.0f}]")
    assert "intervals: [x, ∞) or (-∞, x]" in text
    for r in rows.values():                                     # no interval one point wide
        assert r["rating_low"] is None or r["rating_high"] is None or r["rating_low"] < r["rating_high"]
    anchored = build_report(result, bootstrap=100, seed=1, anchor="greedy")
    assert [r["rating_interval"] for r in anchored["standings"]] == ["at-least", "anchor", "at-most"]
    assert "anchor" in format_report(anchored)
    write_csv(rep, tmp_path / "s.csv")
    assert "rating_interval" in (tmp_path / "s.csv").read_text().splitlines()[0]
    pytest.importorskip("matplotlib")
    assert len(plot(rep, tmp_path / "plots")) == 2


def test_cli_tournament(tmp_path, capsys):
    db = str(tmp_path / "t.sqlite")
    argv = ["tournament", "--players", "2", "--bots", "greedy,random", "--deals", "3", "--db", db, "--jobs", "1",
            "--bootstrap", "20"]
    assert main(argv + ["--max-games", "2"]) == 0
    captured = capsys.readouterr()
    assert "2/6 games" in captured.err and "incomplete" in captured.out and "--resume" in captured.err
    assert main(argv + ["--quiet", "--csv", str(tmp_path / "s.csv")]) == 0     # same settings: continues
    out = capsys.readouterr().out
    assert "games played: 6/6" in out and "Elo" in out and (tmp_path / "s.csv").exists()
    assert main(["tournament", "--resume", "--db", db, "--json", "--quiet", "--anchor", "random"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["complete"] and [r["rating"] for r in rep["standings"] if r["bot"] == "random"] == [1500.0]
    assert main(argv + ["--deals", "4", "--quiet"]) == 2                   # another tournament in the same file
    assert "different tournament" in capsys.readouterr().err


def test_python_report_and_cli_agree_on_one_file(tmp_path, capsys):
    """The bootstrap behind the intervals is seeded with the tournament's seed in both, so the same
    file gives the same figures from TournamentResult.report() and from metro-ai tournament."""
    db = str(tmp_path / "t.sqlite")
    assert main(["tournament", "--players", "2", "--bots", "greedy,random,ismcts:iterations=10", "--deals", "6",
                 "--seed", "11", "--db", db, "--jobs", "1", "--quiet", "--json", "--bootstrap", "40"]) == 0
    cli = json.loads(capsys.readouterr().out)
    ours = metro_ai.load_tournament(db).report(bootstrap=40)
    assert ours["standings"] == cli["standings"] and ours["rating"] == cli["rating"]
    other = metro_ai.load_tournament(db).report(bootstrap=40, seed=0)         # another seed, other draws
    assert [r["rating_low"] for r in other["standings"]] != [r["rating_low"] for r in ours["standings"]]
    assert metro_ai.format_report(ours).splitlines()[0] == cli["description"]


@pytest.mark.parametrize("argv,err", [
    (["--bots", "greedy,oracle"], "unknown bot 'oracle'"),
    (["--bots", "greedy:time=1,random"], "does not search"),
    (["--bots", "random,random"], "given twice"),
    (["--deals", "0"], "deals must be"),
    (["--option", "colour=red"], "unknown option"),
    (["--jobs", "0"], "--jobs must be"),
    (["--resume", "--db", "/nonexistent/t.sqlite"], "no tournament to resume"),
    (["--bots", "greedy,random", "--anchor", "nobody"], "--anchor 'nobody'"),
])
def test_cli_tournament_bad_usage(argv, err, tmp_path, capsys):
    if "--db" not in argv:
        argv = argv + ["--db", str(tmp_path / "x.sqlite")]
    assert main(["tournament", "--quiet", *argv]) == 2
    assert err in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["tournament", "--mode", "swiss"])
    assert e.value.code == 2


def test_cli_refuses_plots_and_dask_it_cannot_do_before_playing(tmp_path, capsys, monkeypatch):
    import metro_ai.play.report as rep

    def missing():
        raise RuntimeError("plots need matplotlib: pip install 'metro-ai[plot]'")

    monkeypatch.setattr(rep, "require_matplotlib", missing)
    db = tmp_path / "p.sqlite"
    assert main(["tournament", "--bots", "greedy,random", "--db", str(db), "--plot", str(tmp_path)]) == 2
    assert "metro-ai[plot]" in capsys.readouterr().err and not db.exists()
    if importlib.util.find_spec("distributed") is not None:              # a malformed address: no file either
        assert main(["tournament", "--bots", "greedy,random", "--db", str(db), "--dask", "no-port-here"]) == 2
        assert "cannot reach the Dask scheduler at 'no-port-here'" in capsys.readouterr().err
        assert sorted(tmp_path.iterdir()) == []
    monkeypatch.setitem(sys.modules, "dask.distributed", None)           # as if Dask were not installed
    assert main(["tournament", "--bots", "greedy,random", "--db", str(db), "--dask", "tcp://127.0.0.1:1"]) == 2
    assert "metro-ai[dask]" in capsys.readouterr().err and not db.exists()


def test_a_dask_client_that_failed_to_start_is_collected_before_the_error(monkeypatch):
    """A Dask client that fails to start lives on in a reference cycle and closes itself when the
    garbage collector finds it; its close takes the lock every client's start holds, so a
    collection inside the next client's start waited for ever (a CI run hung so, at the second
    --dask of one test). dask_client collects it before it raises: none is left for later."""
    distributed = pytest.importorskip("dask.distributed")
    import gc
    from metro_ai.play.tournament import runner
    monkeypatch.setattr(runner, "DASK_TIMEOUT", 1)

    def clients():
        return sum(isinstance(o, distributed.Client) for o in gc.get_objects())

    gc.disable()                                 # only dask_client's own collection may find it
    try:
        for address in ("no-port-here", "tcp://127.0.0.1:1"):     # a malformed address; nothing listens
            before = clients()
            with pytest.raises(TournamentError, match=f"cannot reach the Dask scheduler at '{address}'"):
                with runner.dask_client(address):
                    pass
            assert clients() <= before, address
    finally:
        gc.enable()


def test_progress_line_on_a_terminal_and_in_a_log():
    import io
    from metro_ai.play.report import ProgressLine

    class Tty(io.StringIO):
        def isatty(self):
            return True

    res = run_tournament(config(), jobs=1)
    tty, log = Tty(), io.StringIO()
    for stream in (tty, log):
        line = ProgressLine(stream)
        for done in (0, 9, 18):
            line(done, 18, res)
            time.sleep(0.11)
        line.close()
    out = tty.getvalue()
    assert "18/18" in out and "game/s" in out and "mean return: greedy" in out and out.endswith("\n")
    assert out.count("\r") >= 3                                    # redrawn in place
    assert log.getvalue() == ""                                     # quiet in a log


def test_report_shows_ties_as_shared_places(tmp_path):
    """Every game drawn (all returns 0.5 at 3 seats): the bots share first place, '=1' each, not
    ranks 1, 2, 3; in JSON ``rank`` is the competition rank and ``place`` its text."""
    from metro_ai.play.report import place_labels, places
    from metro_ai.play.tournament import TournamentResult
    assert places([1.0, 0.5, 0.5, 0.0]) == [1, 2, 2, 4]
    assert place_labels([1.0, 0.5, 0.5, 0.0]) == ["1", "=2", "=2", "4"]
    assert place_labels([0.5, 0.5, 0.5]) == ["=1", "=1", "=1"] and place_labels([0.0, 1.0]) == ["2", "1"]
    cfg = config(players=3, bots=["ismcts", "greedy", "random"], deals=2)
    games = [{**g, "scores": [5, 5, 5], "returns": [0.5, 0.5, 0.5], "seconds": 0.0} for g in cfg.schedule()]
    rep = build_report(TournamentResult(cfg, games, [], len(games), None), bootstrap=20, seed=1)
    assert [(r["rank"], r["place"]) for r in rep["standings"]] == [(1, "=1")] * 3
    standings = [line for line in format_report(rep).splitlines() if line.startswith("=1  ")]
    assert len(standings) == 3
    write_csv(rep, tmp_path / "s.csv")
    import csv
    with open(tmp_path / "s.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["rank"], r["place"]) for r in rows] == [("1", "=1")] * 3


def test_records_writes_each_games_match_record(tmp_path, capsys):
    """#43: --records writes one match record a game done, each the one the file keeps, which
    replay reads; a --records that cannot be a folder is refused before any game."""
    db, out = tmp_path / "t.sqlite", tmp_path / "records"
    args = ["tournament", "--quiet", "--bots", "greedy,random", "--deals", "2", "--db", str(db), "--bootstrap", "0"]
    assert main(args + ["--max-games", "3", "--records", str(out)]) == 0
    assert "3 match records written to" in capsys.readouterr().err
    files = sorted(out.iterdir())
    assert [f.name for f in files] == ["game-000000.json", "game-000001.json", "game-000002.json"]
    kept = metro_ai.Tournament(db=db).records([0, 1, 2])
    for path, record in zip(files, kept):
        assert json.loads(path.read_text()) == record
        assert len(metro_ai.replay(path)) == len(record["actions"]) + 1
    assert main(args + ["--resume", "--records", str(out)]) == 0             # the rest, and the earlier again
    assert len(list(out.iterdir())) == 4
    for bad, why in ((tmp_path / "no" / "dir", "no such directory"), (db, "not a directory")):
        assert main(args + ["--resume", "--records", str(bad)]) == 2
        assert f"--records {bad}: {why}" in capsys.readouterr().err

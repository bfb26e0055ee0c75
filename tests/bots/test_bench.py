"""``metro-ai bench``: settings and errors, the report files, and each section on a tiny budget.

These check that the benchmarks run and report what they measured; they assert nothing about
speed (figures come from full runs on a quiet machine, see docs/guide/benchmarks.md).
"""
import json

import pytest

import metro_ai
from metro_ai.bench import common, runner, strength
from metro_ai.bench import engine as engine_module
from metro_ai.bots.search import NODE_BYTES
from metro_ai.cli import main as cli_main
from metro_ai.engine.core import STAGES
from metro_ai.registry import game_class


def tiny(**kw):
    base = dict(seconds=0.02, repeats=1, growth_players={"metro": (2,), "breakthrough": (3,), "leduc": (),
                                              "metro2033": (2,)},
                memory_iterations=2000, openspiel_iterations=5, strength_games=2, strength_time=0.002,
                jobs=1)
    base.update(kw)
    return common.Settings.quick_run(**base)


def test_settings_errors_are_usage_errors(tmp_path, capsys):
    out = [f"--markdown={tmp_path / 'b.md'}", f"--json={tmp_path / 'b.json'}"]
    assert cli_main(["bench", "--sections", "engine,warp", *out]) == 2
    assert "unknown bench section(s) 'warp'" in capsys.readouterr().err
    assert cli_main(["bench", "--sections", ",", *out]) == 2
    assert cli_main(["bench", "--seconds", "0", *out]) == 2
    assert "--seconds must be positive" in capsys.readouterr().err
    assert cli_main(["bench", "--workers", "0", *out]) == 2
    assert cli_main(["bench", "--jobs", "-2", *out]) == 2
    assert cli_main(["bench", "--strength-time", "1", "--strength-iterations", "5", *out]) == 2
    assert "not both" in capsys.readouterr().err
    assert cli_main(["bench", "--strength-pairs", "ismcts", *out]) == 2
    assert "expected BOT:OPPONENT" in capsys.readouterr().err
    assert cli_main(["bench", "--strength-pairs", "ismcts:wizard", *out]) == 2
    assert "unknown bot 'wizard'" in capsys.readouterr().err
    assert cli_main(["bench", "--strength-pairs", "openspiel:ismcts", *out]) == 2
    assert cli_main(["bench", "--option", "players=4", *out]) == 2
    assert cli_main(["bench", "--option", "companies=maybe", *out]) == 2
    assert cli_main(["bench", "--option", "companies", *out]) == 2
    assert cli_main(["bench", "--markdown", str(tmp_path / "no" / "b.md")]) == 2
    assert "no such directory" in capsys.readouterr().err
    assert not (tmp_path / "b.md").exists() and not (tmp_path / "b.json").exists()
    with pytest.raises(ValueError, match="sections are engine"):
        runner.run(common.Settings(sections=("nope",)), progress=False)


def test_quick_settings_keep_what_is_given():
    cfg = common.Settings.quick_run(seconds=0.5, workers=(1, 3))
    assert cfg.quick and cfg.seconds == 0.5 and cfg.workers == (1, 3) and cfg.strength_games == 4
    assert common.Settings().strength_games == 200 and common.Settings().memory_iterations == 1_000_000


def test_strength_pairs_and_options_are_read():
    from metro_ai.cli import build_parser
    args = build_parser().parse_args(["bench", "--strength-pairs", "ismcts:greedy, mo-ismcts:ismcts,",
                                 "--option", "companies=true", "--option", "exchange_limit=3"])
    cfg = runner.settings_from(args)
    assert cfg.strength_pairs == (("ismcts", "greedy"), ("mo-ismcts", "ismcts"))
    assert cfg.options == {"companies": True, "exchange_limit": 3}
    default = runner.settings_from(build_parser().parse_args(["bench"]))
    assert default.strength_pairs == (("ismcts", "openspiel"),) and default.options == {}


@pytest.mark.parametrize("pair,err", [("companies", "--option expects NAME=VALUE, got 'companies'"),
                                      (" =true", "--option expects NAME=VALUE, got ' =true'"),
                                      ("exchange_limit=1,,2", "an empty item in a comma-separated list"),
                                      ("exchange_limit=[3", "starts like JSON but is not")])
def test_option_texts_are_read_by_the_one_parser_the_cli_uses(pair, err, tmp_path, capsys):
    """bench reads --option by metro_ai.optionspec, as the command line does: the same errors
    from both, and bench does not import the command line (that was an import circle)."""
    import ast
    from pathlib import Path
    from metro_ai.cli import build_parser
    out = [f"--markdown={tmp_path / 'b.md'}", f"--json={tmp_path / 'b.json'}"]
    with pytest.raises(ValueError) as from_bench:
        runner.settings_from(build_parser().parse_args(["bench", "--option", pair, "--option", "companies=true", *out]))
    assert err in str(from_bench.value)
    assert cli_main(["match", "--bots", "random", "--option", pair]) == 2
    assert str(from_bench.value) in capsys.readouterr().err
    with pytest.raises(ValueError, match="option 'companies' given twice"):
        runner.settings_from(build_parser().parse_args(["bench", "--option", "companies=true", "--option", "companies=1"]))
    trees = [ast.parse(f.read_text(encoding="utf-8")) for f in Path(common.__file__).parent.glob("*.py")]
    imported = {n.module for t in trees for n in ast.walk(t) if isinstance(n, ast.ImportFrom)} | {
        a.name for t in trees for n in ast.walk(t) if isinstance(n, ast.Import) for a in n.names}
    assert "metro_ai.optionspec" in imported and not any(m and m.startswith("metro_ai.cli") for m in imported)


def test_options_section_times_each_option_set_next_to_the_base_game():
    report = runner.run(tiny(sections=("options",), games=("metro",)), progress=False)
    rows = report["sections"]["options"]["rows"]
    sets = [s for s in metro_ai.load_game("metro").option_sets() if len(s) > 1]
    assert [(r["players"], r["options"]) for r in rows] == [
        (s["players"], ", ".join(f"{k}={json.dumps(v)}" for k, v in s.items() if k != "players")) for s in sets]
    assert (2, "companies=true") in [(r["players"], r["options"]) for r in rows]
    for r in rows:
        assert r["option"] > 0 and r["base"] > 0 and r["ratio"] == pytest.approx(r["option"] / r["base"])
    assert "| metro | 2 | companies=true |" in runner.markdown(report)


def test_strength_pairs_of_our_bots_with_game_options():
    # no OpenSpiel needed: both seats are metro-ai bots; seats swapped on each deal
    cfg = tiny(sections=("strength",), strength_pairs=(("ismcts", "greedy"), ("mo-ismcts", "ismcts")),
               options={"companies": True}, strength_iterations=5)
    sec = runner.run(cfg, progress=False)["sections"]["strength"]
    assert [r["pair"] for r in sec["rows"]] == ["ismcts vs greedy", "mo-ismcts vs ismcts"]
    assert [(g["pair"], g["deal"], g["seat"]) for g in sec["games"]] == [
        ("ismcts vs greedy", 0, 0), ("ismcts vs greedy", 0, 1), ("mo-ismcts vs ismcts", 0, 0),
        ("mo-ismcts vs ismcts", 0, 1)]
    for r in sec["rows"]:
        assert r["games"] == 2 and r["wins"] + r["draws"] + r["losses"] == 2
        assert r["ci_low"] <= r["first_rate"] <= r["ci_high"] and r["bot_iterations"] == 5
    assert [r["opponent_iterations"] for r in sec["rows"]] == [0, 5]      # greedy does not search
    assert sec["options"] == {"companies": True} and "with companies=true" in sec["note"]
    # iteration budgets: the same seed plays the same games; the game is the companies game
    a, b = (strength.strength_game(5, 1, iterations=5, pair=("mo-ismcts", "ismcts"), options={"companies": True})
            for _ in range(2))
    assert a == b and a["seat"] == 1 and len(a["scores"]) == 2
    state = metro_ai.load_game("metro", players=2, companies=True).new_state(0)
    assert any(x >= 6145 for x in state.legal_actions())


def test_position_is_fixed_and_a_real_choice():
    for game in ("metro", "breakthrough"):
        for stage in STAGES:
            a, b = common.position(game, 2, stage), common.position(game, 2, stage)
            assert a.to_json() == b.to_json() and len(a.legal_actions()) >= 2 and not a.is_terminal()
    metro = metro_ai.load_game("metro", players=4)
    assert common.position("metro", 4, "end").tiles_placed >= metro.benchmark_tiles["end"]


def test_engine_growth_parallel_memory_sections(tmp_path):
    cfg = tiny(sections=("engine", "growth", "parallel", "memory"), workers=(1, 2))
    report = runner.run(cfg, progress=False)
    secs = report["sections"]
    engine = secs["engine"]["rows"]
    # every registered game with a reference engine, at two player counts, in list_games() order
    assert [(r["game"], r["players"]) for r in engine] == [
        (name, players) for name in metro_ai.list_games() if game_class(name).reference is not None
        for players in common.two_counts(name)]
    assert ("metro", 4) in [(r["game"], r["players"]) for r in engine]
    for r in engine:
        assert r["c_loop"] > 0 and r["reference"] > 0
        assert r["c_loop_ratio"] == pytest.approx(r["c_loop"] / r["reference"])
    growth = secs["growth"]["rows"]
    assert {(r["game"], r["players"]) for r in growth} == {("metro", 2), ("breakthrough", 3), ("metro-solo", 1),
                                                               ("metro2033", 2)}
    assert [r["stage"] for r in growth[:3]] == list(STAGES)
    for r in growth:
        assert r["ismcts"] > 0 and r["playouts"] > 0
        # one node an iteration (plus the root); mo-ismcts grows one tree per player
        assert r["nodes"] == r["iterations"] + 1
        assert r["bytes_per_iteration"] == pytest.approx(r["nodes"] * NODE_BYTES / r["iterations"])
        assert r["mo_bytes_per_iteration"] > (r["players"] - 0.5) * NODE_BYTES
    par = secs["parallel"]["rows"]
    assert [(r["players"], r["workers"], r["backend"]) for r in par] == [
        (2, 1, "threads"), (2, 2, "threads"), (2, 2, "processes"),
        (4, 1, "threads"), (4, 2, "threads"), (4, 2, "processes")]
    assert par[0]["speedup"] == 1.0 and secs["parallel"]["time_margin"]["budget"] == 0.1
    mem = secs["memory"]["rows"]
    assert [r["game"] for r in mem] == metro_ai.list_games()
    for r in mem:
        assert 1 < r["nodes"] <= r["iterations"] + 1 and r["peak_mib"] > 0
        if r["game"] != "leduc":          # (Leduc's whole tree is smaller than the budget)
            assert r["nodes"] == r["iterations"] + 1
        assert r["tree_mib"] == pytest.approx(r["nodes"] * NODE_BYTES / 2 ** 20)

    md = runner.markdown(report, "metro-ai bench --quick")
    assert md.startswith("# metro-ai bench") and "Quick mode" in md and "`metro-ai bench --quick`" in md
    for sec in secs.values():
        assert f"## {sec['title']}" in md
    # every table row has as many cells as its header
    for block in md.split("\n\n"):
        rows = [line for line in block.splitlines() if line.startswith("|")]
        assert len({line.count("|") for line in rows}) <= 1
    data = json.loads(json.dumps(runner._json_ready(report)))
    assert data["machine"]["logical_cpus"] >= 1 and data["machine"]["metro_ai"] == metro_ai.__version__
    assert data["settings"]["sections"] == list(cfg.sections)
    assert data["sections"]["engine"]["columns"][:2] == ["game", "players"]


def test_server_memory_section_measures_every_game(tmp_path):
    from metro_ai.protocol.limits import Limits
    cfg = tiny(sections=("server-memory",), games=("metro", "leduc"))
    sec = runner.run(cfg, progress=False)["sections"]["server-memory"]
    assert [r["game"] for r in sec["rows"]] == ["metro", "leduc"]
    for r in sec["rows"]:
        assert r["games"] == cfg.server_games == 16 and r["max_undo"] == Limits().max_undo
        assert 0 < r["steps"] <= r["games"] * r["max_undo"] and 0 <= r["moves"] <= r["steps"]
    metro, leduc = sec["rows"]
    assert metro["steps"] == 16 * Limits().max_undo and metro["per_step"] is not None   # a Metro game is longer
    assert leduc["moves"] == 0 and leduc["per_move"] is None                            # a Leduc hand is over first
    assert "| leduc |" in runner.markdown({"machine": common.machine(), "settings": {}, "sections": {"m": sec}})


def test_games_without_reference_engines_skip_the_engine_section(tmp_path, monkeypatch):
    monkeypatch.setattr(engine_module, "reference_of", lambda game: None)   # the engine section's
    md, js = tmp_path / "b.md", tmp_path / "b.json"
    # a section named on the command line that cannot run: reported, and exit code 1
    code = cli_main(["bench", "--sections", "engine", "--games", "metro", "--quiet",
                     f"--markdown={md}", f"--json={js}"])
    assert code == 1
    text = md.read_text()
    assert "Skipped: no game of this run has a reference engine" in text
    assert "Command: `metro-ai bench --sections engine --games metro --quiet" in text
    assert "skipped" in json.loads(js.read_text())["sections"]["engine"]


def test_bench_games_option_is_checked(tmp_path, capsys):
    out = [f"--markdown={tmp_path / 'b.md'}", f"--json={tmp_path / 'b.json'}"]
    assert cli_main(["bench", "--sections", "engine", "--games", "chess", *out]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err


def test_openspiel_sections_skip_without_openspiel(monkeypatch):
    def missing():
        raise common.Skipped("needs OpenSpiel")
    monkeypatch.setattr(common, "_openspiel", missing)       # both sections call it there
    report = runner.run(tiny(sections=("openspiel", "strength")), progress=False)
    assert report["sections"]["openspiel"]["skipped"] == "needs OpenSpiel"
    assert report["sections"]["strength"]["skipped"] == "needs OpenSpiel"
    assert "Skipped: needs OpenSpiel" in runner.markdown(report)


def test_openspiel_sections(tmp_path):
    pytest.importorskip("pyspiel")
    report = runner.run(tiny(sections=("openspiel", "strength")), progress=False)
    speed = report["sections"]["openspiel"]["rows"]
    assert [r["players"] for r in speed] == [2, 4]
    for r in speed:
        assert r["ours"] > 0 and r["openspiel"] > 0 and r["ratio"] == pytest.approx(r["ours"] / r["openspiel"])
        assert r["openspiel_bot"] in ("C++ pyspiel.ISMCTSBot", "Python ismcts.ISMCTSBot")
    (row,) = report["sections"]["strength"]["rows"]
    games = report["sections"]["strength"]["games"]
    assert row["pair"] == "ismcts vs openspiel"
    assert row["games"] == 2 and [(g["deal"], g["seat"]) for g in games] == [(0, 0), (0, 1)]
    assert row["wins"] + row["draws"] + row["losses"] == 2
    assert row["ci_low"] <= row["first_rate"] <= row["ci_high"]
    assert row["bot_iterations"] >= 1 and row["opponent_iterations"] >= 2


def test_strength_at_equal_iterations_is_reproducible():
    pytest.importorskip("pyspiel")
    a, b = (strength.strength_game(5, 1, iterations=8) for _ in range(2))
    assert a == b and a["seat"] == 1 and a["bot_iterations"] == a["opponent_iterations"] == 8
    assert len(a["scores"]) == 2 and a["first"] in (0.0, 0.5, 1.0)


def test_openspiel_bots_are_seeded_and_timed():
    pytest.importorskip("pyspiel")
    from metro_ai.interop import openspiel as bridge
    from metro_ai.interop import openspiel_ismcts as osb
    game = bridge.load("metro", players=2)
    state = metro_ai.load_game("metro", players=2).new_state(5)
    picks = {osb.choose(osb.python_bot(game, 9, 0.7, iterations=30), game, state) for _ in range(2)}
    assert len(picks) == 1 and picks <= set(state.legal_actions())
    timed = osb.python_bot(game, 9, 0.7, seconds=0.02)
    assert osb.choose(timed, game, state) in state.legal_actions() and timed.last_simulations >= 2
    with pytest.raises(ValueError, match="exactly one"):
        osb.python_bot(game, 9, 0.7)
    with pytest.raises(ValueError, match="exactly one"):
        osb.python_bot(game, 9, 0.7, iterations=5, seconds=1)


def test_long_loops_show_a_progress_bar_on_a_terminal_only(monkeypatch):
    """The strength games' progress is a tqdm bar (count, rate, ETA) on a terminal, nothing in a
    log (the section's summary line is printed either way)."""
    import io

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    monkeypatch.setattr(common.sys, "stderr", tty)
    bar = common._bar(True, 10, "strength")
    for _ in range(10):
        bar.update(1)
    bar.close()
    assert "/10 [" in tty.getvalue() and "game/s" in tty.getvalue()          # drawn in place
    assert common._bar(False, 10, "strength") is None
    monkeypatch.setattr(common.sys, "stderr", io.StringIO())
    assert common._bar(True, 10, "strength") is None

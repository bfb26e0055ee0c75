"""Tournament files that were damaged or altered after they were written: each is refused when it is
opened, with one message naming the file and what is wrong (never a raw TypeError, KeyError or
RecursionError, never a report of impossible results), through the library and the command line
(exit 1, no traceback), and nothing is written into it; a tournament is never written through a
symbolic link."""
import json
import math
import shutil
import sqlite3

import pytest

import metro_ai
from metro_ai.cli import main
from metro_ai.play.tournament import (MAX_GAMES, Tournament, TournamentConfig, TournamentError, TournamentFileError,
                                      load_tournament, run_tournament)


def config(deals=2):
    return TournamentConfig(game="metro", options={"players": 2}, bots=["greedy", "random"], deals=deals, seed=3)


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished tournament's file (4 games), made once; each test tampers with a copy."""
    path = tmp_path_factory.mktemp("finished") / "t.sqlite"
    assert run_tournament(config(), db=path).complete
    return path


def _copy(finished, tmp_path, change):
    path = tmp_path / "t.sqlite"
    shutil.copyfile(finished, path)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA ignore_check_constraints = 1")
        change(conn)
    conn.close()
    return path


def _config(conn, **changes):
    obj = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])
    obj.update(changes)
    _meta(conn, "config", json.dumps(obj))


def _meta(conn, key, value):
    conn.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))


def _game(conn, column, value, game_id=0):
    conn.execute(f"UPDATE games SET {column} = ? WHERE id = ?", (value, game_id))


def _drop_bots(conn):
    obj = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])
    del obj["bots"]
    _meta(conn, "config", json.dumps(obj))


def _extra_rows(conn):
    conn.executemany("INSERT INTO games (id, deal, table_no, seating, seats, seed, bot_seeds) VALUES (?, 0, 0, 0, "
                     "'[0, 1]', '1', '[\"1\", \"2\"]')", [(i,) for i in range(4, 100_004)])


TAMPERED = {
    # what the issue found reported as if nothing were wrong
    "negative seats": (lambda c: _game(c, "seats", "[-1, 0]"), "game 0, column 'seats', is not its schedule's"),
    "100,000 extra rows": (_extra_rows, "it has 100,004 games where its settings schedule 4"),
    "infinite returns": (lambda c: _game(c, "returns", "[Infinity, 0]"), "column 'returns', is not 2 finite"),
    "deals of 10^12": (lambda c: _config(c, deals=10 ** 12), f"schedule more than {MAX_GAMES:,} games"),
    # what ended in a raw exception
    "settings not JSON": (lambda c: _meta(c, "config", "{"), "meta 'config' is not valid JSON"),
    "settings a list": (lambda c: _meta(c, "config", "[1, 2]"), "are not those of a tournament"),
    "settings without bots": (_drop_bots, "are not those of a tournament"),
    "settings nested deeply": (lambda c: _meta(c, "config", "[" * 100_000 + "]" * 100_000), "nested too deeply"),
    "bots of the wrong type": (lambda c: _config(c, bots=[5, 6]), "field 'bots', are not bot specs"),
    "deals as text": (lambda c: _config(c, deals="2"), "field 'deals', are of the wrong type"),
    "an unknown game": (lambda c: _config(c, game="chess"), "is not one this metro-ai knows"),
    "an unknown bot": (lambda c: _config(c, bots=[{"name": "deep-blue"}, {"name": "random"}]),
                       "not a tournament this metro-ai can play"),
    "scores null": (lambda c: _game(c, "scores", "null"), "column 'scores', is not 2 finite numbers"),
    "scores not JSON": (lambda c: _game(c, "scores", "[1,"), "column 'scores', is not valid JSON"),
    "returns too short": (lambda c: _game(c, "returns", "[1]"), "column 'returns', is not 2 finite"),
    "returns over 1": (lambda c: _game(c, "returns", "[2, 0]"), "numbers in [0, 1]"),
    "returns as text": (lambda c: _game(c, "returns", '["1", "0"]'), "numbers in [0, 1]"),
    "a seat out of range": (lambda c: _game(c, "seats", "[7, 0]"), "column 'seats', is not its schedule's"),
    "seats as floats": (lambda c: _game(c, "seats", "[1.0, 0]"), "column 'seats', is not its schedule's"),
    "a seed that is not a number": (lambda c: _game(c, "seed", "x"), "column 'seed', is not its schedule's"),
    "bot seeds changed": (lambda c: _game(c, "bot_seeds", '["1", "2"]'), "column 'bot_seeds', is not its"),
    "a deal as text": (lambda c: _game(c, "deal", "zero"), "column 'deal', is not its schedule's"),
    "an unknown status": (lambda c: _game(c, "status", "won"), "column 'status', is not pending, done or failed"),
    "seconds below zero": (lambda c: _game(c, "seconds", -1.0), "column 'seconds', is not a number of seconds"),
    "a done game without its record": (lambda c: _game(c, "record", None), "column 'record', holds no match"),
    "a game missing": (lambda c: c.execute("DELETE FROM games WHERE id = 2"), "it has 3 games where"),
    "games renumbered": (lambda c: c.execute("UPDATE games SET id = 9 WHERE id = 3"), "are not numbered 0 to 3"),
    "the games table dropped": (lambda c: c.execute("DROP TABLE games"), "its table 'games' is not that of"),
    "a column renamed": (lambda c: c.execute("ALTER TABLE games RENAME COLUMN finished TO at"),
                         "its table 'games' is not that of"),
    "schema version 2": (lambda c: _meta(c, "schema", "2"), "its format version is 2; this metro-ai reads version 1"),
    "schema version as text": (lambda c: _meta(c, "schema", "one"), "(meta 'schema') is text, not an integer"),
    "no schema version": (lambda c: c.execute("DELETE FROM meta WHERE key = 'schema'"), "it has no format version"),
}


@pytest.mark.parametrize("case", TAMPERED)
def test_a_tampered_tournament_file_is_refused_with_one_clear_message(finished, tmp_path, capsys, case):
    change, expected = TAMPERED[case]
    path = _copy(finished, tmp_path, change)
    before = path.read_bytes()
    with pytest.raises(TournamentFileError) as info:
        load_tournament(path)
    message = str(info.value)
    assert str(path) in message and expected in message, message
    for resume in (["--resume"], []):                  # continued from its settings, or reported as done
        argv = ["tournament", *resume, "--db", str(path), "--quiet", "--bootstrap", "0"]
        assert main(argv) == 1, case
        err = capsys.readouterr().err
        assert err.startswith("metro-ai: error: tournament file") and expected in err, err
        assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert path.read_bytes() == before                  # nothing was written into it
    # a fresh start over it is still the user's to ask for
    assert len(run_tournament(config(), db=path, overwrite=True, max_games=1).games) == 1


def test_a_damaged_record_is_refused_when_it_is_read(finished, tmp_path):
    path = _copy(finished, tmp_path, lambda c: _game(c, "record", "[" * 100_000 + "]" * 100_000))
    assert len(load_tournament(path).games) == 4                           # results: read as before
    with pytest.raises(TournamentFileError, match="game 0, column 'record', is not valid JSON here: nested"):
        Tournament(db=path).records([0])
    path = _copy(finished, tmp_path, lambda c: _game(c, "record", "[1]", 1))
    with pytest.raises(TournamentFileError, match="game 1, column 'record', is not a match record"):
        Tournament(db=path).records([1])


def test_an_untouched_file_reads_as_before(finished, tmp_path):
    path = _copy(finished, tmp_path, lambda c: None)
    result = load_tournament(path)
    assert result.complete and len(result.games) == 4
    assert all(0 <= r <= 1 for g in result.games for r in g["returns"])
    assert metro_ai.replay(Tournament(db=path).records([0])[0])[-1].scores() == result.games[0]["scores"]


def test_a_schedule_over_the_bound_is_refused_at_once():
    with pytest.raises(TournamentError, match=f"more than {MAX_GAMES:,} games"):
        config(deals=10 ** 12)
    with pytest.raises(TournamentError, match=f"more than {MAX_GAMES:,} games"):
        TournamentConfig(game="metro", options={"players": 6}, bots=[f"random:label=r{i}" for i in range(100)],
                         deals=1, seatings="all")
    assert config(deals=MAX_GAMES // 2).total == MAX_GAMES


def test_resume_on_a_symbolic_link_writes_nothing_through_it(finished, tmp_path, capsys):
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    link = tmp_path / "link.sqlite"
    link.symlink_to(empty)
    for argv in (["--resume"], ["--bots", "greedy", "random", "--deals", "1"], ["--resume", "--overwrite"]):
        assert main(["tournament", *argv, "--db", str(link), "--quiet", "--bootstrap", "0"]) == 2
        err = capsys.readouterr().err
        assert "is a symbolic link" in err and "never writes a tournament through a link" in err, err
        assert empty.read_bytes() == b"" and link.is_symlink()
    with pytest.raises(TournamentError, match="symbolic link"):
        run_tournament(config(), db=link)
    assert empty.read_bytes() == b""
    # a link to a finished tournament is still read and reported, never written
    (tmp_path / "done.sqlite").write_bytes(finished.read_bytes())
    link.unlink()
    link.symlink_to(tmp_path / "done.sqlite")
    assert len(load_tournament(link).games) == 4
    before = (tmp_path / "done.sqlite").read_bytes()
    with pytest.raises(TournamentError, match="symbolic link"):
        run_tournament(config(), db=link, overwrite=True)
    assert (tmp_path / "done.sqlite").read_bytes() == before


def test_the_files_sqlite_keeps_beside_it_are_never_links(finished, tmp_path):
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    path = tmp_path / "t.sqlite"
    shutil.copyfile(finished, path)
    (tmp_path / "t.sqlite-wal").symlink_to(victim)
    with pytest.raises(TournamentError, match="t.sqlite-wal' is a symbolic link"):
        run_tournament(config(deals=3), db=path, overwrite=True)
    assert victim.read_text() == "keep me"


def test_another_programs_database_is_not_written_into(tmp_path):
    path = tmp_path / "theirs.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(TournamentError, match="an SQLite file with other tables"):
        run_tournament(config(), db=path)
    assert path.read_bytes() == before


def test_the_json_report_is_strict_json(finished, tmp_path, capsys, monkeypatch):
    """``--json`` writes strict JSON: what has no finite value (a mean of no games, an unbounded
    rating) is null, never NaN or Infinity, which strict readers refuse."""
    from metro_ai.play import report as rep
    real = rep.build_report

    def unbounded(*args, **kwargs):
        report = real(*args, **kwargs)
        report["standings"][0].update(rating_low=-math.inf, rating_high=math.inf, mean_score=math.nan)
        return report
    monkeypatch.setattr(rep, "build_report", unbounded)
    path = _copy(finished, tmp_path, lambda c: None)
    assert main(["tournament", "--resume", "--db", str(path), "--quiet", "--json", "--bootstrap", "0"]) == 0

    def refuse(constant):
        raise AssertionError(f"{constant} in the JSON")
    row = json.loads(capsys.readouterr().out, parse_constant=refuse)["standings"][0]
    assert row["rating_low"] is None and row["rating_high"] is None and row["mean_score"] is None

"""Every data file a user names (company_chart, central_track_layouts, city_data, card_set, cards,
ladder=FILE, a match record, a saved state) is read by one reader, metro_ai.engine.datafile: only a
regular file, at most 4 MiB, UTF-8, and every error names the file, the line and the column or
field and never quotes the file's contents (docs/loaders.md, "Data files: one reader, no quotations")."""
import json
import math
import os
import threading
from pathlib import Path

import pytest

import metro_ai
from metro_ai import ladder as lad
from metro_ai.engine import datafile
from metro_ai.engine.breakthrough import cards as bt_cards
from metro_ai.engine.errors import DataError, StateFormatError
from metro_ai.engine.metro import city_data
from metro_ai.engine.metro2033 import cards as m2033_cards
from metro_ai.play.match import RecordError, read_record

SECRET = "hunter2"
ERRORS = (DataError, lad.LadderError, RecordError, StateFormatError)
LADDER_FILE = lad.ladder_path("metro", 2)


# ---- every option that names a file, as one call each ----

def _company_chart(p):
    return metro_ai.load_game("metro", players=2, companies=True, company_chart=str(p))


def _central_tracks(p):
    return metro_ai.load_game("metro", central_tracks=True, central_track_layouts=str(p))


def _city_data(p):
    return metro_ai.load_game("metro", city="paris", city_data=str(p))


def _card_set(p):
    return metro_ai.load_game("breakthrough", players=2, card_set=str(p))


def _cards(p):
    return metro_ai.load_game("metro2033", players=3, cards=str(p))


def _ladder(p):
    return lad.load_ladder("metro", 2, {}, path=p)


def _record(p):
    return metro_ai.replay(Path(p))


def _saved_state(p):
    return metro_ai.load_state(str(p))


READERS = {"company_chart": _company_chart, "central_track_layouts": _central_tracks, "city_data": _city_data,
           "card_set": _card_set, "cards": _cards, "ladder": _ladder, "record": _record, "saved_state": _saved_state}
JSON_READERS = {k: v for k, v in READERS.items() if k not in ("company_chart", "central_track_layouts")}


def _refused(call, path):
    """The error `call(path)` raises; fails if it returns or raises anything but a library error."""
    with pytest.raises(ERRORS) as info:
        call(path)
    message = str(info.value)
    assert str(path) in message, message          # the file, named as given
    return message


def _record_doc():
    game = metro_ai.load_game("metro", players=2)
    return metro_ai.play_match(game, ["random", "random"], seed=3)


# ---- contents never come back ----

def _secret_files(tmp_path):
    """Files that carry the secret where each reader looks: plain text, then a value or a key."""
    yield "env.txt", f"SECRET={SECRET}\n"
    yield "passwd.txt", f"root:x:0:0:{SECRET}:/root:/bin/bash\nSECRET={SECRET}\n"
    yield "header.csv", f"company,{SECRET}\n0,{SECRET}\n"


def _secret_json(name):
    """Well-formed JSON for reader `name` with the secret as a value and as a key."""
    if name == "city_data":
        doc = json.loads(city_data.CITY_DATA.read_text(encoding="utf-8"))
        doc["paris"]["landmarks"][3]["spaces"][1] = SECRET
        yield doc
        doc = json.loads(city_data.CITY_DATA.read_text(encoding="utf-8"))
        doc["paris"][SECRET] = 1
        yield doc
    elif name in ("card_set", "cards"):
        path = bt_cards.DEFAULT_PATH if name == "card_set" else m2033_cards.DEFAULT_PATH
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["cards"][2]["name"] = SECRET
        doc["cards"][2]["count"] = SECRET
        yield doc
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["cards"][2]["name"] = SECRET
        doc["cards"][2][SECRET] = 1
        yield doc
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc[SECRET] = 1
        yield doc
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["schema_version"] = SECRET
        yield doc
    elif name == "ladder":
        doc = json.loads(LADDER_FILE.read_text(encoding="utf-8"))
        for key in ("format", "version", "game"):
            yield {**doc, key: SECRET}
        yield {**doc, "levels": [{**lv, "spec": 5, "elo": SECRET} for lv in doc["levels"]]}
        yield {**doc, "options": {SECRET: True}}
    elif name == "record":
        rec = _record_doc()
        yield {**rec, "game": SECRET}
        yield {**rec, "options": {SECRET: 1}}
        bad = json.loads(json.dumps(rec))
        bad["actions"][1] = {"action": SECRET, "text": SECRET}
        yield bad
        bad = json.loads(json.dumps(rec))
        bad["actions"][1]["text"] = SECRET
        yield bad
        yield {**rec, "scores": [SECRET]}
        yield {**rec, "version": SECRET}
    elif name == "saved_state":
        yield {"game": SECRET, "options": {}}
        yield {"game": "metro", "options": {SECRET: 1}}
        yield {**metro_ai.load_game("metro").new_state(1).to_dict(), "version": SECRET}


@pytest.mark.parametrize("name", READERS)
def test_a_secret_in_the_file_never_comes_back(tmp_path, name):
    for filename, text in _secret_files(tmp_path):
        path = tmp_path / filename
        path.write_text(text)
        assert SECRET not in _refused(READERS[name], path)
    for k, doc in enumerate(_secret_json(name)):
        path = tmp_path / f"doc{k}.json"
        path.write_text(json.dumps(doc, indent=1))
        assert SECRET not in _refused(READERS[name], path), k


# ---- files of another version ----

def _versioned_files():
    """(reader, a well-formed file of the current version as a dict) for every file that carries a
    format version: a saved state of each game, a match record, a ladder."""
    for name in metro_ai.list_games():
        yield f"{name} state", _saved_state, metro_ai.load_game(name).new_state(1).to_dict()
    yield "record", _record, _record_doc()
    yield "ladder", _ladder, json.loads(LADDER_FILE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("version, found", [(0, "its format version is 0"), (2, "its format version is 2"),
                                            (999, "its format version is 999"),
                                            ("1", "(field 'version') is text, not an integer"),
                                            (True, "(field 'version') is true or false, not an integer"),
                                            (10 ** 30, "its format version is a number out of range"),
                                            (None, "it has no format version")])
def test_a_file_of_another_version_is_refused_naming_the_file_and_both_versions(tmp_path, version, found):
    for what, read, doc in _versioned_files():
        assert read(_write(tmp_path / "good.json", doc)) is not None, what       # this version: read
        bad = {k: v for k, v in doc.items() if k != "version"} if version is None else {**doc, "version": version}
        message = _refused(read, _write(tmp_path / f"v{version}.json", bad))
        assert found in message and "this metro-ai reads version 1" in message, (what, message)
        if what in ("record", "ladder") and version is not None:                  # the line of the field
            assert ": line " in message, (what, message)


def test_a_file_of_another_format_is_refused(tmp_path):
    for what, read, doc in _versioned_files():
        for fmt in ("metro-ai-other", None):
            bad = {k: v for k, v in doc.items() if k != "format"} if fmt is None else {**doc, "format": fmt}
            message = _refused(read, _write(tmp_path / "f.json", bad))
            assert "field 'format' must be" in message, (what, message)


def test_a_state_or_record_of_another_version_is_refused_everywhere_it_enters(tmp_path, capsys):
    """Not only files: a state's JSON text or dict (``state_from_json``, the protocol's
    ``load_state``) and a record dict (``replay``), and ``metro-ai analyse`` on a record file."""
    from metro_ai.cli import main
    from metro_ai.protocol import errors as E
    from tests.protocol_client import Client, run
    game = metro_ai.load_game("metro")
    state = {**game.new_state(1).to_dict(), "version": 2}
    for given in (state, json.dumps(state)):
        with pytest.raises(StateFormatError, match="metro state: its format version is 2; this metro-ai reads "
                                                   "version 1"):
            game.state_from_json(given)
    with pytest.raises(RecordError, match="match record: its format version is 999"):
        metro_ai.replay({**_record_doc(), "version": 999})

    async def protocol():
        message = await Client().error("load_state", E.BAD_STATE, state=state)
        assert "its format version is 2; this metro-ai reads version 1" in message
    run(protocol())
    path = _write(tmp_path / "rec.json", {**_record_doc(), "version": 2})
    assert main(["analyse", str(path), "--bot", "random"]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "its format version is 2" in err and "Traceback" not in err


@pytest.mark.parametrize("name, option, shipped", [("breakthrough", "card_set", bt_cards.DEFAULT_PATH),
                                                   ("metro2033", "cards", m2033_cards.DEFAULT_PATH)])
def test_games_of_the_same_card_file_share_the_card_set_built_from_it(tmp_path, name, option, shipped):
    """A card set is tens of KB of Python objects: every game of the same file contents holds one
    copy (a protocol client's 256 open games included); the file is still read each time, so
    other contents give another set and a bad file fails every time."""
    a, b = metro_ai.load_game(name, players=2), metro_ai.load_game(name, players=3)
    assert a.card_set is b.card_set
    copy = tmp_path / "cards.json"
    copy.write_text(shipped.read_text(encoding="utf-8"), encoding="utf-8")
    assert metro_ai.load_game(name, **{option: str(copy)}).card_set is a.card_set
    doc = json.loads(shipped.read_text(encoding="utf-8"))
    doc["name"] = "another set"
    _write(copy, doc)
    other = metro_ai.load_game(name, **{option: str(copy)})
    assert other.card_set is not a.card_set and other.card_set.name == "another set"
    doc["cards"] = SECRET
    _write(copy, doc)
    for _ in range(2):
        assert SECRET not in _refused(lambda p: metro_ai.load_game(name, **{option: str(p)}), copy)


def test_json_metro_ai_writes_is_strict():
    """``datafile.dumps`` is how metro-ai writes JSON: a float that is not finite becomes null, at
    any depth, and what strict readers accept comes out as ``json.dumps`` writes it."""
    obj = {"elo": math.inf, "low": -math.inf, "mean": math.nan, "rows": [(1, math.nan), {"x": 0.5}], "n": 3}
    text = datafile.dumps(obj, sort_keys=True)
    assert json.loads(text, parse_constant=lambda c: pytest.fail(c)) == {
        "elo": None, "low": None, "mean": None, "rows": [[1, None], {"x": 0.5}], "n": 3}
    plain = {"a": [1, 2.5, "x", None, True], "b": {"c": -0.0}}
    assert datafile.dumps(plain) == json.dumps(plain)
    assert datafile.dumps(plain, compact=True) == json.dumps(plain, separators=(",", ":"))
    assert datafile.dumps(plain, indent=1) == json.dumps(plain, indent=1)


def _write(path, doc):
    path.write_text(json.dumps(doc, indent=1))
    return path


@pytest.mark.parametrize("body", [
    "company,stations\n0,1 2 3 4\n{s},1 2 3 4\n",
    "company,stations\n0,{s} 2 3 4\n",
    "company,stations\n0,1 2 3 4 {s}\n",
    "company,stations\n0,1 2 3 4,{s}\n",
    "company,stations\n0,\"{s}\n",
    "station,{s}\n",
])
def test_csv_values_never_come_back(tmp_path, body):
    path = tmp_path / "chart.csv"
    path.write_text(body.format(s=SECRET))
    assert SECRET not in _refused(_company_chart, path)
    pieces = tmp_path / "pieces.csv"
    pieces.write_text(body.replace("company", "piece").replace("stations", "exits").format(s=SECRET))
    assert SECRET not in _refused(_central_tracks, pieces)


# ---- where the fault is ----

def test_csv_errors_name_the_line_and_column(tmp_path):
    path = tmp_path / "chart.csv"
    path.write_text("# a comment\ncompany,stations\n0,1 2 3 4\n\n1,5 6 x 8\n")
    message = _refused(_company_chart, path)
    assert "line 5, column 'stations'" in message and "integers" in message
    pieces = tmp_path / "pieces.csv"
    pieces.write_text("piece,exits\n" + "".join(f"CT{i},54761032\n" for i in range(1, 8)) + "CT8,55761032\n")
    assert "line 9, column 'exits': not a pairing" in _refused(_central_tracks, pieces)


def test_json_errors_name_the_line_column_and_field(tmp_path):
    doc = json.loads(bt_cards.DEFAULT_PATH.read_text(encoding="utf-8"))
    i = next(i for i, c in enumerate(doc["cards"]) if "cost" in c)
    doc["cards"][i]["cost"] = -1
    path = tmp_path / "cards.json"
    text = json.dumps(doc, indent=2)
    path.write_text(text)
    line, col = datafile.locate(text, ("cards", i, "cost"))
    assert text.splitlines()[line - 1][col - 1:].startswith("-1")
    assert f"line {line}, column {col}: card {i}: field 'cost'" in _refused(_card_set, path)
    path.write_text('{\n  "schema_version": 1,\n  "name": "x",\n  "provenance": "y"\n  "cards": []\n}\n')
    assert "not valid JSON at line 5, column 3" in _refused(_card_set, path)


def test_locate_finds_values_and_stops_at_what_is_missing():
    text = '{"a": [1, {"b": 2, "c": [3,\n 4]}], "a": [5, 6]}'
    assert datafile.locate(text, ()) == (1, 1)
    assert datafile.locate(text, ("a", 1)) == (2, text.splitlines()[1].index("6") + 1)   # the key json.loads keeps
    assert datafile.locate(' {"x": {"y":\n  [7, 8]}}', ("x", "y", 1)) == (2, 7)
    assert datafile.locate(' {"x": {"y":\n  [7, 8]}}', ("x", "z", 4)) == (1, 8)


# ---- files that are not plain text files ----

def _in_time(call, path, seconds=10.0):
    """`call(path)`'s error, failing (not hanging) if it does not return within `seconds`."""
    out: dict = {}

    def run():
        try:
            call(path)
            out["result"] = "returned"
        except BaseException as exc:            # noqa: BLE001 - reported below
            out["error"] = exc
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():                            # release the reader so the thread can end
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK) if os.path.exists(path) else None
        if fd is not None:
            os.close(fd)
        pytest.fail(f"reading {path} blocked")
    assert "error" in out, out
    return out["error"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("name", READERS)
def test_a_fifo_is_refused_at_once(tmp_path, name):
    path = tmp_path / "fifo"
    os.mkfifo(path)
    exc = _in_time(READERS[name], path)
    assert isinstance(exc, ERRORS) and "not a regular file" in str(exc), exc


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
@pytest.mark.parametrize("name", READERS)
def test_a_device_is_refused(name):
    exc = _in_time(READERS[name], "/dev/zero")
    assert isinstance(exc, ERRORS) and "not a regular file" in str(exc), exc


@pytest.mark.parametrize("name", READERS)
def test_a_directory_a_missing_file_and_a_large_file_are_refused(tmp_path, name):
    assert "not a regular file" in _refused(READERS[name], tmp_path)
    assert "no such file" in _refused(READERS[name], tmp_path / "none")
    big = tmp_path / "big"
    with open(big, "wb") as fh:
        fh.truncate(datafile.MAX_BYTES + 1)
    assert f"larger than {datafile.MAX_BYTES} bytes" in _refused(READERS[name], big)


def test_the_cap_is_the_callers_and_growth_after_the_stat_is_caught(tmp_path):
    path = tmp_path / "f.json"
    path.write_text("[1, 2, 3]")
    assert datafile.read_json(path, max_bytes=9).data == [1, 2, 3]
    with pytest.raises(DataError, match="larger than 8 bytes"):
        datafile.read_json(path, max_bytes=8)


def test_symbolic_links_are_followed_unless_refused(tmp_path):
    target = tmp_path / "target.json"
    target.write_text('{"a": 1}')
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert datafile.read_json(link).data == {"a": 1}
    with pytest.raises(DataError, match="link.json'"):
        datafile.read_json(link, follow_symlinks=False)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "to_fifo").symlink_to(fifo)
    with pytest.raises(DataError, match="not a regular file"):
        datafile.read_json(tmp_path / "to_fifo")


# ---- decoding and parsing ----

@pytest.mark.parametrize("name", JSON_READERS)
def test_json_that_is_not_utf8_or_nested_too_deeply(tmp_path, name):
    path = tmp_path / "data.json"
    path.write_bytes(b'{\n"a": "\xff\xfe' + SECRET.encode() + b'"}')
    message = _refused(READERS[name], path)
    assert "not UTF-8 text (byte 8, line 2)" in message and SECRET not in message
    path.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    assert "nested too deeply" in _refused(READERS[name], path)
    path.write_bytes(b'{"a": ' + b"9" * 5000 + b"}")
    assert "a number too long to convert" in _refused(READERS[name], path)


def test_csv_that_is_not_utf8_names_the_byte_and_line(tmp_path):
    path = tmp_path / "chart.csv"
    path.write_bytes(b"company,stations\n0,\xff\xfe\n")
    assert "not UTF-8 text (byte 19, line 2)" in _refused(_company_chart, path)


def test_valid_files_read_as_before(tmp_path):
    """The reader gives what Path.read_text gave: line ends translated, nothing else changed."""
    for text in ('{"a": [1, 2]}\r\n', "company,stations\r\n0,1 2 3 4\r\n", "x\ry\n"):
        path = tmp_path / "f"
        path.write_bytes(text.encode())
        assert datafile.read_text(path) == path.read_text(encoding="utf-8")
    shipped = metro_ai.engine.metro.data.COMPANY_CHART
    assert metro_ai.engine.metro.data.load_company_chart(shipped) == metro_ai.engine.metro.data.reconstructed_chart()
    rec = _record_doc()
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(rec))
    assert read_record(path) == rec
    assert len(metro_ai.replay(path)) == len(rec["actions"]) + 1


@pytest.mark.parametrize("content, message", [(b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
                                              (b'{"a": ' + b"9" * 5000 + b"}", "a number too long to convert"),
                                              (b'{\n"a": "\xff"}', "not UTF-8 text (byte 8, line 2)")])
def test_metro_ai_analyse_reads_a_file_as_every_reader_does(tmp_path, capsys, content, message):
    # analyse tells a record from a saved state by parsing the file: through the one reader too
    from metro_ai.cli import main
    path = tmp_path / "deep.json"
    path.write_bytes(content)
    assert main(["analyse", str(path), "--bot", "ismcts"]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and message in err and "Traceback" not in err


def test_the_card_games_reference_engines_read_card_files_as_their_games_do(tmp_path):
    # the references keep their own card parsers, but read the file through the one reader
    from metro_ai.engine.breakthrough.reference import RefBreakthroughGame
    from metro_ai.engine.metro2033.reference import RefMetro2033Game
    path = tmp_path / "cards.json"
    for content, message in ((b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
                             (b'{"cards": ' + b"9" * 5000 + b"}", "a number too long to convert")):
        path.write_bytes(content)
        for make in (lambda p: RefBreakthroughGame(players=2, cards=str(p)),
                     lambda p: RefMetro2033Game(players=3, cards=str(p))):
            assert message in _refused(make, path)


def test_the_metro_references_read_data_files_as_their_games_do(tmp_path):
    # the cities' reference reads its city file through the one reader too: a deeply nested or
    # over-long file is a DataError naming it, as the game's, not a RecursionError
    from metro_ai.engine.metro.reference_cities import RefCitiesGame
    path = tmp_path / "cities.json"
    for content, message in ((b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
                             (b'{"colours": ' + b"9" * 5000 + b"}", "a number too long to convert")):
        path.write_bytes(content)
        assert message in _refused(lambda p: RefCitiesGame("berlin", players=2, city_data=str(p)), path)
        assert message in _refused(lambda p: metro_ai.load_game("metro", city="berlin", city_data=str(p)), path)

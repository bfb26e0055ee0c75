"""Card-set files that are not card sets: every way a file can be wrong is a CardSetError (a
DataError) naming the file, card and field, never a plain ValueError or a decoding error."""
import json

import pytest

import metro_ai
from metro_ai.engine.breakthrough.cards import CARD_INT_MAX, DEFAULT_PATH, CardSetError


def _doc():
    return json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))


def _write(tmp_path, doc):
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(doc))
    return path


def test_numbers_past_what_a_card_may_print_are_refused(tmp_path):
    for value in (10 ** 30, CARD_INT_MAX + 1):
        doc = _doc()
        i = next(i for i, c in enumerate(doc["cards"]) if "cost" in c)
        doc["cards"][i]["cost"] = value
        with pytest.raises(CardSetError, match=f"field 'cost': above {CARD_INT_MAX}"):
            metro_ai.load_game("breakthrough", card_set=_write(tmp_path, doc))


def test_files_that_are_not_json_text_name_the_file(tmp_path):
    path = tmp_path / "cards.json"
    for content, message in ((b"\xff\xfe\x00{", "not UTF-8 text"), (b"[" * 100_000, "not valid JSON here: nested too deeply"),
                             (b'{"schema_version": ' + b"9" * 5000 + b"}", "not valid JSON here")):
        path.write_bytes(content)
        with pytest.raises(metro_ai.DataError, match=f"card set '{path}': {message}"):
            metro_ai.load_game("breakthrough", card_set=path)

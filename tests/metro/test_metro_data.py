"""Loading and validating the Metro data files (M1, M2)."""
import shutil

import pytest

from metro_ai.engine.metro import data as metro_data
from metro_ai.engine.errors import DataError


def test_shipped_data_is_valid():
    d = metro_data.load()
    assert len(d.tiles) == 24 and sum(t.count for t in d.tiles) == 60
    assert len(d.stations) == 32
    for players in range(2, 7):
        owned = sorted(n for _, nums in d.charts[players] for n in nums)
        expected = [n for n in range(1, 33) if players in (2, 4) or n not in (16, 17)]
        assert owned == expected


@pytest.fixture
def data_copy(tmp_path):
    for f in metro_data.DATA_DIR.glob("*.csv"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def _edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize("file,old,new,match", [
    ("metro_tiles.csv", "T10,76543210,WSEN,3", "T10,76543210,WSEN,4", "61 tiles"),
    ("metro_tiles.csv", "T01,10325476", "T01,10325477", "pairing"),
    ("metro_tiles.csv", "T01,10325476", "T01,1032547", "8 port digits"),
    ("metro_stations.csv", "5,0,4,0,1", "5,0,4,1,0", "even departure"),
    ("metro_stations.csv", "5,0,4,0,1", "5,0,3,0,1", "share one square side"),
    ("metro_lines.csv", "2,yellow,1 3 5", "2,yellow,2 3 5", "partition"),
    ("metro_lines.csv", "4,green,2 5 9 14 17", "4,green,2 5 9 14", "partition"),
])
def test_bad_data_is_rejected(data_copy, file, old, new, match):
    _edit(data_copy / file, old, new)
    with pytest.raises(DataError, match=match):
        metro_data.load(str(data_copy))

"""Load and validate the Metro board and tile data shipped in `data/` (rules M1, M2).

The files are public facts about the game: the 24 tile kinds and their counts
(`metro_tiles.csv`), the 32 edge stations (`metro_stations.csv`) and which stations each colour
owns for 2-6 players (`metro_lines.csv`). Every file is read by `metro_ai.engine.datafile`; every
check that fails raises `DataError` naming the file, the line and the column and what is wrong,
never quoting the file's contents.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from metro_ai.engine.datafile import read_csv

DATA_DIR = Path(__file__).resolve().parent / "data"
TOTAL_TILES = 60
NUM_STATIONS = 32
#: Stations without wagons when 3, 5 or 6 play (M1).
UNUSED_WITH_ODD_CHARTS = (16, 17)


@dataclass(frozen=True)
class TileKind:
    id: str            # "T01" .. "T24"
    exits: tuple       # exits[p]: the port joined to port p (ports as in metro_tiles.csv)
    count: int


@dataclass(frozen=True)
class Station:
    number: int        # 1..32, clockwise from the top-left corner
    row: int
    col: int
    depart_port: int   # the train enters its square here
    arrive_port: int   # a line leaving the square through this port ends at this station


@dataclass(frozen=True)
class MetroData:
    tiles: tuple       # TileKind, in file order (kind index = position)
    stations: tuple    # Station, index = number - 1
    charts: dict       # players -> tuple of (colour, tuple of station numbers), seat order


def _rows(path: Path, what: str = "data file"):
    """The rows of the CSV file `path` as ``(line, row)``, and the file (for its errors)."""
    f = read_csv(path, what=what)
    return f.rows, f


def _int(f, lineno, row, field, lo, hi):
    try:
        value = int(row[field])
    except (KeyError, ValueError):
        raise f.error("not an integer", lineno, field) from None
    if not lo <= value <= hi:
        raise f.error(f"outside {lo}..{hi}", lineno, field)
    return value


def _ints(f, lineno, row, field):
    try:
        return tuple(int(x) for x in row[field].split())
    except (KeyError, ValueError):
        raise f.error("must be integers separated by spaces", lineno, field) from None


def _exits(f, lineno, row, field):
    """Eight port digits pairing the ports 0-7, every track joining an even and an odd port."""
    text = (row.get(field) or "").strip()
    if len(text) != 8 or not text.isdigit() or not text.isascii():
        raise f.error("must be 8 port digits", lineno, field)
    exits = tuple(int(c) for c in text)
    if sorted(exits) != list(range(8)) or any(exits[exits[q]] != q for q in range(8)):
        raise f.error("not a pairing of ports 0-7", lineno, field)
    if any((exits[q] - q) % 2 == 0 for q in range(8)):
        raise f.error("every track must join an even and an odd port", lineno, field)
    return exits


def _columns(f, names):
    if set(f.columns) != set(names) or len(f.columns) != len(names):
        raise f.error(f"the columns must be {','.join(names)}", f.header_line)


def load_tiles(path: Path) -> tuple:
    tiles = []
    rows, f = _rows(path, "tile file")
    for lineno, row in rows:
        exits = _exits(f, lineno, row, "exits")
        count = _int(f, lineno, row, "count", 1, TOTAL_TILES)
        tiles.append(TileKind(row["kind"], exits, count))
    ids = [t.id for t in tiles]
    if len(set(ids)) != len(ids):
        raise f.error("duplicate tile kinds")
    total = sum(t.count for t in tiles)
    if total != TOTAL_TILES:
        raise f.error(f"{total} tiles in all, expected {TOTAL_TILES} (M2)")
    return tuple(tiles)


def _on_boundary(row: int, col: int, port: int) -> bool:
    side = port // 2
    return (side == 0 and row == 0) or (side == 1 and col == 7) or (side == 2 and row == 7) or (side == 3 and col == 0)


def load_stations(path: Path) -> tuple:
    stations = {}
    rows, f = _rows(path, "station file")
    for lineno, row in rows:
        number = _int(f, lineno, row, "station", 1, NUM_STATIONS)
        st = Station(number, *(_int(f, lineno, row, c, 0, 7) for c in ("row", "col", "depart_port", "arrive_port")))
        if number in stations:
            raise f.error(f"station {number} listed twice", lineno, "station")
        if st.depart_port % 2 != 0 or st.arrive_port % 2 != 1 or st.depart_port // 2 != st.arrive_port // 2:
            raise f.error(f"station {number} needs an even departure and odd arrival port on one side", lineno)
        if not _on_boundary(st.row, st.col, st.depart_port):
            raise f.error(f"station {number} ports do not face the board edge", lineno)
        stations[number] = st
    if sorted(stations) != list(range(1, NUM_STATIONS + 1)):
        raise f.error(f"expected stations 1..{NUM_STATIONS}, got {len(stations)}")
    sides = {(s.row, s.col, s.depart_port // 2) for s in stations.values()}
    if len(sides) != NUM_STATIONS:
        raise f.error("two stations share one square side")
    return tuple(stations[n] for n in range(1, NUM_STATIONS + 1))


def load_charts(path: Path) -> dict:
    charts: dict = {}
    rows, f = _rows(path, "line chart")
    for lineno, row in rows:
        players = _int(f, lineno, row, "players", 2, 6)
        charts.setdefault(players, []).append((row["colour"], _ints(f, lineno, row, "stations")))
    for players in range(2, 7):
        seats = charts.get(players)
        if seats is None or len(seats) != players:
            raise f.error(f"need {players} colours for {players} players")
        owned = [n for _, nums in seats for n in nums]
        expected = set(range(1, NUM_STATIONS + 1))
        if players in (3, 5, 6):
            expected -= set(UNUSED_WITH_ODD_CHARTS)
        if len(owned) != len(set(owned)) or set(owned) != expected:
            raise f.error(f"the chart for {players} players is not a partition of stations {sorted(expected)[0]}..{NUM_STATIONS}"
                          + (" without 16 and 17" if players in (3, 5, 6) else ""))
    return {p: tuple((c, nums) for c, nums in seats) for p, seats in charts.items()}


@lru_cache(maxsize=None)
def load(data_dir: str = str(DATA_DIR)) -> MetroData:
    """Load and validate the three Metro data files from `data_dir` (cached)."""
    d = Path(data_dir)
    return MetroData(load_tiles(d / "metro_tiles.csv"), load_stations(d / "metro_stations.csv"), load_charts(d / "metro_lines.csv"))


#: The shipped companies chart (M11): **reconstructed** from the formula of decision M11.
COMPANY_CHART = DATA_DIR / "companies_chart.csv"
NUM_COMPANIES = 8
STATIONS_PER_COMPANY = 4


def reconstructed_chart() -> tuple:
    """The companies chart of decision M11 (reconstructed): company k owns, on side s (0 top,
    1 right, 2 bottom, 3 left), station ``8*s + ((k + 2*s) mod 8) + 1``. The shipped file
    ``companies_chart.csv`` is this chart; a test checks that they agree."""
    return tuple(tuple(8 * s + (k + 2 * s) % 8 + 1 for s in range(4)) for k in range(NUM_COMPANIES))


def load_company_chart(path=None) -> tuple:
    """The companies chart (M11) from `path` (None: the shipped, reconstructed file): a tuple,
    index = company 0-7, of its 4 station numbers, ascending. The file is CSV with columns
    ``company`` (0-7) and ``stations`` (4 numbers 1-32, space-separated); '#' lines are comments.
    Every company appears once and every station is owned once. Anything else raises DataError
    naming the file, the line and what is wrong."""
    rows, f = _rows(Path(path) if path is not None else COMPANY_CHART, "companies chart")
    _columns(f, ("company", "stations"))
    chart: dict = {}
    owner: dict = {}
    for lineno, row in rows:
        company = _int(f, lineno, row, "company", 0, NUM_COMPANIES - 1)
        if company in chart:
            raise f.error(f"company {company} listed twice", lineno, "company")
        numbers = _ints(f, lineno, row, "stations")
        if len(numbers) != STATIONS_PER_COMPANY:
            raise f.error(f"company {company} needs {STATIONS_PER_COMPANY} stations, got {len(numbers)}",
                          lineno, "stations")
        for k, n in enumerate(numbers):
            if not 1 <= n <= NUM_STATIONS:
                raise f.error(f"station {k + 1} of the list is outside 1..{NUM_STATIONS}", lineno, "stations")
            if n in owner:
                raise f.error(f"station {k + 1} of the list is already owned by company {owner[n]}", lineno, "stations")
            owner[n] = company
        chart[company] = tuple(sorted(numbers))
    if sorted(chart) != list(range(NUM_COMPANIES)):
        missing = sorted(set(range(NUM_COMPANIES)) - set(chart))
        raise f.error(f"companies {missing} are missing; the chart lists all {NUM_COMPANIES} (M11)")
    return tuple(chart[k] for k in range(NUM_COMPANIES))


#: The shipped central-track layouts (C3): **reconstructed** (decision C13).
CENTRAL_TRACKS = DATA_DIR / "central_tracks.csv"
NUM_CENTRAL_TRACKS = 8
#: The City Edition's setup frames (C1): **reconstructed** as the base game's charts.
CITY_FRAMES = DATA_DIR / "city_frames.csv"


def load_central_tracks(path=None) -> tuple:
    """The 8 central-track pieces' layouts (C3, C13) from `path` (None: the shipped,
    reconstructed file): a tuple, index = piece (CT1 first), of 8-tuples of exits in the tile
    file's port encoding. The file is CSV with columns ``piece`` (CT1..CT8, each once) and
    ``exits`` (8 port digits, a pairing of the ports 0-7 in which every track joins an even and
    an odd port); '#' lines are comments. Anything else raises DataError naming the file, the
    line and what is wrong."""
    rows, f = _rows(Path(path) if path is not None else CENTRAL_TRACKS, "central-track layouts")
    _columns(f, ("piece", "exits"))
    ids = [f"CT{i + 1}" for i in range(NUM_CENTRAL_TRACKS)]
    pieces: dict = {}
    for lineno, row in rows:
        name = row["piece"].strip()
        if name not in ids:
            raise f.error(f"not one of CT1..CT{NUM_CENTRAL_TRACKS}", lineno, "piece")
        if name in pieces:
            raise f.error(f"piece {name} listed twice", lineno, "piece")
        pieces[name] = _exits(f, lineno, row, "exits")
    if len(pieces) != NUM_CENTRAL_TRACKS:
        missing = [i for i in ids if i not in pieces]
        raise f.error(f"pieces {missing} are missing; the file lists all {NUM_CENTRAL_TRACKS} (C3)")
    return tuple(pieces[i] for i in ids)


@lru_cache(maxsize=None)
def load_city_frames(path: str = str(CITY_FRAMES)) -> dict:
    """The City Edition's setup frames (C1, reconstructed): players (2-6) -> tuple of (colour,
    station numbers) in seat order. Frames 2, 4 and 6 come from the file; 3 and 5 players use
    the first 3 (5) colours of frame 4 (6). DataError for a malformed file."""
    rows, f = _rows(Path(path), "city frames")
    _columns(f, ("frame", "colour", "stations"))
    frames: dict = {}
    for lineno, row in rows:
        frame = _int(f, lineno, row, "frame", 2, 6)
        if frame not in (2, 4, 6):
            raise f.error("frames are for 2, 4 or 6 players (C1)", lineno, "frame")
        frames.setdefault(frame, []).append((row["colour"], _ints(f, lineno, row, "stations")))
    for frame in (2, 4, 6):
        seats = frames.get(frame, [])
        owned = [n for _, ns in seats for n in ns]
        if len(seats) != frame or len(owned) != len(set(owned)) or any(not 1 <= n <= NUM_STATIONS for n in owned):
            raise f.error(f"frame {frame} needs {frame} colours with distinct stations 1..{NUM_STATIONS}")
    return {players: tuple(frames[2 if players == 2 else 4 if players <= 4 else 6][:players])
            for players in range(2, 7)}

"""The cities' numbers (rules C5-C10, decisions C26-C35 of ``docs/rules/metro.md``): one JSON
file, ``data/cities.json``, labelled ``"source": "reconstructed"`` (the City Edition rulebook gives the set-up
and turn rules but no printed values and no final scoring), or a user's file of the same form
(option ``city_data``).

`load_city_data` reads the file through `metro_ai.engine.datafile`, checks every field and raises
`DataError` naming the file, the line and column and the field (``paris.landmarks[3].spaces[1]``)
and what is wrong, never quoting a value; it returns the file with colour names
replaced by their indices (0..7, the order of ``colours``).
"""
from __future__ import annotations

from pathlib import Path

from metro_ai.engine.datafile import read_json, with_path
from metro_ai.engine.errors import DataError

CITY_DATA = Path(__file__).resolve().parent / "data" / "cities.json"
NUM_COLOURS = 8
#: Paris deals its landmarks evenly, 2-6 to each of 2-6 players (C6): 12 of them (C28).
PARIS_LANDMARKS = 12
MAX_LANDMARKS = 16
MAX_SPACES = 8
MAX_PIECES = 8
SECTIONS = ("paris", "stockholm", "london", "new_york", "berlin")


def load_city_data(path=None) -> dict:
    """The checked city data from `path` (None: the shipped, reconstructed file)."""
    f = read_json(Path(path) if path is not None else CITY_DATA, what="city data")
    try:
        return check_city_data(f.data, None)
    except DataError as exc:
        raise f.error(exc) from None


def _path(field: str) -> tuple:
    """``"paris.landmarks[3].spaces"`` as a JSON path: ``("paris", "landmarks", 3, "spaces")``."""
    out: list = []
    for part in filter(None, field.split(".")):
        name, *indices = part.split("[")
        if name:
            out.append(name)
        out.extend(int(i.rstrip("]")) for i in indices)
    return tuple(out)


def check_city_data(raw, where="city data") -> dict:
    """`raw` (the parsed file) checked and with colours as indices; DataError naming the field
    (and carrying its JSON path, ``at``), never quoting a value. `where` (None: nothing) starts
    the message."""
    def bad(field, msg, at=None):
        prefix = "" if where is None else f"{where}: "
        raise with_path(DataError(f"{prefix}field {field!r}: {msg}"), _path(field) if at is None else at)

    def obj(v, field, keys, optional=("note", "name")):
        if not isinstance(v, dict):
            bad(field, f"must be an object, got {type(v).__name__}")
        missing = [k for k in keys if k not in v]
        extra = [k for k in v if k not in keys and k not in optional]
        if missing:
            bad(f"{field}.{missing[0]}" if field else missing[0], "missing", _path(field))
        if extra:
            bad(field or "(document)", f"an unknown key (expected {', '.join(keys)})", _path(field) + (extra[0],))
        return v

    def integer(v, field, lo, hi):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            bad(field, f"must be an integer in {lo}..{hi}")
        return v

    def array(v, field, lo, hi):
        if not isinstance(v, list) or not lo <= len(v) <= hi:
            bad(field, f"must be a list of {lo}..{hi} entries")
        return v

    obj(raw, "", ("source", "colours") + SECTIONS)
    if not isinstance(raw["source"], str) or not raw["source"].strip():
        bad("source", "must say where the numbers come from (the shipped file: \"reconstructed\")")
    colours = array(raw["colours"], "colours", NUM_COLOURS, NUM_COLOURS)
    if any(not isinstance(c, str) or not c.strip() for c in colours) or len(set(colours)) != NUM_COLOURS:
        bad("colours", f"must be {NUM_COLOURS} distinct colour names")

    def colour(v, field):
        if v not in colours:
            bad(field, "not one of the colours named in 'colours'")
        return colours.index(v)

    out = {"source": raw["source"], "colours": list(colours)}
    s = obj(raw["paris"], "paris", ("tourist_points", "landmarks"))
    lms = array(s["landmarks"], "paris.landmarks", PARIS_LANDMARKS, PARIS_LANDMARKS)
    out["paris"] = {"tourist_points": integer(s["tourist_points"], "paris.tourist_points", 0, 20), "landmarks": []}
    for i, lm in enumerate(lms):
        f = f"paris.landmarks[{i}]"
        obj(lm, f, ("spaces", "bonus"))
        spaces = [colour(c, f"{f}.spaces[{j}]") for j, c in enumerate(array(lm["spaces"], f"{f}.spaces", 1, MAX_SPACES))]
        out["paris"]["landmarks"].append({"name": lm.get("name", f"landmark {i}"), "spaces": spaces,
                                          "bonus": integer(lm["bonus"], f"{f}.bonus", 0, 50)})
    s = obj(raw["stockholm"], "stockholm", ("landmarks",))
    out["stockholm"] = {"landmarks": []}
    for i, lm in enumerate(array(s["landmarks"], "stockholm.landmarks", 1, MAX_LANDMARKS)):
        f = f"stockholm.landmarks[{i}]"
        obj(lm, f, ("spaces", "points"))
        out["stockholm"]["landmarks"].append({"name": lm.get("name", f"landmark {i}"),
                                              "spaces": integer(lm["spaces"], f"{f}.spaces", 1, MAX_SPACES),
                                              "points": integer(lm["points"], f"{f}.points", 0, 20)})
    s = obj(raw["london"], "london", ("landmarks",))
    out["london"] = {"landmarks": []}
    for i, lm in enumerate(array(s["landmarks"], "london.landmarks", 1, MAX_LANDMARKS)):
        f = f"london.landmarks[{i}]"
        obj(lm, f, ("colour",))
        out["london"]["landmarks"].append({"name": lm.get("name", f"landmark {i}"),
                                           "colour": colour(lm["colour"], f"{f}.colour")})
    s = obj(raw["new_york"], "new_york", ("tourist_points", "colour_bonus"))
    out["new_york"] = {"tourist_points": integer(s["tourist_points"], "new_york.tourist_points", 0, 20),
                       "colour_bonus": [integer(v, f"new_york.colour_bonus[{k}]", 0, 100) for k, v in
                                        enumerate(array(s["colour_bonus"], "new_york.colour_bonus", 9, 9))]}
    s = obj(raw["berlin"], "berlin", ("vp_pieces", "ticket_points", "colour_bonus"))
    sides = obj(s["vp_pieces"], "berlin.vp_pieces", ("A", "B"))
    pieces = {k: [integer(v, f"berlin.vp_pieces.{k}[{j}]", 0, 20) for j, v in
                  enumerate(array(sides[k], f"berlin.vp_pieces.{k}", 1, MAX_PIECES))] for k in ("A", "B")}
    if len(pieces["A"]) != len(pieces["B"]):
        bad("berlin.vp_pieces", f"sides A and B must list as many pieces (the same pieces' two sides), "
                                f"got {len(pieces['A'])} and {len(pieces['B'])}")
    out["berlin"] = {"vp_pieces": pieces,
                     "ticket_points": integer(s["ticket_points"], "berlin.ticket_points", 0, 20),
                     "colour_bonus": [integer(v, f"berlin.colour_bonus[{k}]", 0, 100) for k, v in
                                      enumerate(array(s["colour_bonus"], "berlin.colour_bonus", 9, 9))]}
    return out

"""The Metro 2033 map picture (engine/metro2033/svg.py): stations where the Moscow metro map has
them (data/metro2033_positions.csv), every station named beside its dot, tunnels and transfers
drawn apart, the positions file checked when read."""
import itertools
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import metro_ai
from metro_ai.engine.errors import DataError
from metro_ai.engine.metro2033 import svg
from metro_ai.engine.metro2033.board import BOARD
from metro_ai.engine.metro2033.text import station_label

# Measured on the shipped positions (the schematic map before them had 197): the radial lines
# must cross the Ring between an interchange's halls, and the Polis halls are all linked.
MAX_CROSSINGS = 50


def _crossings(pos):
    def ccw(a, b, c):
        return (c[1] - a[1]) * (b[0] - a[0]) - (b[1] - a[1]) * (c[0] - a[0])
    n = 0
    for (a, b, _), (c, d, _) in itertools.combinations(BOARD.link_list, 2):
        if len({a, b, c, d}) < 4:
            continue
        A, B, C, D = pos[a], pos[b], pos[c], pos[d]
        n += ccw(A, C, D) * ccw(B, C, D) < 0 and ccw(A, B, C) * ccw(A, B, D) < 0
    return n


def _svg():
    s = metro_ai.load_game("metro2033", players=3).new_state(6)
    return ET.fromstring(s.svg())


def test_every_station_has_one_position_in_the_box():
    pos = svg.load_positions()
    assert len(pos) == BOARD.n == 78
    assert all(0 <= x <= 1000 and 0 <= y <= 1000 for x, y in pos)


def test_station_dots_do_not_overlap_and_links_are_short_and_cross_little():
    pos = svg.POSITIONS
    closest = min(math.dist(p, q) for p, q in itertools.combinations(pos, 2))
    assert closest >= 20                     # dots of radius 6 px, on the 0..1000 box scaled to 832 px
    assert max(math.dist(pos[a], pos[b]) for a, b, _ in BOARD.link_list) < 300
    assert _crossings(pos) <= MAX_CROSSINGS


def test_the_ring_is_a_circle_in_its_order():
    """The Ring (Hansa halls) in order around a circle: each hall's two Ring neighbours are the
    ones before and after it by angle around the ring's centre."""
    ring = [i for i in range(BOARD.n) if BOARD.kind[i] == "hansa"]
    xy = np.array([svg.POSITIONS[i] for i in ring])     # the circle through them (least squares)
    (cx, cy, _), *_ = np.linalg.lstsq(np.c_[2 * xy, np.ones(len(ring))], (xy ** 2).sum(1), rcond=None)
    radii = [math.dist((cx, cy), svg.POSITIONS[i]) for i in ring]
    assert max(radii) - min(radii) < 0.05 * max(radii)
    order = sorted(ring, key=lambda i: math.atan2(svg.POSITIONS[i][1] - cy, svg.POSITIONS[i][0] - cx))
    for k, i in enumerate(order):
        ring_nb = {j for j, kind in BOARD.links[i] if kind == "tunnel" and BOARD.kind[j] == "hansa"}
        assert ring_nb == {order[k - 1], order[(k + 1) % len(order)]}


def test_every_station_is_named_on_the_map_away_from_its_dot():
    root = _svg()
    stations = [e for e in root.iter() if e.get("class") == "station"]
    assert len(stations) == 78
    for e in stations:
        s = int(e.get("data-station"))
        label = next(t for t in e.iter() if t.tag.endswith("text") and t.get("class") == "label")
        assert label.text == station_label(BOARD.names[s])
        dot = next(c for c in e.iter() if c.tag.endswith("circle"))
        assert (float(label.get("x")), float(label.get("y"))) != (float(dot.get("cx")), float(dot.get("cy")))
        assert math.dist((float(label.get("x")), float(label.get("y"))),
                         (float(dot.get("cx")), float(dot.get("cy")))) > svg.DOT


def test_tunnels_and_transfers_are_drawn_differently():
    root = _svg()
    links = [e for e in root.iter() if e.get("class") == "link"]
    tunnels = {(e.get("stroke-width"), e.get("stroke-dasharray")) for e in links if e.get("data-kind") == "tunnel"}
    transfers = {(e.get("stroke-width"), e.get("stroke-dasharray")) for e in links if e.get("data-kind") == "transfer"}
    assert tunnels and transfers and not tunnels & transfers
    assert all(dash is not None for _, dash in transfers) and all(dash is None for _, dash in tunnels)


def _write(tmp_path, rows, header="station,x,y"):
    p = tmp_path / "pos.csv"
    p.write_text("# test\n" + header + "\n" + "".join(f"{r}\n" for r in rows))
    return p


def _good_rows():
    return [f"{n},{x:g},{y:g}" for n, (x, y) in zip(BOARD.names, svg.POSITIONS)]


def test_the_shipped_rows_load_back(tmp_path):
    assert svg.load_positions(_write(tmp_path, _good_rows())) == svg.POSITIONS


@pytest.mark.parametrize("change, words", [
    (lambda rows: rows[1:], "no position for 1 station"),
    (lambda rows: rows + rows[:1], "given twice"),
    (lambda rows: rows + ["nowhere,1,1"], "not a station of the map"),
    (lambda rows: [rows[0].rsplit(",", 1)[0] + ",1001"] + rows[1:], "not in 0..1000"),
    (lambda rows: [rows[0].rsplit(",", 1)[0] + ",-1"] + rows[1:], "not in 0..1000"),
    (lambda rows: [rows[0].rsplit(",", 1)[0] + ",nan?"] + rows[1:], "not a number"),
])
def test_a_bad_positions_file_is_refused_by_name(tmp_path, change, words):
    with pytest.raises(DataError, match=words) as err:
        svg.load_positions(_write(tmp_path, change(_good_rows())))
    assert "station positions" in str(err.value)


def test_a_wrong_header_is_refused(tmp_path):
    with pytest.raises(DataError, match="header"):
        svg.load_positions(_write(tmp_path, _good_rows(), header="station,y,x"))


def test_labels_cover_no_other_dot_and_no_other_label():
    """With a sans-serif face's width (0.6 em a letter), no label's box holds another station's
    dot or meets another label."""
    boxes = []
    for s, (ax, ay, anchor) in enumerate(svg.LABEL_AT):
        w = 0.6 * svg.FONT * len(svg.LABELS[s])
        x0 = ax if anchor == "start" else ax - w if anchor == "end" else ax - w / 2
        boxes.append((x0, ay - 0.8 * svg.FONT, x0 + w, ay + 0.2 * svg.FONT))
    for s, box in enumerate(boxes):
        assert not any(box[0] <= px <= box[2] and box[1] <= py <= box[3]
                       for t, (px, py) in enumerate(svg.POS) if t != s), BOARD.names[s]
    for (i, a), (j, b) in itertools.combinations(enumerate(boxes), 2):
        assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (BOARD.names[i], BOARD.names[j])

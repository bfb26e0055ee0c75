"""Metro's tracks in the terminal (engine/metro/text.py): every drawn tile reads as its tracks.

For every kind and rotation the drawing is traced back: from each port, follow the node
directions (straight on through a crossing) to the port at the other end; it must be the port
the tile's exits join (M2). T15, whose four tracks all cross, is the one kind drawn as stubs."""
import random

import pytest

import metro_ai
from metro_ai.engine.metro import text

GAME = metro_ai.load_game("metro", players=3)


def _trace(nodes, p):
    """The port reached from port p by following the drawing."""
    node = text.PORT_NODES[p]
    came = text.OUT[p]                        # we enter the square through the port's side
    for _ in range(100):
        dirs = nodes[node]
        if node != text.PORT_NODES[p] and node in text.PORT_NODES:
            q = text.PORT_NODES.index(node)
            assert text.OUT[q] in dirs                 # its stub reaches the square's edge
            return q
        outs = set(dirs) - {came}
        if len(dirs) == 4:                    # a crossing: straight on
            outs = {text.BACK[came]}
        assert len(outs) == 1, (node, dirs, came)
        d = outs.pop()
        dr, dc = text.STEP[d]
        node, came = (node[0] + dr, node[1] + dc), text.BACK[d]
    raise AssertionError("no end")


@pytest.mark.parametrize("kind", range(24))
def test_every_tile_drawing_reads_as_its_tracks(kind):
    exits = GAME.data.tiles[kind].exits
    for rot in range(4):
        nodes = text.routes(exits, rot)
        if GAME.tile_ids[kind] == "T15":
            assert nodes is None
            continue
        assert nodes is not None
        for p in range(8):
            want = (exits[(p - 2 * rot) % 8] + 2 * rot) % 8
            assert _trace(nodes, p) == want, (GAME.tile_ids[kind], rot, p)


def test_the_board_drawing_names_squares_and_stations():
    s = GAME.new_state(4)
    r = random.Random(2)
    for _ in range(30):
        s.apply(r.choice(s.legal_actions()))
    drawing = text.board_text(s, 1)
    rows = drawing.splitlines()
    assert len(rows) == 2 + 8 * text.N + 1 + 1
    assert rows[1].split() == list("ABCDEFGH")
    assert rows[0].split() == [str(n) for n in range(1, 9)]
    assert all(f"{n} " in drawing or drawing.rstrip().endswith(str(n)) for n in range(1, 33))
    assert "P0: " + " ".join(str(n) for n in sorted(GAME.owners[0])) in rows[-1]
    assert "unused: 16 17" in rows[-1]
    assert drawing in s.render(1) and "P1 hand:" in s.render(1)
    empty = GAME.new_state(4)
    assert not set(text.board_text(empty)) & set("│─┌┐└┘┼")      # nothing placed, no track

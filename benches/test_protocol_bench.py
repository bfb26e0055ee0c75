"""pytest-benchmark suite for the protocol: a round trip (legal_actions + apply) through the
`Session` in process, and a short run of benches/protocol_latency.py's side-by-side figures
(stdio and WebSocket next to the Python API). The latency figures of benches/results/games_notes.md
(and the headline of docs/guide/server.md) come from ``python benches/protocol_latency.py``."""
import asyncio
import json

import protocol_latency             # benches/protocol_latency.py (pytest puts benches/ on the path)

from metro_ai.protocol import Session


def test_session_round_trip(benchmark):
    loop = asyncio.new_event_loop()
    answers = []

    async def send(text):
        answers.append(json.loads(text))
    s = Session(send)
    loop.run_until_complete(s.handle_text(protocol_latency._req(0, "new_game", game="metro",
                                                                 options={"players": 2}, seed=1)))

    def round_trip():
        loop.run_until_complete(s.handle_text(protocol_latency._req(1, "legal_actions", game_id="g1")))
        first = answers[-1]["result"]["actions"][0]["id"]
        loop.run_until_complete(s.handle_text(protocol_latency._req(2, "apply", game_id="g1", action=first)))
        if answers[-1]["result"]["state"]["terminal"]:
            ply = answers[-1]["result"]["state"]["ply"]       # back to the deal, and on again
            loop.run_until_complete(s.handle_text(protocol_latency._req(3, "undo", game_id="g1", count=ply)))
        return answers[-1]

    try:
        assert "result" in benchmark(round_trip)
    finally:
        loop.close()


def test_side_by_side_latency_runs():
    results = protocol_latency.measure(round_trips=30, goes=2)
    assert set(results) == set(protocol_latency.WAYS)
    for r in results.values():
        assert r["round_trips"] == 30 and r["goes"] == 2 and r["round_trip"] > 0 and r["go"] > 0
    assert "| stdio (metro-ai serve) |" in protocol_latency.markdown(results, "metro", 2)

"""Every view a seat's own (docs/security.md, "What a seat is shown"): what the web page and the
terminal receive for a seat carries nothing that ``state.observation(seat)`` does not.

"Carries nothing more" is tested as "depends on that observation only". For sample positions of
every registered game and option set (the contract suite's: test_contract.py), for each seat, and
for worlds that seat cannot tell from the true position (``determinize(seat, k)``: the other
hands, shares, decks and piles redealt, everything the seat sees kept), all that the page draws
from (the protocol's summary, the ``svg`` picture for the seat with the page's extras, the legal
actions in words on its own turn) and all that the terminal prints for the seat (its turn with
``info`` and ``list``; or the position between turns) is the same in the true position
and in every world. A hidden value of another seat that reached either would differ in a world.
The scores are the case in point: where a game's observation leaves them out (Metro with
companies, M18), neither shows them before the end. At the end the result is public (the final
scores and returns), so the comparison stops there and checks that the result is shown.

Moves: another seat's move as the seat saw it (``metro_ai.play.seatview.seen_move``, what the
terminal's move line and the page's move list show, through ``go`` with ``seat`` and the
picture's last move) reads the same whichever hidden choice was made (twin positions the seat
cannot tell apart, twin moves it observes alike: M18's share put back, G32's threat, combat card
and quest card), and never lies: the move made fits the text, ``?`` standing for what is hidden.
"""
from __future__ import annotations

import re

import pytest

from metro_ai.play.human import HumanSeat
from metro_ai.play.loop import Stop
from metro_ai.play.seatview import WORLDS, seen_move, visible_scores
from metro_ai.play.terminal import describe
from metro_ai.registry import game_class
from test_contract import ALL_SETS, sample_states, short_game, trajectory
from tests.protocol_client import Client, run

#: The worlds each position is compared with, per seat (seeds 1..N: the page and terminal look
#: at the true position and these).
TWINS = 2
#: Positions looked at per option set (the contract's sample, thinned evenly, its last kept).
POSITIONS = 6


def _positions(name, index):
    states = sample_states(name, index, every=23)
    if len(states) <= POSITIONS:
        return states
    return [states[round(i * (len(states) - 1) / (POSITIONS - 1))] for i in range(POSITIONS)]


async def _page(state, seat):
    """What the page receives to draw `state` for `seat`: the summary (``load_state`` answers
    as ``state`` does), the picture for the seat with the page's extras and, on the seat's turn,
    its legal actions in words."""
    c = Client()
    summary = await c.result("load_state", state=state.to_json())
    game_id = summary.pop("game_id")
    picture = await c.result("svg", game_id=game_id, seat=seat, labels=True)
    out = {"summary": summary, "svg": picture["svg"]}
    if not state.is_terminal() and state.current_player == seat:
        legal = await c.result("legal_actions", game_id=game_id, labels=True)
        out["legal"] = (legal["actions"], legal.get("prompt"))
    return out


def _terminal(state, seat):
    """Every line the terminal prints for `seat` at `state`: on its turn the turn itself and what
    ``info`` and ``list`` add; else the position as ``show`` draws it and ``info``."""
    lines = []
    human = HumanSeat(seat, read=None, write=lines.append, width=100, height=40, color=False)
    if not state.is_terminal() and state.current_player == seat:
        asked = iter(["info", "list"])

        def read(_prompt):
            try:
                return next(asked)
            except StopIteration:
                raise EOFError from None
        human.read = read
        with pytest.raises(Stop):
            human.choose(state.clone())
    else:
        human.show(state)
        human.show_info(state)
    return lines


@pytest.mark.parametrize("name, index", ALL_SETS)
def test_what_a_seat_is_shown_depends_on_its_observation_only(name, index):
    game = short_game(name, index)
    redealt = 0
    for state in _positions(name, index):
        for seat in range(game.num_players):
            page, terminal = run(_page(state, seat)), _terminal(state, seat)
            scores = page["summary"]["scores"]
            if state.is_terminal():                    # the result is public at the end
                assert scores == state.scores() and page["summary"]["returns"] == state.returns()
                continue
            observed = state.observation(seat)
            if "scores" in observed:
                assert observed["scores"] == state.scores(), "an observation's scores are the game's"
                assert scores == state.scores() or not all("scores" in state.observation(p)
                                                           for p in range(game.num_players))
            else:                                      # hidden (M18): neither front end shows them
                assert scores is None and visible_scores(state, seat) is None
                assert any("scores: hidden until the end" in line for line in terminal), terminal
            for k in range(1, TWINS + 1):
                world = state.determinize(seat, k)
                assert world.observation(seat) == observed
                redealt += world.to_json() != state.to_json()
                assert run(_page(world, seat)) == page, f"the page shows seat {seat} what it cannot see (world {k})"
                assert _terminal(world, seat) == terminal, f"the terminal shows seat {seat} what it cannot see"
    assert redealt, "no world differed from the true position: nothing hidden was tried"


def _fits(true_text, seen_text):
    """Whether `true_text` is one of the texts `seen_text` stands for (``?``: any part)."""
    return re.fullmatch(".+".join(map(re.escape, seen_text.split("?"))), true_text) is not None


#: Moves compared per position and seat: every hidden one up to this many, and as many others.
MOVES = 6


def _hiding(name, index, most=POSITIONS):
    """Positions of the contract's sample games where a move would be partly hidden from another
    seat (its ``observed_action`` differs), up to `most`, spread over the games."""
    found = []
    for states in (trajectory(name, index, index + 1, bot) for bot in ("random", "greedy")):
        for state in states:
            observe = getattr(state, "observed_action", None)
            if observe is None or state.is_terminal():
                break
            others = [p for p in range(state.num_players) if p != state.current_player]
            if any(observe(a, p) != a for a in state.legal_actions() for p in others):
                found.append(state.clone())
    return found[::max(1, len(found) // most)][:most]


@pytest.mark.parametrize("name, index", ALL_SETS)
def test_a_move_reads_the_same_to_a_seat_whatever_it_could_not_see(name, index):
    """For each other seat and each world it cannot tell from the position, a legal move and every
    move of that world the seat observes alike (``observed_action``) read the same to it (text,
    words, id where it can tell which); and the move made fits what is shown."""
    game = short_game(name, index)
    hidden = 0
    for state in _positions(name, index) + _hiding(name, index):
        if state.is_terminal():
            continue
        mover = state.current_player
        observe = getattr(state, "observed_action", None)
        legal = state.legal_actions()
        for seat in range(game.num_players):
            if seat == mover:
                continue
            if observe is None:                         # every move seen whole
                moves = legal[::max(1, len(legal) // MOVES)]
            else:
                moves = [a for a in legal if observe(a, seat) != a][:MOVES] + legal[::max(1, len(legal) // MOVES)]
            for a in moves:
                seen = seen_move(state, a, seat, describe)
                assert _fits(state.action_to_string(a), seen.text), (seen, state.action_to_string(a))
                assert seen.action in (a, None)
                if observe is None:
                    assert seen == seen_move(state, a, None, describe)
            if observe is None:
                continue
            for k in range(WORLDS, WORLDS + TWINS):      # twins beyond the seeds seen_move reads in
                world = state.determinize(seat, k)
                alike = {}
                for b in world.legal_actions():
                    alike.setdefault(world.observed_action(b, seat), []).append(b)
                for a in moves:
                    for b in alike.get(observe(a, seat), []):
                        assert seen_move(world, b, seat, describe) == seen_move(state, a, seat, describe), (a, b)
                        hidden += state.action_to_string(a) != world.action_to_string(b)
    if game.options.get("companies") or name == "metro2033":
        assert hidden, "no hidden move (M18, G32) was compared"


def test_go_and_the_picture_for_a_seat_say_a_hidden_move_as_that_seat_saw_it():
    """Over the protocol, Metro with companies: bots play until one exchanges a share (M18). To
    the other seat ``go`` with ``seat`` answers the exchange with its company written ``?``, no
    id, no share or mean, and progress notes without the bot's best move, share or mean; its
    picture marks no last move. The mover's own seat and the table (no seat) get the move made."""
    async def play():
        c = Client(progress_interval=0.001)
        game_id = (await c.result("new_game", game="metro", options={"players": 2, "companies": True},
                                  seed=5))["game_id"]
        for ply in range(60):
            mover = (await c.result("state", game_id=game_id))["current_player"]
            seat = 1 - mover
            c.notes.clear()
            r = await c.result("go", game_id=game_id, bot="ismcts", limit={"iterations": 300}, seed=ply,
                               apply=True, seat=seat)
            made = (await c.result("save", game_id=game_id))["record"]["actions"][-1]
            notes = [n["params"] for n in c.notes]
            assert all(n["best"] is None and n["share"] is None and n["mean"] is None for n in notes)
            assert r["share"] is None and r["mean"] is None and _fits(made["text"], r["text"])
            seen = await c.result("svg", game_id=game_id, seat=seat)
            own = await c.result("svg", game_id=game_id, seat=mover)
            table = await c.result("svg", game_id=game_id)
            assert own["lastmove"] == table["lastmove"] == made["action"]
            if made["text"].startswith("exchange"):
                assert "(company ?)" in r["text"] and "(company ?)" in r["label"] and r["action"] is None
                assert seen["lastmove"] is None
                await c.result("undo", game_id=game_id)
                for who in (seat, mover):   # searches long enough that notes are sure to come (a short
                    c.notes.clear()         # one can end before its first note is due)
                    await c.result("go", game_id=game_id, bot="ismcts", limit={"iterations": 20000}, seed=ply,
                                   apply=False, seat=who)
                    notes = [n["params"] for n in c.notes]
                    assert notes, f"a search for seat {who} of 20,000 iterations sent no progress note"
                    if who == seat:         # the other seat's: nothing of the move; the mover's: its best
                        assert all(n["best"] is None and n["share"] is None and n["mean"] is None for n in notes)
                    else:
                        assert any(n["best"] for n in notes)
                mine = await c.result("go", game_id=game_id, bot="ismcts", limit={"iterations": 300}, seed=ply,
                                      apply=True, seat=mover)
                assert mine["text"] == made["text"] and mine["action"] == made["action"] and mine["share"] is not None
                return ply
            assert r["text"] == made["text"] and r["action"] == made["action"] == seen["lastmove"]
        return None
    assert run(play()) is not None, "no bot exchanged a share in 60 moves"


def test_the_terminal_says_another_seats_hidden_move_as_its_seat_saw_it():
    """``metro-ai play``'s move line (Metro with companies, M18): the other seat reads the
    exchange with its company written ``?``; the mover reads its own move whole."""
    index = game_class("metro").option_sets().index({"players": 2, "companies": True})
    state = _hiding("metro", index, most=1)[0]
    mover = state.current_player
    exchanges = [a for a in state.legal_actions() if state.action_to_string(a).startswith("exchange")]
    assert exchanges
    for a in exchanges:
        after = state.clone()
        after.apply(a)
        move = {"player": mover, "action": a, "text": state.action_to_string(a)}
        lines = {}
        for seat in (mover, 1 - mover):
            human = HumanSeat(seat, read=None, write=None, width=100, height=40, color=False)
            human.begin(state)
            lines[seat] = human.move_line(after, move, "bot")
        assert lines[mover] == f"P{mover} (bot): {move['text']}"
        assert "(company ?)" in lines[1 - mover] and move["text"] not in lines[1 - mover]

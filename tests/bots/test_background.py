"""Searching in the background (``Bot.start``, ``SearchHandle``): the same action as a blocking
``choose`` with the same seed and iterations, an early ``stop`` with a legal action, progress,
``await``, and the baselines."""
import asyncio
import multiprocessing
import threading
import time

import pytest

import metro_ai
from metro_ai import Limit
from metro_ai.bots import remote
from metro_ai.bots.background import Progress, SearchHandle
from seats import seats


def _position(name, moves=2):
    """A position of game `name` with a choice between two or more actions."""
    state = metro_ai.load_game(name, players=seats(name)).new_state(seed=5)
    for _ in range(moves):
        state.apply(state.legal_actions()[-1])
    while len(state.legal_actions()) < 2:
        state.apply(state.legal_actions()[0])
    return state


GAMES = metro_ai.list_games()


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bot,options", [("ismcts", {}), ("ismcts", {"workers": 3}), ("mo-ismcts", {}),
                                         ("flat-mc", {}), ("pimc", {"worlds": 3}),
                                         ("ismcts", {"temperature": 1.0})])
@pytest.mark.parametrize("chunk", [None, 1, 37])
def test_background_search_chooses_as_the_blocking_search(game, bot, options, chunk):
    state = _position(game)
    limit = Limit(iterations=300)
    blocking = metro_ai.make_bot(bot, seed=9, **options)
    background = metro_ai.make_bot(bot, seed=9, **options)
    for _ in range(2):                  # the second call: the bots' call counters stay in step
        expected = blocking.analyse(state, limit)
        handle = background.start(state, limit, analyse=True, chunk=chunk)
        assert handle.result(timeout=60) == expected.chosen
        got = handle.analysis()
        assert [(a.action, a.visits) for a in got.actions] == [(a.action, a.visits) for a in expected.actions]
        assert got.iterations == expected.iterations == 300
        assert handle.progress().iterations == 300 and handle.progress().done


@pytest.mark.parametrize("game", GAMES)
def test_start_returns_choose_move_after_move_forced_moves_included(game):
    state = metro_ai.load_game(game, players=seats(game)).new_state(seed=8)
    a, b = metro_ai.make_bot("ismcts", seed=2), metro_ai.make_bot("ismcts", seed=2)
    for _ in range(12):
        if state.is_terminal():
            break
        limit = Limit(iterations=30)
        expected = a.choose(state, limit)
        assert b.start(state, limit).result(timeout=60) == expected
        state.apply(expected)
    assert b._calls == a._calls == 12 or state.is_terminal()


def test_stop_mid_search_returns_a_legal_action_and_progress_is_reported():
    state = _position("metro")
    handle = metro_ai.make_bot("ismcts", seed=1).start(state, Limit(iterations=10 ** 12))
    for _ in range(60_000):                      # wait (a minute at most) for progress to show
        if handle.progress().iterations > 0:
            break
        threading.Event().wait(0.001)
    p = handle.progress()
    assert isinstance(p, Progress) and p.best in state.legal_actions() and 0 < p.share <= 1 and not p.done
    action = handle.stop(timeout=60)
    assert action in state.legal_actions()
    assert handle.done() and handle.progress().done and handle.progress().best == action
    assert handle.analysis().iterations < 10 ** 12


def test_stop_before_the_first_chunk_still_gives_a_searched_action():
    state = _position("metro")
    handle = metro_ai.make_bot("ismcts", seed=1).start(state, Limit(iterations=10 ** 12), chunk=5)
    action = handle.stop(timeout=60)
    assert action in state.legal_actions()
    analysis = handle.analysis()
    assert analysis.iterations >= 1 and action == analysis.chosen      # every core runs an iteration


def test_stop_ends_the_chunk_under_way():
    # a stop ends the search after the iteration under way (issue #41), not at the end of a chunk
    # of a billion iterations, which a search would otherwise finish first
    state = _position("metro")
    handle = metro_ai.make_bot("ismcts", seed=1).start(state, Limit(iterations=10 ** 12), chunk=10 ** 9)
    time.sleep(0.2)                                 # well inside the first chunk
    action = handle.stop(timeout=60)
    assert action in state.legal_actions()
    assert 1 <= handle.analysis().iterations < 10 ** 9


def test_a_time_limited_search_ends_by_itself():
    state = _position("metro")
    handle = metro_ai.make_bot("ismcts", seed=1).start(state, Limit(time=0.05))
    assert handle.result(timeout=60) in state.legal_actions()


def test_the_search_works_on_a_copy_of_the_state():
    state = _position("metro")
    before = state.to_json()
    handle = metro_ai.make_bot("ismcts", seed=4).start(state, Limit(iterations=10 ** 9))
    state.apply(state.legal_actions()[0])       # the caller moves on while it searches
    action = handle.stop(timeout=60)
    assert action in metro_ai.load_game("metro", players=2).state_from_json(before).legal_actions()


@pytest.mark.parametrize("name", ["random", "greedy"])
@pytest.mark.parametrize("game", GAMES)
def test_baselines_start_and_await_as_they_choose(name, game):
    state = _position(game)
    expected = metro_ai.make_bot(name, seed=3).choose(state)
    handle = metro_ai.make_bot(name, seed=3).start(state)
    assert handle.stop(timeout=60) == expected
    assert handle.progress().best == expected and handle.analysis() is None
    assert asyncio.run(metro_ai.make_bot(name, seed=3).choose_async(state)) == expected


def test_await_a_handle_inside_an_event_loop_that_keeps_running():
    state = _position("metro")

    async def main():
        handle = metro_ai.make_bot("ismcts", seed=6).start(state, Limit(iterations=3000))

        async def wait():
            return await handle
        task = asyncio.ensure_future(wait())
        ticks = 0
        while not task.done():          # the loop runs while the search thread searches
            ticks += 1
            await asyncio.sleep(0)
        return await task, ticks

    action, ticks = asyncio.run(main())
    assert action == metro_ai.make_bot("ismcts", seed=6).choose(state, Limit(iterations=3000))
    assert ticks >= 1


def test_errors_reach_the_caller():
    state = _position("metro")
    with pytest.raises(ValueError, match="chunk"):
        metro_ai.make_bot("ismcts").start(state, Limit(iterations=10), chunk=0)
    with pytest.raises(TypeError, match="Limit"):
        metro_ai.make_bot("ismcts").start(state, 10)
    done = state.clone()
    while not done.is_terminal():
        done.apply(done.legal_actions()[0])
    for name in ("ismcts", "random"):
        with pytest.raises(ValueError, match="over"):
            metro_ai.make_bot(name).start(done)
    failing = SearchHandle.calling(lambda s, lim: 1 // 0, state, None)
    with pytest.raises(ZeroDivisionError):
        failing.result(timeout=60)
    assert failing.done() and failing.progress().done


def _spy_on_searches(monkeypatch):
    """The handles of every background search started from now on."""
    made = []
    real = SearchHandle.searching.__func__

    def searching(cls, *args, **kwargs):
        handle = real(cls, *args, **kwargs)
        made.append(handle)
        return handle
    monkeypatch.setattr(SearchHandle, "searching", classmethod(searching))
    return made


def _without_seconds(analysis):
    out = analysis.to_dict()
    out.pop("seconds")
    return out


@pytest.mark.parametrize("backend", ["threads", "processes"])
@pytest.mark.parametrize("bot,options", [("ismcts", {}), ("mo-ismcts", {}), ("flat-mc", {}), ("pimc", {"worlds": 3}),
                                         ("ismcts", {"temperature": 1.0})])
def test_choose_and_analyse_are_the_background_search_waited_for(bot, options, backend, monkeypatch):
    """One search driver: ``choose`` runs ``start(...)`` and waits for it, and gives what a
    handle's ``result()`` gives, with the same cores' summaries; ``analyse`` gives the handle's
    analysis; for threads and for worker processes."""
    state = _position("metro")
    limit = Limit(iterations=240)
    made = _spy_on_searches(monkeypatch)
    blocking = metro_ai.make_bot(bot, seed=7, workers=2, backend=backend, **options)
    background = metro_ai.make_bot(bot, seed=7, workers=2, backend=backend, **options)
    chosen = blocking.choose(state, limit)
    assert len(made) == 1 and made[0].done()            # choose went through the background search
    handle = background.start(state, limit)
    assert handle.result(timeout=120) == chosen
    assert made[0].summaries() == handle.summaries() and len(handle.summaries()) == (3 if bot == "pimc" else 2)
    expected = blocking.analyse(state, limit)
    got = background.start(state, limit, analyse=True).analysis(timeout=120)
    assert _without_seconds(got) == _without_seconds(expected)
    assert expected.iterations == 240 and expected.workers == 2


def test_threads_and_processes_build_the_same_trees():
    state = _position("breakthrough")
    limit = Limit(iterations=301)
    runs = [metro_ai.make_bot("pimc", seed=3, worlds=3, workers=2, backend=backend).start(state, limit, analyse=True)
            for backend in ("threads", "processes")]
    assert runs[0].summaries(timeout=120) == runs[1].summaries(timeout=120)
    assert _without_seconds(runs[0].analysis()) == _without_seconds(runs[1].analysis())
    assert [s["iterations"] for s in runs[0].summaries()] == [101, 100, 100]


def _search_workers():
    return {c.pid for c in multiprocessing.active_children() if c.name == "metro-ai-search-worker"}


def _searching(handle):
    for _ in range(120_000):                     # wait (two minutes at most) for progress to show
        if handle.progress().iterations > 0:
            return
        threading.Event().wait(0.001)


def test_the_processes_backend_searches_in_worker_processes_stops_and_reuses_them():
    remote.shutdown()
    assert _search_workers() == set()
    state = _position("metro")
    bot = metro_ai.make_bot("ismcts", seed=1, workers=2, backend="processes")
    handle = bot.start(state, Limit(iterations=10 ** 12))
    _searching(handle)
    workers = _search_workers()
    assert len(workers) == 2 and handle.progress().best in state.legal_actions()
    action = handle.stop(timeout=60)
    assert action in state.legal_actions() and handle.analysis().iterations < 10 ** 12
    assert all(s["iterations"] > 0 for s in handle.summaries())
    again = bot.start(state, Limit(iterations=10 ** 12))      # the idle workers take the next search
    _searching(again)
    assert _search_workers() == workers
    assert again.stop(timeout=60) in state.legal_actions()
    remote.shutdown()
    assert _search_workers() == set()


@pytest.mark.parametrize("backend", ["threads", "processes"])
def test_a_time_budget_keeps_every_worker_searching_until_the_deadline(backend, monkeypatch):
    state = _position("metro")
    made = _spy_on_searches(monkeypatch)
    bot = metro_ai.make_bot("pimc", seed=1, worlds=4, workers=2, backend=backend)
    t0 = time.perf_counter()
    action = bot.choose(state, Limit(time=0.4))
    took = time.perf_counter() - t0
    assert action in state.legal_actions() and 0.4 <= took < 0.4 + 5
    summaries = made[0].summaries()
    assert len(summaries) == 4 and all(s["iterations"] > 0 for s in summaries)
    assert made[0].analysis().seconds >= 0.4


def _choose_on(backend):
    state = _position("metro")
    bot = metro_ai.make_bot("ismcts", seed=2, workers=2, backend=backend)
    return bot.choose(state, Limit(iterations=400)), remote.available()


def test_where_no_process_can_be_started_the_processes_backend_searches_in_threads():
    """In a joblib worker (loky's start method) worker processes cannot be started: the cores run
    in threads, with the same action."""
    from joblib import Parallel, delayed
    got = Parallel(n_jobs=2, backend="loky")(delayed(_choose_on)(b) for b in ("processes", "threads"))
    assert got[0] == got[1] and got[0][1] is False
    assert _choose_on("processes") == (got[0][0], True)

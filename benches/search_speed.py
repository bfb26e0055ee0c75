"""Search speed, time-budget margin, parallel scaling and memory, measured in one run.

* iterations per second of each search bot from fixed positions (opening, middle, end game) at
  2 and 4 players, next to the engine's random play-outs per second from the same position, and
  the ratio (ISMCTS iterations / play-outs);
* the time-budget margin: how far past Limit(time=t) a search returns (median and max);
* parallel search: iterations per second with 1, 2, 4, ... workers (threads, and processes);
* memory: bytes per tree node, and the peak resident memory of a 1,000,000-iteration search.

Usage: python benches/search_speed.py [--quick] [--workers 1 2] [--json out.json]
"""
import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time

import metro_ai
from metro_ai.bots.search import NODE_BYTES
from metro_ai.engine.core import random_playouts

STAGES = {"opening": 0, "middle": 30, "end": 50}     # Metro: tiles on the board


def position(game, players, stage, seed=11):
    """A fixed position: Metro after STAGES[stage] tiles; Breakthrough after 4 x that many random
    actions; in both, moved on to the first choice between two or more actions."""
    s = metro_ai.load_game(game, players=players).new_state(seed)
    rng = random.Random(seed)
    if game == "metro":
        while s.tiles_placed < STAGES[stage]:
            s.apply(rng.choice(s.legal_actions()))
    else:
        for _ in range(4 * STAGES[stage]):
            s.apply(rng.choice(s.legal_actions()))
    while len(s.legal_actions()) < 2:
        s.apply(s.legal_actions()[0])
    return s


def playouts_per_second(state, seconds):
    n, t0 = 0, time.perf_counter()
    batch = 200
    while time.perf_counter() - t0 < seconds:
        random_playouts(state, batch, n)
        n += batch
    return n / (time.perf_counter() - t0)


def iterations_per_second(bot, state, seconds):
    r = bot.analyse(state, metro_ai.Limit(time=seconds))
    return r.iterations / r.seconds


def margin(state, budget, repeats):
    overs = []
    for i in range(repeats):
        bot = metro_ai.make_bot("ismcts", seed=i)
        t0 = time.perf_counter()
        bot.choose(state, metro_ai.Limit(time=budget))
        overs.append(time.perf_counter() - t0 - budget)
    return statistics.median(overs), max(overs)


def peak_memory(iterations):
    """Peak resident memory (MiB) of a fresh process running one search of `iterations`."""
    code = ("import resource, metro_ai; s = metro_ai.load_game('metro', players=2).new_state(1); "
            "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; "
            f"r = metro_ai.make_bot('ismcts', seed=1).analyse(s, metro_ai.Limit(iterations={iterations})); "
            "print(base, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, r.nodes)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    base, peak, nodes = (int(x) for x in out)
    return {"iterations": iterations, "nodes": nodes, "peak_mib": peak / 1024, "search_mib": (peak - base) / 1024}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="short timings, no 1M-iteration memory run")
    ap.add_argument("--seconds", type=float, default=1.0, help="seconds per timing")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    secs = 0.2 if args.quick else args.seconds
    report = {"machine": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version(),
              "node_bytes": NODE_BYTES, "speed": [], "scaling": []}
    print(f"# search speed ({platform.processor() or platform.machine()}, {os.cpu_count()} cpus, one timing of {secs} s each)")
    print("| players | stage | play-outs/s | ismcts it/s | flat-mc it/s | pimc it/s | ismcts / play-outs |")
    print("|---|---|---|---|---|---|---|")
    for players in (2, 4):
        for stage in STAGES:
            s = position("metro", players, stage)
            po = playouts_per_second(s, secs)
            rates = {name: iterations_per_second(metro_ai.make_bot(name, seed=1), s, secs)
                     for name in ("ismcts", "flat-mc", "pimc")}
            row = {"players": players, "stage": stage, "playouts": po, **rates, "ratio": rates["ismcts"] / po}
            report["speed"].append(row)
            print(f"| {players} | {stage} | {po:,.0f} | {rates['ismcts']:,.0f} | {rates['flat-mc']:,.0f} | "
                  f"{rates['pimc']:,.0f} | {row['ratio']:.2f} |", flush=True)
    print("\nBreakthrough, from the opening: uniform play-outs to the end (1,000 turns) against ismcts")
    print("with the same play-outs, and with the game's own play-out settings (heuristic, cut at 10)")
    print("| players | play-outs/s | ismcts, random to the end, it/s | ratio | ismcts, game defaults, it/s |")
    print("|---|---|---|---|---|")
    for players in (2, 4):
        s = position("breakthrough", players, "opening")
        po = playouts_per_second(s, secs)
        same = iterations_per_second(metro_ai.make_bot("ismcts", seed=1, rollout="random", rollout_depth=-1,
                                                       cutoff_scale=0), s, secs)
        own = iterations_per_second(metro_ai.make_bot("ismcts", seed=1), s, secs)
        report["speed"].append({"game": "breakthrough", "players": players, "stage": "opening", "playouts": po,
                                "ismcts_same_playouts": same, "ratio": same / po, "ismcts": own})
        print(f"| {players} | {po:,.0f} | {same:,.0f} | {same / po:.2f} | {own:,.0f} |", flush=True)
    s = position("metro", 2, "opening")
    med, worst = margin(s, 0.1, 5 if args.quick else 20)
    report["time_margin"] = {"budget": 0.1, "median_over": med, "max_over": worst}
    print(f"\ntime budget 0.1 s: returned {med * 1000:.1f} ms past it (median), {worst * 1000:.1f} ms at worst")
    print("\n| players | workers | backend | it/s | speed-up |")
    print("|---|---|---|---|---|")
    for players in (2, 4):
        s = position("metro", players, "opening")
        base = None
        for backend in ("threads", "processes"):
            for w in args.workers:
                if backend == "processes" and w == 1:
                    continue
                bot = metro_ai.make_bot("ismcts", seed=1, workers=w, backend=backend)
                rate = iterations_per_second(bot, s, max(secs, 0.5) * (2 if backend == "processes" else 1))
                base = base or rate
                report["scaling"].append({"players": players, "workers": w, "backend": backend, "rate": rate,
                                          "speedup": rate / base})
                print(f"| {players} | {w} | {backend} | {rate:,.0f} | {rate / base:.2f}x |", flush=True)
    print(f"\ntree node: {NODE_BYTES} bytes")
    if not args.quick:
        mem = peak_memory(1_000_000)
        report["memory"] = mem
        print(f"1,000,000-iteration search: {mem['nodes']:,} nodes, peak resident {mem['peak_mib']:.0f} MiB "
              f"({mem['search_mib']:.0f} MiB for the search)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=2)


if __name__ == "__main__":
    main()

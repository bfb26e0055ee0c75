"""Wall-clock of one small calibration run three ways: in this process (``jobs=1``), on two
local processes (``jobs=2``) and on a Dask ``LocalCluster`` of two worker processes (``dask=``,
as ``metro-ai calibrate --dask``), and whether the three ladders are the same (the timings and
date aside). One run; a measurement of this machine, not of a real cluster.

    python benches/calibrate_dask.py                                   # Leduc, 4 deals: 8 games
    python benches/calibrate_dask.py --game metro --level ismcts:iterations=2000 --deals 20

Per way: ``games_s`` (the tournament's wall-clock, the ladder's ``seconds``) and ``total_s``
(the whole call: games, rating fit, agreement table). The cluster's start-up is timed apart.
"""
import argparse
import json
import time

from metro_ai import ladder as lad

RUN_FIELDS = ("seconds", "game_seconds", "created", "command")


def _run(args, **where):
    t = time.perf_counter()
    ladder = lad.calibrate(args.game, 2, levels=["random", args.level], deals=args.deals, seed=args.seed,
                           positions=args.positions, **where)
    total = time.perf_counter() - t
    return ({"games_s": ladder["seconds"], "total_s": round(total, 2)},
            {k: v for k, v in ladder.items() if k not in RUN_FIELDS})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="leduc")
    ap.add_argument("--level", default="ismcts:iterations=64,temperature=1", help="the level above random")
    ap.add_argument("--deals", type=int, default=4)
    ap.add_argument("--positions", type=int, default=3)
    ap.add_argument("--seed", type=int, default=9)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    from dask.distributed import LocalCluster
    out = {"game": args.game, "level": args.level, "deals": args.deals}
    out["jobs=1"], here = _run(args, jobs=1)
    out["jobs=2"], two = _run(args, jobs=2)
    t = time.perf_counter()
    with LocalCluster(processes=True, n_workers=args.workers, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        out["cluster_start_s"] = round(time.perf_counter() - t, 2)
        out["dask"], there = _run(args, dask=cluster.scheduler_address)
    out["games"] = here["games"]
    out["same_ladder"] = here == two == there
    print(json.dumps(out))


if __name__ == "__main__":
    main()

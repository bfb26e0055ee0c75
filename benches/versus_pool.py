"""Several versus runs of one match-up read as one (the pooled figures of benches/results).

    python benches/versus_pool.py A.json B.json ... [--elo0 0 --elo1 30 --alpha 0.05 --beta 0.05]
        [--json OUT.json]

Each file is a report of ``metro-ai bench --versus ... --out FILE.json``, all of the same game,
options, number of players and budget a move, each on deals of its own. Prints every run and,
over all their game pairs, the score, the Elo with its 95% interval (pair scores) and the SPRT's
log-likelihood ratio for H1 (``--elo1``) against H0 (``--elo0``), as one run of those pairs would
compute them (a fixed sample: no run is extended by it). The logic is
``metro_ai.bench.versus.pool``.
"""
import argparse
import sys

from metro_ai.bench.versus.pool import load_report, pool, text
from metro_ai.engine.datafile import dumps


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("reports", nargs="+", metavar="FILE.json", help="versus reports (--out of bench --versus)")
    p.add_argument("--elo0", type=float, default=0.0, help="H0's Elo (default: 0)")
    p.add_argument("--elo1", type=float, default=30.0, help="H1's Elo (default: 30)")
    p.add_argument("--alpha", type=float, default=0.05, help="the SPRT's alpha, for its bounds (default: 0.05)")
    p.add_argument("--beta", type=float, default=0.05, help="the SPRT's beta, for its bounds (default: 0.05)")
    p.add_argument("--json", metavar="OUT.json", help="also write the pooled figures here")
    args = p.parse_args(argv)
    try:
        pooled = pool([(name, load_report(name)) for name in args.reports], args.elo0, args.elo1, args.alpha, args.beta)
    except ValueError as exc:             # PoolError, or the SPRT's hypotheses refused
        p.error(str(exc))
    sys.stdout.write(text(pooled))
    if args.json:
        with open(args.json, "w") as f:
            f.write(dumps(pooled, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

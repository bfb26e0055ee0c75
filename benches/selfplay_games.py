"""What the games of a self-play run (``metro-ai train --dir RUN``) look like to the hand-written
evaluation: their lengths, whether the eventual winner led by it, and its log-loss at other
scales of its soft rank.

    python benches/selfplay_games.py RUN [--scales 1,1.25,1.5,2]

Every figure repeats from the run's position files. By length band (plies of the game's last
kept position): the games, their share of the positions, the share of the winner's positions in
which the hand-written evaluation put it behind (below 1/2), its mean value for the winner, and
how far into the game (median over the games) the winner's value first reached 0.95.
Then the hand-written evaluation's log-loss with its log-odds divided by each scale s (s = 1 is
the evaluation itself; s > 1 is a soft rank less sure of itself), over positions and over games
(each game's mean counted once), on the training games and on the held-out ones (every fifth
game, as ``metro-ai train`` splits them). Games without a single winner (draws, shared wins)
are left out of the "behind" column.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from metro_ai.learn.model import log_loss, logit, sigmoid
from metro_ai.learn.selfplay import TrainError, load_positions

BANDS = (0, 300, 600, 1000, 2000)
SURE = 0.95             # a winner's value from which the evaluation is sure of it


def lengths_table(part: dict) -> list[dict]:
    """Per length band: games, share of positions, and how the eventual winner stood."""
    games = np.unique(part["game"])
    length = {g: int(part["ply"][part["game"] == g].max()) for g in games}
    total = len(part["y"])
    rows = []
    for lo, hi in zip(BANDS, BANDS[1:] + (None,)):
        band = [g for g in games if length[g] >= lo and (hi is None or length[g] < hi)]
        if not band:
            continue
        sel = np.isin(part["game"], band)
        behind, value, sure = [], [], []
        for g in band:
            mine = part["game"] == g
            winners = np.unique(part["seat"][mine & (part["y"] == 1)])
            if len(winners) != 1:
                continue
            won = mine & (part["seat"] == winners[0])
            behind.append(float(np.mean(part["base"][won] < 0.5)))
            value.append(float(np.mean(part["base"][won])))
            at = part["ply"][won][part["base"][won] >= SURE]
            sure.append(float(at.min() / max(1, length[g])) if len(at) else 1.0)
        rows.append({"plies": f"{lo}-{hi - 1}" if hi else f"{lo}+", "games": len(band),
                     "positions": float(sel.sum() / total),
                     "winner_behind": float(np.mean(behind)) if behind else None,
                     "winner_value": float(np.mean(value)) if value else None,
                     "winner_sure": float(np.median(sure)) if sure else None})
    return rows


def scale_table(train: dict, held: dict, scales) -> list[dict]:
    """The hand-written evaluation's log-loss at each scale, over positions and over games."""
    rows = []
    for s in scales:
        row = {"scale": s}
        for name, part in (("training", train), ("held_out", held)):
            p = sigmoid(logit(part["base"]) / s)
            row[name] = log_loss(p, part["y"])
            row[name + "_per_game"] = log_loss(p, part["y"], part["game"])
        rows.append(row)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="a self-play folder (metro-ai train --dir)")
    ap.add_argument("--scales", default="1,1.25,1.5,1.75,2", help="scales of the soft rank, comma-separated")
    args = ap.parse_args(argv)
    try:
        scales = [float(s) for s in args.scales.split(",")]
        if not all(s > 0 for s in scales):
            raise ValueError
    except ValueError:
        ap.error(f"--scales must be positive numbers separated by commas, not {args.scales!r}")
    try:
        train, held, settings = load_positions(args.run)
    except TrainError as exc:
        ap.error(str(exc))
    if train is None or held is None:
        ap.error(f"{args.run}: too few games to hold a fifth out (at least 5 are needed)")
    both = {k: np.concatenate([train[k], held[k]]) for k in train}
    print(f"{settings.game} {settings.options}: {len(np.unique(both['game']))} games of {settings.bot} "
          f"(seed {settings.seed}, a position every {settings.every} plies), {len(both['y']):,} positions\n")
    print(f"| plies | games | positions | winner behind (share of its positions) | winner's mean value | "
          f"winner first at {SURE:g} or more (median share of the game) |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in lengths_table(both):
        cells = ["-" if r[k] is None else f.format(r[k]) for k, f in
                 (("winner_behind", "{:.2f}"), ("winner_value", "{:.3f}"), ("winner_sure", "{:.0%}"))]
        print(f"| {r['plies']} | {r['games']} | {r['positions']:.1%} | " + " | ".join(cells) + " |")
    print("\n| scale | training | training, per game | held out | held out, per game |")
    print("|---:|---:|---:|---:|---:|")
    for r in scale_table(train, held, scales):
        print(f"| {r['scale']:g} | {r['training']:.4f} | {r['training_per_game']:.4f} | {r['held_out']:.4f} | "
              f"{r['held_out_per_game']:.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

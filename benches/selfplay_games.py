"""What the games of a self-play run (``metro-ai train --dir RUN``) look like to the hand-written
evaluation: their lengths, whether the eventual winner led by it, and its log-loss at other
scales of its soft rank.

    python benches/selfplay_games.py RUN [--scales 1,1.25,1.5,2]
    python benches/selfplay_games.py RUN --replay G [--bot SPEC]

Every figure repeats from the run's position files. The games' lengths (mean, median, 90th
percentile, longest, how many reached 600 plies); by length band (plies of the game's last
kept position): the games, their share of the positions, the share of the winner's positions in
which the hand-written evaluation put it behind (below 1/2), its mean value for the winner, and
how far into the game (median over the games) the winner's value first reached 0.95.
Then the hand-written evaluation's log-loss with its log-odds divided by each scale s (s = 1 is
the evaluation itself; s > 1 is a soft rank less sure of itself), over positions and over games
(each game's mean counted once), on the training games and on the held-out ones (every fifth
game, as ``metro-ai train`` splits them). Games without a single winner (draws, shared wins)
are left out of the "behind" column.

``--replay G`` plays game G of the run again (its deal and bot seeds, the run's bot or ``--bot``:
a preset whose defaults have changed since needs its old settings spelled out) and counts the
moves of each kind (the first word of the move's text) before and after the first kept position
where the winner's value reached 0.95; it says whether the replay ended where the run's game did.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from metro_ai.learn.model import log_loss, logit, sigmoid
from metro_ai.learn.selfplay import TrainError, deal_game, load_positions

BANDS = (0, 300, 600, 1000, 2000)
SURE = 0.95             # a winner's value from which the evaluation is sure of it
LONG = 600              # plies from which a game counts as long


def game_lengths(part: dict) -> dict:
    """Each game's length: the ply of its last kept position."""
    return {g: int(part["ply"][part["game"] == g].max()) for g in np.unique(part["game"])}


def lengths_table(part: dict) -> list[dict]:
    """Per length band: games, share of positions, and how the eventual winner stood."""
    length = game_lengths(part)
    total = len(part["y"])
    rows = []
    for lo, hi in zip(BANDS, BANDS[1:] + (None,)):
        band = [g for g, n in length.items() if n >= lo and (hi is None or n < hi)]
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


def length_summary(part: dict) -> dict:
    """The games' lengths (plies of each game's last kept position): count, mean, median, 90th
    percentile, longest, and how many reached 600 plies."""
    plies = np.array(list(game_lengths(part).values()))
    return {"games": len(plies), "mean": float(plies.mean()), "median": float(np.median(plies)),
            "p90": float(np.percentile(plies, 90)), "max": int(plies.max()), "long": int(np.sum(plies >= LONG))}


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


def replay(folder, g: int, bot=None) -> dict:
    """Game `g` of the run in `folder` played again (see the module docstring): its plies, its
    winners, whether it matches the run's positions, and the counts of move kinds by mover,
    before and after the ply where the evaluation became sure of the winner."""
    import collections

    train, held, settings = load_positions(folder)
    parts = [v for v in (train, held) if v is not None and np.any(v["game"] == g)]     # a game lies in one
    if not parts:
        raise TrainError(f"{folder}: no game {g}")
    part = parts[0]
    mine = part["game"] == g
    _, state, bots = deal_game(settings, g, bot)
    winners = sorted(set(int(p) for p in part["seat"][mine & (part["y"] == 1)]))
    sure = part["ply"][mine & np.isin(part["seat"], winners) & (part["base"] >= SURE)] if winners else []
    split = int(np.min(sure)) if len(sure) else None
    counts: dict = {"before": collections.Counter(), "after": collections.Counter()}
    ply = 0
    while not state.is_terminal():
        p = state.current_player
        action = bots[p].choose(state)
        words = state.action_to_string(action).split()
        counts["before" if split is None or ply < split else "after"][(p, words[0] if words else "?")] += 1
        state.apply(action)
        ply += 1
    last = int(part["ply"][mine].max())
    returns = list(state.returns())
    same = last < ply <= last + settings.every and all(
        returns[int(s)] == y for s, y in zip(part["seat"][mine], part["y"][mine]))
    return {"plies": ply, "winners": winners, "sure_from": split, "same_as_run": bool(same), "counts": counts}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="a self-play folder (metro-ai train --dir)")
    ap.add_argument("--scales", default="1,1.25,1.5,1.75,2", help="scales of the soft rank, comma-separated")
    ap.add_argument("--replay", type=int, default=None, metavar="G", help="play game G again and count its moves")
    ap.add_argument("--bot", default=None, metavar="SPEC", help="with --replay: the bot (default: the run's)")
    args = ap.parse_args(argv)
    if args.replay is not None:
        try:
            r = replay(args.run, args.replay, args.bot)
        except (TrainError, ValueError) as exc:
            ap.error(str(exc))
        print(f"game {args.replay}: {r['plies']:,} plies, won by seat(s) {r['winners']}, the winner's value at "
              f"{SURE:g} or more from ply {r['sure_from']}; "
              f"{'the same game as the run' if r['same_as_run'] else 'NOT the run game (another bot or build?)'}\n")
        kinds = sorted({k for c in r["counts"].values() for k in c})
        print("| seat | move | before | after |\n|---:|---|---:|---:|")
        for seat, word in kinds:
            print(f"| {seat} | {word} | {r['counts']['before'][(seat, word)]:,} | {r['counts']['after'][(seat, word)]:,} |")
        return 0
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
          f"(seed {settings.seed}, a position every {settings.every} plies), {len(both['y']):,} positions")
    n = length_summary(both)
    print(f"plies (the last kept position's): mean {n['mean']:.0f}, median {n['median']:.0f}, 90th percentile "
          f"{n['p90']:.0f}, longest {n['max']:,}; {n['long']} of {n['games']} games reached {LONG}\n")
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

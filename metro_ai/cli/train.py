"""``metro-ai train``: a learned evaluator from self-play (:mod:`metro_ai.learn`): a bot's games
against itself played into a folder (resumable, one job a game), then a logistic regression
fitted to their positions and measured on held-out games against the game's hand-written
evaluation; the evaluator is written as a versioned data file."""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

from .common import (StartedProgress, add_game_arguments, add_pool_arguments, check_jobs, check_writable, game_options, game_words,
                     output_error, require_dask)

NAME = "train"
HELP = "train an evaluator by self-play: positions of a bot's games, a fit, its held-out log-loss"
EPILOG = """\
Run it again with the same settings to play only the games not yet in DIR (an interrupted run
resumes; a larger --games adds games), or with --games 0 to fit the positions already there.
Game g is dealt from the seed and g alone, so a run is the same whatever --jobs or --dask."""


def add_arguments(p):
    p.add_argument("--dir", default=None, metavar="DIR",
                   help="the run's folder: its settings and one position file a game (made if missing; "
                        "default: metro-ai-train-GAME-Np in the current folder)")
    add_game_arguments(p, 2)
    p.add_argument("--bot", default=None, metavar="SPEC", help="the bot playing every seat (default: medium)")
    p.add_argument("--games", type=int, default=None, metavar="N",
                   help="games in the run (default: 100; 0: fit what is there)")
    p.add_argument("--seed", type=int, default=None, help="the run's seed (default: 1)")
    p.add_argument("--every", type=int, default=None, metavar="K",
                   help="keep a position every K plies, seen by every seat (default: 2)")
    p.add_argument("--label", default=None, metavar="SPEC",
                   help="a search bot that also searches each kept position for the player to move, its value "
                        "kept as the position's search value (for --target; default: none)")
    p.add_argument("--overwrite", action="store_true", help="discard the positions of another run in DIR")
    add_pool_arguments(p, "; one game a job")
    p.add_argument("--hidden", type=int, default=0, metavar="H",
                   help="hidden tanh units of the model, on the features alone (default: 0, a logistic regression; "
                        "at most 32)")
    p.add_argument("--no-hand-written", action="store_true",
                   help="the logistic model on the features alone (default: the hand-written evaluation one more input)")
    p.add_argument("--l2", type=float, default=1e-2, help="the fit's weight decay (default: 0.01)")
    p.add_argument("--rate", type=float, default=None,
                   help="Adam's step (default: 0.001; with --hidden 0.003)")
    p.add_argument("--epochs", type=int, default=10, help="passes over the positions (default: 10)")
    p.add_argument("--fit-seed", type=int, default=0, help="the fit's seed (default: 0)")
    p.add_argument("--target", type=float, default=0.0, metavar="T",
                   help="fit (1 - T) * result + T * search value (a run played with --label; default: 0, the "
                        "results); held out, the model is measured against the results either way")
    p.add_argument("--folds", type=int, default=0, metavar="K",
                   help="also measure the fit on every K-th part of the games in turn (K fits; its mean is steadier "
                        "than one held-out fifth); stored in the file's training (default: 0, not done)")
    p.add_argument("--out", default=None, metavar="FILE.json", help="the evaluator file (default: DIR/evaluator.json)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _settings(args):
    """The run's settings from the options given, or None (the run in --dir, as stored)."""
    from metro_ai.learn import SelfPlaySettings
    given = [args.game, args.players, args.bot, args.seed, args.every, args.label]
    if all(v is None for v in given) and not args.option:
        return None if (Path(args.dir) / "settings.json").exists() else SelfPlaySettings(*_defaults(args))
    return SelfPlaySettings(*_defaults(args))


def _defaults(args):
    name, options = game_options(args, 2)
    return (name, options, args.bot or "medium", 1 if args.seed is None else args.seed,
            2 if args.every is None else args.every, args.label)


def run(args) -> int:
    from metro_ai.engine.datafile import dumps
    from metro_ai.learn import cross_validate, self_play, train_evaluator
    check_jobs(args)
    require_dask(args)
    games = 100 if args.games is None else args.games
    if games < 0:
        raise ValueError(f"--games must be >= 0, got {games}")
    if args.epochs < 1 or not args.l2 >= 0 or (args.rate is not None and not args.rate > 0):
        raise ValueError("--epochs must be >= 1, --l2 >= 0 and --rate > 0")
    if args.folds == 1 or args.folds < 0:
        raise ValueError(f"--folds must be 0 (none) or at least 2, got {args.folds}")
    if args.dir is None:
        name, options = game_options(args, 2)
        args.dir = f"metro-ai-train-{name}-{options['players']}p"
    out = Path(args.out) if args.out else Path(args.dir) / "evaluator.json"
    if args.out:
        check_writable("--out", args.out)
    settings = _settings(args)
    if games:
        bar = None if args.quiet else StartedProgress()
        try:
            self_play(args.dir, settings, games, jobs=args.jobs, dask=args.dask, overwrite=args.overwrite,
                      progress=bar)
        finally:
            if bar is not None:
                bar.close()
    fit = dict(hidden=args.hidden, on_hand_written=not (args.no_hand_written or args.hidden), l2=args.l2,
               rate=args.rate, epochs=args.epochs, seed=args.fit_seed, target=args.target)
    data = train_evaluator(args.dir, **fit)
    data["training"]["command"] = _command(data["training"])
    if args.folds:
        bar = None if args.quiet else StartedProgress(unit="fold")
        try:
            data["training"]["cross_validation"] = cross_validate(args.dir, args.folds, progress=bar, **fit)
        finally:
            if bar is not None:
                bar.close()
    try:
        out.write_text(dumps(data, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise output_error("--out", str(out), exc) from None
    print(_report(data))
    print(f"evaluator written to {out}", file=sys.stderr)
    return 0


def _command(training) -> str:
    """The command that makes this evaluator again from nothing (its run's settings in full)."""
    sp, fit = training["self_play"], training["fit"]
    words = ["metro-ai", "train", "--dir", "DIR", *game_words(sp["game"], sp["options"])]
    words += ["--bot", sp["bot"], "--seed", str(sp["seed"]), "--every", str(sp["every"]),
              *(["--label", sp["label"]] if "label" in sp else []), "--games", str(sp["games"]),
              *(["--target", repr(fit["target"])] if "target" in fit else []), "--hidden", str(fit["hidden"]),
              *([] if fit["on_hand_written"] or fit["hidden"] else ["--no-hand-written"]),
              "--l2", repr(fit["l2"]), "--rate", repr(fit["rate"]), "--epochs", str(fit["epochs"]),
              "--fit-seed", str(fit["seed"])]
    return " ".join(shlex.quote(w) for w in words)


def _model_words(fit) -> str:
    kind = (f"one hidden layer of {fit['hidden']} units" if fit["hidden"] else
            "logistic on the features and the hand-written evaluation" if fit["on_hand_written"] else
            "logistic on the features")
    target = f"; fitted to {1 - fit['target']:g} x result + {fit['target']:g} x search value" if "target" in fit else ""
    return f"{kind}; l2 {fit['l2']}, step {fit['rate']}, {fit['epochs']} epochs, seed {fit['seed']}{target}"


def _report(data) -> str:
    t = data["training"]
    sp, fit, held = t["self_play"], t["fit"], t["held_out"]
    rows = [f"{sp['game']} {sp['options']}: {sp['games']} games of {sp['bot']} (seed {sp['seed']}, a position every "
            f"{sp['every']} plies{', search values by ' + sp['label'] if 'label' in sp else ''}), "
            f"{fit['positions']:,} positions fitted, {held['positions']:,} held out",
            f"model: {_model_words(fit)}",
            f"held-out log-loss: learned {held['log_loss']:.4f}, hand-written {held['log_loss_hand_written']:.4f}, "
            f"constant {held['log_loss_constant']:.4f} (training positions: {fit['log_loss']:.4f})",
            f"held-out log-loss, each game weighted alike: learned {held['log_loss_per_game']:.4f}, "
            f"hand-written {held['log_loss_hand_written_per_game']:.4f}",
            *([f"held-out log-loss against the search values ({held['search']['positions']:,} positions): learned "
               f"{held['search']['log_loss']:.4f}, hand-written {held['search']['log_loss_hand_written']:.4f}"]
              if "search" in held else []),
            "calibration (held out): predicted -> outcome, positions"]
    for learned in held["calibration"]:
        rows.append(f"  {learned['low']:.1f}-{learned['high']:.1f}: {learned['predicted']:.3f} -> "
                    f"{learned['outcome']:.3f}  {learned['count']:>7,}")
    cv = t.get("cross_validation")
    if cv:
        rows.append(f"{cv['folds']} folds (games g with g % {cv['folds']} == fold held out), log-loss over games: "
                    "learned, hand-written")
        for r in cv["rows"]:
            rows.append(f"  fold {r['fold']}: {r['games']:,} games, {r['log_loss_per_game']:.4f}, "
                        f"{r['log_loss_hand_written_per_game']:.4f}")
        rows.append(f"  mean: {cv['mean']['log_loss_per_game']:.4f}, {cv['mean']['log_loss_hand_written_per_game']:.4f}; "
                    f"the learned one better in {cv['model_better_per_game']} of {cv['folds']} folds")
    return "\n".join(rows)

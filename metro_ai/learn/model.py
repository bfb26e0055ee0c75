"""Learned evaluators (issue #44): a logistic regression over a seat's observation features that
predicts its return, fitted to self-play positions (:mod:`metro_ai.learn.selfplay`), measured on
held-out games against the game's hand-written evaluation, and kept in a versioned data file.

The fit minimises the mean cross-entropy of the predictions against the returns (in [0, 1]: a
win 1, a loss 0, ranks between), or against ``(1 - target) * return + target * search value``
where the run kept search values (a labeller, :mod:`metro_ai.learn.selfplay`), plus
``l2 / 2 * |w|^2``, by Adam over shuffled mini-batches, every random choice from its seed: the
same positions and seed give the same weights, bit for bit (on one machine and numpy).
"""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from metro_ai.bots.evaluator import EVALUATOR_FORMAT, EVALUATOR_VERSION, MAX_HIDDEN, EvaluatorError, read_evaluator

from .selfplay import TrainError, hand_written, hand_written_scale, load_positions

#: Predictions are kept in [EPS, 1 - EPS] when a log-loss is taken (a hard 0 or 1 that is wrong
#: would count as infinitely wrong).
EPS = 1e-6


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-np.clip(z, -60.0, 60.0)))


def log_loss(p, y, games=None) -> float:
    """The mean cross-entropy of predictions `p` against outcomes `y` in [0, 1] (natural log);
    given `games` (each position's game), the mean over games of each game's mean, so that a long
    game counts as much as a short one."""
    p = np.clip(np.asarray(p, np.float64), EPS, 1 - EPS)
    y = np.asarray(y, np.float64)
    loss = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    if games is None:
        return float(np.mean(loss))
    _, which, counts = np.unique(np.asarray(games), return_inverse=True, return_counts=True)
    return float(np.mean(np.bincount(which, weights=loss) / counts))


def calibration(p, y, bins: int = 10) -> list[dict]:
    """Predictions grouped in `bins` equal ranges of [0, 1]: per non-empty bin its range, count,
    mean prediction and mean outcome (a calibrated evaluator's two means agree)."""
    p = np.asarray(p, np.float64)
    y = np.asarray(y, np.float64)
    which = np.minimum((p * bins).astype(int), bins - 1)
    out = []
    for b in range(bins):
        sel = which == b
        if sel.any():
            out.append({"low": b / bins, "high": (b + 1) / bins, "count": int(sel.sum()),
                        "predicted": float(p[sel].mean()), "outcome": float(y[sel].mean())})
    return out


def _adam(params: dict, grads, x, y, *, l2: float, epochs: int, batch: int, rate: float, rng) -> dict:
    """Adam on `params` (name -> float64 array, changed in place) over shuffled mini-batches of
    (`x`, `y`); ``grads(params, xb, yb)`` gives the gradient of the batch's mean cross-entropy
    (the L2 term on every weight but the biases, named ``b...``, is added here)."""
    n = len(y)
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v2 = {k: np.zeros_like(v) for k, v in params.items()}
    beta1, beta2, step = 0.9, 0.999, 0
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, batch):
            rows = order[start:start + batch]
            g = grads(params, x[rows].astype(np.float64), y[rows])
            step += 1
            k1, k2 = 1 - beta1 ** step, 1 - beta2 ** step
            for k, p in params.items():
                gk = g[k] + (0.0 if k.startswith("b") else l2 * p)
                m[k] = beta1 * m[k] + (1 - beta1) * gk
                v2[k] = beta2 * v2[k] + (1 - beta2) * gk * gk
                p -= rate * (m[k] / k1) / (np.sqrt(v2[k] / k2) + 1e-8)
    return params


def _start(x, y, seed):
    x = np.asarray(x, np.float32)
    y = np.asarray(y, np.float64)
    if len(y) == 0:
        raise TrainError("no positions to fit")
    mean = float(np.clip(y.mean(), EPS, 1 - EPS))
    return x, y, np.random.default_rng(seed), math.log(mean / (1 - mean))


def fit_logistic(x, y, *, l2: float = 1e-4, epochs: int = 20, batch: int = 256, rate: float = 0.01,
                 seed: int = 0) -> tuple[np.ndarray, float]:
    """Weights and bias of a logistic regression of `y` (in [0, 1]) on the rows of `x`, by Adam
    (see the module); the bias starts at the outcomes' log-odds."""
    x, y, rng, odds = _start(x, y, seed)

    def grads(p, xb, yb):
        err = sigmoid(xb @ p["w"] + p["b"]) - yb
        return {"w": xb.T @ err / len(yb), "b": np.array(err.mean())}
    p = _adam({"w": np.zeros(x.shape[1]), "b": np.array(odds)}, grads, x, y, l2=l2, epochs=epochs, batch=batch,
              rate=rate, rng=rng)
    return p["w"], float(p["b"])


def fit_mlp(x, y, hidden: int, *, l2: float = 1e-4, epochs: int = 20, batch: int = 256, rate: float = 0.003,
            seed: int = 0) -> dict:
    """One hidden layer of `hidden` tanh units, then a logistic output: ``sigmoid(w2 . tanh(w1 x +
    b1) + b2)``, by Adam (see the module); the first layer drawn from the seed (scaled by the
    inputs' number), the output's bias at the outcomes' log-odds. Returns the arrays ``w1``
    (hidden x features), ``b1``, ``w2``, ``b2``."""
    x, y, rng, odds = _start(x, y, seed)
    d = x.shape[1]
    p = {"w1": rng.normal(0, 1 / math.sqrt(d), (hidden, d)), "b1": np.zeros(hidden),
         "w2": rng.normal(0, 1 / math.sqrt(hidden), hidden), "b2": np.array(odds)}

    def grads(p, xb, yb):
        h = np.tanh(xb @ p["w1"].T + p["b1"])
        err = sigmoid(h @ p["w2"] + p["b2"]) - yb
        dh = np.outer(err, p["w2"]) * (1 - h * h)
        return {"w1": dh.T @ xb / len(yb), "b1": dh.mean(axis=0), "w2": h.T @ err / len(yb),
                "b2": np.array(err.mean())}
    return _adam(p, grads, x, y, l2=l2, epochs=epochs, batch=batch, rate=rate, rng=rng)




def logit(p) -> np.ndarray:
    """The log-odds of `p`, kept in [logit(1e-4), logit(1 - 1e-4)] (a hand-written value of
    exactly 0 or 1 is an input, not a certainty)."""
    p = np.clip(np.asarray(p, np.float64), 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def model_value(model: dict, x, base=None) -> np.ndarray:
    """A model's predictions (see `Evaluator`) for rows of features `x` (and, for a model on the
    hand-written evaluation, its values `base`), its arrays given as numpy arrays or lists."""
    x = np.asarray(x, np.float64)
    if model["kind"] == "logistic":
        z = x @ np.asarray(model["weights"], np.float64) + model["bias"]
        if model.get("hand_written") is not None:
            z = z + model["hand_written"]["weight"] * logit(base)
        return sigmoid(z)
    h = np.tanh(x @ np.asarray(model["w1"], np.float64).T + np.asarray(model["b1"], np.float64))
    return sigmoid(h @ np.asarray(model["w2"], np.float64) + model["b2"])


class Evaluator:
    """A learned evaluator: ``predict(state, player)`` is the player's expected return from its
    own observation (:meth:`Game.observation_features`): ``sigmoid(w . features + bias)`` for a
    logistic model, plus ``a * logit(h)`` where it is fitted on the game's hand-written
    evaluation ``h`` (``model.hand_written``: its weight a and the soft rank's scale);
    ``sigmoid(w2 . tanh(w1 features + b1) + b2)`` for one with a hidden layer."""

    def __init__(self, data: dict):
        self.data = data
        self.game = data["game"]
        self.options = data["options"]
        self.size = data["features"]["size"]
        model = data["model"]
        self.model: dict[str, Any] = {k: (np.asarray(v, np.float64) if isinstance(v, list) else v)
                                      for k, v in model.items()}
        self._encoder: Any = None

    def predict_features(self, x, base=None) -> np.ndarray:
        """Predictions for rows of features (and the hand-written values `base`, for a model on
        them)."""
        return model_value(self.model, x, base)

    def predict(self, state, player: int) -> float:
        """`player`'s expected return in `state`, from what `player` sees there."""
        if state.game.name != self.game:
            raise EvaluatorError(f"this evaluator is for {self.game}, not {state.game.name}")
        if self._encoder is None:
            self._encoder = state.game.observation_features()
            if self._encoder.shape[0] != self.size:
                raise EvaluatorError(f"this evaluator reads {self.size} features; {state.game.name}'s "
                                 f"features here are {self._encoder.shape[0]}")
        hand = self.model.get("hand_written")
        base = None if hand is None else [hand_written(state, player, hand["scale"])]
        return float(self.predict_features(self._encoder.encode(state.observation(player))[None, :], base)[0])

    @classmethod
    def load(cls, path) -> "Evaluator":
        """An evaluator file (`metro-ai train`'s), checked: `EvaluatorError` naming the file, the
        line and the field."""
        return cls(read_evaluator(path))


def evaluator_data(game, model: dict, training: dict) -> dict:
    """The JSON-ready evaluator file of a fitted `model` (``{"kind": "logistic", "weights",
    "bias"}`` or ``{"kind": "mlp", "hidden", "w1", "b1", "w2", "b2"}``) for `game` (a loaded game)."""
    encoder = game.observation_features()

    def plain(v):
        return v.tolist() if isinstance(v, np.ndarray) else v
    return {"format": EVALUATOR_FORMAT, "version": EVALUATOR_VERSION, "game": game.name,
            "options": dict(game.options),
            "features": {"size": int(encoder.shape[0]), "sections": [[s, int(k)] for s, k in encoder.sections]},
            "model": {k: plain(v) for k, v in model.items()}, "training": training}


#: The log-losses of a held-out report that cross_validate keeps for each fold.
LOSSES = ("log_loss", "log_loss_hand_written", "log_loss_per_game", "log_loss_hand_written_per_game")


def report_of(p_model, p_base, y, y_train_mean: float, games, v=None) -> dict:
    """Held-out measures: the log-loss of the model, of the hand-written evaluation and of a
    constant (the training outcomes' mean), over positions and over games (`games`: each
    position's game; a few long games hold many positions), and both calibration tables. Given
    search values `v` (NaN where unknown), also the log-loss of the model and of the hand-written
    evaluation against them, over the positions that have one (``search``: how well each
    foresees a deeper search's value of the position)."""
    report = {"positions": int(len(y)), "log_loss": log_loss(p_model, y), "log_loss_hand_written": log_loss(p_base, y),
              "log_loss_constant": log_loss(np.full(len(y), y_train_mean), y),
              "log_loss_per_game": log_loss(p_model, y, games),
              "log_loss_hand_written_per_game": log_loss(p_base, y, games),
              "calibration": calibration(p_model, y), "calibration_hand_written": calibration(p_base, y)}
    known = np.zeros(len(y), bool) if v is None else np.isfinite(v)
    if known.any():
        report["search"] = {"positions": int(known.sum()), "log_loss": log_loss(np.asarray(p_model)[known], v[known]),
                            "log_loss_hand_written": log_loss(np.asarray(p_base)[known], v[known])}
    return report


def _check_fit(hidden, on_hand_written, target=0.0) -> None:
    if isinstance(hidden, bool) or not isinstance(hidden, int) or not 0 <= hidden <= MAX_HIDDEN:
        raise TrainError(f"hidden must be an int in [0, {MAX_HIDDEN}] (0: no hidden layer), got {hidden!r}")
    if hidden and on_hand_written:
        raise TrainError("a model with a hidden layer reads the features alone: ask for no hand-written input")
    if isinstance(target, bool) or not isinstance(target, (int, float)) or not 0 <= target <= 1:
        raise TrainError(f"target must be a number in [0, 1] (0: the results, 1: the search values), got {target!r}")


def targeted(part: dict, target: float) -> dict:
    """Positions `part` with ``y`` replaced by the fit's target ``(1 - target) * y + target * v``:
    all of them for `target` 0, else those with a search value (TrainError if none has one: the
    run had no labeller)."""
    if not target:
        return part
    known = np.isfinite(part["v"])
    if not known.any():
        raise TrainError("these positions have no search values: play the run with a labeller (--label SPEC) "
                         "to fit a target other than the results")
    out = {k: a[known] for k, a in part.items()}
    out["y"] = (1 - target) * out["y"] + target * out["v"]
    return out


def _fit(train: dict, game, *, hidden: int, on_hand_written: bool, l2: float, rate: float, epochs: int,
         seed: int) -> dict:
    """The model fitted to positions `train`, their ``y`` its target (see `train_evaluator`)."""
    if hidden:
        model = {"kind": "mlp", "hidden": hidden, **fit_mlp(train["x"], train["y"], hidden, l2=l2, epochs=epochs,
                                                             rate=rate, seed=seed)}
        model["b2"] = float(model["b2"])
        return model
    x = train["x"]
    if on_hand_written:
        x = np.hstack([x, logit(train["base"])[:, None].astype(np.float32)])
    weights, bias = fit_logistic(x, train["y"], l2=l2, epochs=epochs, rate=rate, seed=seed)
    return {"kind": "logistic", "weights": weights[:train["x"].shape[1]], "bias": bias,
            "hand_written": {"weight": float(weights[-1]), "scale": hand_written_scale(game)}
            if on_hand_written else None}


def _default_rate(hidden: int, rate: Optional[float]) -> float:
    return (0.003 if hidden else 0.001) if rate is None else rate


def train_evaluator(folder, *, hidden: int = 0, on_hand_written: bool = True, l2: float = 1e-2,
                    rate: Optional[float] = None, epochs: int = 10, seed: int = 0, target: float = 0.0,
                    command: Optional[str] = None) -> dict:
    """Fit an evaluator to the self-play positions in `folder` (the games every fifth held out):
    a logistic regression, on the game's hand-written evaluation too where `on_hand_written`
    (its log-odds one more input: the model learns a correction to it), or with `hidden` > 0 one
    hidden layer of that many units on the features alone; `rate` Adam's step (None: 0.001 for
    the logistic model, 0.003 with a hidden layer); `target` what it is fitted to (0: each
    seat's result; 1: the run's search values; between, that mix: `targeted`). Held out, it is
    measured against the results whatever its target. Returns its file's data (see
    `evaluator_data`), its ``training`` saying how it was made (the run's settings, the games and
    positions used, the fit's settings, `command`) and what it scores on the held-out games
    (`report_of`). The defaults are those measured best on the runs in docs/guide/train.md."""
    _check_fit(hidden, on_hand_written, target)
    from metro_ai.registry import load_game
    from metro_ai.version import __version__
    train, held, settings = load_positions(folder)
    if train is None or held is None:
        raise TrainError(f"{folder}: too few games to hold a fifth out (at least 5 are needed)")
    game = load_game(settings.game, **settings.options)
    rate = _default_rate(hidden, rate)
    fitted = targeted(train, target)
    model = _fit(fitted, game, hidden=hidden, on_hand_written=on_hand_written, l2=l2, rate=rate, epochs=epochs,
                 seed=seed)
    p_held = model_value(model, held["x"], held["base"])
    training = {
        "command": command, "metro_ai": __version__,
        "self_play": {"game": settings.game, "options": settings.options, "bot": settings.bot,
                      "seed": settings.seed, "every": settings.every,
                      **({} if settings.label is None else {"label": settings.label}),
                      "games": int(len(np.unique(train["game"])) + len(np.unique(held["game"])))},
        "fit": {"hidden": hidden, "on_hand_written": on_hand_written, "l2": l2, "rate": rate, "epochs": epochs,
                "seed": seed, **({"target": target} if target else {}), "positions": int(len(fitted["y"])),
                "log_loss": log_loss(model_value(model, fitted["x"], fitted["base"]), fitted["y"])},
        "held_out": report_of(p_held, held["base"], held["y"], float(train["y"].mean()), held["game"], held["v"]),
    }
    return evaluator_data(game, model, training)


def cross_validate(folder, folds: int = 5, *, hidden: int = 0, on_hand_written: bool = True, l2: float = 1e-2,
                   rate: Optional[float] = None, epochs: int = 10, seed: int = 0, target: float = 0.0,
                   progress=None) -> dict:
    """The fit of `train_evaluator` (same settings) measured on every part of the games in turn:
    fold f holds out the games g with g % `folds` == f and fits the rest (`train_evaluator`'s
    held-out games are fold 4 of 5). One held-out fifth of a few hundred games is a noisy
    measure (its games' mix decides much of it); the folds' mean and how many folds the model
    wins are steadier. Per fold: its games and the log-loss of the model and of the hand-written
    evaluation, over positions and over games. `progress(done, total)` before the first fold and
    after each."""
    _check_fit(hidden, on_hand_written, target)
    if isinstance(folds, bool) or not isinstance(folds, int) or folds < 2:
        raise TrainError(f"folds must be an int >= 2, got {folds!r}")
    from metro_ai.registry import load_game
    rate = _default_rate(hidden, rate)
    rows: list[dict] = []
    if progress is not None:
        progress(0, folds)
    for f in range(folds):
        train, held, settings = load_positions(folder, held_out=lambda g: g % folds == f)
        if train is None or held is None:
            raise TrainError(f"{folder}: too few games for {folds} folds (at least {folds} are needed)")
        model = _fit(targeted(train, target), load_game(settings.game, **settings.options), hidden=hidden,
                     on_hand_written=on_hand_written, l2=l2, rate=rate, epochs=epochs, seed=seed)
        report = report_of(model_value(model, held["x"], held["base"]), held["base"], held["y"],
                           float(train["y"].mean()), held["game"], held["v"])
        rows.append({"fold": f, "games": int(len(np.unique(held["game"]))),
                     **{k: report[k] for k in ("positions",) + LOSSES},
                     **({"search": report["search"]} if "search" in report else {})})
        if progress is not None:
            progress(f + 1, folds)
    return {"folds": folds, "rows": rows, "mean": {k: float(np.mean([r[k] for r in rows])) for k in LOSSES},
            "model_better_per_game": sum(r["log_loss_per_game"] < r["log_loss_hand_written_per_game"] for r in rows)}

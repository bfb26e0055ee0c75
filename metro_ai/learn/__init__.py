"""Learning from self-play (issue #44): positions of a bot's games against itself
(:mod:`.selfplay`) and evaluators fitted to them (:mod:`.model`), made by ``metro-ai train``."""
from metro_ai.bots.evaluator import EvaluatorError, check_evaluator

from .model import Evaluator, cross_validate, fit_logistic, fit_mlp, log_loss, train_evaluator
from .selfplay import SelfPlaySettings, TrainError, load_positions, self_play

__all__ = ["Evaluator", "EvaluatorError", "SelfPlaySettings", "TrainError", "check_evaluator", "cross_validate", "fit_logistic",
           "fit_mlp", "load_positions", "log_loss", "self_play", "train_evaluator"]

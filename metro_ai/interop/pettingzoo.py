"""PettingZoo bridge: every metro-ai game as a PettingZoo AEC environment.

Install the optional extra (``pip install "metro-ai[pettingzoo]"``), then::

    from metro_ai.interop.pettingzoo import env

    e = env("metro", players=3)                 # any registered game (default: the default game)
    e.reset(seed=42)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

What the environment shows (AEC: one agent acts at a time, the one the game says is to move,
which in Breakthrough is not always the active player):

* agents ``player_0`` .. ``player_{n-1}``, the game's seats;
* observation of an agent: ``{"observation": float32 vector, "action_mask": int8 vector}``: the
  vector is ``state.observation_tensor(seat)`` (the game's ``observation_features``, built from
  what that seat sees and nothing else, values in [0, 1]); the mask marks the legal actions of
  the agent to move (all zeros for the others);
* ``infos[agent]["observation"]``: the same view as the JSON-ready dict of
  ``state.observation(seat)``;
* actions: ``Discrete(game.num_distinct_actions)``, the game's action ids (``env.unwrapped.state``
  has ``action_to_string``); an illegal action raises ``IllegalActionError`` and changes nothing;
* rewards: zero until the end, then the game's rank-based returns (win 1, loss 0, ties shared),
  the same numbers as ``state.returns()``; games always end (Breakthrough's turn limit is part
  of its rules, R18), so episodes terminate and are never truncated;
* seeding: ``reset(seed=s)`` deals ``new_state(seed)`` from a generator seeded with ``s``; later
  ``reset()`` calls without a seed continue that generator, so a seeded sequence of episodes is
  reproducible; ``render_mode="ansi"`` returns ``state.render()`` (the full state, for
  debugging), ``"human"`` prints it.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as exc:            # pragma: no cover - exercised where the extra is missing
    raise ImportError('the PettingZoo bridge needs the extra: pip install "metro-ai[pettingzoo]"') from exc

from metro_ai.engine.core import GameState
from metro_ai.engine.errors import IllegalActionError
from metro_ai.registry import DEFAULT_GAME, load_game

__all__ = ["MetroAIEnv", "env", "raw_env"]


class MetroAIEnv(AECEnv):
    """One metro-ai game as a PettingZoo AEC environment (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "metro_ai_v0",
                                "is_parallelizable": False}
    RENDER_MODES = ("ansi", "human")

    def __init__(self, game: str = DEFAULT_GAME, render_mode: Optional[str] = None, **options: Any):
        super().__init__()
        if render_mode is not None and render_mode not in self.RENDER_MODES:
            raise ValueError(f"render_mode must be one of {list(self.RENDER_MODES)} or None, got {render_mode!r}")
        self.game = load_game(game, **options)
        self.render_mode = render_mode
        self.features = self.game.observation_features()
        self.metadata = dict(self.metadata, name=f"metro_ai_{self.game.name}_v0")
        n, a = self.game.players, self.game.num_distinct_actions
        self.possible_agents = [f"player_{p}" for p in range(n)]
        self._seat = {agent: p for p, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {
            agent: spaces.Dict({
                "observation": spaces.Box(0.0, 1.0, self.features.shape, np.float32),
                "action_mask": spaces.Box(0, 1, (a,), np.int8),
            }) for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(a) for agent in self.possible_agents}
        self._deals = np.random.default_rng()
        self.state: GameState = self.game.new_state(0)     # replaced by every reset()
        self.infos: dict[str, dict[str, Any]] = {}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        if seed is not None:
            self._deals = np.random.default_rng(seed)
        self.state = self.game.new_state(int(self._deals.integers(2**63)))
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self._after_move()

    def _after_move(self):
        s = self.state
        for agent in self.agents:
            self.infos[agent] = {"observation": s.observation(self._seat[agent])}
        if s.is_terminal():
            for agent, r in zip(self.possible_agents, s.returns()):
                self.rewards[agent] = float(r)
                self.terminations[agent] = True
        else:
            self.agent_selection = self.possible_agents[s.current_player]

    def observe(self, agent):
        seat = self._seat[agent]
        mask = np.zeros(self.game.num_distinct_actions, np.int8)
        if not self.state.is_terminal() and self.state.current_player == seat:
            mask[self.state.legal_actions()] = 1
        return {"observation": self.features.encode(self.state.observation(seat)), "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if isinstance(action, np.integer):
            action = int(action)
        if not isinstance(action, int) or isinstance(action, bool):
            raise IllegalActionError(f"an action is an int, got {type(action).__name__} {action!r}")
        self.state.apply(action)             # IllegalActionError, nothing changed, if illegal
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self._after_move()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            return None
        text = self.state.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def raw_env(game: str = DEFAULT_GAME, render_mode: Optional[str] = None, **options: Any) -> MetroAIEnv:
    """The environment without PettingZoo's checking wrappers."""
    return MetroAIEnv(game, render_mode=render_mode, **options)


def env(game: str = DEFAULT_GAME, render_mode: Optional[str] = None, **options: Any):
    """The environment with PettingZoo's usual wrappers for board games (an out-of-bounds action
    is an error; methods in the wrong order are caught)."""
    e = raw_env(game, render_mode=render_mode, **options)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)

"""Gymnasium single-agent environment: one learning seat, tracklayer bots in the other seats.

The learner observes what a PettingZoo agent observes (``{"observation", "action_mask"}``) and
acts with the same integer encoding. Opponents are bots from ``tracklayer.bots.make_bot`` that see
only their own ``game.view(seat)`` and the legal actions. ``action_masks()`` returns the mask as
booleans, the method sb3-contrib's ``MaskablePPO`` looks for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from tracklayer.bots import make_bot
from tracklayer.bots.base import bot_view
from tracklayer.core.errors import IllegalAction
from tracklayer.rl.aec import observation_space
from tracklayer.rl.core import EnvSpec, Episode

ILLEGAL = ("raise", "terminate")


class TracklayerGymEnv(gymnasium.Env):
    """One seat learns, the others are bots.

    ``seat``: the learner's seat, or ``"random"`` (drawn per episode). ``opponents``: a bot name for
    every other seat, or a list of names in seat order after the learner. ``illegal_action``:
    ``"raise"`` (default) or ``"terminate"`` (end the episode with ``illegal_reward``, for algorithms
    that do not mask). ``bot_log_tail``: how much of the move log bots see (None: all of it).
    Other options are those of the PettingZoo environment (``players``, ``reward``, ``max_steps``,
    ``history``, ``first_player``, game options such as ``variant``).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"]}

    def __init__(self, spec: EnvSpec, *, seat: int | str = 0, opponents: str | Sequence[str] = "random",
                 illegal_action: str = "raise", illegal_reward: float = -1.0, bot_log_tail: int | None = None,
                 render_mode: str | None = None, **options: Any) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        if illegal_action not in ILLEGAL:
            raise ValueError(f"illegal_action must be one of {', '.join(ILLEGAL)}")
        self.env_spec = spec
        self.render_mode = render_mode
        self.episode = Episode(spec, **options)
        self.codec = self.episode.codec
        n = self.episode.n_players
        if seat != "random" and not (isinstance(seat, int) and 0 <= seat < n):
            raise ValueError(f"seat must be 0..{n - 1} or 'random'")
        self.seat_option = seat
        self.opponent_names = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(self.opponent_names) != n - 1:
            raise ValueError(f"{n} players need {n - 1} opponents, got {len(self.opponent_names)}")
        for name in self.opponent_names:
            make_bot(name, 0)  # fail early on an unknown bot
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.bot_log_tail = bot_log_tail
        self.observation_space = observation_space(self.episode)
        self.action_space = spaces.Discrete(self.episode.n_actions)
        self.seat = 0 if seat == "random" else int(seat)
        self.bots: dict[int, Any] = {}
        self._abandoned = False

    @property
    def game(self) -> Any:
        """The engine game of the current episode (the full state: for analysis, never for the agent)."""
        return self.episode.game

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        game_seed = seed if seed is not None else int(rng.integers(2**63))
        self.episode.reset(game_seed)
        n = self.episode.n_players
        self.seat = int(rng.integers(n)) if self.seat_option == "random" else int(self.seat_option)
        others = [(self.seat + k) % n for k in range(1, n)]
        self.bots = {q: make_bot(name, int(rng.integers(2**63))) for q, name in zip(others, self.opponent_names,
                                                                                    strict=True)}
        self._abandoned = False
        self._play_bots()
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        ep = self.episode
        if ep.done or self._abandoned:
            raise IllegalAction("the episode is over: call reset()")
        index = int(action)
        if ep.legal_action(index) is None:
            if self.illegal_action == "raise":
                raise IllegalAction(ep.illegal_message(index))
            self._abandoned = True
            return self._obs(), self.illegal_reward, True, False, {"illegal_action": index}
        ep.play(index)
        self._play_bots()
        reward = ep.rewards()[self.seat] if ep.over else 0.0
        if self.render_mode == "human":
            self.render()
        return self._obs(), float(reward), ep.over, ep.truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (for sb3-contrib's MaskablePPO)."""
        if self._abandoned:
            return np.zeros(self.episode.n_actions, dtype=bool)
        return self.episode.action_mask(self.seat).astype(bool)

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode (use 'ansi' or 'human')")
            return None
        text = self.codec.describe(self.episode.observation(self.seat))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def action_text(self, index: int) -> str:
        """The move notation of ``index`` in the current position."""
        return str(self.codec.decode(self.episode.game, int(index)))

    # ------------------------------------------------------------------ internals
    def _play_bots(self) -> None:
        ep = self.episode
        game = ep.game
        while not ep.done and game.current_player != self.seat:
            q = game.current_player
            bot = self.bots[q]
            action = bot.choose(bot_view(bot, game, q, log_tail=self.bot_log_tail), game.legal_actions())
            ep.play_action(action)

    def _obs(self) -> dict[str, np.ndarray]:
        mask = self.episode.action_mask(self.seat)
        if self._abandoned:
            mask[:] = 0
        return {"observation": self.episode.observation(self.seat), "action_mask": mask}

    def _info(self) -> dict[str, Any]:
        return self.episode.final_info(self.seat) if self.episode.done else {}

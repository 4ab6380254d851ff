"""Gymnasium single-agent environment: one learning seat, opponents in the other seats.

The learner acts with the integer encoding of the PettingZoo environments. Two observation modes:

* ``observation="dict"`` (default): ``{"observation": float32[D], "action_mask": int8[N]}`` as in
  PettingZoo (``MultiInputPolicy`` would feed the mask in as features: use ``"flat"`` with SB3);
* ``observation="flat"``: the float32 vector alone, a ``Box`` that SB3's ``MlpPolicy`` accepts;
  the mask comes from ``action_masks()`` (what sb3-contrib's ``MaskablePPO`` calls) and
  ``info["action_mask"]``.

Defaults a researcher's tools expect: an illegal action ends the episode with ``illegal_reward``
(-1) and a warning (PettingZoo classic's convention; ``illegal_action="raise"`` raises instead), and
``action_space.sample()`` without a mask draws a legal move (:class:`~tracklayer.rl.spaces.LegalDiscrete`),
so ``gymnasium.utils.env_checker.check_env`` and SB3's ``check_env`` play real moves. The mask
of an observation nobody acts on (the episode is over) is all ones, as in pgx: gymnasium 1.x's
next-step autoreset asks the agent for an action on that observation and ignores it, and a masked
sampler given an all-zero mask fails. ``render_mode="rgb_array"`` draws the board.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from tracklayer.bots.random_bot import RandomBot
from tracklayer.core.errors import IllegalAction
from tracklayer.rl.aec import observation_space
from tracklayer.rl.core import EnvSpec, Episode
from tracklayer.rl.fastpath import random_moves, step_random
from tracklayer.rl.opponents import BotOpponent, Opponent, opponent
from tracklayer.rl.spaces import LegalDiscrete

if TYPE_CHECKING:
    from tracklayer import Game
    from tracklayer.rl.render import BoardRenderer

ILLEGAL = ("terminate", "raise")
OBSERVATIONS = ("dict", "flat")


class TracklayerGymEnv(gymnasium.Env):
    """One seat learns, the others are opponents (bots, callables, saved policies, a self-play pool).

    ``seat``: the learner's seat, or ``"random"`` (drawn per episode). ``opponents``: one opponent for
    every other seat, or a list in seat order after the learner; an opponent is a bot name, a callable
    ``(observation, mask) -> index``, a model with ``predict`` (or its ``.zip`` path) or a
    :class:`~tracklayer.rl.opponents.SelfPlayPool` (see ``tracklayer.rl.opponents``).
    ``illegal_action``: ``"terminate"`` (default: end the episode with ``illegal_reward``, warn) or
    ``"raise"``. ``observation``: ``"dict"`` or ``"flat"``. ``bot_log_tail``: how much of the move log
    bots see (None: all of it). Other options are those of the PettingZoo environment (``players``,
    ``reward``, ``max_steps``, ``truncation_reward``, ``history``, ``first_player``, game options).
    """

    # an instance attribute with a class default, as gymnasium's Env declares it
    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}  # noqa: RUF012

    # play `random` opponents in the compiled loop (`rl.fastpath.random_moves`); tests turn it off to compare
    compiled_opponents: ClassVar[bool] = True
    action_space: LegalDiscrete  # sample() draws a legal move (``_bind_action_space``)

    def __init__(self, spec: EnvSpec, *, seat: int | str = 0, opponents: object = "random",
                 illegal_action: str = "terminate", illegal_reward: float = -1.0, bot_log_tail: int | None = None,
                 observation: str = "dict", render_mode: str | None = None, **options: Any) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        if illegal_action not in ILLEGAL:
            raise ValueError(f"illegal_action must be one of {', '.join(ILLEGAL)}")
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {', '.join(OBSERVATIONS)}")
        self.env_spec = spec
        self.render_mode = render_mode
        self.episode = Episode(spec, **options)
        self.codec = self.episode.codec
        n = self.episode.n_players
        if seat != "random" and not (isinstance(seat, int) and 0 <= seat < n):
            raise ValueError(f"seat must be 0..{n - 1} or 'random'")
        self.seat_option = seat
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.bot_log_tail = bot_log_tail
        self.observation_mode = observation
        self.set_opponents(opponents)
        self.observation_space: spaces.Space = (
            observation_space(self.episode) if observation == "dict"
            else spaces.Box(0.0, 1.0, (self.episode.obs_size,), dtype=np.float32))
        self.action_space = LegalDiscrete(self.episode.n_actions)
        self._bind_action_space()
        self.seat = 0 if seat == "random" else int(seat)
        self.seats: dict[int, Opponent] = {}
        self._random_rngs: dict[int, random.Random] | None = None  # per seat, when every opponent is `random`: its RNG
        # the flat mask last shown, where the codec writes rows (Ticket to Ride): see step()
        self._shown: np.ndarray | None = (np.zeros(self.episode.n_actions, dtype=np.uint8)
                                          if observation == "flat" and hasattr(self.codec, "arrays") else None)
        self._abandoned = False
        self._renderer: BoardRenderer | None = None

    @property
    def game(self) -> Game:
        """The engine game of the current episode (the full state: for analysis, never for the agent)."""
        return self.episode.game

    def set_opponents(self, opponents: object) -> None:
        """Replace the opponents from the next episode on (``vec_env.env_method("set_opponents", x)``)."""
        n = self.episode.n_players
        specs = list(opponents) if isinstance(opponents, list | tuple) else [opponents] * (n - 1)
        if len(specs) != n - 1:
            raise ValueError(f"{n} players need {n - 1} opponents, got {len(specs)}")
        self.opponents = [opponent(s, log_tail=self.bot_log_tail) for s in specs]
        self.opponent_names = [o.name if isinstance(o, BotOpponent) else repr(o) for o in self.opponents]

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        game_seed = seed if seed is not None else int(rng.integers(2**63))
        self.episode.reset(game_seed)
        n = self.episode.n_players
        self.seat = int(rng.integers(n)) if self.seat_option == "random" else int(self.seat_option)
        others = [(self.seat + k) % n for k in range(1, n)]
        self.seats = dict(zip(others, self.opponents, strict=True))
        for q in others:
            self.seats[q].reset(int(rng.integers(2**63)))
        # opponents that are all `random` bots: their moves are played by the compiled loop (same draws)
        bots = {q: getattr(o, "bot", None) for q, o in self.seats.items()}
        randoms = {q: bot for q, bot in bots.items() if type(bot) is RandomBot}
        self._random_rngs = ({q: bot.rng for q, bot in randoms.items()}
                             if self.compiled_opponents and len(randoms) == len(bots) else None)
        self._abandoned = False
        self._play_opponents()
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._shown is not None and self.render_mode != "human":  # a flat Ticket to Ride env, not rendering
            ep = self.episode
            obs = np.empty(ep.obs_size, dtype=np.float32)
            mask = np.empty(ep.n_actions, dtype=np.uint8)
            # the step in compiled code where it applies (rl.fastpath.step_random): True, the episode goes on
            # and obs and mask are written; False, it ended; None, nothing was done: the general path
            moved = step_random(self, int(action), obs, mask)
            if moved is True:
                return obs, 0.0, False, False, {"action_mask": mask.view(bool)}
            if moved is False:
                return self._finish_step(*self.outcome())
        return self._finish_step(*self.advance(action))

    def _finish_step(self, reward: float, terminated: bool, truncated: bool,
                     info: dict[str, Any]) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self.observation_mode == "flat":
            info["action_mask"] = self._remember(self.action_masks())
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, terminated, truncated, info

    def _remember(self, mask: np.ndarray) -> np.ndarray:
        """Keep a copy of the flat mask shown to the agent (or written into a batch row): the compiled step
        checks the index on it."""
        if self._shown is not None:
            self._shown[:] = mask
        return mask

    def advance(self, action: Any) -> tuple[float, bool, bool, dict[str, Any]]:
        """:meth:`step` without building the observation: (reward, terminated, truncated, info).
        The batched API (``tracklayer.rl.BatchEnv``) writes observations into its own arrays."""
        ep = self.episode
        if ep.done or self._abandoned:
            raise IllegalAction("the episode is over: call reset()")
        index = int(action)
        try:
            ep.play(index)  # checks the index on the position's mask: the game is unchanged when illegal
        except IllegalAction:
            if self.illegal_action == "raise":
                raise
            gymnasium.logger.warn(f"illegal action {index}: the episode ends with reward {self.illegal_reward} "
                                  "(illegal_action='terminate'; mask the actions, see action_masks())")
            self._abandoned = True
            return self.illegal_reward, True, False, {"illegal_action": index}
        self._play_opponents()
        return self.outcome()

    def outcome(self) -> tuple[float, bool, bool, dict[str, Any]]:
        """``(reward, terminated, truncated, info)`` of the learner once its opponents have replied."""
        ep = self.episode
        if not ep.done:
            return 0.0, False, False, {}
        return float(ep.rewards()[self.seat]), ep.over, ep.truncated, ep.final_info(self.seat)

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (sb3-contrib's MaskablePPO calls it); all True
        once the episode is over (any action is then ignored by an autoreset, see the module docstring)."""
        if self._abandoned or self.episode.done:
            return np.ones(self.episode.n_actions, dtype=bool)
        return self.episode.action_mask(self.seat).astype(bool)

    def seat_observation(self, seat: int) -> tuple[Any, np.ndarray]:
        """(observation in this environment's mode, boolean mask) of ``seat``: what policy opponents get."""
        obs, mask = self.episode.observe(seat)
        if self.observation_mode == "flat":
            return obs, mask.view(bool)
        return {"observation": obs, "action_mask": mask}, mask.view(bool)

    def render(self) -> Any:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode (use 'ansi', 'human' or 'rgb_array')")
            return None
        if self.render_mode == "rgb_array":
            from tracklayer.rl.render import BoardRenderer, caption

            if self._renderer is None:
                self._renderer = BoardRenderer(self.episode.game)
            return self._renderer.frame(self.episode.game, caption(self.episode.game, self.episode.steps))
        text = self.codec.describe(self.episode.observation(self.seat))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def action_text(self, index: int) -> str:
        """The move notation of ``index`` in the current position."""
        return str(self.codec.decode(self.episode.game, int(index)))

    def close(self) -> None:
        self._renderer = None

    def __getstate__(self) -> dict[str, Any]:
        """Pickles without the renderer (a matplotlib figure): it is drawn again on first use."""
        state = self.__dict__.copy()
        state["_renderer"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind_action_space()

    def _bind_action_space(self) -> None:
        """``action_space.sample()`` draws one of the learner's legal moves (see :class:`LegalDiscrete`)."""
        self.action_space.legal_mask = self.action_masks

    # ------------------------------------------------------------------ internals
    def _play_opponents(self) -> None:
        ep = self.episode
        game = ep.game
        if self._random_rngs is not None:
            if not ep.done:
                ep.steps += random_moves(game, self.seat, self._random_rngs, ep.max_steps - ep.steps)
            return
        while not ep.done and game.current_player != self.seat:
            q = game.current_player
            assert q is not None  # the episode goes on: somebody is to move
            move = self.seats[q].act(self, q)
            if isinstance(move, int | np.integer):
                ep.play(int(move))
            else:
                ep.play_action(move)

    def _obs(self) -> Any:
        ep = self.episode
        obs = ep.observation(self.seat)
        if self.observation_mode == "flat":
            return obs
        if self._abandoned or ep.done:
            return {"observation": obs, "action_mask": np.ones(ep.n_actions, dtype=np.int8)}
        return {"observation": obs, "action_mask": ep.action_mask(self.seat)}

    def _info(self) -> dict[str, Any]:
        ep = self.episode
        info = ep.final_info(self.seat) if ep.done else {}
        if self.observation_mode == "flat":
            info["action_mask"] = self._remember(self.action_masks())
        return info

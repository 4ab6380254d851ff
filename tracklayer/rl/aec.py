"""PettingZoo AEC environment over any tracklayer game with a codec (see ``core.EnvSpec``).

Agents are ``player_0`` .. ``player_{n-1}`` = engine seats. Each agent observes
``{"observation": float32[obs_size], "action_mask": int8[n_actions]}`` built from its own
``game.view(seat)``; the mask is all zeros when it is not that agent's turn. With
``observation="flat"`` the observation is the float32 vector alone (a ``Box``, which SuperSuit's
wrappers and SB3's ``MlpPolicy`` take) and the mask is ``infos[agent]["action_mask"]`` (and
``env.action_mask(agent)``). Actions are integers of
``Discrete(n_actions)``. An action outside the mask follows PettingZoo classic's convention by default
(``illegal_action="terminate"``): a warning, the offending agent gets ``illegal_reward`` (-1), the
others 0, and the game ends for everyone (``info["illegal_action"]``); ``illegal_action="raise"`` raises
``tracklayer.IllegalAction`` instead and leaves the game unchanged. ``action_space(agent).sample()``
without a mask draws one of the agent's legal moves (:class:`~tracklayer.rl.spaces.LegalDiscrete`).

``max_cycles=c`` (PettingZoo's cycle: every agent acts once) gives each agent a budget of ``c`` moves:
a turn may be several moves of one agent (a second card draw, a ticket choice, a Trans rail budget),
so agents spend their budgets at different rates; an agent whose budget is spent is not asked again,
a stand-in plays its moves (uniformly random legal moves, seeded from the game's seed), and the
episode is truncated for everyone once every agent has spent its budget (or ends with the game).
So every agent is asked exactly ``c`` times unless the game ends first. ``max_steps`` cuts the
episode after that many moves in all (stand-in moves included).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from tracklayer.core.errors import IllegalAction
from tracklayer.rl.core import EnvSpec, Episode
from tracklayer.rl.spaces import LegalDiscrete

if TYPE_CHECKING:
    from tracklayer import Game
    from tracklayer.rl.render import BoardRenderer


def observation_space(episode: Episode) -> spaces.Dict:
    """``{"observation": Box[0, 1] float32, "action_mask": Box{0, 1} int8}`` of an episode's codec."""
    return spaces.Dict({
        "observation": spaces.Box(0.0, 1.0, (episode.obs_size,), dtype=np.float32),
        "action_mask": spaces.Box(0, 1, (episode.n_actions,), dtype=np.int8),
    })


class TracklayerAECEnv(AECEnv):
    """A tracklayer game as a PettingZoo AEC environment (use :func:`make_aec` or a ``*_v1`` module)."""

    # is_parallelizable: PettingZoo's turn-based conversion (turn_based_aec_to_parallel) applies. An
    # instance attribute with a class default, as PettingZoo's AECEnv has it: each environment names its game.
    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"], "name": "tracklayer",  # noqa: RUF012
                                "is_parallelizable": True, "render_fps": 4}

    def __init__(self, spec: EnvSpec, *, render_mode: str | None = None, illegal_action: str = "terminate",
                 illegal_reward: float = -1.0, max_cycles: int | None = None, observation: str = "dict",
                 **options: Any) -> None:
        super().__init__()
        if observation not in ("dict", "flat"):
            raise ValueError(f"observation must be 'dict' or 'flat', not {observation!r}")
        self.observation_mode = observation
        if max_cycles is not None and not (isinstance(max_cycles, int) and max_cycles > 0):
            raise ValueError(f"max_cycles must be a positive number of moves per agent, not {max_cycles!r}")
        self.max_cycles = max_cycles
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        if illegal_action not in ("terminate", "raise"):
            raise ValueError("illegal_action must be 'terminate' or 'raise'")
        self.metadata = {**type(self).metadata, "name": spec.name}
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self._renderer: BoardRenderer | None = None
        self.episode = Episode(spec, **options)
        self.codec = self.episode.codec
        n = self.episode.n_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        # one space object per agent, returned as is every time (PettingZoo requires it)
        self.observation_spaces = {a: observation_space(self.episode) if observation == "dict"
                                   else spaces.Box(0.0, 1.0, (self.episode.obs_size,), dtype=np.float32)
                                   for a in self.possible_agents}
        self.action_spaces = {a: LegalDiscrete(self.episode.n_actions) for a in self.possible_agents}
        self._bind_action_spaces()
        self.agents: list[str] = []
        self._asked: dict[str, int] = {}  # moves each agent was asked for (the max_cycles budget)
        self._stand_in = np.random.default_rng(0)

    def _bind_action_spaces(self) -> None:
        """Each agent's space samples that agent's legal moves (see :class:`LegalDiscrete`)."""
        for agent, space in self.action_spaces.items():
            space.legal_mask = partial(self.episode.action_mask, self._seat[agent])

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ API
    @property
    def game(self) -> Game:
        """The engine game of the current episode (the full state: for analysis, never for agents)."""
        return self.episode.game

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.episode.reset(seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._asked = {a: 0 for a in self.agents}
        self._stand_in = np.random.default_rng([self.episode.game_seed, 1])  # its own stream: seeds stay as without
        current = self.episode.current
        assert current is not None, "a new episode's game is not over"
        self.agent_selection = self.possible_agents[current]
        self._masks_to_infos()

    def observe(self, agent: str) -> Any:
        if self.observation_mode == "flat":
            return self.episode.observation(self._seat[agent])
        obs, mask = self.episode.observe(self._seat[agent])
        return {"observation": obs, "action_mask": mask}

    def action_mask(self, agent: str) -> np.ndarray:
        """int8 mask of ``agent``'s legal actions (zeros when it is not to move or the episode is over)."""
        return self.episode.action_mask(self._seat[agent])

    def _masks_to_infos(self) -> None:
        """With ``observation="flat"`` the masks travel in the infos (``infos[agent]["action_mask"]``), for
        every live agent after every step, as wrappers that need a ``Box`` observation (SuperSuit) expect."""
        if self.observation_mode == "flat":
            for a in self.agents:
                self.infos[a]["action_mask"] = self.episode.action_mask(self._seat[a])

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        ep = self.episode
        if action is None:
            raise ValueError(f"{agent} is to move: pass an action index, not None")
        try:
            ep.play(action)  # checks the index on the position's mask: the game is unchanged when illegal
        except IllegalAction:
            if self.illegal_action == "raise":
                raise
            self._illegal(agent, int(action))
            return
        self._cumulative_rewards[agent] = 0.0
        if self.max_cycles is not None:
            self._asked[agent] += 1
            self._play_spent_seats(self.max_cycles)
        if not ep.done:  # rewards come only at the end: they are all zero here, nothing to clear or add up
            self.agent_selection = self.possible_agents[ep.game.state.current]
        else:
            self._clear_rewards()
            if ep.over:
                for a, r in zip(self.agents, ep.rewards(), strict=True):
                    self.rewards[a] = r
                    self.terminations[a] = True
                    self.infos[a] = ep.final_info(self._seat[a])
            else:
                for a, r in zip(self.agents, ep.rewards(), strict=True):
                    self.rewards[a] = r  # zero unless truncation_reward="standings"
                    self.truncations[a] = True
                    self.infos[a] = ep.final_info(self._seat[a])
            self._accumulate_rewards()
        self._masks_to_infos()
        if self.render_mode == "human":
            self.render()

    def _play_spent_seats(self, budget: int) -> None:
        """The ``max_cycles`` budget: while the agent to move has spent its budget and another has not,
        the stand-in plays; once every agent has spent it, the episode is cut."""
        ep = self.episode
        asked = self._asked
        if all(n >= budget for n in asked.values()):
            if not ep.done:
                ep.truncate()
            return
        while not ep.done and asked[self.possible_agents[ep.game.state.current]] >= budget:
            indices, _actions = ep.legal()
            ep.play(indices[int(self._stand_in.integers(len(indices)))])

    def _illegal(self, agent: str, index: int) -> None:
        """PettingZoo classic's illegal-move rule: warn, the offender gets ``illegal_reward``, all terminate."""
        gymnasium.logger.warn(f"{agent} played illegal action {index}: the game ends, {agent} gets "
                              f"{self.illegal_reward} (illegal_action='terminate'; sample from the action mask)")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.rewards[agent] = self.illegal_reward
        for a in self.agents:
            self.terminations[a] = True
            self.infos[a] = {"illegal_action": index, "illegal_agent": agent}
        self.episode.abandon()
        self._accumulate_rewards()
        self._masks_to_infos()
    def observation_text(self, agent: str) -> str:
        """The agent's observation as text (exactly the information of its vector)."""
        return self.codec.describe(self.episode.observation(self._seat[agent]))

    def action_text(self, index: int) -> str:
        """The move notation of ``index`` in the current position (``str`` of the engine action)."""
        return str(self.codec.decode(self.episode.game, int(index)))

    def render(self) -> Any:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode (use 'ansi', 'human' or 'rgb_array')")
            return None
        if self.render_mode == "rgb_array":
            from tracklayer.rl.render import BoardRenderer, caption

            if self._renderer is None:
                self._renderer = BoardRenderer(self.episode.game)
            return self._renderer.frame(self.episode.game, caption(self.episode.game, self.episode.steps))
        text = f"[{self.agent_selection}]\n" + self.observation_text(self.agent_selection)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self._renderer = None

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_renderer"] = None  # a matplotlib figure: drawn again on first use
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind_action_spaces()


class AssertOutOfBoundsWrapper(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's bounds check, with the per-step calls passed straight to the environment.

    The base wrappers reach every attribute (``agent_selection``, ``terminations``, ...) through
    ``__getattr__``; ``last()`` and the iteration read five of them a step, which cost more than the whole
    environment step. Same checks, same errors: an action outside ``Discrete(n)`` fails the assertion."""

    def __init__(self, env: TracklayerAECEnv) -> None:
        super().__init__(env)
        self._raw = env
        self._n = env.episode.n_actions

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return self._raw.last(observe)

    def step(self, action: Any) -> None:
        raw = self._raw
        if type(action) is int:  # the common case, checked as Discrete.contains does
            ok = 0 <= action < self._n
        else:
            agent = raw.agent_selection
            ok = (action is None and (raw.terminations[agent] or raw.truncations[agent])) or bool(
                raw.action_space(agent).contains(action))
        assert ok, "action is not in action space"
        raw.step(action)

    @property
    def agents(self) -> list[str]:
        return self._raw.agents

    @property
    def agent_selection(self) -> str:
        return self._raw.agent_selection


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's call-order checks, with ``last()`` and the attributes the agent loop reads each step
    passed straight to the environment (see :class:`AssertOutOfBoundsWrapper`); the same errors before
    ``reset()``."""

    def __init__(self, env: AssertOutOfBoundsWrapper) -> None:
        super().__init__(env)
        self._raw = env._raw

    def _check_reset(self, name: str) -> None:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self._check_reset("agent_selection")
        return self._raw.last(observe)

    @property
    def agents(self) -> list[str]:
        self._check_reset("agents")
        return self._raw.agents

    @property
    def agent_selection(self) -> str:
        self._check_reset("agent_selection")
        return self._raw.agent_selection


def make_aec(spec: EnvSpec, *, wrapped: bool = True, **options: Any) -> AECEnv:
    """The environment, wrapped in PettingZoo's bounds and call-order checks unless ``wrapped=False``."""
    env = TracklayerAECEnv(spec, **options)
    if not wrapped:
        return env
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(env))

"""What the PettingZoo and Gymnasium environments share: environment specs and the episode driver.

An :class:`EnvSpec` names a game and how to build its codec (action encoding + observation tensor;
one module per game family, e.g. ``ttr_codec``). An :class:`Episode` is one engine game driven by
integer actions: it seeds and starts games, caches the mask of the position,
builds observations from what the seat may see only (``codec.observe_game``: the seat's view),
applies indices, and turns ``game.result()`` into
rewards. Adding a game family means writing its codec and one ``EnvSpec``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import tracklayer
from tracklayer.core.action import Action
from tracklayer.core.errors import IllegalAction

REWARDS = ("margin", "win", "score")
TRUNCATION_REWARDS = ("zero", "standings")


@dataclass(frozen=True)
class EnvSpec:
    """One environment family member: which game, its defaults, and its codec factory."""

    name: str  # environment name, e.g. "ttr_europe_v2"
    game: str  # tracklayer game name, e.g. "ttr-europe"
    title: str
    default_players: int
    max_steps: int  # default truncation: agent steps (moves) per episode
    codec: Callable[[Any, int], Any]  # (game, history) -> codec: the family's game and codec
    game_options: tuple[str, ...] = ()  # keyword options passed through to tracklayer.new_game
    gym_id: str = ""  # gymnasium id, e.g. "tracklayer/TTREurope-v2"
    # reward of a truncated episode: "zero", or "standings" (the rewards of the scores so far, for games
    # whose score accrues during play such as Trans prestige)
    truncation_reward: str = "zero"
    extra: dict[str, Any] = field(default_factory=dict)


class Episode:
    """One game at a time, stepped by action indices; everything the agents see goes through views.

    ``reward``: ``"margin"`` (own final points minus the best opponent's), ``"win"`` (+1 sole winner,
    0 shared win, -1 otherwise) or ``"score"`` (own final points). Rewards come only at the end.
    A game cut at ``max_steps`` moves is truncated; ``truncation_reward`` says what it pays: ``"zero"``,
    or ``"standings"`` (the same reward computed on the scores so far, ``game.result()`` of the
    unfinished game): Trans scores accrue round by round, so a learner that connects its cities
    faster than ``random`` gets a signal even when the game is cut (uniformly random Trans play never
    ends: rounds ended by an empty rail supply score nobody). An environment may also cut the
    episode itself (:meth:`truncate`: the AEC environment's ``max_cycles`` move budget per agent).
    """

    def __init__(self, spec: EnvSpec, *, players: int | None = None, reward: str = "margin",
                 max_steps: int | None = None, history: int = 0, first_player: int | str = 0,
                 truncation_reward: str | None = None, **game_options: Any) -> None:
        unknown = set(game_options) - set(spec.game_options)
        if unknown:
            raise TypeError(f"{spec.name}: unknown option(s) {', '.join(sorted(unknown))}; game options: "
                            f"{', '.join(spec.game_options) or 'none'}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        self.spec = spec
        self.n_players = players if players is not None else spec.default_players
        self.reward_kind = reward
        self.max_steps = max_steps if max_steps is not None else spec.max_steps
        self.truncation_reward = truncation_reward if truncation_reward is not None else spec.truncation_reward
        if self.truncation_reward not in TRUNCATION_REWARDS:
            raise ValueError(f"truncation_reward must be one of {', '.join(TRUNCATION_REWARDS)}")
        if self.max_steps <= 0:
            raise ValueError("max_steps must be positive")
        if first_player != "random" and not (isinstance(first_player, int) and 0 <= first_player < self.n_players):
            raise ValueError(f"first_player must be a seat 0..{self.n_players - 1} or 'random'")
        self.first_player = first_player
        self.game_options = game_options
        self.game = self._start(0, 0)  # a template game: builds the codec and checks the options
        codec = spec.codec(self.game, history)
        # a codec that keeps state per observer (the Trans codec's templates) gets its own copy per episode:
        # codecs are shared per board, and episodes stepped in turn would otherwise thrash that state
        self.codec = codec.fork() if hasattr(codec, "fork") else codec
        self.view_options: dict[str, Any] = self.codec.view_options
        self.n_actions: int = self.codec.n_actions
        self.obs_size: int = self.codec.obs_size
        self.steps = 0
        self.abandoned = False
        self.cut = False  # truncated by the environment before max_steps (see truncate)
        self.game_seed = 0
        self.np_random: np.random.Generator | None = None
        self._cached_game: tracklayer.Game | None = None  # the position the legal actions and mask below belong to
        self._cached_moves = -1
        self._legal: tuple[list[int], list[Action]] | None = None
        self._mask_cache: bytes | bytearray | None = None
        codec = self.codec
        self._mask_bytes: Callable[[tracklayer.Game], bytes | bytearray] = (
            codec.mask_bytes if hasattr(codec, "mask_bytes") else lambda game: codec.mask(game).tobytes())
        self._result: dict[str, Any] | None = None
        self._result_moves = -1

    def _start(self, seed: int, first: int) -> tracklayer.Game:
        return tracklayer.new_game(self.spec.game, self.n_players, seed=seed, first_player=first,
                                   **self.game_options)

    # ------------------------------------------------------------------ episodes
    def reset(self, seed: int | None = None) -> None:
        """A new game. With ``seed`` the game's engine seed is exactly ``seed`` (so
        ``tracklayer.new_game(..., seed=seed)`` replays it); later resets without a seed continue a
        seeded stream."""
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
            game_seed = int(seed)
        else:
            if self.np_random is None:
                self.np_random = np.random.default_rng()
            game_seed = int(self.np_random.integers(2**63))
        first = int(self.np_random.integers(self.n_players)) if self.first_player == "random" else self.first_player
        self.game = self._start(game_seed, int(first))
        self.game_seed = game_seed
        self.steps = 0
        self.abandoned = False
        self.cut = False
        self._result = None

    def abandon(self) -> None:
        """End the episode now (an illegal action under ``illegal_action="terminate"``): done, not over,
        not truncated, no rewards from the game."""
        self.abandoned = True

    def truncate(self) -> None:
        """Cut the episode now, as if ``max_steps`` had been reached (it pays ``truncation_reward``)."""
        self.cut = True

    @property
    def over(self) -> bool:
        return bool(self.game.is_over)

    @property
    def truncated(self) -> bool:
        return not self.game.is_over and (self.steps >= self.max_steps or self.cut) and not self.abandoned

    @property
    def done(self) -> bool:
        return self.game.is_over or self.steps >= self.max_steps or self.cut or self.abandoned

    @property
    def current(self) -> int | None:
        """Seat to move (None when the game is over)."""
        return self.game.current_player

    # ------------------------------------------------------------------ what agents see
    def _position(self) -> None:
        """Drop the per-position legal actions and mask when the game moved on (or was replaced)."""
        game = self.game
        moves = len(game.moves)
        if self._cached_game is not game or self._cached_moves != moves:
            self._cached_game = game
            self._cached_moves = moves
            self._legal = None
            self._mask_cache = None

    def observation(self, seat: int) -> np.ndarray:
        """The observation of ``seat`` (a new array on every call).

        The codec builds it from the seat's view only: ``codec.observe_game(game, seat)`` equals
        ``codec.observe(game.view(seat, **view_options))`` (tests/rl check both, and that hidden
        information never changes either). Not cached: an environment step asks once per seat, and the
        Ticket to Ride codec keeps what rarely changes (routes, tickets, offer) per observer itself."""
        return self.codec.observe_game(self.game, seat)

    def observation_into(self, seat: int, out: np.ndarray) -> None:
        """Write :meth:`observation` into ``out`` (a float32 row of a batch): in place where the codec
        can (``observe_into``), else copied."""
        into = getattr(self.codec, "observe_into", None)
        if into is not None:
            into(self.game, seat, out)
        else:
            out[:] = self.codec.observe_game(self.game, seat)

    def observe(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """(:meth:`observation`, :meth:`action_mask`) of ``seat``."""
        self._position()
        return self.observation(seat), self._action_mask(seat)

    def legal(self) -> tuple[list[int], list[Action]]:
        """Indices and engine actions of the legal moves of the player to move (cached per position)."""
        self._position()
        legal = self._legal
        if legal is None:
            legal = self._legal = ([], []) if self.game.is_over else self.codec.legal(self.game)
        return legal

    def _position_mask(self) -> bytes | bytearray:
        """The mask of the player to move as one 0/1 byte per action (zeros when the game is over),
        cached per position; call :meth:`_position` first."""
        mask = self._mask_cache
        if mask is None:
            mask = self._mask_cache = bytes(self.n_actions) if self.game.is_over else self._mask_bytes(self.game)
        return mask

    def action_mask(self, seat: int) -> np.ndarray:
        """int8 0/1 mask over the action space: the legal moves if ``seat`` is to move, else zeros."""
        self._position()
        return self._action_mask(seat)

    def _action_mask(self, seat: int) -> np.ndarray:
        if seat == self.game.state.current and not self.done:
            return np.frombuffer(bytearray(self._position_mask()), dtype=np.int8)  # a copy per caller
        return np.zeros(self.n_actions, dtype=np.int8)

    def legal_action(self, index: int) -> Action | None:
        """The legal engine action of ``index`` for the player to move, or None."""
        self._position()
        if not 0 <= index < self.n_actions or not self._position_mask()[index]:
            return None
        return self.codec.decode(self.game, index)

    # ------------------------------------------------------------------ moves
    def play(self, index: int) -> Action:
        """Apply the legal move of ``index``; ``IllegalAction`` names it when it is not legal.

        Checked against the position's cached mask (the one the agent was shown), then decoded:
        the legal actions are not listed again."""
        index = int(index)
        if self.done:
            raise IllegalAction("the episode is over: reset it")
        game = self.game
        self._position()
        if not 0 <= index < self.n_actions or not self._position_mask()[index]:
            raise IllegalAction(self.illegal_message(index))
        recorded = game.apply(self.codec.decode(game, index))
        self.steps += 1
        return recorded

    def illegal_message(self, index: int) -> str:
        try:
            label = self.codec.action_label(index)
        except ValueError as exc:
            return str(exc)
        return f"action {index} ({label}) is not legal now; legal: {len(self.legal()[0])} actions (see the mask)"

    def play_action(self, action: Action) -> Action:
        if self.done:
            raise IllegalAction("the episode is over: reset it")
        recorded = self.game.apply(action)
        self.steps += 1
        return recorded

    # ------------------------------------------------------------------ results
    def result(self) -> dict[str, Any]:
        """``game.result()`` of the current position (computed once per position)."""
        moves = len(self.game.moves)
        if self._result is None or self._result_moves != moves:
            self._result = self.game.result()
            self._result_moves = moves
        return self._result

    def final_scores(self) -> list[float]:
        return self.codec.final_scores(self.game, self.result())

    def winners(self) -> list[int]:
        return self.codec.winners(self.game, self.result())

    def rewards(self) -> list[float]:
        """Reward per seat for the finished game; for a truncated one zeros, or the rewards of the
        standings (``truncation_reward="standings"``); zeros while it goes on."""
        n = self.n_players
        if not self.game.is_over and not (self.truncated and self.truncation_reward == "standings"):
            return [0.0] * n
        if self.reward_kind == "win":
            won = self.winners()
            return [(1.0 if len(won) == 1 else 0.0) if q in won else -1.0 for q in range(n)]
        scores = self.final_scores()
        if self.reward_kind == "score":
            return scores
        return [scores[q] - max(scores[j] for j in range(n) if j != q) for q in range(n)]

    def final_info(self, seat: int) -> dict[str, Any]:
        """What an agent is told when the episode ends: ``final_score``, ``winner``, ``scores`` (every
        seat's, in seat order) and ``result`` (the seat's own breakdown from ``game.result()``, see
        ``codec.result_breakdown``: route points, tickets completed and failed, longest path, stations;
        prestige and missing rails for Trans); a truncated episode says ``truncated_after`` (moves)
        and gives the same entries for the standings so far (``winner`` then means "leads")."""
        if not self.done or self.abandoned:
            return {}
        info: dict[str, Any] = {"truncated_after": self.steps} if self.truncated else {}
        scores = self.final_scores()
        info["final_score"] = scores[seat]
        info["winner"] = seat in self.winners()
        info["scores"] = scores
        info["result"] = result_breakdown(self.result(), seat)
        return info


def result_breakdown(result: dict[str, Any], seat: int) -> dict[str, Any]:
    """The numbers of ``seat``'s entry in ``game.result()`` (lists of routes, tickets and lines left out:
    they are in the full result), plus Trans's per-round ``prestige`` / ``missing_rails`` lists."""
    players = result["players"]
    entry = next((p for p in players if p.get("seat") == seat), None) or players[seat]
    out = {k: v for k, v in entry.items() if isinstance(v, bool | int | float) or k == "name"}
    for key in ("prestige_per_round", "missing_rails", "connected"):
        if key in entry:
            out[key] = list(entry[key])
    return out

"""The four games as OpenSpiel Python games (``pyspiel``, the ``open_spiel`` wheel).

Importing this module registers ``python_tracklayer_ttr_europe``, ``python_tracklayer_ttr_new_york``,
``python_tracklayer_trans_europa`` and ``python_tracklayer_trans_america``; load one with
``pyspiel.load_game("python_tracklayer_ttr_europe", {"players": 2})``. Parameters: ``players`` (default
2), ``seed`` (default 0: the n-th ``new_initial_state`` of a game object deals with seed ``"<seed>:<n>"``,
so a run is reproducible) and ``max_game_length`` (moves before the game is cut, see below).

Modelling choices, and why:

* **Chance is SAMPLED_STOCHASTIC.** The engine draws every card, ticket, city and special card from the
  seeded generator inside its state, as a side effect of a player's move (a blind draw, a tunnel's
  reveal, the reshuffles, a round's deal). Explicit chance nodes would need the engine's randomness cut
  into outcomes with probabilities at each of those points (the deck composition of every draw, every
  shuffle), a second rules engine. Sampled chance keeps the one engine and its exact rules: a state's
  future is fixed by its hidden generator, and :meth:`TracklayerState.resample_from_infostate` replaces
  that generator along with the rest of what the player cannot see, so searches (IS-MCTS) see fresh
  chance in every sampled world.
* **Imperfect information, zero-sum returns from the result.** Returns are ``n / k - 1`` for each of the
  ``k`` winners (after the game's tie-break) and ``-1`` for the others, 0 before the end: in two-player
  games +1 / -1 (0 / 0 for a shared win). Final scores are unbounded and general-sum; OpenSpiel's search
  and equilibrium algorithms expect bounded utilities, and winning is what the games reward. The final
  scores stay readable in ``state.result()``.
* **Games are cut at ``max_game_length`` moves** (default: the environment's ``max_steps``), scored on
  the standings at that point (``game.result()`` of the unfinished game). OpenSpiel needs a finite game
  length, and uniformly random Trans play never ends a game (rounds ended by an empty rail supply score
  nobody).
* **Actions are the RL codec's indices** (``tracklayer.rl.ttr_codec`` / ``trans_codec``, the
  ``Discrete(N)`` of the Gymnasium and PettingZoo environments): a ticket choice is a bitmask over
  offer positions, a claim carries its payment.
* **Observation tensor** = the environments' flat observation (the codec's ``observe_game`` of the
  player's view, no move history); **information-state tensor** = the same with the latest
  ``HISTORY`` public moves (a fixed-size tensor cannot hold the whole game). The **strings** are the
  player's JSON view: the observation string without the move log, the information-state string with
  the whole public log, so it is perfect recall (and exactly what the player knows).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel

import tracklayer
from tracklayer.rl.envs import SPECS
from tracklayer.trans import belief as trans_belief
from tracklayer.ttr import belief as ttr_belief

HISTORY = 8  # public moves in the information-state tensor


@dataclass(frozen=True)
class Entry:
    short_name: str
    long_name: str
    env: str  # the RL environment whose codec and limits the game uses


GAMES = (
    Entry("python_tracklayer_ttr_europe", "Ticket to Ride Europe (tracklayer)", "ttr_europe_v2"),
    Entry("python_tracklayer_ttr_new_york", "Ticket to Ride: New York (tracklayer)", "ttr_new_york_v1"),
    Entry("python_tracklayer_trans_europa", "Trans Europa (tracklayer)", "trans_europa_v1"),
    Entry("python_tracklayer_trans_america", "Trans America (tracklayer)", "trans_america_v1"),
)


def _game_type(entry: Entry, max_players: int) -> Any:
    return pyspiel.GameType(
        short_name=entry.short_name,
        long_name=entry.long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": 2, "seed": 0, "max_game_length": SPECS[entry.env].max_steps},
    )


class TracklayerGame(pyspiel.Game):
    """One of the four games with its player count; states wrap an engine game each."""

    ENTRY: Entry  # set on the registered subclass of each game

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        entry = self.ENTRY
        spec = SPECS[entry.env]
        params = {"players": 2, "seed": 0, "max_game_length": spec.max_steps, **(params or {})}
        n = int(params["players"])
        self.entry = entry
        self.spec = spec
        self.n = n
        self.base_seed = int(params["seed"])
        self.max_length = int(params["max_game_length"])
        self.dealt = 0
        probe = tracklayer.new_game(spec.game, n, seed=0)
        self.codec = spec.codec(probe, 0)
        self.history_codec = spec.codec(probe, HISTORY)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.n_actions,
            max_chance_outcomes=0,
            num_players=n,
            min_utility=-1.0,
            max_utility=float(n - 1),
            utility_sum=0.0,
            max_game_length=self.max_length,
        )
        board_players = probe.board.max_players
        super().__init__(_game_type(entry, board_players), info, params)

    def __deepcopy__(self, memo: dict[int, Any]) -> TracklayerGame:
        """OpenSpiel copies games (its random simulation test does); a game holds no state of its own
        but the deal counter, so a copy is a new game with the same parameters."""
        return type(self)(self.get_parameters())

    def new_initial_state(self) -> TracklayerState:
        seed = f"{self.base_seed}:{self.dealt}"
        self.dealt += 1
        return TracklayerState(self, tracklayer.new_game(self.spec.game, self.n, seed=seed))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        perfect = iig_obs_type is None or iig_obs_type.perfect_recall
        return Observer(self, perfect_recall=perfect)


class TracklayerState(pyspiel.State):
    """An engine game seen through OpenSpiel: codec indices in, views and tensors out."""

    def __init__(self, game: TracklayerGame, engine: Any) -> None:
        super().__init__(game)
        self._spiel_game = game
        self.engine = engine
        self.cut = False
        self.replaying: int | None = None  # the player of a past action being copied (see _with_engine)

    # ---------------------------------------------------------------- play
    def current_player(self) -> int:
        if self.replaying is not None:
            return self.replaying
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return int(self.engine.current_player)

    def _legal_actions(self, player: int) -> list[int]:
        if self.is_terminal() or player != self.engine.current_player:
            return []
        return sorted(self._spiel_game.codec.legal(self.engine)[0])

    def _apply_action(self, action: int) -> None:
        if self.replaying is not None:
            return
        self.engine.apply(self._spiel_game.codec.decode(self.engine, action))
        if not self.engine.is_over and len(self.engine.moves) >= self._spiel_game.max_length:
            self.cut = True

    def _action_to_string(self, player: int, action: int) -> str:
        return str(self._spiel_game.codec.action_label(action))

    def is_terminal(self) -> bool:
        return bool(self.engine.is_over or self.cut)

    def result(self) -> dict[str, Any]:
        """The engine's scoring breakdown (a preview on the standings before the end)."""
        result: dict[str, Any] = self.engine.result()
        return result

    def returns(self) -> list[float]:
        n = self._spiel_game.n
        if not self.is_terminal():
            return [0.0] * n
        winners = self._spiel_game.codec.winners(self.engine, self.engine.result())
        k = len(winners)
        return [n / k - 1.0 if p in winners else -1.0 for p in range(n)]

    # ---------------------------------------------------------------- copies and beliefs
    def _with_engine(self, engine: Any) -> TracklayerState:
        """A state on ``engine`` with this state's OpenSpiel history: the past actions go through
        ``apply_action`` (which keeps OpenSpiel's history and move number) without reaching the engine,
        which holds them already."""
        new = TracklayerState(self._spiel_game, engine)
        for step in self.full_history():
            new.replaying = int(step.player)
            new.apply_action(int(step.action))
        new.replaying = None
        new.cut = self.cut
        return new

    def clone(self) -> TracklayerState:
        return self._with_engine(self.engine.clone())

    def __deepcopy__(self, memo: dict[int, Any]) -> TracklayerState:
        return self.clone()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> TracklayerState:
        """A state the player cannot tell from this one, from the engine's belief sampler
        (:func:`tracklayer.ttr.belief.sample_state`, :func:`tracklayer.trans.belief.sample_state`): the
        same information-state string, everything hidden (and the engine's generator) dealt afresh.
        ``probability_sampler`` (OpenSpiel's uniform sampler on [0, 1)) seeds the draw."""
        seed = int(probability_sampler() * 2**53)
        sampler = ttr_belief if self.engine.family == "ttr" else trans_belief
        return self._with_engine(sampler.sample_state(self.engine, player_id, random.Random(seed)))

    # ---------------------------------------------------------------- text
    def view_json(self, player: int, *, log: bool) -> str:
        options: dict[str, Any] = {} if log else {"log_tail": 0}
        if self.engine.family == "trans":
            options["hints"] = False
        return json.dumps(self.engine.view(player, **options), sort_keys=True, separators=(",", ":"))

    def __str__(self) -> str:
        return f"{self._spiel_game.entry.short_name} move {len(self.engine.moves)}, phase {self.engine.phase}"


class Observer:
    """OpenSpiel's Python observer: the codec's flat tensor (see the module doc) and the JSON view."""

    def __init__(self, game: TracklayerGame, *, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.codec = game.history_codec if perfect_recall else game.codec
        self.tensor = np.zeros(self.codec.obs_size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: TracklayerState, player: int) -> None:
        self.tensor[:] = self.codec.observe_game(state.engine, player)

    def string_from(self, state: TracklayerState, player: int) -> str:
        return state.view_json(player, log=self.perfect_recall)


def _register() -> None:
    for entry in GAMES:
        if entry.env not in SPECS:
            continue

        # a class per game, as OpenSpiel's own Python games register theirs
        cls = type(entry.short_name, (TracklayerGame,), {"ENTRY": entry})
        pyspiel.register_game(_game_type(entry, 5 if entry.env.startswith("ttr") else 6), cls)


_register()

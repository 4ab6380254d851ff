"""The environments: one ``EnvSpec`` per game, and constructors by name.

To add a game family, write its codec (see ``ttr_codec.py``: ``n_actions``, ``obs_size``,
``slices``, ``legal``, ``encode``, ``decode``, ``action_label``, ``observe``, ``describe``,
``view_options``, ``final_scores``, ``winners``), add an ``EnvSpec`` here and a two-line module
``<name>.py`` beside this one.
"""

from __future__ import annotations

from typing import Any

import tracklayer
from tracklayer.rl.aec import make_aec
from tracklayer.rl.core import EnvSpec
from tracklayer.rl.gym_env import TracklayerGymEnv
from tracklayer.rl.trans_codec import trans_codec
from tracklayer.rl.ttr_codec import ttr_codec

TTR_OPTIONS = ("variant", "tiebreak", "extra_tickets")

SPECS: dict[str, EnvSpec] = {
    "ttr_europe_v2": EnvSpec(
        name="ttr_europe_v2", game="ttr-europe", title="Ticket to Ride Europe", default_players=2,
        max_steps=2000, codec=ttr_codec, game_options=TTR_OPTIONS, gym_id="tracklayer/TTREurope-v2"),
    "ttr_new_york_v1": EnvSpec(
        name="ttr_new_york_v1", game="ttr-new-york", title="Ticket to Ride: New York", default_players=2,
        max_steps=1000, codec=ttr_codec, game_options=("tiebreak",), gym_id="tracklayer/TTRNewYork-v1"),
    "trans_europa_v1": EnvSpec(
        name="trans_europa_v1", game="trans-europa", title="Trans Europa", default_players=2,
        max_steps=3000, codec=trans_codec, game_options=("special_cards",), gym_id="tracklayer/TransEuropa-v1",
        truncation_reward="standings"),
    "trans_america_v1": EnvSpec(
        name="trans_america_v1", game="trans-america", title="Trans America", default_players=2,
        max_steps=3000, codec=trans_codec, game_options=("special_cards",), gym_id="tracklayer/TransAmerica-v1",
        truncation_reward="standings"),
}


def env_names() -> list[str]:
    """Names of the environments whose engine is available in this tracklayer."""
    return [name for name, spec in SPECS.items() if spec.game in tracklayer.games()]


# environments replaced by a new version, and why (an old name gets this instead of "unknown")
RETIRED = {
    "ttr_europe_v1": "ttr_europe_v2: Mega Europe's starting deal became two offers (2 long tickets, keep one or "
                     "none; then 5 regular), which changed its keep actions and its offer slice",
}


def get_spec(name: str) -> EnvSpec:
    spec = SPECS.get(name)
    if spec is None:
        if name in RETIRED:
            raise KeyError(f"environment {name!r} was replaced by {RETIRED[name]}")
        raise KeyError(f"unknown environment {name!r}; environments: {', '.join(env_names())}")
    return spec


def make_env(name: str, **options: Any) -> Any:
    """PettingZoo AEC environment ``name`` (e.g. ``"ttr_europe_v2"``), with PettingZoo's checks."""
    return make_aec(get_spec(name), **options)


def make_raw_env(name: str, **options: Any) -> Any:
    """PettingZoo AEC environment ``name`` without wrappers (a little faster)."""
    return make_aec(get_spec(name), wrapped=False, **options)


def make_parallel(name: str, **options: Any) -> Any:
    """PettingZoo ParallelEnv of ``name`` through PettingZoo's documented conversion for turn-based games
    (``pettingzoo.utils.conversions.turn_based_aec_to_parallel``): every live agent sends an action each
    step, only the one to move is played; the others' are ignored, and their masks allow one index,
    ``parallel.WAIT`` (0), so that libraries that sample every agent's masked action can (``rl/parallel.py``).

    ``max_cycles`` counts parallel steps, PettingZoo's cycle of a parallel environment; one parallel step is
    one move here, so it is ``max_steps`` (moves per episode) of the AEC environment underneath."""
    from tracklayer.rl.parallel import TurnBasedParallel

    max_cycles = options.pop("max_cycles", None)
    if max_cycles is not None:
        if options.get("max_steps") is not None:
            raise TypeError("give max_cycles or max_steps, not both (in the parallel environment both count moves)")
        options["max_steps"] = max_cycles
    return TurnBasedParallel(make_env(name, **options))


def make_gym(name: str, **options: Any) -> TracklayerGymEnv:
    """Gymnasium single-agent environment ``name``: the learner plus bots (``opponents=``)."""
    return TracklayerGymEnv(get_spec(name), **options)


def gym_entry(env_name: str, **options: Any) -> TracklayerGymEnv:
    """Entry point of the gymnasium registrations (``gymnasium.make("tracklayer/TTREurope-v2")``)."""
    return make_gym(env_name, **options)


def register_gymnasium() -> None:
    """Register every environment with gymnasium (done on ``import tracklayer.rl``)."""
    import gymnasium

    for name, spec in SPECS.items():
        if spec.gym_id and spec.gym_id not in gymnasium.registry:
            gymnasium.register(id=spec.gym_id, entry_point="tracklayer.rl.envs:gym_entry",
                               kwargs={"env_name": name}, disable_env_checker=False)

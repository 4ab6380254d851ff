"""The multi-agent libraries a researcher plugs in, with no glue: TorchRL's ``PettingZooWrapper`` on
``parallel_env()`` and Tianshou's collector on the AEC environment (Tianshou's ``PettingZooEnv`` takes
AEC environments), whole episodes of random masked actions."""

from __future__ import annotations

import numpy as np
import pytest

from tracklayer.rl import make_parallel, trans_europa_v1, ttr_new_york_v1
from tracklayer.rl.parallel import WAIT


@pytest.mark.parametrize("observation", ["flat", "dict"])
def test_a_waiting_agents_mask_allows_only_wait(observation: str) -> None:
    """What TorchRL needs of a parallel environment: every live agent may act; the mover's mask is real."""
    env = make_parallel("ttr_new_york_v1", observation=observation, players=3)
    observations, infos = env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(40):
        mover = env.aec_env.agent_selection
        masks = {a: (infos[a]["action_mask"] if observation == "flat" else observations[a]["action_mask"])
                 for a in env.agents}
        for agent, mask in masks.items():
            if agent == mover:
                assert mask.sum() >= 1 and np.array_equal(mask, env.aec_env.unwrapped.action_mask(agent))
            else:
                assert np.flatnonzero(mask).tolist() == [WAIT]
        actions = {a: int(rng.choice(np.flatnonzero(m))) for a, m in masks.items()}
        observations, _rewards, _terms, _truncs, infos = env.step(actions)
        if not env.agents:
            break


@pytest.mark.parametrize(("module", "observation"), [(ttr_new_york_v1, "flat"), (ttr_new_york_v1, "dict"),
                                                     (trans_europa_v1, "flat")])
def test_torchrl_pettingzoo_wrapper_plays_whole_episodes(module: object, observation: str) -> None:
    pytest.importorskip("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    env = PettingZooWrapper(env=module.parallel_env(observation=observation),  # type: ignore[attr-defined]
                            use_mask=True, categorical_actions=True, seed=0)
    for _ in range(2 if module is ttr_new_york_v1 else 1):  # two: the wrapper resets a finished game
        rollout = env.rollout(3000, break_when_any_done=True)
        assert rollout["next", "done"][-1].all(), "the episode ends"
        assert len(rollout) > 20
    env.close()


def test_tianshou_collector_collects_episodes() -> None:
    pytest.importorskip("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def make() -> PettingZooEnv:
        return PettingZooEnv(ttr_new_york_v1.env())

    probe = make()
    policy = MultiAgentPolicy({agent: MARLRandomDiscreteMaskedOffPolicyAlgorithm(probe.action_space).policy
                               for agent in probe.agents})
    collector = Collector(policy, DummyVectorEnv([make, make]))
    stats = collector.collect(n_episode=4, reset_before_collect=True)
    assert stats.n_collected_episodes == 4 and stats.n_collected_steps > 4 * 20

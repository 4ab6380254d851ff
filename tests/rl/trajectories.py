"""Comparing two recorded trajectories step by step (tests/rl/test_batch.py, tests/rl/test_sb3_batch.py).

A step is a tuple of numpy arrays (compared by dtype and value), lists of per-row info dicts (compared
key by key, arrays by value) and anything else (compared with ``==``)."""

from __future__ import annotations

from typing import Any

import numpy as np


def assert_same(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]]) -> None:
    assert len(a) == len(b)
    for t, (x, y) in enumerate(zip(a, b, strict=True)):
        for u, v in zip(x, y, strict=True):
            if isinstance(u, np.ndarray):
                assert u.dtype == v.dtype and np.array_equal(u, v), f"step {t}"
            elif isinstance(u, list) and u and isinstance(u[0], dict):
                for p, q in zip(u, v, strict=True):
                    assert p.keys() == q.keys(), f"step {t}"
                    for key in p:
                        assert np.array_equal(p[key], q[key]) if isinstance(p[key], np.ndarray) else p[key] == q[key], \
                            f"step {t} {key}"
            else:
                assert u == v, f"step {t}"

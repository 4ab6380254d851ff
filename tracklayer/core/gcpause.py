"""Short garbage-collector pauses for long-running processes (the server, the lab's workers).

A full (generation-2) collection of CPython's cyclic collector walks every tracked object that is
not frozen: modules, functions, the maps, the rules' tables, the engine's memos, every game in
memory. In a server that had been up for a while this cost 45-105 ms per full collection, seen as
100+ ms spikes in move and scoring latencies. Two things keep it short:

- the engine's caches are bounded (see ``tracklayer/core/memo.py``), so the long-lived heap stops
  growing with the number of positions seen;
- :func:`freeze_heap` runs the process's warm-up (``tracklayer.bots.warmup``: imports, boards, rules,
  action tables, one short game per family so that lazily built tables and lazily imported modules
  exist), collects once, then moves everything alive into the permanent generation with
  :func:`gc.freeze`, which later
  collections never walk; and raises the thresholds so that collections run far less often (the
  engine frees almost everything by reference counting; cycles are rare). At CPython's default
  thresholds (700, 10, 10) the collector walked the young objects hundreds of times a second in the
  server, ~8-14% of its CPU under load.

``benchmarks/gc_pauses.py`` measures the effect.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable

log = logging.getLogger(__name__)

# Young collections after 1,000 net allocations of tracked objects (CPython: 700), the middle one after
# 10 of them, a full one only after 100 middle ones (CPython: 10; and CPython still skips it until the
# objects that survived since the last one reach 25% of the long-lived heap). Measured with
# benchmarks/gc_pauses.py (CPU time per collection, 5,000 games in one process): the server's former
# (20,000, 50, 100) made each young collection walk ~20,000 objects, 25-50 ms, as bad as the full
# collections it avoided; with (1,000, 10, 100) young collections take 0.2-3 ms, middle ones 2-9 ms,
# and the collector's total CPU stays within ~2% of the former setting.
GC_THRESHOLDS = (1_000, 10, 100)


def freeze_heap(warm: Callable[[], object] | None = None, *,
                thresholds: tuple[int, int, int] | None = GC_THRESHOLDS) -> int:
    """Run ``warm`` (what the process builds once: see ``tracklayer.bots.warmup``), collect, freeze;
    returns the objects frozen.

    Call it once a process has started and before it serves (server start-up, a lab worker's
    initialiser). Safe to call again: objects created since are frozen too. A failing ``warm`` is
    logged: warming up is an optimisation.
    """
    if warm is not None:
        try:
            warm()
        except Exception:
            log.warning("warm-up failed", exc_info=True)
    gc.collect()
    gc.freeze()
    if thresholds is not None:
        gc.set_threshold(*thresholds)
    return gc.get_freeze_count()

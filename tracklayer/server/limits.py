"""Per-address limits on creating games, so one client cannot fill the server with work for others.

Two limits, both per client address (the peer address, or the one a proxy listed in
``--forwarded-allow-ips`` forwards; by default no proxy is believed): games created per minute (a
sliding window of 60 s), and bot-only games (no human seat) running at the same time. Bot-only
games are what costs: nobody waits for their moves, and every one of them keeps a bot worker busy.
A refused creation is answered 429 with ``Retry-After``.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable

WINDOW = 60.0
BOT_GAME_RETRY = 30  # seconds a client is told to wait for one of its bot-only games to finish


class Refused(Exception):
    """Creation refused: ``retry_after`` whole seconds, and why in words."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


class CreationLimits:
    """Counts game creations per address. ``per_minute`` 0 or ``bot_games`` 0: that limit is off.

    ``running(game_id)`` tells whether a bot-only game still counts (loaded and not over): games the
    server no longer plays free their place without anybody having to tell this class.
    """

    def __init__(self, per_minute: float, bot_games: int, running: Callable[[str], bool],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self.bot_games = bot_games
        self.running = running
        self.clock = clock
        self._created: dict[str, deque[float]] = {}
        self._bot_only: dict[str, set[str]] = {}

    def check_rate(self, address: str) -> None:
        """Raise :class:`Refused` if ``address`` created its games of the minute already."""
        now = self.clock()
        if self.per_minute > 0:
            stamps = self._created.get(address)
            if stamps:
                while stamps and now - stamps[0] >= WINDOW:
                    stamps.popleft()
                if len(stamps) >= self.per_minute:
                    wait = math.ceil(WINDOW - (now - stamps[0]))
                    raise Refused(f"at most {self.per_minute:g} new games a minute from one address; "
                                  f"try again in {wait} s", max(wait, 1))

    def check_bot_games(self, address: str) -> None:
        """Raise :class:`Refused` if ``address`` has its bot-only games running already."""
        if self.bot_games > 0:
            mine = self._bot_only.get(address, set())
            mine -= {gid for gid in mine if not self.running(gid)}
            if len(mine) >= self.bot_games:
                raise Refused(f"at most {self.bot_games} games without a human seat at a time from one "
                              "address; wait for one to end", BOT_GAME_RETRY)

    def created(self, address: str, game_id: str, bot_only: bool) -> None:
        """Count a game ``address`` created (after the checks let it through)."""
        now = self.clock()
        if self.per_minute > 0:
            self._created.setdefault(address, deque()).append(now)
        if bot_only and self.bot_games > 0:
            self._bot_only.setdefault(address, set()).add(game_id)
        if len(self._created) > 10_000:  # forget addresses that created nothing in the last minute
            self._created = {a: d for a, d in self._created.items() if d and now - d[-1] < WINDOW}
        if len(self._bot_only) > 10_000:
            self._bot_only = {a: s for a, s in self._bot_only.items() if s}

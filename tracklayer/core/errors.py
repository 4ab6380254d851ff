"""Exceptions shared by every game family.

Every message names what is wrong (the entry, the player, the city) because these errors reach
people: a CLI user with a typo, a web client with a stale move, a map author with a broken file.
"""

from __future__ import annotations


class TracklayerError(Exception):
    """Base class of every error this package raises on purpose."""


class IllegalAction(TracklayerError):
    """A move that the rules do not allow in the current state; the game is left unchanged."""


class NotationError(IllegalAction):
    """Text that does not parse as a move of this game."""


class UnknownName(TracklayerError, KeyError):
    """A city, ticket or other name not found; ``suggestions`` holds close matches."""

    def __init__(self, kind: str, name: str, suggestions: list[str] | None = None) -> None:
        self.kind = kind
        self.name = name
        self.suggestions = suggestions or []
        hint = f"; did you mean {' or '.join(repr(s) for s in self.suggestions)}?" if self.suggestions else ""
        super().__init__(f"unknown {kind} {name!r}{hint}")

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0])


class MapError(TracklayerError):
    """A map data file that is malformed or inconsistent; the message names file, entry and problem."""


class GameDataError(TracklayerError):
    """A saved game (JSON) that cannot be loaded; the message says which part is wrong."""


class ScoreFileError(TracklayerError):
    """A score file (``tracklayer score``, ``POST /api/score``) that cannot be scored.

    ``where`` is the path of the entry at fault (``players[1].routes[3]``; empty for the file as a
    whole) and ``what`` the problem; ``str()`` is ``"where: what"``, the one line both the CLI and
    the server show.
    """

    def __init__(self, where: str, what: str) -> None:
        self.where = where
        self.what = what
        super().__init__(f"{where}: {what}" if where else what)

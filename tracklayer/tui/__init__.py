"""Terminal play: ``play_terminal`` runs a game between humans at this terminal and bots."""

from __future__ import annotations

from typing import Any


def play_terminal(*args: Any, **kwargs: Any) -> Any:
    """Lazy alias of :func:`tracklayer.tui.play.play_terminal` (keeps ``import tracklayer.tui`` light)."""
    from tracklayer.tui.play import play_terminal as run

    return run(*args, **kwargs)


__all__ = ["play_terminal"]

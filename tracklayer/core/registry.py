"""Game names -> constructors, so ``tracklayer.new_game`` serves every family through one door."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tracklayer.core.errors import GameDataError, TracklayerError

_NEW: dict[str, Callable[..., Any]] = {}
_LOAD: dict[str, Callable[[dict[str, Any]], Any]] = {}


def register(names: tuple[str, ...], new: Callable[..., Any], load: Callable[[dict[str, Any]], Any]) -> None:
    for name in names:
        _NEW[name] = new
        _LOAD[name] = load


def games() -> list[str]:
    return sorted(_NEW)


def new_game(game: str, players: Any, *, seed: int | str, **options: Any) -> Any:
    """Start a game: ``game`` is one of :func:`games`, ``players`` a count or a list of names."""
    factory = _NEW.get(game)
    if factory is None:
        raise TracklayerError(f"unknown game {game!r}; games: {', '.join(games())}")
    return factory(game, players, seed=seed, **options)


def load_game(data: dict[str, Any]) -> Any:
    """Rebuild a game from ``Game.to_json()`` output (replaying and checking its moves)."""
    if not isinstance(data, dict):
        raise GameDataError(f"a saved game is a JSON object, not {type(data).__name__}")
    loader = _LOAD.get(data.get("game", ""))
    if loader is None:
        raise GameDataError(f"saved game names unknown game {data.get('game')!r}; games: {', '.join(games())}")
    return loader(data)

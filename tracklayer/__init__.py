"""tracklayer: rules engines, bots and play for rail-building board games.

``new_game`` / ``load_game`` are the one door to every game family; see the README for a tour.
"""

from typing import TypeAlias

from tracklayer import native as _native

_native.install()  # before any engine module is imported: it picks the compiled or the interpreted build

from tracklayer.core.errors import (  # noqa: E402
    GameDataError,
    IllegalAction,
    MapError,
    NotationError,
    TracklayerError,
    UnknownName,
)
from tracklayer.core.registry import games, load_game, new_game  # noqa: E402
from tracklayer.core.registry import register as _register  # noqa: E402
from tracklayer.native import engine_info  # noqa: E402
from tracklayer.ttr.game import GAMES as _TTR_GAMES  # noqa: E402
from tracklayer.ttr.game import TTRGame, load_ttr_game, new_ttr_game  # noqa: E402

_register(_TTR_GAMES, new_ttr_game, load_ttr_game)

from tracklayer.trans.game import GAMES as _TRANS_GAMES  # noqa: E402
from tracklayer.trans.game import TransGame, load_trans_game, new_trans_game  # noqa: E402

_register(_TRANS_GAMES, new_trans_game, load_trans_game)

Game: TypeAlias = TTRGame | TransGame  # a game of any family: what new_game and load_game return

__all__ = [
    "Game",
    "GameDataError",
    "IllegalAction",
    "MapError",
    "NotationError",
    "TracklayerError",
    "UnknownName",
    "engine_info",
    "games",
    "load_game",
    "new_game",
]
__version__ = "0.1.0"

"""The ``learned`` bot: a policy network trained by ``examples/train_learned.py``, played with numpy alone.

The network reads what the seat's view holds, as the environments' flat observation
(:meth:`~tracklayer.rl.ttr_codec.TTRCodec.observe` of the view, so nothing a seat may not know), and
scores every action index; the bot plays the legal action with the highest score (ties: the lower index),
so it is deterministic and needs no seed. The weights ship with the package
(``tracklayer/bots/data/learned-<map>.npz``, float16) for the configurations a network was trained for:
2-player games on the maps listed by :func:`available`. Any other game is refused with an error that
says which ones it plays.

It lives here rather than in ``tracklayer.bots`` because it reads the environments' encoding; the bot
registry finds it by name (``tracklayer.bots.BOTS["learned"]`` imports this module when it is made).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tracklayer.core.errors import TracklayerError
from tracklayer.rl.ttr_codec import TTRCodec

if TYPE_CHECKING:
    from tracklayer.bots.base import Budget
    from tracklayer.core.action import Action

DATA = Path(__file__).resolve().parents[1] / "bots" / "data"


def save_weights(path: Path, weights: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
    """Write ``weights`` (``w0, b0, w1, b1, ...``: input-major matrices) as float16, with ``meta`` as JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, Any] = {k: np.asarray(v, dtype=np.float16) for k, v in weights.items()}
    arrays["meta"] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
    np.savez_compressed(path, **arrays)


class LearnedPolicy:
    """A multilayer perceptron (ReLU between layers) over the flat observation; float32 arithmetic."""

    def __init__(self, weights: dict[str, np.ndarray], meta: dict[str, Any] | None = None) -> None:
        n = len([k for k in weights if k.startswith("w")])
        self.layers = [(np.asarray(weights[f"w{i}"], dtype=np.float32), np.asarray(weights[f"b{i}"], dtype=np.float32))
                       for i in range(n)]
        self.meta = meta or {}

    @classmethod
    def load(cls, path: Path) -> LearnedPolicy:
        with np.load(path) as data:
            meta = json.loads(bytes(data["meta"]).decode())
            return cls({k: data[k] for k in data.files if k != "meta"}, meta)

    def weights(self) -> dict[str, np.ndarray]:
        """The layers as the ``w0, b0, w1, b1, ...`` arrays that the constructor and :func:`save_weights` take."""
        return {f"{kind}{i}": (w if kind == "w" else b) for i, (w, b) in enumerate(self.layers) for kind in ("w", "b")}

    def scores(self, obs: np.ndarray) -> np.ndarray:
        x = np.asarray(obs, dtype=np.float32)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i < last:
                np.maximum(x, 0.0, out=x)
        return x

    def best(self, obs: np.ndarray, legal: Sequence[int]) -> int:
        """The legal index with the highest score (the first of equals)."""
        idx = np.asarray(legal, dtype=np.int64)
        return int(idx[int(np.argmax(self.scores(obs)[idx]))])


def _key(game: str, variant: str) -> str:
    return game if variant in ("", "classic") or game != "ttr-europe" else f"{game}-{variant}"


@cache
def available() -> tuple[str, ...]:
    """The games (``map`` or ``map-variant``, 2 players) that have trained weights: read once, since the
    weights ship with the package and every seat check and every move of the bot asks."""
    return tuple(sorted(p.stem.removeprefix("learned-") for p in DATA.glob("learned-*.npz")))


@cache
def _model(key: str) -> LearnedPolicy:
    return LearnedPolicy.load(DATA / f"learned-{key}.npz")


@cache
def _codec(game: str, variant: str, n_players: int) -> TTRCodec:
    from tracklayer.ttr.board import load_board

    board = load_board(game)
    return TTRCodec(board, board.variants[variant], n_players)


def cannot_play(game: str, variant: str | None, players: int) -> str | None:
    """Why the learned bot cannot play this game (no network for it), or None."""
    key = _key(game, variant or "")
    if players == 2 and key in available():
        return None
    return (f"the learned bot plays 2-player {', '.join(available()) or 'nothing'} "
            f"(not {players}-player {key}): no network was trained for it")


class LearnedBot:
    """Plays the network's favourite legal move (see the module doc)."""

    name = "learned"

    def __init__(self, seed: int | str | None = None) -> None:
        self.seed = seed  # unused: the bot's choices depend only on the position

    def choose(self, view: dict[str, Any], legal: Sequence[Action], budget: Budget | None = None) -> Action:
        game, variant, n = view["game"], view.get("variant") or "", len(view["players"])
        refusal = cannot_play(game, variant, n)
        if refusal is not None:
            raise TracklayerError(refusal)
        if len(legal) == 1:
            return legal[0]
        codec = _codec(game, variant, n)
        indices = [codec.encode_view(view, a) for a in legal]
        choice = _model(_key(game, variant)).best(codec.observe(view), indices)
        return legal[indices.index(choice)]

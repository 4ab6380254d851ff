"""What every game object shares: move recording, legal-action caching, cloning, saving, replaying.

A game is ``(setup, seed, moves)``. Families supply the rules (``legal_actions(state)`` and
``apply(state, action) -> recorded action``), the state (``phase``, ``current``, ``clone()``,
``to_dict()``), notation parsing, views and results; this base turns them into the one public API
(``legal_actions``, ``apply``, ``view``, ``result``, ``to_json``) that servers, bots and RL use.

Taking moves back (``undoable``, ``undone``): the game is rebuilt from its setup and all moves but the
last few, so a taken-back move leaves no trace, the RNG included. Only a move that showed nobody
anything new may be taken back (docs/rules-decisions.md, "Undo"): each family says which moves reveal
(``_secret_mark`` / ``_reveals``), and a move that ends the game always does (the final scoring shows
every hand). Keeping that record costs every move a little, so a game keeps it only once asked
(``track_reveals``: the server does, search and learning do not).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, Protocol, Self, TypeVar

from tracklayer.core.action import Action
from tracklayer.core.errors import GameDataError, IllegalAction, TracklayerError

FORMAT = "tracklayer-game"
FORMAT_VERSION = 1
OVER = "over"


class GameState(Protocol):
    """What this base reads of a family's state."""

    phase: str
    current: int

    def clone(self) -> Self: ...

    def to_dict(self) -> dict[str, Any]: ...


_S = TypeVar("_S", bound=GameState)
_S_contra = TypeVar("_S_contra", bound=GameState, contravariant=True)


class GameRules(Protocol[_S_contra]):
    """What this base asks of a family's rules, on that family's state."""

    def legal_actions(self, s: _S_contra) -> Sequence[Action]: ...

    def apply(self, s: _S_contra, action: Action) -> Action: ...


class BaseGame(Generic[_S]):
    family = ""
    rules: GameRules[_S]
    state: _S
    players: list[str]
    seed: int | str
    options: dict[str, Any]

    def _init_log(self) -> None:
        self.moves: list[Action] = []
        self.move_log: list[tuple[int, Action, str]] = []
        # per move since ``track_reveals()``: did it show anybody something new (see ``_reveals``); None: not kept
        self.revealed: list[bool] | None = None
        self._legal: Sequence[Action] | None = None

    # ------------------------------------------------------------------ queries
    @property
    def game(self) -> str:
        raise NotImplementedError

    @property
    def n_players(self) -> int:
        return len(self.players)

    @property
    def phase(self) -> str:
        return self.state.phase

    @property
    def is_over(self) -> bool:
        return self.state.phase == OVER

    @property
    def current_player(self) -> int | None:
        return None if self.is_over else self.state.current

    def legal_actions(self) -> Sequence[Action]:
        """Every legal action of the player to move (cached until the next move)."""
        if self._legal is None:
            self._legal = self.rules.legal_actions(self.state)
        return self._legal

    # ------------------------------------------------------------------ moves
    def parse(self, text: str) -> Action:
        raise NotImplementedError

    def apply(self, action: Action | str) -> Action:
        """Play a move (an action or its notation); :class:`IllegalAction` leaves the game unchanged."""
        if isinstance(action, str):
            action = self.parse(action)
        elif not isinstance(action, Action):
            raise IllegalAction(f"not an action: {action!r}")
        mover = self.state.current
        revealed = self.revealed
        mark = None if revealed is None else self._secret_mark()
        recorded = self.rules.apply(self.state, action)
        self.moves.append(recorded)
        self.move_log.append((mover, recorded, self._public_note(recorded)))
        if revealed is not None:
            revealed.append(self.is_over or self._reveals(mark, recorded))
        self._legal = None
        return recorded

    def track_reveals(self) -> Self:
        """Keep, from now on, whether each move revealed anything (what ``undoable`` needs); the moves made
        before count as revealing, so none of them can be taken back."""
        if self.revealed is None:
            self.revealed = []
        return self

    def _secret_mark(self) -> Any:
        """What ``_reveals`` compares after a move (cheap: it is taken before every move); families override."""
        return None

    def _reveals(self, mark: Any, action: Action) -> bool:
        """Whether ``action``, just applied, showed anybody something they could not know before (a card
        from a face-down pile, a reshuffle); ``mark``: ``_secret_mark()`` from before it. A family that
        does not say counts every move as revealing, so nothing is ever taken back wrongly."""
        return True

    # ------------------------------------------------------------------ taking back
    def undoable(self, player: int) -> int:
        """How many of the last moves ``player`` may take back: the run of their own moves at the end of
        the game since the last move that revealed something or was made by somebody else (0: none)."""
        k = 0
        # zip stops at the first move made before track_reveals(): from there on nothing can be taken back
        for (mover, _, _), revealed in zip(reversed(self.move_log), reversed(self.revealed or []), strict=False):
            if mover != player or revealed:
                break
            k += 1
        return k

    def undone(self, k: int = 1) -> Self:
        """A new game: this one's setup and all its moves but the last ``k``, replayed (the same state,
        RNG and log as before those moves were made). Checks nothing about who may do so: see ``undoable``."""
        from tracklayer.core.registry import load_game

        if not 0 < k <= len(self.moves):
            raise IllegalAction(f"cannot take back {k} of {len(self.moves)} moves")
        game = load_game({**self.setup(), "moves": [str(a) for a in self.moves[:-k]]})
        if not isinstance(game, type(self)):
            raise TracklayerError(f"rebuilding gave a {type(game).__name__}, not a {type(self).__name__}")
        if self.revealed is not None:  # the kept moves keep their record
            game.revealed = self.revealed[:max(0, len(self.revealed) - k)]
        return game

    def _public_note(self, action: Action) -> str:
        """What everybody saw happen besides the move itself (e.g. cards revealed); families override."""
        return ""

    def clone(self) -> Self:
        """An independent copy (shares the immutable board and rules) for search and what-ifs."""
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.state = self.state.clone()
        new.moves = self.moves[:]
        new.move_log = self.move_log[:]
        new.revealed = None if self.revealed is None else self.revealed[:]
        new._legal = None
        return new

    # ------------------------------------------------------------------ saving
    def setup(self) -> dict[str, Any]:
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": FORMAT_VERSION, **self.setup(),
                "moves": [str(a) for a in self.moves], "state": self.state.to_dict()}


_G = TypeVar("_G", bound="BaseGame[Any]")  # a game of any family


def replay_saved(data: dict[str, Any], start: Callable[[dict[str, Any]], _G]) -> _G:
    """Rebuild a saved game: set it up, replay every move, and check the stored state snapshot."""
    if data.get("format", FORMAT) != FORMAT:
        raise GameDataError(f"not a saved tracklayer game (format {data.get('format')!r})")
    if data.get("version", FORMAT_VERSION) > FORMAT_VERSION:
        raise GameDataError(f"saved game version {data.get('version')} is newer than this tracklayer "
                            f"understands ({FORMAT_VERSION})")
    try:
        game = start(data)
    except KeyError as exc:
        raise GameDataError(f"saved game lacks the field {exc.args[0]!r}") from exc
    except TracklayerError as exc:
        raise GameDataError(f"saved game setup is invalid: {exc}") from exc
    moves = data.get("moves", [])
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise GameDataError("saved game: 'moves' must be a list of move texts")
    for i, text in enumerate(moves):
        try:
            game.apply(game.parse(text))
        except TracklayerError as exc:
            raise GameDataError(f"saved game: moves[{i}] {text!r} cannot be replayed: {exc}") from exc
    snapshot = data.get("state")
    if snapshot is not None:
        mine = game.state.to_dict()
        if snapshot != mine:
            diff = [k for k, v in mine.items() if not isinstance(snapshot, dict) or snapshot.get(k) != v]
            raise GameDataError("saved game: the stored state does not match the replayed moves "
                                f"(differs in {', '.join(diff)}); the file is corrupt or was edited")
    return game

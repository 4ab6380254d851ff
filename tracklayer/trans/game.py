"""The public Trans Europa / Trans America game object: setup, moves, notation, views, results, saving.

The same API as every tracklayer game (``core.game.BaseGame``): ``legal_actions``, ``apply``
(action or text), ``parse``, ``view(seat)``, ``result()``, ``is_over``, ``clone``, ``to_json`` and
``tracklayer.load_game`` (which replays the moves and checks the stored state snapshot).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tracklayer.core.action import Action
from tracklayer.core.errors import IllegalAction
from tracklayer.core.game import BaseGame, replay_saved
from tracklayer.core.rng import Rng, seed_state
from tracklayer.trans.actions import ActionTable, PassCity, ReturnCity
from tracklayer.trans.board import Board, load_board
from tracklayer.trans.cards import CardPlan, card_plan
from tracklayer.trans.rules import Rules
from tracklayer.trans.state import State
from tracklayer.trans.view import ObservationView, build_observation_view, build_view, round_summary

GAMES = ("trans-europa", "trans-america")


def _player_names(players: int | Sequence[str]) -> list[str]:
    if isinstance(players, bool):
        raise IllegalAction(f"players must be a count or a list of names, not {players!r}")
    if isinstance(players, int):
        return [f"Player {i + 1}" for i in range(players)]
    if isinstance(players, str):
        raise IllegalAction("players must be a count or a list of names, not one string")
    names = [str(p) for p in players]
    if len(set(names)) != len(names):
        raise IllegalAction(f"player names must differ: {names}")
    return names


class TransGame(BaseGame[State]):
    """One game of Trans Europa or Trans America (several rounds, to 13 prestige points)."""

    family = "trans"

    def __init__(self, board: Board, plan: CardPlan, players: list[str], seed: int | str,
                 options: dict[str, Any], rules: Rules) -> None:
        self.board = board
        self.plan = plan
        self.players = players
        self.seed = seed
        self.options = options
        self.rules: Rules = rules
        self.table: ActionTable = board.actions
        self.state = rules.setup(len(players), Rng(seed_state(seed)), options.get("first_player", 0))
        self._init_log()
        self._rounds_noted = 0
        self._hints: dict[int, tuple[Any, tuple[int, list[int]]]] = {}  # see view._missing_rails

    @property
    def game(self) -> str:
        game: str = self.options.get("game", self.board.key)  # options: the JSON setup
        return game

    # ------------------------------------------------------------------ queries
    def view(self, player: int | None, *, log_tail: int | None = None, hints: bool = True) -> dict[str, Any]:
        """What ``player`` may know (``None``: a spectator), JSON-ready.

        ``hints`` adds the seat's own fewest missing rails and one optimal set of missing lines
        (an exact Steiner computation, a few milliseconds); bots in a hurry can turn it off.
        """
        if player is not None and not (isinstance(player, int) and 0 <= player < self.n_players):
            raise IllegalAction(f"no seat {player}: seats are 0 to {self.n_players - 1}")
        return build_view(self, player, log_tail, hints)

    def observation_view(self, player: int, *, log_tail: int = 0) -> ObservationView:
        """What ``player`` may know as integer ids (for learning agents): the information of
        ``view(player, log_tail=log_tail, hints=False)`` without names and texts, at a fraction of the cost."""
        if not (isinstance(player, int) and 0 <= player < self.n_players):
            raise IllegalAction(f"no seat {player!r}: seats are 0 to {self.n_players - 1} (spectators have no "
                                "observation view)")
        return build_observation_view(self, player, log_tail)

    def result(self) -> dict[str, Any]:
        """Prestige per round, missing rails, who connected, totals, ranks and winners.

        While the game runs this covers the finished rounds (``final`` is False); ``winners`` are
        then the current leaders.
        """
        s = self.state
        rounds = [round_summary(self, r) for r in s.history]
        totals = s.scores
        players = []
        for q, name in enumerate(self.players):
            players.append({
                "name": name,
                "total": totals[q],
                "prestige_per_round": [r["prestige"][q] for r in s.history],
                "missing_rails": [r["missing"][q] for r in s.history],
                "connected": [r["connected"][q] for r in s.history],
                "rank": 1 + sum(1 for t in totals if t > totals[q]),
            })
        best = max(totals)
        return {
            "game": self.game,
            "final": self.is_over,
            "goal": self.board.goal,
            "rounds": rounds,
            "players": players,
            "winners": [self.players[q] for q, t in enumerate(totals) if t == best],
        }

    def _public_note(self, action: Action) -> str:
        """A move that ended a round gets the round's outcome in the log (cities are revealed then)."""
        history = self.state.history
        if len(history) == self._rounds_noted:
            return ""
        self._rounds_noted = len(history)
        rec = history[-1]
        gains = ", ".join(f"{name} +{rec['prestige'][q]}" for q, name in enumerate(self.players))
        return f"round {rec['round']} ends ({rec['ended_by']}): {gains}"

    def _secret_mark(self) -> tuple[int, int]:
        return self.state.rng.state, len(self.state.history)

    def _reveals(self, mark: tuple[int, int], action: Action) -> bool:
        """New information in Trans is a city card changing hands or coming out of a pile: every move of
        the special cards' choices (a city passed on or returned, the draft's draws), and a move that ends
        a round (the cities are shown, scored and dealt anew). Start markers and rails show nothing."""
        if isinstance(action, (ReturnCity, PassCity)):
            return True
        return (self.state.rng.state, len(self.state.history)) != mark

    # ------------------------------------------------------------------ notation
    def parse(self, text: str) -> Action:
        """Read a move in the notation of ``docs/trans.md`` (``start 12,5``, ``rail 12,5-13,6``, ...)."""
        return self.table.parse(text)

    # ------------------------------------------------------------------ saving
    def setup(self) -> dict[str, Any]:
        return {"game": self.game, "players": list(self.players), "seed": self.seed, "options": dict(self.options)}


def new_trans_game(game: str, players: int | Sequence[str], *, seed: int | str, special_cards: Any = None,
                   first_player: int = 0, map_file: str | None = None, variant: str | None = None) -> TransGame:
    """Start a game of ``trans-europa`` or ``trans-america``.

    ``special_cards``: ``None`` (base game), ``"each-round"`` (the variant: a new card every round),
    a card number or list of numbers (fixed for the whole game), or
    ``{"fixed": [...], "per_round": n, "deck": [...]}`` (see ``trans.cards.card_plan``).
    ``variant`` exists for callers that pass one to every game: Trans has none.
    """
    if variant not in (None, "standard"):
        raise IllegalAction(f"{game} has no variants (got {variant!r}); the special cards are chosen with "
                            "special_cards=")
    if game not in GAMES and map_file is None:
        raise IllegalAction(f"unknown Trans game {game!r}; games: {', '.join(GAMES)}")
    board = load_board(map_file or game)
    names = _player_names(players)
    plan = card_plan(special_cards, board)
    options: dict[str, Any] = {"first_player": first_player}
    option = plan.to_option()
    if option is not None:
        options["special_cards"] = option
    if board.key != game:
        options["game"] = game
    if map_file:
        options["map_file"] = map_file
    return TransGame(board, plan, names, seed, options, Rules(board, plan))


def load_trans_game(data: dict[str, Any]) -> TransGame:
    def start(d: dict[str, Any]) -> TransGame:
        opts = dict(d.get("options") or {})
        return new_trans_game(d["game"], d["players"], seed=d["seed"], special_cards=opts.get("special_cards"),
                              first_player=opts.get("first_player", 0), map_file=opts.get("map_file"))

    game = replay_saved(data, start)
    assert isinstance(game, TransGame)
    return game

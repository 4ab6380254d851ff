"""The complete, mutable state of one Trans Europa / Trans America game.

Flat lists of small ints (city ids per hand and rest pile, the placer of each line, start-marker
points), so cloning for search is cheap. Secrets live here too (hands, the order of the rest piles
and of the special-card deck, choices not yet revealed); only ``view.py`` decides what a seat may
see. The rail networks (a union-find) and the list of built lines are derived from ``owner`` and are
left out of the snapshot (``to_dict``), which lists everything else; ``Rules.resync`` recomputes them.
"""

from __future__ import annotations

from typing import Any

from tracklayer.core.rng import Rng
from tracklayer.trans.networks import Networks

# phases
CHOOSE = "choose"  # special cards: players choose cities to return or pass, one after the other
START = "start"  # start markers are placed in turn from the round's start player
RAILS = "rails"  # turns: rails are placed
OVER = "over"

FREE = -1  # line owner: no rail

# Fields derived from ``owner`` and kept up to date by the rules as rails are placed, left out of snapshots
# and recomputed by ``Rules.resync``: the rail networks (a union-find) and the lines with a rail.
DERIVED = frozenset({"networks", "built"})

# steps of a round's setup that special cards add ([kind, argument]), in the order they run
T_RETURN_COLOR = 0  # automatic: everyone returns their city of colour ``arg`` (cards 6, 7)
T_DRAFT = 1  # the start player takes a city of colour ``arg``; each passes one on; the last returns one
T_RETURN_CHOICE = 2  # everyone returns a city of their choice, all at once (card 8)
T_PASS = 3  # everyone passes a city to the left, all at once (card 16; ``arg`` = 1, 2, 3)
T_PASS_HAND = 4  # automatic: everyone passes their whole hand to the left (card 17)
TASK_NAMES = {T_RETURN_COLOR: "return colour", T_DRAFT: "draft", T_RETURN_CHOICE: "return", T_PASS: "pass",
              T_PASS_HAND: "pass hand"}

# kinds of card movements remembered for the views ([kind, from seat, to seat, city, task])
M_RETURN = 0  # from a hand to the rest pile (to = -1)
M_TAKE = 1  # from the rest pile to a hand (from = -1): the extra card of a draft
M_PASS = 2  # from a hand to the left neighbour's hand


class State:
    __slots__ = (
        "built",
        "cards",
        "current",
        "decks",
        "ending",
        "hands",
        "history",
        "markers",
        "moves",
        "n_players",
        "networks",
        "owner",
        "passes",
        "pending",
        "phase",
        "queue",
        "rng",
        "round",
        "scores",
        "special_deck",
        "special_seen",
        "start_player",
        "supply",
        "task",
        "tasks",
        "turn",
        "used",
    )

    def __init__(self, n_players: int, n_points: int, n_edges: int, rng: Rng) -> None:
        self.n_players = n_players
        self.rng = rng
        self.phase = START
        self.current = 0
        self.round = 0  # 1-based number of the round being played
        self.start_player = 0  # seat that starts the current round
        self.scores = [0] * n_players  # prestige points
        self.cards: list[int] = []  # special cards in effect this round, in the order laid out
        self.special_deck: list[int] = []  # face-down special cards (top = END of the list)
        self.special_seen: list[int] = []  # revealed ones, reshuffled when the deck runs out
        self.decks: list[list[int]] = []  # rest pile of city cards per colour (top = END)
        self.hands: list[list[int]] = [[] for _ in range(n_players)]  # city ids held
        self.markers = [-1] * n_players  # start-marker point per player, -1 = not placed
        self.owner = [FREE] * n_edges  # per line: seat that placed its rail, or FREE
        self.supply = 0  # rails left in the common supply
        self.used = 0  # rails placed in the current turn (a double counts its cost)
        self.turn = 0  # turns completed in this round's rail phase (the rhythm card counts them)
        self.passes = 0  # consecutive passed turns
        self.ending = False  # the round ends when the current turn ends (first-rail special case)
        self.tasks: list[list[int]] = []  # setup steps still to run ([kind, arg])
        self.task: list[int] = []  # the choice step being made ([kind, arg]), [] when none
        self.queue: list[int] = []  # seats still to choose in this step, the current one first
        self.pending = [-1] * n_players  # hidden simultaneous choices (city ids) of this step
        self.moves: list[list[int]] = []  # card movements of this round: [kind, from, to, city, task]
        self.history: list[dict[str, Any]] = []  # finished rounds (see Rules._end_round)
        self.networks = Networks(n_points)
        self.built: list[int] = []  # lines with a rail this round, in the order placed (derived from owner)

    def clone(self) -> State:
        new = State.__new__(State)
        new.n_players = self.n_players
        new.rng = Rng(self.rng.state)
        new.phase = self.phase
        new.current = self.current
        new.round = self.round
        new.start_player = self.start_player
        new.scores = self.scores[:]
        new.cards = self.cards[:]
        new.special_deck = self.special_deck[:]
        new.special_seen = self.special_seen[:]
        new.decks = [d[:] for d in self.decks]
        new.hands = [h[:] for h in self.hands]
        new.markers = self.markers[:]
        new.owner = self.owner[:]
        new.supply = self.supply
        new.used = self.used
        new.turn = self.turn
        new.passes = self.passes
        new.ending = self.ending
        new.tasks = [t[:] for t in self.tasks]
        new.task = self.task[:]
        new.queue = self.queue[:]
        new.pending = self.pending[:]
        new.moves = [m[:] for m in self.moves]
        new.history = self.history[:]  # finished rounds are never modified
        new.networks = self.networks.clone()
        new.built = self.built[:]
        return new

    def copy_from(self, other: State) -> None:
        """Take over every field of ``other`` (used to commit a compound move tried on a clone)."""
        for name in State.__slots__:
            setattr(self, name, getattr(other, name))

    def to_dict(self) -> dict[str, Any]:
        """Complete snapshot (secrets included) for saving and for checking replays."""
        out: dict[str, Any] = {}
        for name in State.__slots__:
            if name in DERIVED:
                continue
            value = getattr(self, name)
            out[name] = value.state if name == "rng" else value
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.to_dict() == other.to_dict()

    # mutable and compared by value: unhashable, as a list is (typeshed types object.__hash__ as a method,
    # so mypy takes None for a wrong override; typeshed's own list says it the same way)
    __hash__ = None  # type: ignore[assignment]

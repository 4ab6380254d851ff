"""The 19 special cards (variant) as data-driven effects.

``trans-special-cards.json`` lists every card with an ``effect`` kind and its parameters (the
prestige tables of cards 1 and 2, the colours of cards 6/7 and 10-15, ...); this module validates
it and folds the cards in play for a round into one :class:`Effects` value that the rules read.
No rule tests a card number: a card is its effect, so a corrected table or a house card is a data
change.

Effect kinds: ``prestige_table`` (1, 2), ``extra_rails`` (3), ``single_terrain`` (4, 5),
``return_color`` (6, 7), ``return_choice`` (8), ``rhythm`` (9), ``reveal`` (10-12, 19), ``draft``
(13-15), ``pass_cards`` (16), ``pass_hand`` (17), ``criss_cross`` (18).

Combining cards (house rule of the rulebook: "play several at once"): returns and drafts add up;
when two cards replace the prestige table, the one revealed last covers the other; extra rails
add to the budget of the rhythm card (3 + 9: 4, 3, 2 rails).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tracklayer.core.errors import IllegalAction, MapError
from tracklayer.maps.loader import get_field, need, read_map
from tracklayer.trans.board import TERRAINS, Board
from tracklayer.trans.scoring import PrestigeTable, parse_prestige_table

CARDS_FILE = "trans-special-cards"
EFFECTS = ("prestige_table", "extra_rails", "single_terrain", "return_color", "return_choice", "rhythm", "reveal",
           "draft", "pass_cards", "pass_hand", "criss_cross")


@dataclass(frozen=True, slots=True)
class SpecialCard:
    id: int
    title: str
    text: str
    effect: str
    table: dict[str, Any] | None = None  # prestige_table: raw {"missing": ...} (connected comes from the board)
    rails: tuple[int, ...] = ()  # extra_rails: (n,); rhythm: the sequence
    terrain: str = ""  # single_terrain
    colors: tuple[str, ...] = ()  # return_color / draft: one colour; reveal: colours, () = all
    times: int = 0  # pass_cards

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "text": self.text}


_CARDS: dict[int, SpecialCard] | None = None


def load_cards() -> dict[int, SpecialCard]:
    """The special cards by id (validated once per process)."""
    global _CARDS
    if _CARDS is None:
        data, source = read_map(CARDS_FILE)
        _CARDS = cards_from_data(data, source)
    return _CARDS


def cards_from_data(data: dict[str, Any], source: str) -> dict[int, SpecialCard]:
    raw = get_field(data, "cards", source, list)
    out: dict[int, SpecialCard] = {}
    for i, c in enumerate(raw):
        where = f"{source}: cards[{i}]"
        need(isinstance(c, dict), where, "must be an object")
        cid = get_field(c, "id", where, int)
        where = f"{source}: cards[{i}] (card {cid})"
        need(cid > 0 and cid not in out, where, "ids must be positive and unique")
        effect = get_field(c, "effect", where, str)
        need(effect in EFFECTS, where, f"unknown effect {effect!r}; effects: {', '.join(EFFECTS)}")
        kw: dict[str, Any] = {}
        if effect == "prestige_table":
            parse_prestige_table(c, where, MapError, connected=0)  # validate the steps now
            kw["table"] = {"missing": c["missing"]}
        elif effect == "extra_rails":
            n = get_field(c, "rails", where, int)
            need(n > 0, where, f"rails must be positive, got {n}")
            kw["rails"] = (n,)
        elif effect == "rhythm":
            seq = get_field(c, "rails", where, list)
            need(bool(seq) and all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in seq), where,
                 f"rails must be a list of positive integers, got {seq!r}")
            # a round could otherwise stall: a player whose network only touches free double lines must get a
            # turn that can build one (the rules have no "blocked" round end)
            need(max(seq) >= 2, where, f"rails must reach 2 in some turn (a double line needs 2), got {seq!r}")
            kw["rails"] = tuple(seq)
        elif effect == "single_terrain":
            ter = get_field(c, "terrain", where, str)
            need(ter in TERRAINS, where, f"terrain must be one of {', '.join(TERRAINS)}, got {ter!r}")
            kw["terrain"] = ter
        elif effect in ("return_color", "draft"):
            kw["colors"] = (get_field(c, "color", where, str),)
        elif effect == "reveal":
            cols = get_field(c, "colors", where, (list, str))
            need(cols == "all" or (isinstance(cols, list) and all(isinstance(x, str) for x in cols)), where,
                 "colors must be a list of colour names or \"all\"")
            kw["colors"] = () if cols == "all" else tuple(cols)
        elif effect == "pass_cards":
            n = get_field(c, "times", where, int)
            need(n > 0, where, f"times must be positive, got {n}")
            kw["times"] = n
        out[cid] = SpecialCard(cid, str(c.get("title", f"card {cid}")), str(c.get("text", "")), effect, **kw)
    return out


def unavailable_reason(card: SpecialCard, board: Board) -> str | None:
    """Why ``card`` cannot be played on ``board`` (its data lacks what the card needs), or None."""
    if card.effect == "single_terrain" and card.terrain not in board.terrains:
        return (f"special card {card.id} ({card.title}) needs double lines marked '{card.terrain}', and the "
                f"{board.name} board data marks none")
    missing = [c for c in card.colors if c not in board.colors]
    if missing:
        return f"special card {card.id} ({card.title}) names colour {missing[0]!r}, not a colour of {board.name}"
    return None


# ---------------------------------------------------------------------------------------------- the plan
@dataclass(frozen=True, slots=True)
class CardPlan:
    """Which special cards a game uses: ``fixed`` for the whole game, plus ``per_round`` cards revealed
    from ``deck`` before every round (the rulebook's variant is per_round=1 from all 19 cards)."""

    fixed: tuple[int, ...] = ()
    per_round: int = 0
    deck: tuple[int, ...] = ()

    @property
    def active(self) -> bool:
        return bool(self.fixed or self.per_round)

    def to_option(self) -> dict[str, Any] | None:
        if not self.active:
            return None
        return {"fixed": list(self.fixed), "per_round": self.per_round, "deck": list(self.deck)}


def _ids(value: Any, what: str) -> list[int]:
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return list(value)
    raise IllegalAction(f"special_cards: {what} must be a card number or a list of card numbers, got {value!r}")


def card_plan(spec: Any, board: Board) -> CardPlan:
    """Normalise the ``special_cards`` option.

    ``None``/``False``: no special cards. ``"each-round"``/``True``: a new card revealed every round
    (the rulebook's variant). A card number or a list of them: those cards for the whole game. A dict
    ``{"fixed": [...], "per_round": n, "deck": [...]}`` combines both (``deck`` defaults to every
    card playable on the board except the fixed ones; ``per_round`` to 1 when a deck is given).
    """
    cards = load_cards()
    if spec is None or spec is False or spec == "none":
        return CardPlan()
    playable = [cid for cid in sorted(cards) if unavailable_reason(cards[cid], board) is None]
    if spec is True or spec == "each-round":
        return CardPlan((), 1, tuple(playable))
    if isinstance(spec, str):
        raise IllegalAction(f"special_cards: unknown setting {spec!r}; use None, 'each-round', a card number, "
                            "a list of card numbers or {'fixed': [...], 'per_round': n, 'deck': [...]}")
    if isinstance(spec, dict):
        unknown = set(spec) - {"fixed", "per_round", "deck"}
        if unknown:
            raise IllegalAction(f"special_cards: unknown key {sorted(unknown)[0]!r}; keys: fixed, per_round, deck")
        fixed = _ids(spec.get("fixed", []), "'fixed'")
        deck = _ids(spec["deck"], "'deck'") if "deck" in spec else [c for c in playable if c not in fixed]
        per_round = spec.get("per_round", 1 if "deck" in spec else 0)
        if not isinstance(per_round, int) or isinstance(per_round, bool) or per_round < 0:
            raise IllegalAction(f"special_cards: 'per_round' must be a non-negative integer, got {per_round!r}")
    else:
        fixed, deck, per_round = _ids(spec, "the setting"), [], 0
    for cid in [*fixed, *deck]:
        if cid not in cards:
            raise IllegalAction(f"special_cards: there is no special card {cid} (cards 1-{max(cards)})")
        reason = unavailable_reason(cards[cid], board)
        if reason:
            raise IllegalAction(f"special_cards: {reason}")
    if len(set(fixed)) != len(fixed) or len(set(deck)) != len(deck) or set(fixed) & set(deck):
        raise IllegalAction("special_cards: a card may be named only once (fixed and deck together)")
    if per_round > len(deck):
        raise IllegalAction(f"special_cards: cannot reveal {per_round} cards per round from a deck of {len(deck)}")
    if not per_round:
        deck = []
    return CardPlan(tuple(fixed), per_round, tuple(deck))


# ---------------------------------------------------------------------------------------------- effects
@dataclass(frozen=True, slots=True)
class Effects:
    """Everything the rules need to know about the cards in play this round."""

    cards: tuple[int, ...]
    table: PrestigeTable
    line_cost: tuple[int, ...]  # rail cost per line this round
    extra_rails: int
    rhythm: tuple[int, ...]
    return_colors: tuple[int, ...]
    return_choice: int  # how many cities each player returns by choice
    drafts: tuple[int, ...]  # colours, in card order
    pass_times: int
    pass_hand: bool
    reveal: frozenset[int]  # colours whose cities are face up
    criss_cross: bool
    max_line_cost: int = field(init=False)  # the dearest line this round

    def __post_init__(self) -> None:
        object.__setattr__(self, "max_line_cost", max(self.line_cost, default=0))

    def budget(self, base: int, game_round: int) -> int:
        """Rails per turn in the given round of turns (0-based)."""
        main = self.rhythm[game_round % len(self.rhythm)] if self.rhythm else base
        return main + self.extra_rails


def effects_of(board: Board, ids: Sequence[int]) -> Effects:
    """Fold the cards ``ids`` (in the order they were laid out) into one :class:`Effects`."""
    cards = load_cards()
    table = board.prestige
    extra = 0
    rhythm: tuple[int, ...] = ()
    single: set[str] = set()
    returns: list[int] = []
    choice = 0
    drafts: list[int] = []
    times = 0
    pass_hand = False
    reveal: set[int] = set()
    criss = False
    col = board.colors.index
    for cid in ids:
        c = cards[cid]
        e = c.effect
        if e == "prestige_table":
            table = parse_prestige_table(c.table, f"special card {cid}", MapError, connected=board.prestige.connected)
        elif e == "extra_rails":
            extra += c.rails[0]
        elif e == "rhythm":
            rhythm = c.rails
        elif e == "single_terrain":
            single.add(c.terrain)
        elif e == "return_color":
            if col(c.colors[0]) not in returns:
                returns.append(col(c.colors[0]))
        elif e == "return_choice":
            choice += 1
        elif e == "draft":
            drafts.append(col(c.colors[0]))
        elif e == "pass_cards":
            times += c.times
        elif e == "pass_hand":
            pass_hand = True
        elif e == "reveal":
            if c.colors:
                reveal.update(col(x) for x in c.colors)
            else:
                reveal.update(range(len(board.colors)))
        elif e == "criss_cross":
            criss = True
    cost = tuple(1 if c == 2 and t in single else c for c, t in zip(board.edge_cost, board.edge_terrain, strict=True))
    return Effects(tuple(ids), table, cost, extra, rhythm, tuple(returns), choice, tuple(drafts), times, pass_hand,
                   frozenset(reveal), criss)

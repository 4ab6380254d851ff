"""The public Ticket to Ride game object: setup, moves, notation, views, results, saving.

A game is ``(setup, seed, moves)``: everything else is derived, which is why ``to_json`` stores
the move list and ``load_game`` replays it (checking the stored state snapshot, so a corrupted or
hand-edited file is caught instead of silently diverging).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from tracklayer.core.errors import IllegalAction, NotationError, TracklayerError
from tracklayer.core.game import BaseGame, replay_saved
from tracklayer.core.names import fold
from tracklayer.core.rng import Rng, seed_state
from tracklayer.ttr.actions import NONE, Action, ActionTable, ClaimRoute
from tracklayer.ttr.board import Board, Ticket, Variant, load_board
from tracklayer.ttr.rules import Rules, rules_for
from tracklayer.ttr.scoring import TIEBREAKS, HeldTicket, final_totals, score_position
from tracklayer.ttr.state import INITIAL, State
from tracklayer.ttr.view import ObservationView, build_observation_view, build_view

GAMES = ("ttr-europe", "ttr-new-york")


def _player_names(players: int | Sequence[str]) -> list[str]:
    if isinstance(players, bool):
        raise IllegalAction(f"players must be a count or a list of names, not {players!r}")
    if isinstance(players, int):
        return [f"Player {i + 1}" for i in range(players)]
    names = [str(p) for p in players]
    if len(set(names)) != len(names):
        raise IllegalAction(f"player names must differ: {names}")
    return names


def _extra_tickets(board: Board, extra: Iterable[Any]) -> tuple[Ticket, ...]:
    """User-supplied bonus tickets (Orient Express, "with Max"): ``(a, b, points, deck)`` or dicts."""
    logos = {logo for v in board.variants.values() for logo in v.logos}
    out: list[Ticket] = []
    for n, raw in enumerate(extra, start=1):
        where = f"extra_tickets[{n - 1}]"
        if isinstance(raw, dict):
            a, b, pts, deck = raw.get("a"), raw.get("b"), raw.get("points"), raw.get("deck")
            tid, long = raw.get("id") or f"X{n:02d}", bool(raw.get("long", False))
        elif isinstance(raw, (list, tuple)) and len(raw) == 4:
            a, b, pts, deck = raw
            tid, long = f"X{n:02d}", False
        else:
            raise IllegalAction(f"{where}: write a ticket as (city, city, points, deck), got {raw!r}")
        try:
            ca = board.cities.index(board.city_index.resolve(str(a)))
            cb = board.cities.index(board.city_index.resolve(str(b)))
        except TracklayerError as exc:
            raise IllegalAction(f"{where}: {exc}") from exc
        if ca == cb:
            raise IllegalAction(f"{where}: a ticket must join two different cities")
        if not isinstance(pts, int) or isinstance(pts, bool) or pts <= 0:
            raise IllegalAction(f"{where}: points must be a positive integer, got {pts!r}")
        if deck not in logos:
            raise IllegalAction(f"{where}: deck {deck!r} is not one of {', '.join(sorted(logos))}")
        if str(tid).casefold() in board.ticket_by_id or any(t.id == tid for t in out):
            raise IllegalAction(f"{where}: ticket id {tid!r} is already used")
        out.append(Ticket(len(board.tickets) + len(out), str(tid), ca, cb, pts, long, (deck,)))
    return tuple(out)


class TTRGame(BaseGame[State]):
    """One game of Ticket to Ride (Europe or New York) with its complete state."""

    family = "ttr"

    def __init__(self, board: Board, variant: Variant, players: list[str], seed: int | str,
                 options: dict[str, Any], state: State) -> None:
        self.board = board
        self.variant = variant
        self.players = players
        self.seed = seed
        self.options = options
        self.state = state
        self.rules: Rules = rules_for(board, variant)
        self.table: ActionTable = board.actions
        self.tickets = board.tickets
        self._completion_memo: dict[tuple[Any, ...], Any] = {}  # see view.tickets_completed
        self._init_log()

    # ------------------------------------------------------------------ queries
    @property
    def game(self) -> str:
        """The registered game name (``ttr-europe``, ``ttr-new-york``), even on a custom map file."""
        game: str = self.options.get("game", self.board.key)  # options: the JSON setup
        return game

    def view(self, player: int | None, *, log_tail: int | None = None) -> dict[str, Any]:
        """What ``player`` may know (``None``: a spectator), JSON-ready."""
        if player is not None and not 0 <= player < self.n_players:
            raise IllegalAction(f"no seat {player}: seats are 0 to {self.n_players - 1}")
        return build_view(self, player, log_tail)

    def observation_view(self, player: int, *, log_tail: int = 0) -> ObservationView:
        """What ``player`` may know as integer ids (for learning agents): the information of
        ``view(player, log_tail=log_tail)`` without names and texts, at a fraction of the cost."""
        if player is None or not 0 <= player < self.n_players:
            raise IllegalAction(f"no seat {player!r}: seats are 0 to {self.n_players - 1} (spectators have no "
                                "observation view)")
        return build_observation_view(self, int(player), log_tail)

    def result(self) -> dict[str, Any]:
        """Final scoring breakdown (a preview with every ticket counted if the game is not over)."""
        s = self.state
        out = score_position(self.board, self.players, s.route_owner, s.station_owner, self._held(s),
                             self.options.get("tiebreak", "classic"))
        out["final"] = self.is_over
        out["variant"] = self.variant.name
        return out

    def final_totals(self, trail_length: Callable[[list[int]], int] | None = None) -> list[int]:
        """Each player's score as :meth:`result` counts it, without the breakdown: a search scores its
        playouts with it. ``trail_length``: see :func:`tracklayer.ttr.scoring.tally`."""
        s = self.state
        return final_totals(self.board, s.route_owner, s.station_owner, self._held(s), trail_length)

    def _held(self, s: State) -> list[list[HeldTicket]]:
        tickets = self.tickets
        return [[HeldTicket(tickets[t].a, tickets[t].b, tickets[t].points, tickets[t].id) for t in s.tickets[p]]
                for p in range(s.n_players)]

    def rollout(self, seed: int, limit: int = 10_000) -> list[int]:
        """A search's playout: copy the state, play uniformly random legal moves to the end inside the engine
        (``Rules.playout``, moves chosen by ``Rng(seed)``), and return each player's final score. The game
        itself is left as it is."""
        s = self.state.clone()
        self.rules.playout(s, Rng(seed_state(seed)), limit)
        return final_totals(self.board, s.route_owner, s.station_owner, self._held(s))

    def _public_note(self, action: Action) -> str:
        if isinstance(action, ClaimRoute) and self.board.routes[action.route].tunnel:
            cards = ", ".join(self.board.card_name(c) for c in self.state.last_reveal) or "nothing"
            extra = self.state.tunnel.extra if self.state.tunnel is not None else 0
            return f"tunnel revealed {cards}: {extra} more card{'s' if extra != 1 else ''}"
        return ""

    def _secret_mark(self) -> tuple[int, int, int, str]:
        s = self.state
        return s.rng.state, len(s.deck), len(s.ticket_deck), s.phase

    def _reveals(self, mark: tuple[int, int, int, str], action: Action) -> bool:
        """New information in Ticket to Ride is a card leaving a face-down pile: a deck draw, the market
        refilled from the deck after a face-up draw, drawn tickets, a tunnel's cards (a tunnel claim counts
        even when the piles are empty). The deck's discards reshuffled (the RNG moved during play) always
        feed such a draw; the returned starting tickets shuffled under the deck show nobody anything."""
        rng, deck, tickets, phase = mark
        s = self.state
        if isinstance(action, ClaimRoute) and self.board.routes[action.route].tunnel:
            return True
        if len(s.deck) < deck or len(s.ticket_deck) < tickets:
            return True
        return s.rng.state != rng and phase != INITIAL

    # ------------------------------------------------------------------ notation
    def parse(self, text: str) -> Action:
        """Read a move in the notation of ``docs/notation.md``.

        A claim or station without a payment is accepted when exactly one payment is possible.
        """
        if not isinstance(text, str):
            raise NotationError(f"a move must be text, got {text!r}")
        body = text.strip()
        word, _, rest = body.partition(" ")
        word = word.casefold().rstrip(":")
        rest = rest.strip()
        t = self.table
        b = self.board
        if word == "draw":
            what = fold(rest)
            if what in ("tickets", "ticket"):
                return t.draw_tickets
            if what in ("deck", "blind", "top"):
                return t.draw_deck
            try:
                color, n_color, n_loco = t.parse_cards("1 " + rest)
            except NotationError:
                raise NotationError(f"draw what? 'draw deck' or 'draw <colour>', got {text.strip()!r}") from None
            return t.draw(b.loco if n_loco else color)
        if word == "claim":
            return self._parse_claim(rest, text)
        if word == "station":
            city_text, _, pay = rest.partition(":")
            city = t.city(city_text)
            if pay.strip():
                color, n_color, n_loco = t.parse_cards(pay)
                return t.station(city, color, n_color, n_loco)
            return self._unique(lambda a: a.kind == "station" and a.city == city,
                                f"a station on {b.cities[city]}", text)
        if word in ("pay", "pay:"):
            color, n_color, n_loco = t.parse_cards(rest.lstrip(":"))
            return t.pay(color, n_color, n_loco)
        if word == "decline":
            return t.decline
        if word in ("tickets", "ticket"):
            return t.draw_tickets

        if word == "pass":
            return t.pass_
        if word == "keep":
            return self._parse_keep(rest)
        raise NotationError(f"unknown move {text.strip()!r}: moves are draw, claim, station, pay, decline, "
                            "tickets, keep, pass (see docs/notation.md)")

    def _parse_claim(self, rest: str, text: str) -> Action:
        t = self.table
        route_text, has_pay, pay = rest.partition(":")
        lanes = t.routes_named(route_text)
        if not has_pay or not pay.strip():
            return self._unique(lambda a: isinstance(a, ClaimRoute) and a.route in lanes,
                                f"a claim of {route_text.strip()}", text)
        color, n_color, n_loco = t.parse_cards(pay)
        routes = self.board.routes

        def fits(ri: int) -> bool:
            r = routes[ri]
            return (n_color == 0 or r.color < 0 or r.color == color) and n_color + n_loco == r.length

        free = [ri for ri in lanes if self.rules._claim_problem(self.state, ri) is None]
        pick = next((ri for ri in free if fits(ri)), None)
        if pick is None:
            pick = next((ri for ri in lanes if fits(ri)), free[0] if free else lanes[0])
        length = routes[pick].length
        if n_color + n_loco != length:
            raise IllegalAction(f"{self.board.route_label(pick)} needs {length} cards, the payment has "
                                f"{n_color + n_loco}")
        return t.claim(pick, color if n_color else NONE, n_loco)

    def _parse_keep(self, rest: str) -> Action:
        t = self.table
        offer = self.state.offers[self.state.current]
        if fold(rest) == "all":
            return t.keep(tuple(sorted(offer)))
        if fold(rest) in ("none", "nothing"):  # keep no ticket (Mega's long tickets may all be returned)
            return t.keep(())
        parts = [p for p in rest.replace(",", " , ").split(",")] if "," in rest else None
        if parts is None:
            try:
                return t.keep((t.ticket(rest, offer),))
            except (NotationError, TracklayerError):
                parts = rest.split()
        picked = sorted({t.ticket(p, offer) for p in parts if p.strip()})
        if not picked:
            raise NotationError("keep which tickets? e.g. 'keep " + " ".join(
                self.tickets[x].id for x in offer[:2]) + "'")
        return t.keep(tuple(picked))

    def _unique(self, match: Any, what: str, text: str) -> Action:
        found = [a for a in self.legal_actions() if match(a)]
        if len(found) == 1:
            return found[0]
        if not found:
            raise IllegalAction(f"{what} is not possible now")
        options = "; ".join(str(a) for a in found[:6]) + ("; ..." if len(found) > 6 else "")
        raise NotationError(f"{text.strip()!r} can be paid in {len(found)} ways, say which: {options}")

    # ------------------------------------------------------------------ saving
    def setup(self) -> dict[str, Any]:
        return {"game": self.game, "variant": self.variant.name, "players": list(self.players),
                "seed": self.seed, "options": dict(self.options)}



def new_ttr_game(game: str, players: int | Sequence[str], *, seed: int | str, variant: str | None = None,
                 tiebreak: str = "classic", extra_tickets: Iterable[Any] = (), first_player: int = 0,
                 map_file: str | None = None) -> TTRGame:
    board = load_board(map_file or game)
    names = _player_names(players)
    vname = variant or board.default_variant
    if vname not in board.variants:
        raise IllegalAction(f"{board.name} has no variant {vname!r}; variants: {', '.join(board.variants)}")
    if tiebreak not in TIEBREAKS:
        raise IllegalAction(f"unknown tiebreak {tiebreak!r}; choose one of {', '.join(TIEBREAKS)}")
    extra_list = [dict(x) if isinstance(x, dict) else list(x) for x in extra_tickets]
    extras = _extra_tickets(board, extra_list)
    if extras:
        board = dataclasses.replace(board, tickets=board.tickets + extras)
    var = board.variants[vname]
    long_pool, regular_pool = board.tickets_for(var)
    state = rules_for(board, var).setup(len(names), Rng(seed_state(seed)), first_player, long_pool, regular_pool)
    options: dict[str, Any] = {"tiebreak": tiebreak, "first_player": first_player}
    if board.key != game:
        options["game"] = game
    if extra_list:
        options["extra_tickets"] = extra_list
    if map_file:
        options["map_file"] = map_file
    return TTRGame(board, var, names, seed, options, state)


def load_ttr_game(data: dict[str, Any]) -> TTRGame:
    def start(d: dict[str, Any]) -> TTRGame:
        opts = dict(d.get("options") or {})
        return new_ttr_game(d["game"], d["players"], seed=d["seed"], variant=d.get("variant"),
                            tiebreak=opts.get("tiebreak", "classic"), extra_tickets=opts.get("extra_tickets", ()),
                            first_player=opts.get("first_player", 0), map_file=opts.get("map_file"))

    game = replay_saved(_upgrade_snapshot(data), start)
    assert isinstance(game, TTRGame)
    return game


def _upgrade_snapshot(data: dict[str, Any]) -> dict[str, Any]:
    """A file saved before the state gained ``deal_step``/``set_aside`` and lost ``market_stuck``: its
    snapshot in today's terms, so that games the rule changes did not touch still load. (A game they did
    touch -- more than 3 market resets in a row, a Mega deal -- no longer replays, and says so.)"""
    snap = data.get("state")
    if not isinstance(snap, dict) or "market_stuck" not in snap or "deal_step" in snap:
        return data
    snap = {k: v for k, v in snap.items() if k != "market_stuck"}
    snap.update(deal_step=0, set_aside=[])
    return {**data, "state": snap}

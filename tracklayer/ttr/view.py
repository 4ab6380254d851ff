"""What one seat may know, as a JSON-ready dict.

This is the only place that decides visibility: servers, terminal UI, bots and RL environments all
get their picture of the game from here, so a secret (another hand, another player's tickets or
ticket offers, the deck order) cannot leak through a client that forgot to trim it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tracklayer.ttr.actions import KeepTickets
from tracklayer.ttr.cards import EMPTY
from tracklayer.ttr.scoring import HeldTicket, ticket_progress
from tracklayer.ttr.state import FREE, OVER

if TYPE_CHECKING:
    from tracklayer.ttr.game import TTRGame


def ticket_info(game: TTRGame, tickets: list[int], done: list[bool] | None = None) -> list[dict[str, Any]]:
    table = game.tickets
    cities = game.board.cities
    out = []
    for i, t in enumerate(tickets):
        tk = table[t]
        entry: dict[str, Any] = {"id": tk.id, "from": cities[tk.a], "to": cities[tk.b], "points": tk.points,
                                 "long": tk.long}
        if done is not None:
            entry["completed"] = done[i]
        out.append(entry)
    return out


def public_move(game: TTRGame, seat: int | None, mover: int, action: object) -> str:
    """The move as ``seat`` may read it: ticket choices of others show only how many were kept."""
    if isinstance(action, KeepTickets) and mover != seat and not game.is_over:
        n = len(action.tickets)
        return f"keep {n} ticket{'s' if n != 1 else ''}"
    return str(action)


def build_view(game: TTRGame, seat: int | None, log_tail: int | None = None) -> dict[str, Any]:
    b = game.board
    s = game.state
    over = s.phase == OVER
    labels = b.route_labels
    n = s.n_players
    owned: list[list[int]] = [[] for _ in range(n)]
    for r, o in enumerate(s.route_owner):
        if o != FREE:
            owned[o].append(r)
    stations: list[list[str]] = [[] for _ in range(n)]
    for c, o in enumerate(s.station_owner):
        if o != FREE:
            stations[o].append(b.cities[c])
    players = []
    for p in range(n):
        entry: dict[str, Any] = {
            "seat": p,
            "name": game.players[p],
            "wagons": s.wagons[p],
            "route_points": s.route_points[p],
            "cards": sum(s.hands[p]),
            "tickets": len(s.tickets[p]),
            "routes": [labels[r] for r in owned[p]],
        }
        if b.features.stations:
            entry["stations_left"] = s.stations_left[p]
            entry["stations"] = stations[p]
        if s.offers[p]:
            entry["choosing_tickets"] = len(s.offers[p])
        players.append(entry)
    view: dict[str, Any] = {
        "game": game.game,
        "variant": game.variant.name,
        "seat": seat,
        "players": players,
        "phase": s.phase,
        "current_player": None if over else s.current,
        "first_player": s.first,
        "turn": s.turn,
        "final_round": s.final_turns >= 0,
        "final_turns_left": s.final_turns if s.final_turns >= 0 else None,
        "market": [None if c == EMPTY else b.card_name(c) for c in s.market],
        "deck": len(s.deck),
        "discard": len(s.discard),
        "ticket_deck": len(s.ticket_deck),
        "route_owner": [None if o == FREE else o for o in s.route_owner],
        "stations": {city: p for p in range(n) for city in stations[p]},
    }
    if s.tunnel is not None:
        t = s.tunnel
        view["tunnel"] = {
            "route": b.route_label(t.route),
            "played": game.table.payment_text(t.color, t.n_color, t.n_loco),
            "revealed": [b.card_name(c) for c in t.revealed],
            "extra": t.extra,
        }
    if seat is not None:
        held = s.tickets[seat]
        done = ticket_progress(b, owned[seat], [HeldTicket(game.tickets[t].a, game.tickets[t].b, 0) for t in held])
        view["hand"] = {b.card_name(c): n for c, n in enumerate(s.hands[seat])}
        view["tickets"] = ticket_info(game, held, done)
        view["offer"] = ticket_info(game, s.offers[seat])
    moves = game.move_log
    if log_tail is not None:
        moves = moves[-log_tail:] if log_tail else []
    view["log"] = [{"player": m, "move": public_move(game, seat, m, a), **({"note": note} if note else {})}
                   for m, a, note in moves]
    if s.last_reveal:
        view["last_tunnel_reveal"] = [b.card_name(c) for c in s.last_reveal]
    if over:
        view["result"] = game.result()
    return view

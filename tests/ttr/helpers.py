"""Shared helpers for the Ticket to Ride rule tests: build precise situations quickly.

The engine keeps everything in ``g.state`` as flat lists of ints; these helpers translate card and
route names into that representation and clear the legal-action cache after every edit.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

import tracklayer
from tracklayer import IllegalAction
from tracklayer.ttr.cards import EMPTY
from tracklayer.ttr.game import TTRGame


def start(game: str = "ttr-europe", n: int = 3, *, seed: int = 1, **kw: Any) -> TTRGame:
    """A new game with the initial ticket choice done (every player keeps the largest legal set)."""
    g = tracklayer.new_game(game, n, seed=seed, **kw)
    while g.phase == "initial":
        g.apply(g.legal_actions()[-1])
    assert g.phase == "main"
    return g


def card(g: TTRGame, name: str) -> int:
    """Card index of a colour name or of the wild card (``locomotive``/``taxi``/``loco``)."""
    b = g.board
    if name in ("locomotive", "loco", "taxi", b.locomotive_name):
        return b.loco
    return b.colors.index(name)


def cards(g: TTRGame, *names: str) -> list[int]:
    return [card(g, n) for n in names]


def hand(g: TTRGame, p: int, **counts: int) -> list[int]:
    """Set player ``p``'s hand to exactly these counts (everything else 0)."""
    h = [0] * (len(g.board.colors) + 1)
    for name, n in counts.items():
        h[card(g, name)] = n
    g.state.hands[p] = h
    g._legal = None
    return h


def set_deck(g: TTRGame, names: list[str]) -> None:
    """Replace the draw pile; the LAST name is the top card."""
    g.state.deck = cards(g, *names)
    g._legal = None


def set_discard(g: TTRGame, names: list[str]) -> None:
    g.state.discard = cards(g, *names)
    g._legal = None


def set_market(g: TTRGame, names: list[str | None]) -> None:
    """Face-up cards per slot; ``None`` is an empty slot."""
    g.state.market = [EMPTY if n is None else card(g, n) for n in names]
    g._legal = None


def hoarded(g: TTRGame, market: list[str], deck: list[str], **hand0: int) -> None:
    """Only these cards outside the hands: the market, the deck (last name on top) and player 0's hand
    are set, the discard pile is empty and every other card of the game is in player 1's hand.

    For the locomotive rule, which depends on the cards that are not in any hand.
    """
    b, s = g.board, g.state
    set_market(g, market)
    set_deck(g, deck)
    set_discard(g, [])
    rest = [b.per_color] * len(b.colors) + [b.locomotives]
    for c in [*s.market, *s.deck]:
        if c != EMPTY:
            rest[c] -= 1
    for c, k in enumerate(hand(g, 0, **hand0)):
        rest[c] -= k
    assert min(rest) >= 0, "more cards named than the game has"
    s.hands[1:] = [rest] + [[0] * len(rest) for _ in range(s.n_players - 2)]


def route(g: TTRGame, label: str) -> int:
    """Engine index of a route by ``A-B`` or ``A-B/colour``; the lane must be unique."""
    lanes = g.table.routes_named(label)
    assert len(lanes) == 1, f"{label} names {len(lanes)} lanes"
    return lanes[0]


def lanes(g: TTRGame, label: str) -> list[int]:
    return g.table.routes_named(label)


def city(g: TTRGame, name: str) -> int:
    return g.board.cities.index(name)


def ticket(g: TTRGame, tid: str) -> int:
    return g.board.ticket_by_id[tid.casefold()]


def own(g: TTRGame, p: int, *labels: str) -> None:
    """Give player ``p`` routes directly (no payment, no score): for board situations only."""
    for label in labels:
        g.state.route_owner[route(g, label)] = p
    sync_routes(g)


def sync_routes(g: TTRGame) -> None:
    """After editing ``route_owner`` by hand: rebuild the engine's derived route caches (if any).

    The engine may keep bitmasks derived from ``route_owner`` (``open_routes``: free and not
    closed; ``barred[p]``: lanes whose twin ``p`` owns); they must agree with the owners.
    """
    g.rules.resync(g.state)
    g._legal = None


def set_turn(g: TTRGame, p: int) -> None:
    """Make it the start of player ``p``'s turn."""
    g.state.current = p
    g.state.phase = "main"
    g._legal = None


def snapshot(g: TTRGame) -> dict[str, Any]:
    """A deep copy of the complete state (``State.to_dict`` returns the live lists)."""
    return copy.deepcopy(g.state.to_dict())


def total_cards(g: TTRGame) -> int:
    """Every train card in the game: hands, deck, discard, market and a tunnel claim on the table."""
    s = g.state
    n = sum(sum(h) for h in s.hands) + len(s.deck) + len(s.discard) + sum(1 for c in s.market if c != EMPTY)
    if s.tunnel is not None:
        n += s.tunnel.n_color + s.tunnel.n_loco + len(s.tunnel.revealed)
    return n


def assert_illegal(g: TTRGame, move: Any, match: str) -> IllegalAction:
    """``move`` raises IllegalAction whose message matches ``match``; the game is left unchanged."""
    before = snapshot(g)
    n_moves = len(g.moves)
    with pytest.raises(IllegalAction, match=match) as info:
        g.apply(move)
    assert snapshot(g) == before
    assert len(g.moves) == n_moves
    assert len(str(info.value)) > 10
    return info.value


def legal_texts(g: TTRGame) -> list[str]:
    return [str(a) for a in g.legal_actions()]


def claims_of(g: TTRGame, label: str) -> list[str]:
    """Legal claim notations for the lanes named by ``label``."""
    rs = set(lanes(g, label))
    return [str(a) for a in g.legal_actions() if a.kind == "claim" and a.route in rs]


def oracle_legal(g: TTRGame) -> set[str]:
    """The legal moves of the player to move, written straight from the rules text (slow, simple).

    Identical lanes of a double route share one notation, so a set of strings compares the moves
    whatever lane the engine picks for them.
    """
    import itertools

    from tracklayer.ttr.actions import NONE

    s, b, t = g.state, g.board, g.table
    p = s.current
    h = s.hands[p]
    loco = b.loco
    out: set[str] = set()
    can_blind = bool(s.deck) or bool(s.discard)
    if s.phase == "over":
        return out
    if s.phase == "second_draw":
        out |= {str(t.draw(c)) for c in s.market if c not in (EMPTY, loco)}
        if can_blind:
            out.add(str(t.draw_deck))
        return out
    if s.phase in ("initial", "keep"):
        offer = s.offers[p]
        v = g.variant
        if s.phase == "initial" and v.name == "mega":  # the rulebook's words: first the long tickets ...
            if all(g.board.tickets[x].long for x in offer):
                need, max_long = 0, 1  # "keep one or none, but not both"
            else:  # ... then 5 regular: "at least 2 if a long one was kept, else at least 3"
                need, max_long = (2 if any(g.board.tickets[x].long for x in s.tickets[p]) else 3), 0
        elif s.phase == "initial":
            step = v.initial.steps[0]
            need, max_long = min(step.min_keep, len(offer)), step.max_keep_long
        else:
            need, max_long = min(v.draw_min_keep, len(offer)), len(offer)
        for k in range(need, len(offer) + 1):
            for combo in itertools.combinations(sorted(offer), k):
                if sum(g.board.tickets[x].long for x in combo) <= max_long:
                    out.add(str(t.keep(combo)))
        return out
    if s.phase == "tunnel":
        x = s.tunnel.extra
        for nl in range(x + 1):
            nc = x - nl
            if h[loco] < nl:
                continue
            if nc == 0:
                out.add(str(t.pay(NONE, 0, nl)))
            elif s.tunnel.color != NONE and h[s.tunnel.color] >= nc:
                out.add(str(t.pay(s.tunnel.color, nc, nl)))
        out.add(str(t.decline))
        return out
    # main phase
    out |= {str(t.draw(c)) for c in s.market if c != EMPTY}
    if can_blind:
        out.add(str(t.draw_deck))
    if s.ticket_deck:
        out.add(str(t.draw_tickets))
    closed = s.n_players in b.closed_with_players
    for r in b.routes:
        if s.route_owner[r.index] != -1 or s.wagons[p] < r.length:
            continue
        if any(s.route_owner[x] == p or (closed and s.route_owner[x] != -1) for x in r.twins):
            continue
        for nl in range(r.locomotives, r.length + 1):
            nc = r.length - nl
            if h[loco] < nl:
                continue
            if nc == 0:
                out.add(str(t.claim(r.index, NONE, nl)))
                continue
            for c in range(len(b.colors)) if r.color == -1 else (r.color,):
                if h[c] >= nc:
                    out.add(str(t.claim(r.index, c, nl)))
    if b.features.stations and s.stations_left[p]:
        cost = b.station_costs[b.stations - s.stations_left[p]]
        for ct in range(len(b.cities)):
            if s.station_owner[ct] != -1:
                continue
            for nl in range(cost + 1):
                nc = cost - nl
                if h[loco] < nl:
                    continue
                if nc == 0:
                    out.add(str(t.station(ct, NONE, 0, nl)))
                    continue
                for c in range(len(b.colors)):
                    if h[c] >= nc:
                        out.add(str(t.station(ct, c, nc, nl)))
    if not out:
        out.add(str(t.pass_))
    return out

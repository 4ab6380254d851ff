"""Belief sampling: complete games that agree with everything one seat knows.

Search bots (determinized MCTS) and OpenSpiel's ``resample_from_infostate`` need worlds that the seat
cannot tell from the real game: the same view, with the secrets it cannot see dealt afresh. Two ways in:

* :func:`sample_state` starts from the real game and re-deals what ``seat`` cannot see, in every phase
  (starting-ticket choice, main, second draw, tunnel payment, ticket keep; a finished game has no
  secrets that matter and comes back as a copy). Train cards: every card not in the seat's hand, on the
  market or on the table of a tunnel claim is pooled (deck, discard pile, the unknown part of each
  opponent's hand) and dealt back at random into places of the same sizes, keeping the cards each
  opponent is known to hold because the public log shows it taking them face up (less what it has paid
  since, :func:`known_cards`). Tickets: every ticket the seat has not been shown (opponents' held
  tickets and offers, the ticket deck, the starting tickets set aside, the box) is pooled by kind, long
  or regular, and dealt back into the same places, so the deck stays regular tickets only and every
  offer keeps its shape. The engine's random generator is replaced by one drawn from ``rng``, so the
  future draws are unknown too.
* :func:`sample_from_view` needs only a seat's view (what a bot receives), and builds the world from it
  in the main phase of a turn (the only phase the search bot searches).

Limits, stated so that a user can judge them: how many of an opponent's held tickets are long, and how
many starting tickets wait set aside, are kept from the real game in :func:`sample_state` (the view does
not show them; re-dealing them would need a prior over the opponents' choices); the tickets the seat
itself gave back are treated as unseen (the view does not list them); the discard pile is dealt from the
unseen cards like the deck (the view shows its size, and the payments in the log are not traced into it
across reshuffles).

Randomness comes only from the ``random.Random`` passed in: the same generator state gives the same sample.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import tracklayer.ttr.game as ttr_game
from tracklayer.core.belief import BeliefError, fresh_copy
from tracklayer.core.rng import Rng
from tracklayer.ttr.board import Board
from tracklayer.ttr.state import INITIAL, KEEP, MAIN, OVER, SECOND_DRAW, TUNNEL

SAMPLED_PHASES = (INITIAL, MAIN, SECOND_DRAW, TUNNEL, KEEP, OVER)


def parse_payment(board: Board, text: str) -> tuple[int, int, int]:
    """``"2 white + 1 locomotive"`` -> (colour or -1, n_colour, n_loco), as the public log writes it."""
    names = {board.card_name(c): c for c in range(len(board.colors) + 1)}
    color, n_color, n_loco = -1, 0, 0
    for term in text.split("+"):
        parts = term.strip().split(" ", 1)
        if len(parts) != 2 or not parts[0].isdigit():
            continue
        k, name = int(parts[0]), parts[1].strip()
        c = names.get(name)
        if c is None and name.endswith("s"):
            c = names.get(name[:-1])
        if c is None:
            continue
        if c == board.loco:
            n_loco += k
        else:
            color, n_color = c, n_color + k
    return color, n_color, n_loco


def known_cards(board: Board, log: Sequence[dict[str, Any]], hand_sizes: Sequence[int]) -> list[list[int]]:
    """Cards each seat is publicly known to hold: taken face up and not paid out since.

    Read from a view's ``log`` (every draw of a face-up card and every payment is public); a payment takes
    the known cards of its kind first, and a declined tunnel gives back what its claim took. The counts
    never exceed ``hand_sizes`` (the seats' hand sizes now).
    """
    n_cards = len(board.colors) + 1
    names = {board.card_name(c): c for c in range(n_cards)}
    n = len(hand_sizes)
    known = [[0] * n_cards for _ in range(n)]
    pending: dict[int, list[int]] = {}  # a tunnel claim's removed known cards, in case it is declined
    for entry in log:
        p, move = entry["player"], entry["move"]
        k = known[p]
        word, _, rest = move.partition(" ")
        if word == "draw":
            c = names.get(rest.strip())
            if c is not None:
                k[c] += 1
        elif word in ("claim", "station", "pay:"):
            pay = rest if word == "pay:" else rest.partition(":")[2]
            color, n_color, n_loco = parse_payment(board, pay)
            removed = [0] * n_cards
            if n_color and color >= 0:
                removed[color] = min(k[color], n_color)
            removed[board.loco] = min(k[board.loco], n_loco)
            for c, x in enumerate(removed):
                k[c] -= x
            if word == "claim":
                pending[p] = removed
        elif word == "decline" and p in pending:
            for c, x in enumerate(pending.pop(p)):
                k[c] += x
    for p in range(n):
        total = sum(known[p])
        while total > hand_sizes[p]:  # a tracking slip must never break the counts
            c = max(range(n_cards), key=lambda x: known[p][x])
            known[p][c] -= 1
            total -= 1
    return known


def sample_state(game: ttr_game.TTRGame, seat: int, rng: random.Random) -> ttr_game.TTRGame:
    """A copy of ``game`` with everything ``seat`` cannot see dealt afresh (see the module doc).

    ``sample.view(seat)`` equals ``game.view(seat)``; every card and ticket is still in exactly one place.
    """
    out = fresh_copy(game, seat, rng, SAMPLED_PHASES, "Ticket to Ride")
    s, t = game.state, out.state
    if s.phase == OVER:
        return out
    b = game.board
    n = s.n_players
    view = game.view(seat)
    known = known_cards(b, view["log"], [sum(h) for h in s.hands])
    # ---- train cards: the unseen ones, re-dealt into places of the same sizes
    pool: list[int] = list(s.deck) + list(s.discard)
    free: list[int] = [0] * n  # unknown cards per opponent
    for p in range(n):
        if p == seat:
            continue
        for c, k in enumerate(s.hands[p]):
            spare = k - known[p][c]
            pool.extend([c] * spare)
            free[p] += spare
    rng.shuffle(pool)
    for p in range(n):
        if p == seat:
            continue
        hand = list(known[p])
        for _ in range(free[p]):
            hand[pool.pop()] += 1
        t.hands[p] = hand
    t.discard = [pool.pop() for _ in range(len(s.discard))]
    t.deck = [pool.pop() for _ in range(len(s.deck))]
    # ---- tickets: those the seat has not been shown, re-dealt by kind into the same places
    tickets = game.tickets
    longs, regular = b.tickets_for(game.variant)
    seen = set(s.tickets[seat]) | set(s.offers[seat])
    places: list[list[int]] = [s.tickets[p] for p in range(n) if p != seat]
    places += [s.offers[p] for p in range(n) if p != seat]
    places += [s.ticket_deck, s.set_aside]
    in_play = {x for place in places for x in place} | seen
    box = [x for x in (*longs, *regular) if x not in in_play]
    by_kind: dict[bool, list[int]] = {True: [], False: []}
    for x in [x for place in places for x in place] + box:
        by_kind[tickets[x].long].append(x)
    for kind in by_kind.values():
        rng.shuffle(kind)

    def redeal(place: list[int]) -> list[int]:
        return [by_kind[tickets[x].long].pop() for x in place]

    for p in range(n):
        if p != seat:
            t.tickets[p] = redeal(s.tickets[p])
            t.offers[p] = redeal(s.offers[p])
    t.ticket_deck = redeal(s.ticket_deck)
    t.set_aside = redeal(s.set_aside)
    return out


def sample_from_view(view: dict[str, Any], rng: random.Random) -> ttr_game.TTRGame:
    """A complete private game that agrees with a seat's ``view`` at the start of a turn (phase main).

    What a bot has is the view alone: the game is set up anew and its state filled from the view, the
    cards the seat cannot see pooled and dealt to the hidden places (keeping every public count and the
    cards each opponent is known to hold, :func:`known_cards`), and each opponent's tickets drawn from the
    tickets the seat has not seen, as many as the view shows (long tickets where the ticket deck's size
    requires them, otherwise one with even odds). Other phases raise :class:`BeliefError`: their hidden
    offers and tunnel cards cannot be rebuilt from a view without the game.

    Many worlds from one view: :class:`ViewSampler` reads the view once (``sample_from_view(view, rng)``
    is ``ViewSampler(view).sample(rng)``, the same world from the same ``rng``).
    """
    return ViewSampler(view).sample(rng)


class ViewSampler:
    """Worlds that agree with one seat's view (see :func:`sample_from_view`): what the view says is read
    once, and each :meth:`sample` deals only what the seat cannot see. A search samples hundreds of worlds
    from the view of one move, and reading the view (its public log above all) is most of a world's cost."""

    def __init__(self, view: dict[str, Any]) -> None:
        seat = view.get("seat")
        if seat is None:
            raise BeliefError("belief sampling needs a seat's view, not a spectator's")
        if view["phase"] != MAIN:
            raise BeliefError(f"sample_from_view rebuilds the start of a turn (phase 'main'), not phase "
                              f"{view['phase']!r}: use sample_state with the game for the other phases")
        self.view = view
        self.seat: int = seat
        players = view["players"]
        self.n = n = len(players)
        # a game set up for the view's board and variant: each world is a copy of it, refilled
        self.template = g = ttr_game.new_ttr_game(view["game"], n, seed=0, variant=view["variant"])
        self.board = b = g.board
        self.n_cards = n_cards = len(b.colors) + 1
        names = {b.card_name(c): c for c in range(n_cards)}
        hand = [0] * n_cards
        for name, k in view.get("hand", {}).items():
            hand[names[name]] = k
        self.hand = hand
        self.market = market = [-1 if c is None else names[c] for c in view["market"]]
        self.cards = cards = [p["cards"] for p in players]
        self.known = known = known_cards(b, view.get("log", []), cards)

        def ticket_index(entry: dict[str, Any]) -> int:
            found = b.ticket_by_id.get(str(entry["id"]).casefold())
            if found is None:
                raise BeliefError(f"ticket {entry['id']!r} is not one of the board's tickets (a bonus ticket?)")
            return found

        self.mine = mine = [ticket_index(e) for e in view.get("tickets", [])]
        offer = [ticket_index(e) for e in view.get("offer", [])]
        # cards: everything not visible to the seat is pooled and dealt to the hidden places
        pool_counts = [b.per_color] * len(b.colors) + [b.locomotives]
        for c, k in enumerate(hand):
            pool_counts[c] -= k
        for c in market:
            if c >= 0:
                pool_counts[c] -= 1
        for p in range(n):
            if p != seat:
                for c, k in enumerate(known[p]):
                    pool_counts[c] -= k
        self.pool = [c for c, k in enumerate(pool_counts) for _ in range(max(0, k))]
        # tickets: opponents' from the tickets the seat has not seen
        longs, regular = b.tickets_for(g.variant)
        seen = set(mine) | set(offer)
        self.free_reg = [t for t in regular if t not in seen]
        self.free_long = [t for t in longs if t not in seen]
        self.n_tickets = [p["tickets"] for p in players]
        self.route_owner = [-1 if o is None else o for o in view["route_owner"]]
        station_owner = [-1] * len(b.cities)
        for city, owner in view.get("stations", {}).items():
            station_owner[b.cities.index(city)] = owner
        self.station_owner = station_owner

    def sample(self, rng: random.Random) -> ttr_game.TTRGame:
        """One world, dealt with ``rng`` (the same generator state gives the same world)."""
        view, seat, n, b, n_cards = self.view, self.seat, self.n, self.board, self.n_cards
        seed = rng.getrandbits(63)
        g = self.template.clone()
        g.seed = seed
        g._completion_memo = {}
        known, cards = self.known, self.cards
        pool = self.pool[:]
        rng.shuffle(pool)
        hands = []
        for p in range(n):
            if p == seat:
                hands.append(list(self.hand))
                continue
            h = list(known[p])
            for _ in range(cards[p] - sum(h)):
                h[pool.pop() if pool else rng.randrange(n_cards)] += 1
            hands.append(h)
        discard = [pool.pop() if pool else rng.randrange(b.loco) for _ in range(view["discard"])]
        deck = [pool.pop() if pool else rng.randrange(b.loco) for _ in range(view["deck"])]
        free_reg = self.free_reg[:]
        free_long = self.free_long[:]
        rng.shuffle(free_reg)
        rng.shuffle(free_long)
        n_tickets = self.n_tickets
        # the ticket deck's size is fixed, so opponents hold long tickets when the regular ones cannot fill
        # both the deck and their hands; otherwise each holds one with even odds
        opponents = [p for p in range(n) if p != seat and n_tickets[p]]
        short = view["ticket_deck"] + sum(n_tickets[p] for p in opponents) - len(free_reg)
        held: list[list[int]] = [list(self.mine) if p == seat else [] for p in range(n)]
        for p in sorted(opponents, key=lambda _: rng.random()):
            if free_long and (short > 0 or rng.random() < 0.5):
                held[p].append(free_long.pop())
                short -= 1
        for p in opponents:
            while len(held[p]) < n_tickets[p] and free_reg:
                held[p].append(free_reg.pop())
        players = view["players"]
        s = g.state
        s.hands = hands
        s.deck = deck
        s.discard = discard
        s.market = self.market[:]
        s.wagons = [p["wagons"] for p in players]
        s.stations_left = [p.get("stations_left", 0) for p in players]
        s.station_owner = self.station_owner[:]
        s.route_owner = self.route_owner[:]
        s.route_points = [p["route_points"] for p in players]
        s.tickets = held
        s.ticket_deck = free_reg[: view["ticket_deck"]]
        s.offers = [[] for _ in range(n)]
        s.initial_pending = []
        s.set_aside = []
        s.deal_step = 0
        s.phase = MAIN
        s.current = view["current_player"]
        s.first = view.get("first_player", 0)
        s.turn = view.get("turn", 0)
        left = view.get("final_turns_left")
        s.final_turns = -1 if left is None else left
        s.passes = 0
        s.tunnel = None
        s.last_reveal = []
        s.rng = Rng(rng.getrandbits(64))
        g.rules.resync(s)
        g._legal = None
        return g

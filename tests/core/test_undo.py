"""Taking moves back (``BaseGame.undoable`` / ``undone``): which moves reveal something new, and that a
game rebuilt without its last moves is the game from before them, RNG included.

The expectation for each move kind is written here from the rules (docs/rules-decisions.md, "Undo"),
not read from the engine's own bookkeeping, so a change to the rule fails these tests.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import tracklayer
from tracklayer.core.errors import IllegalAction


def _expect_ttr(before: Any, action: Any, after: Any) -> bool:
    """Whether a Ticket to Ride move shows anybody something new, by the rules."""
    s = before.state
    if after.is_over:
        return True  # the final scoring shows every ticket
    if action.kind == "tickets":
        return True
    if action.kind == "draw":
        # from the deck: a card nobody saw; face-up: the market is refilled from the deck (its discards
        # reshuffled when it is empty), unless both are empty
        return action.card is None or bool(s.deck) or bool(s.discard)
    if action.kind == "claim":
        return bool(before.board.routes[action.route].tunnel)  # a tunnel turns over three cards
    if action.kind == "keep":
        # a starting choice in steps (New York): the next offer of the same player is dealt
        mover = s.current
        return s.phase == "initial" and after.state.current == mover and bool(after.state.offers[mover])
    assert action.kind in ("station", "pay", "decline", "pass"), action.kind
    return False


def _expect_trans(before: Any, action: Any, after: Any) -> bool:
    if after.is_over or action.kind in ("return", "give"):  # a city changes hands or leaves a pile
        return True
    return len(after.state.history) > len(before.state.history)  # the round ended: cities shown and dealt


def _same_game(a: Any, b: Any) -> None:
    assert a.state.to_dict() == b.state.to_dict()
    assert a.state.rng.state == b.state.rng.state
    assert [str(m) for m in a.moves] == [str(m) for m in b.moves]
    assert [(p, str(m), note) for p, m, note in a.move_log] == [(p, str(m), note) for p, m, note in b.move_log]
    assert a.revealed == b.revealed
    assert [str(x) for x in a.legal_actions()] == [str(x) for x in b.legal_actions()]


def _play(game: Any, expect: Any, rng: random.Random, limit: int, kinds: dict[tuple[str, bool], int]) -> None:
    for _ in range(limit):
        if game.is_over:
            return
        before = game.clone()
        mover = game.current_player
        legal = game.legal_actions()
        action = game.apply(legal[rng.randrange(len(legal))])
        want = expect(before, action, game)
        assert game.revealed[-1] is want, (str(action), want)
        kinds[(action.kind, want)] = kinds.get((action.kind, want), 0) + 1
        if want:
            assert game.undoable(mover) == 0
            continue
        assert game.undoable(mover) == before.undoable(mover) + 1
        assert all(game.undoable(p) == 0 for p in range(game.n_players) if p != mover)
        if rng.random() > 0.3:  # rebuilding replays the whole game: a sample of the moves keeps this quick
            continue
        back = game.undone(1)
        _same_game(back, before)
        redo = back.clone()
        redo.apply(str(action))
        _same_game(redo, game)


@pytest.mark.parametrize(("name", "options", "seed"), [("ttr-europe", {}, 1), ("ttr-new-york", {}, 2)])
def test_ttr_moves_reveal_by_the_rules_and_undo_rebuilds_the_game_before_them(name: str, options: dict[str, Any],
                                                                                 seed: int) -> None:
    kinds: dict[tuple[str, bool], int] = {}
    _play(tracklayer.new_game(name, 2 + seed % 2, seed=seed, **options).track_reveals(), _expect_ttr,
          random.Random(seed), 400, kinds)
    assert kinds.get(("draw", True)) and kinds.get(("tickets", True)) and kinds.get(("keep", False))
    assert kinds.get(("claim", False))


def test_ttr_every_move_kind_is_seen() -> None:
    """Stations, tunnels and their payments occur in these seeds (so the parametrised test covers them)."""
    kinds: dict[tuple[str, bool], int] = {}
    for seed in range(5):
        _play(tracklayer.new_game("ttr-europe", 3, seed=seed).track_reveals(), _expect_ttr, random.Random(seed), 600,
              kinds)
    for kind in (("station", False), ("claim", True), ("keep", False), ("draw", True)):
        assert kinds.get(kind), (kind, kinds)
    assert kinds.get(("pay", False)) or kinds.get(("decline", False)), kinds


@pytest.mark.parametrize(("name", "cards", "seed"), [
    ("trans-america", None, 2), ("trans-europa", "each-round", 3), ("trans-europa", [16], 4),
])
def test_trans_moves_reveal_by_the_rules_and_undo_rebuilds_the_game_before_them(name: str, cards: Any,
                                                                                  seed: int) -> None:
    kinds: dict[tuple[str, bool], int] = {}
    game = tracklayer.new_game(name, 3, seed=seed, special_cards=cards).track_reveals()
    _play(game, _expect_trans, random.Random(seed), 300, kinds)
    assert kinds.get(("rail", False)) or kinds.get(("rails", False))
    assert kinds.get(("start", False))


def test_a_face_up_draw_with_empty_piles_reveals_nothing() -> None:
    g = tracklayer.new_game("ttr-europe", 2, seed=5).track_reveals()
    while g.phase == "initial":
        g.apply(g.legal_actions()[-1])
    s = g.state
    s.discard = [0] * len(s.discard)
    s.deck, s.discard = [], [0] * len(s.discard)  # no card left to refill the market from
    g._legal = None
    face_up = next(a for a in g.legal_actions() if a.kind == "draw" and a.card is not None)
    g.apply(face_up)
    assert g.revealed[-1] is False and g.undoable(g.move_log[-1][0]) == 1


def test_a_ticket_choice_is_taken_back_to_the_same_offer() -> None:
    g = tracklayer.new_game("ttr-europe", 2, seed=8).track_reveals()
    while g.phase == "initial":
        g.apply(g.legal_actions()[-1])
    p = g.current_player
    g.apply("tickets")
    offer = list(g.state.offers[p])
    assert g.undoable(p) == 0  # drawing tickets showed them
    g.apply(g.legal_actions()[0])
    assert g.undoable(p) == 1
    back = g.undone()
    assert back.state.offers[p] == offer and back.phase == "keep" and back.undoable(p) == 0


def test_a_game_keeps_no_record_until_asked_and_nothing_before_it_can_be_taken_back() -> None:
    g = tracklayer.new_game("ttr-europe", 2, seed=5)
    while g.phase == "initial":
        g.apply(g.legal_actions()[-1])
    assert g.revealed is None and g.undoable(g.move_log[-1][0]) == 0
    g.track_reveals()
    mover = g.current_player
    g.apply(next(a for a in g.legal_actions() if a.kind == "claim" and not g.board.routes[a.route].tunnel))
    assert g.revealed == [False] and g.undoable(mover) == 1


def test_undone_refuses_more_moves_than_there_are() -> None:
    g = tracklayer.new_game("ttr-europe", 2, seed=1).track_reveals()
    with pytest.raises(IllegalAction):
        g.undone(1)

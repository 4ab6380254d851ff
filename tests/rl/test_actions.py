"""The integer action encoding: the mask is exactly the legal actions, and encode/decode round-trip."""

from __future__ import annotations

import random

import numpy as np
import pytest

import tracklayer
from tracklayer.rl import make_raw_env
from tracklayer.rl.ttr_codec import TTRCodec, ttr_codec
from tracklayer.ttr.actions import NONE
from tracklayer.ttr.state import MAIN

CONFIGS = [
    ("ttr-europe", "classic", 2),
    ("ttr-europe", "classic", 5),
    ("ttr-europe", "1912", 3),
    ("ttr-europe", "mega", 4),
    ("ttr-europe", "big-cities", 2),
    ("ttr-new-york", None, 2),
    ("ttr-new-york", None, 4),
]


def random_positions(game: str, variant: str | None, n: int, seeds: range, every: int = 1):
    """Yield positions of uniformly random games (each one a live game: do not keep it)."""
    for seed in seeds:
        g = tracklayer.new_game(game, n, seed=seed, variant=variant)
        rnd = random.Random(seed)
        k = 0
        while not g.is_over:
            if k % every == 0:
                yield g
            legal = g.legal_actions()
            g.apply(legal[rnd.randrange(len(legal))])
            k += 1


@pytest.mark.parametrize(("game", "variant", "n"), CONFIGS)
def test_mask_is_the_legal_actions_and_round_trips(game: str, variant: str | None, n: int) -> None:
    codec = None
    seen_kinds: set[str] = set()
    for g in random_positions(game, variant, n, range(4)):
        codec = codec or ttr_codec(g)
        legal = list(g.legal_actions())
        idx, acts = codec.legal(g)
        assert acts == legal
        assert len(set(idx)) == len(idx), "two legal actions share an index"
        assert all(0 <= i < codec.n_actions for i in idx)
        decoded = [codec.decode(g, i) for i in idx]
        assert decoded == legal  # decode(mask indices) == legal actions, in order
        assert {str(a) for a in decoded} == {str(a) for a in legal}
        for i, a in zip(idx, legal, strict=True):
            assert codec.encode(g, a) == i
            assert codec.encode(g, g.parse(str(a))) == i  # notation -> action -> index
            seen_kinds.add(codec.block_of(i)[0])
    expected = {"draw", "tickets", "claim", "keep"} | ({"station"} if game == "ttr-europe" else set())
    assert expected <= seen_kinds


@pytest.mark.parametrize(("game", "variant", "n"), CONFIGS)
def test_block_mask_equals_the_mask_of_the_listed_actions(game: str, variant: str | None, n: int) -> None:
    """``codec.mask`` (filled from the engine's ``main_parts`` in a main-phase turn) sets exactly the
    indices of ``codec.legal`` (one action at a time), and the environment decodes each to the engine's
    legal action."""
    env = make_raw_env("ttr_europe_v2" if game == "ttr-europe" else "ttr_new_york_v1", players=n,
                       **({"variant": variant} if variant else {}))
    ep = env.episode
    main = 0
    for g in random_positions(game, variant, n, range(3)):
        codec = ttr_codec(g)
        idx, acts = codec.legal(g)
        expected = np.zeros(codec.n_actions, dtype=np.int8)
        expected[idx] = 1
        g._legal = None  # a fresh lazy ActionList, as the environment gets it
        mask = codec.mask(g)
        assert mask.dtype == np.int8 and np.array_equal(mask, expected)
        main += g.state.phase == MAIN and bool(g.rules.main_parts(g.state)[3])  # turns with claims
        ep.game = g  # the episode's caches follow the game object and its move count
        assert np.array_equal(ep.action_mask(g.current_player), expected)
        assert [ep.legal_action(i) for i in idx] == acts
        illegal = np.flatnonzero(expected == 0)[:: max(1, codec.n_actions // 50)]
        assert all(ep.legal_action(int(i)) is None for i in illegal)
    assert main > 0


def test_main_parts_expand_to_the_legal_actions() -> None:
    """The documented layout of ``Rules.main_parts`` (what the mask is filled from) expands to exactly
    the engine's legal actions, in their order once the claim groups are sorted."""
    checked = 0
    for g in random_positions("ttr-europe", "classic", 3, range(3), every=2):
        if g.state.phase != MAIN:
            continue
        t = g.table
        draws, deck, tickets, claims, stations = g.rules.main_parts(g.state)
        out = [t.draw(c) for c in draws] + [t.draw_deck] * deck + [t.draw_tickets] * tickets
        for block in sorted(claims):
            if len(block) == 6:
                _, routes, length, color, lo, hi = block
                out += [t.claim(r, NONE if nl == length else color, nl) for r in routes for nl in range(lo, hi + 1)]
            else:
                out += [t.claim(r, c, nl) for r in block[1] for c, nl in block[2]]
        if stations is not None:
            cities, cost, options = stations
            out += [t.station(city, c, cost - nl, nl) for city in cities for c, nl in options]
        assert list(g.legal_actions()) == (out or [t.pass_])
        checked += 1
    assert checked > 20


def test_europe_sees_tunnels_stations_and_pass_blocks() -> None:
    seen: set[str] = set()
    for g in random_positions("ttr-europe", "classic", 2, range(12)):
        codec = ttr_codec(g)
        idx, _ = codec.legal(g)
        seen.update(codec.block_of(i)[0] for i in idx)
    assert {"pay", "decline", "station"} <= seen


def test_action_space_sizes_are_practical() -> None:
    sizes = {}
    for game, variant, n in CONFIGS:
        g = tracklayer.new_game(game, n, seed=0, variant=variant)
        sizes[(game, variant)] = ttr_codec(g).n_actions
    assert sizes[("ttr-europe", "classic")] < 2500
    assert sizes[("ttr-europe", "mega")] < 2500
    assert sizes[("ttr-new-york", None)] < 300


def test_every_index_has_a_label_and_decode_rejects_impossible_indices() -> None:
    g = tracklayer.new_game("ttr-europe", 2, seed=3)
    codec = ttr_codec(g)
    labels = [codec.action_label(i) for i in range(codec.n_actions)]
    assert len(labels) == codec.n_actions
    assert labels[codec.action_blocks["draw"].start + codec.n_kinds] == "draw deck"
    with pytest.raises(ValueError):
        codec.decode(g, codec.n_actions)
    with pytest.raises(ValueError):
        codec.action_label(-1)
    # the initial offer has 4 tickets: a keep of position 5+ cannot be a move
    keep = codec.action_blocks["keep"]
    assert codec.offer_size == 4 and len(keep) == 15
    # no tunnel waiting: a tunnel payment index decodes to nothing
    with pytest.raises(ValueError):
        codec.decode(g, codec.action_blocks["pay"].start)


def test_keep_is_a_bitmask_over_offer_positions() -> None:
    g = tracklayer.new_game("ttr-europe", 2, seed=11)
    codec = ttr_codec(g)
    offer = g.view(0)["offer"]
    keep0 = codec.action_blocks["keep"].start
    action = codec.decode(g, keep0 + 0b0101 - 1)  # positions 1 and 3
    assert set(action.tickets) == {g.board.ticket_by_id[offer[0]["id"].casefold()],
                                   g.board.ticket_by_id[offer[2]["id"].casefold()]}
    assert codec.encode(g, action) == keep0 + 0b0101 - 1


def test_station_and_claim_encodings_share_one_index_across_payments() -> None:
    g = tracklayer.new_game("ttr-europe", 2, seed=5)
    codec = ttr_codec(g)
    table = g.board.actions
    city = g.board.cities.index("Berlin")
    # the same (city, colour, n_loco) slot means the 1st, 2nd or 3rd station alike
    first = codec.encode(g, table.station(city, 0, 1, 0))
    second = codec.encode(g, table.station(city, 0, 2, 0))
    third = codec.encode(g, table.station(city, 0, 3, 0))
    assert first == second == third
    assert codec.encode(g, table.station(city, -1, 0, 1)) == codec.encode(g, table.station(city, -1, 0, 3))
    assert codec.action_label(first) == "station Berlin: pink + 0 locomotive"


def test_env_step_plays_the_decoded_move() -> None:
    env = make_raw_env("ttr_europe_v2")
    env.reset(seed=9)
    rng = np.random.default_rng(0)
    for _ in range(80):
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        i = int(rng.choice(np.flatnonzero(mask)))
        decoded = env.codec.decode(env.game, i)
        assert env.action_text(i) == str(decoded)
        assert env.episode.legal_action(i) == decoded
        env.step(i)
        recorded = env.game.moves[-1]
        if recorded.kind == "claim":  # identical lanes are recorded as the first free one
            routes = env.game.board.routes
            assert routes[recorded.route].identical_to == routes[decoded.route].identical_to
        else:
            assert recorded == decoded


def test_codec_is_shared_per_board_variant_and_player_count() -> None:
    a = tracklayer.new_game("ttr-europe", 2, seed=1)
    b = tracklayer.new_game("ttr-europe", 2, seed=2)
    c = tracklayer.new_game("ttr-europe", 3, seed=2)
    assert ttr_codec(a) is ttr_codec(b)
    assert ttr_codec(a) is not ttr_codec(c)
    assert isinstance(ttr_codec(c), TTRCodec)


def test_mega_keep_block_has_keep_none_and_the_largest_single_offer() -> None:
    # ttr_europe_v2: Mega's starting deal is two offers (2 long, then 5 regular), so P is 5 (was 7) and the
    # keep block starts with "keep none" (return both long tickets); every other layout is as in v1
    sizes = {}
    for game, variant, n in CONFIGS:
        sizes[(game, variant)] = ttr_codec(tracklayer.new_game(game, n, seed=0, variant=variant)).n_actions
    assert sizes[("ttr-europe", "classic")] == sizes[("ttr-europe", "1912")] == 2326
    assert sizes[("ttr-europe", "big-cities")] == 2326 - 15 + 31
    assert sizes[("ttr-new-york", None)] == 238
    assert sizes[("ttr-europe", "mega")] == 2326 - 15 + 32
    g = tracklayer.new_game("ttr-europe", 3, seed=5, variant="mega")
    codec = ttr_codec(g)
    keep = codec.action_blocks["keep"]
    assert codec.offer_size == 5 and codec.keep_none and len(keep) == 32
    assert codec.action_label(keep.start) == "keep none" and codec.action_label(keep.start + 1) == \
        "keep offer position(s) 1"
    idx, acts = codec.legal(g)
    assert str(acts[0]) == "keep none" and idx == [keep.start, keep.start + 1, keep.start + 2]
    assert codec.decode(g, keep.start) == g.table.keep(())
    assert codec.encode(g, g.parse("keep none")) == keep.start
    mask = codec.mask(g)
    assert list(np.flatnonzero(mask)) == idx
    g.apply(acts[1])  # one long ticket kept: now the 5 regular ones, keep at least 2
    idx, acts = codec.legal(g)
    assert len(idx) == 26 and min(idx) > keep.start and max(idx) == keep.stop - 1  # keep all 5
    assert codec.decode(g, keep.start) == g.table.keep(()) and keep.start not in idx  # decodes; not legal here
    classic = ttr_codec(tracklayer.new_game("ttr-europe", 2, seed=0))
    assert not classic.keep_none
    with pytest.raises(ValueError, match="not a ticket choice"):
        classic.encode(tracklayer.new_game("ttr-europe", 2, seed=0), classic.board.actions.keep(()))


def test_the_retired_europe_environment_says_what_replaced_it() -> None:
    from tracklayer.rl import get_spec

    with pytest.raises(KeyError, match="replaced by ttr_europe_v2"):
        get_spec("ttr_europe_v1")

"""Bots: they see only views, replay from their seeds, play whole games legally, and ignore secrets."""

from __future__ import annotations

import inspect
import json
import random

import pytest

import tracklayer
from tracklayer.bots import BOTS, Budget, RandomBot, bot_names, make_bot, play_game, resolve_bot
from tracklayer.bots.trans_bots import LookaheadBot
from tracklayer.bots.ttr_common import Obs
from tracklayer.bots.ttr_heuristic import HeuristicBot
from tracklayer.bots.ttr_mcts import MCTSBot, known_cards
from tracklayer.core.errors import IllegalAction, TracklayerError

TTR_BOTS = ["random", "greedy", "routes", "hungry", "longroute", "planner", "mcts"]
TINY = Budget(iterations=6)


class JsonOnly:
    """Hands a bot a JSON round trip of the view and a plain list: all a bot may rely on."""

    def __init__(self, bot: object) -> None:
        self.bot = bot
        self.calls = 0

    def choose(self, view: dict, legal: list, budget: Budget | None = None) -> object:
        self.calls += 1
        return self.bot.choose(json.loads(json.dumps(view)), list(legal), budget)


def _fast_mcts(seed: object) -> MCTSBot:
    # search at every main-phase move (not only near the end) so the search itself is exercised
    return MCTSBot(seed, iterations=6, endgame=1000, candidates=3)


# ---------------------------------------------------------------------------- interface


def test_registry_names_and_default_bot() -> None:
    names = set(bot_names())
    assert {"random", "bot", "greedy", "routes", "hungry", "longroute", "planner", "mcts", "steiner",
            "lookahead"} <= names
    assert isinstance(make_bot("bot", 1), RandomBot)  # the terminal UI's default stays the random bot
    assert resolve_bot("Route-Focused") == "routes" and resolve_bot("ISMCTS") == "mcts"
    with pytest.raises(TracklayerError, match="unknown bot"):
        make_bot("grandmaster", 1)


@pytest.mark.parametrize("name", sorted(BOTS))
def test_choose_takes_only_view_legal_budget(name: str) -> None:
    """Structural: the one way to ask a bot is choose(view, legal, budget); nothing else is passed."""
    bot = make_bot(name, 0)
    params = list(inspect.signature(bot.choose).parameters)
    assert params == ["view", "legal", "budget"]
    g = tracklayer.new_game("ttr-new-york", 2, seed=1)
    seat = g.current_player
    action = bot.choose(g.view(seat), g.legal_actions(), TINY)
    assert action in g.legal_actions()


def test_play_game_gives_bots_only_their_own_view() -> None:
    g = tracklayer.new_game("ttr-europe", 3, seed=4)
    seen: list[tuple[int, int | None]] = []

    class Spy:
        def __init__(self, seat: int) -> None:
            self.seat = seat
            self.inner = HeuristicBot(seat, "planner")

        def choose(self, view: dict, legal: object, budget: Budget | None = None) -> object:
            seen.append((self.seat, view["seat"]))
            assert "deck_order" not in view and "hands" not in view
            return self.inner.choose(view, legal, budget)

    play_game(g, [Spy(0), Spy(1), Spy(2)])
    assert g.is_over and seen and all(mine == got for mine, got in seen)


def test_a_bot_that_reads_no_view_is_given_none_and_plays_the_same() -> None:
    """``needs_view = False`` (the random bot) skips building the view; the moves do not change."""
    views: list[dict] = []

    class Recorder(RandomBot):
        def choose(self, view: dict, legal: object, budget: object = None) -> object:
            views.append(view)
            return super().choose(view, legal, budget)

    class Viewer(Recorder):
        needs_view = True

    games = []
    for cls in (Recorder, Viewer):
        g = tracklayer.new_game("ttr-new-york", 2, seed=8)
        play_game(g, [cls(1), cls(2)])
        games.append([str(m) for m in g.moves])
    n = len(games[0])
    assert games[0] == games[1]
    assert all(v == {} for v in views[:n]) and all(v.get("seat") in (0, 1) for v in views[n:])


def test_a_bot_cannot_sneak_an_illegal_move() -> None:
    class Cheater:
        def choose(self, view: dict, legal: object, budget: object = None) -> object:
            return "claim Paris-Frankfurt/white: 3 white"  # text, not one of the legal actions

    g = tracklayer.new_game("ttr-europe", 2, seed=1)
    with pytest.raises(IllegalAction, match="not legal"):
        play_game(g, [Cheater(), Cheater()])


def test_budget_parsing() -> None:
    assert Budget.parse("0.5s") == Budget(seconds=0.5)
    assert Budget.parse("200i") == Budget(iterations=200)
    assert Budget.parse("200it") == Budget(iterations=200)
    assert Budget.parse(2) == Budget(seconds=2.0)
    assert Budget.parse(None) is None


# ---------------------------------------------------------------------------- whole games


@pytest.mark.parametrize(("game", "variant", "n"), [
    ("ttr-europe", "classic", 2), ("ttr-europe", "1912", 3), ("ttr-europe", "mega", 4),
    ("ttr-europe", "big-cities", 5), ("ttr-new-york", None, 2), ("ttr-new-york", None, 4),
])
def test_every_ttr_bot_plays_complete_games(game: str, variant: str | None, n: int) -> None:
    for start in range(0, len(TTR_BOTS), n):  # every bot plays at least one game of each variant
        lineup = [TTR_BOTS[(start + i) % len(TTR_BOTS)] for i in range(n)]
        g = tracklayer.new_game(game, n, seed=start + 17, variant=variant)
        bots = [JsonOnly(_fast_mcts(i) if b == "mcts" else make_bot(b, i)) for i, b in enumerate(lineup)]
        play_game(g, bots, TINY)
        assert g.is_over
        assert g.result()["final"]
        assert all(b.calls for b in bots)


@pytest.mark.parametrize("name", [*TTR_BOTS, "lookahead", "one-step"])
def test_every_ttr_bot_makes_megas_two_step_starting_choice(name: str) -> None:
    # first the long tickets alone (keep one or none), then the regular ones with the rule that follows
    g = tracklayer.new_game("ttr-europe", 3, seed=31, variant="mega")
    bot = JsonOnly(_fast_mcts(0) if name == "mcts" else make_bot(name, 0))
    first = bot.choose(g.view(0), g.legal_actions())
    assert first in g.legal_actions() and len(first.tickets) <= 1
    g.apply(first)
    second = bot.choose(g.view(0), g.legal_actions())
    assert second in g.legal_actions() and len(second.tickets) >= (2 if first.tickets else 3)


def test_planner_keeps_a_long_ticket_it_can_build_with_the_regular_ones_and_none_otherwise() -> None:
    kept = []
    for seed in range(4):
        g = tracklayer.new_game("ttr-europe", 3, seed=seed, variant="mega")
        full = make_bot("planner", 0).choose(g.view(0), g.legal_actions())
        kept.append(len(full.tickets))
        g.state.wagons[0] = 12  # not even the long ticket alone fits: keep none, take 3 short ones
        assert make_bot("planner", 0).choose(g.view(0), g.legal_actions()) == g.table.keep(())
    assert kept == [1, 1, 1, 1]


@pytest.mark.parametrize("game", ["trans-europa", "trans-america"])
def test_every_trans_bot_plays_complete_games(game: str) -> None:
    g = tracklayer.new_game(game, 3, seed=5)
    bots = [JsonOnly(make_bot(b, i)) for i, b in enumerate(["steiner", "random", "planner"])]
    play_game(g, bots)
    assert g.is_over and g.result()["final"]
    winners = g.result()["winners"]
    assert g.players[1] not in winners  # the random bot does not beat two Steiner builders


def test_trans_lookahead_bot_plays_a_game() -> None:
    g = tracklayer.new_game("trans-america", 2, seed=2)
    play_game(g, [JsonOnly(LookaheadBot(1, samples=1)), JsonOnly(make_bot("steiner", 2))])
    assert g.is_over


@pytest.mark.parametrize("name", ["greedy", "planner", "hungry", "mcts", "steiner"])
def test_bots_replay_from_their_seeds(name: str) -> None:
    game = "trans-america" if name == "steiner" else "ttr-new-york"

    def run() -> list[str]:
        g = tracklayer.new_game(game, 2, seed=9)
        mk = (lambda s: _fast_mcts(s)) if name == "mcts" else (lambda s: make_bot(name, s))
        play_game(g, [mk(1), mk(2)], TINY)
        return [str(a) for a in g.moves]

    assert run() == run()


def test_bots_handle_user_bonus_tickets() -> None:
    extra = [("Lisboa", "Moskva", 30, "europe"), ("Edinburgh", "Athina", 25, "europe")] * 1
    g = tracklayer.new_game("ttr-europe", 2, seed=3, extra_tickets=extra)
    g.state.offers[0].append(len(g.board.tickets) - 1)  # deal seat 0 a bonus ticket to choose from
    play_game(g, [JsonOnly(_fast_mcts(1)), JsonOnly(make_bot("planner", 2))], TINY)
    assert g.is_over


def test_planner_beats_random_and_greedy_in_new_york() -> None:
    wins = 0
    for seed in range(6):
        seats = ["planner", "random"] if seed % 2 == 0 else ["random", "planner"]
        g = tracklayer.new_game("ttr-new-york", seats, seed=seed)
        play_game(g, [make_bot(s, seed) for s in seats])
        wins += "planner" in g.result()["winners"]
    assert wins == 6


# ---------------------------------------------------------------------------- hidden information


def _late_position(seed: int = 3) -> tracklayer.core.game.BaseGame:  # type: ignore[name-defined]
    """A 2-player Europe game late enough for the search to run, seat 0 to start a turn."""
    g = tracklayer.new_game("ttr-europe", 2, seed=seed)
    bots = [HeuristicBot(0, "planner"), HeuristicBot(1, "planner")]
    while not (min(g.state.wagons) <= 14 and g.current_player == 0 and g.phase == "main"):
        s = g.current_player
        g.apply(bots[s].choose(g.view(s), g.legal_actions()))
    return g


def _hide_differently(g: object, rng: random.Random) -> object:
    """Same view for seat 0, different secrets: the deck order, seat 1's hidden cards and tickets."""
    h = g.clone()  # type: ignore[attr-defined]
    s = h.state
    known = known_cards(Obs.from_view(g.view(0)))[1]  # type: ignore[attr-defined]
    deck = s.deck
    rng.shuffle(deck)
    hand = s.hands[1]
    for c in range(len(hand)):  # swap seat 1's unknown cards with deck cards of other colours
        spare = hand[c] - known[c]
        for _ in range(spare):
            j = next((j for j, d in enumerate(deck) if d != c), None)
            if j is None:
                break
            hand[c] -= 1
            hand[deck[j]] += 1
            deck[j] = c
    tix = s.tickets[1]
    if s.ticket_deck and tix:
        k = rng.randrange(len(tix))
        tix[k], s.ticket_deck[-1] = s.ticket_deck[-1], tix[k]
    return h


def test_same_view_different_secrets_same_choice() -> None:
    g = _late_position()
    h = _hide_differently(g, random.Random(1))
    assert g.view(0) == h.view(0)
    assert g.state.hands[1] != h.state.hands[1] or g.state.tickets[1] != h.state.tickets[1]
    assert g.state.deck != h.state.deck
    for name in TTR_BOTS:
        mk = (lambda: MCTSBot(5, iterations=30, endgame=1000)) if name == "mcts" else (lambda n=name: make_bot(n, 5))
        a = mk().choose(g.view(0), g.legal_actions(), None)
        b = mk().choose(h.view(0), h.legal_actions(), None)
        assert a == b, name


def test_search_worlds_agree_with_the_view() -> None:
    """Every world the search samples shows seat 0 exactly what the real game shows."""
    g = _late_position(seed=8)
    view = g.view(0)
    obs = Obs.from_view(view)
    bot = MCTSBot(1)
    known = known_cards(obs)
    rng = random.Random(3)
    public = ("hand", "market", "deck", "discard", "ticket_deck", "route_owner", "stations", "tickets", "turn",
              "final_round")
    for _ in range(5):
        world = bot.sample_world(obs, rng)
        wv = world.view(0)
        for key in public:
            assert wv[key] == view[key], key
        for mine, real in zip(wv["players"], view["players"], strict=True):
            for key in ("wagons", "cards", "tickets", "routes", "stations_left", "route_points"):
                assert mine[key] == real[key], key
        for p in (1,):  # cards seat 1 took face up and still holds are in its sampled hand
            assert all(world.state.hands[p][c] >= k for c, k in enumerate(known[p]))
        assert sorted(world.legal_actions(), key=str) == sorted(g.legal_actions(), key=str)


def test_known_cards_follow_face_up_draws_and_payments() -> None:
    g = tracklayer.new_game("ttr-europe", 2, seed=2)
    bots = [HeuristicBot(0, "planner"), HeuristicBot(1, "planner")]
    for _ in range(120):
        if g.is_over:
            break
        s = g.current_player
        g.apply(bots[s].choose(g.view(s), g.legal_actions()))
        obs = Obs.from_view(g.view(0))
        known = known_cards(obs)
        assert all(g.state.hands[1][c] >= k for c, k in enumerate(known[1]))

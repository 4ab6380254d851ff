"""Terminal play driven by scripted input: whole games, commands, errors, secrecy, quitting, the CLI."""

from __future__ import annotations

import io
import itertools
import os
import random
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

import tracklayer
from tests import waits
from tracklayer.bots import RandomBot, bot_names, make_bot
from tracklayer.core.errors import IllegalAction, TracklayerError
from tracklayer.tui.play import bot_kind, play_terminal, seat_names

ROOT = Path(__file__).resolve().parents[1]


def console() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, width=100, color_system=None, force_terminal=False), buf


def script(lines: Iterable[str], limit: int = 5000) -> Callable[[str], str]:
    """An input function answering ``lines`` in order; running out means the player walked away (EOF)."""
    it = iter(lines)
    calls = itertools.count()

    def answer(prompt: str) -> str:
        if next(calls) >= limit:
            raise AssertionError("the scripted game did not end")
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return answer


# ---------------------------------------------------------------------------- bots


def test_random_bot_is_seeded_and_picks_legal_moves() -> None:
    game = tracklayer.new_game("ttr-europe", ["a", "b", "c"], seed=11)
    bots = [RandomBot(seed=7), RandomBot(seed=7)]
    while not game.is_over:
        view, legal = game.view(game.current_player), game.legal_actions()
        a, b = bots[0].choose(view, legal), bots[1].choose(view, legal)
        assert a == b and a in legal
        game.apply(a)
    assert game.result()["winners"]


def test_bot_registry() -> None:
    assert {"bot", "random"} <= set(bot_names())
    assert isinstance(make_bot("bot", 1), RandomBot)
    assert isinstance(make_bot("Random", 1), RandomBot)
    with pytest.raises(TracklayerError, match="unknown bot"):
        make_bot("grandmaster", 1)


def test_seats_name_bots_and_humans() -> None:
    assert [bot_kind(s) for s in ["you", "bot", "BOT2", "random", "bot 3", "Botond", "robot"]] == [
        None, "random", "random", "random", "random", None, None]
    assert seat_names(["you", "bot", "bot"]) == ["you", "bot 1", "bot 2"]
    assert seat_names(["Ann", "bot2", "bot"]) == ["Ann", "bot2", "bot 1"]


# ---------------------------------------------------------------------------- whole games


@pytest.mark.parametrize(("name", "seats", "seed"), [
    ("ttr-new-york", ["you", "bot"], 3),
    ("ttr-europe", ["you", "bot", "bot"], 5),
])
def test_numbered_moves_play_a_whole_game(name: str, seats: list[str], seed: int) -> None:
    con, buf = console()
    game = play_terminal(name, seats, seed=seed, console=con, input_fn=script(itertools.cycle(["moves", "1"])))
    out = buf.getvalue()
    assert game.is_over
    assert "Final scores" in out and "Winner" in out
    assert "Since your last turn:" in out and "bot 1:" in out
    assert "Game abandoned" not in out


def test_help_moves_errors_and_then_play_on() -> None:
    probe = tracklayer.new_game("ttr-europe", ["you", "bot 1"], seed=1)
    with pytest.raises(IllegalAction) as bad_route:
        probe.apply("claim Paris-Wien")
    with pytest.raises(IllegalAction) as too_early:
        probe.apply("draw deck")
    con, buf = console()
    game = play_terminal("ttr-europe", ["you", "bot"], seed=1, console=con, input_fn=script([
        "help", "moves", "claim Paris-Wien", "draw deck", "1", "keep all", "draw deck", "draw deck",
        "moves claim", "map Paris", "tickets", "status", "quit"]))
    out = buf.getvalue()
    assert "Commands" in out and "Keep tickets (11)" in out
    assert str(bad_route.value) in out and str(too_early.value) in out
    assert "✓ keep" in out and "✓ draw deck" in out and "you drew" in out
    assert "Free routes matching 'Paris'" in out
    assert "Game abandoned. Bye!" in out
    mine = [e["move"] for e in game.view(0)["log"] if e["player"] == 0]
    assert mine[0].startswith("keep ") and mine[1:3] == ["draw deck", "draw deck"]
    assert not game.is_over


def test_numbers_need_a_listing_and_tickets_command_does_not_draw() -> None:
    con, buf = console()
    game = play_terminal("ttr-new-york", ["you", "bot"], seed=2, console=con, input_fn=script([
        "keep all", "1", "moves", "99", "tickets", "moves tickets", "1", "quit"]))
    out = buf.getvalue()
    assert "type 'moves' first" in out
    assert "No move 99" in out
    assert "to draw new destination tickets, type 'draw tickets'" in out
    # "tickets" only showed them; the numbered "draw tickets" then drew and left the player choosing
    assert game.phase == "keep" and game.current_player == 0
    assert "Tickets offered" in out.split("✓ draw tickets")[1]


def test_others_tickets_never_shown() -> None:
    con, buf = console()
    game = play_terminal("ttr-europe", ["you", "bot", "bot"], seed=9, console=con,
                         input_fn=script(["keep all"] + ["draw deck"] * 30 + ["quit"]))
    out = buf.getvalue()
    assert "keep 2 tickets" in out or "keep 3 tickets" in out or "keep 4 tickets" in out
    mine = [t["id"] for t in game.view(0)["tickets"]]
    assert all(t in out for t in mine)
    for bot in (1, 2):
        hidden = [t["id"] for t in game.view(bot)["tickets"]]
        assert hidden
        assert not any(t in out for t in hidden)


def test_a_tunnel_shows_the_reveal_and_the_payments() -> None:
    def tunnel_ahead(game: Any, action: Any) -> bool:
        if action.kind != "claim" or not game.board.routes[action.route].tunnel:
            return False
        trial = game.clone()
        trial.apply(action)
        return trial.phase == "tunnel" and len(trial.legal_actions()) > 1

    game, claim = _position(tunnel_ahead)
    con, buf = console()
    play_terminal(game, ["you", "bot"], console=con, input_fn=script([str(claim), "status", "quit"]))
    out = buf.getvalue()
    assert f"Tunnel {game.view(0)['tunnel']['route']}" in out
    assert "revealed" in out and "Pay for the tunnel" in out and "decline" in out


def test_an_ambiguous_claim_lists_the_payments_by_number() -> None:
    def ambiguous(game: Any, action: Any) -> bool:
        if action.kind != "claim":
            return False
        route = str(action).split(":")[0]
        return sum(1 for a in game.legal_actions() if str(a).split(":")[0] == route) > 1

    game, claim = _position(ambiguous)
    route = str(claim).split(":")[0]
    con, buf = console()
    play_terminal(game, ["you", "bot"], console=con, input_fn=script([route, "1", "quit"]))
    out = buf.getvalue()
    assert "can be paid in" in out and "  1 claim " in out
    mine = [e["move"] for e in game.view(0)["log"] if e["player"] == 0]
    assert route in out.split("✓ ")[1] and any(m.startswith(route + ":") for m in mine)


def _position(wanted: Callable[[Any, Any], bool]) -> tuple[Any, Any]:
    """A two-player Europe game at seat 0's main turn with a legal action ``wanted(game, action)``."""
    for seed in range(300):
        game = tracklayer.new_game("ttr-europe", ["you", "bot 1"], seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            legal = game.legal_actions()
            if game.current_player == 0 and game.phase == "main":
                found = next((a for a in legal if wanted(game, a)), None)
                if found is not None:
                    return game, found
            game.apply(legal[rng.randrange(len(legal))])
    raise AssertionError("no such position found")


def test_hot_seat_asks_to_pass_the_terminal() -> None:
    con, buf = console()
    play_terminal("ttr-new-york", ["Ann", "Bob", "bot"], seed=4, console=con,
                  input_fn=script(["", "keep all", "", "keep all", "quit"]))
    out = buf.getvalue()
    assert "Ann, your turn: press Enter" in out and "Bob, your turn: press Enter" in out
    assert "Ann: keep 2 tickets" in out  # Bob sees that Ann kept tickets, not which


def test_bots_only_game_prints_each_turn_and_the_result() -> None:
    con, buf = console()
    game = play_terminal("ttr-new-york", ["bot", "random"], seed=6, console=con)
    out = buf.getvalue()
    assert game.is_over and "Final scores" in out and "bot 1: keep" in out


@pytest.mark.parametrize("stop", [EOFError, KeyboardInterrupt])
def test_eof_and_ctrl_c_end_quietly(stop: type[BaseException]) -> None:
    def walk_away(prompt: str) -> str:
        raise stop

    con, buf = console()
    game = play_terminal("ttr-europe", ["you", "bot"], seed=1, console=con, input_fn=walk_away)
    assert "Game abandoned. Bye!" in buf.getvalue()
    assert game.phase == "initial"


def test_bad_arguments_raise_tracklayer_errors() -> None:
    con, _ = console()
    with pytest.raises(TracklayerError, match="unknown game"):
        play_terminal("ttr-atlantis", ["you", "bot"], seed=1, console=con)
    with pytest.raises(IllegalAction, match="2-5 players"):
        play_terminal("ttr-europe", ["you"], seed=1, console=con)
    with pytest.raises(IllegalAction, match="seats"):
        play_terminal(tracklayer.new_game("ttr-europe", 3, seed=1), ["you", "bot"], console=con)


# ---------------------------------------------------------------------------- the real command


def _cli(stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([sys.executable, "-m", "tracklayer.cli", "play", *args], input=stdin, text=True,
                          capture_output=True, cwd=ROOT, env=env, timeout=waits.scaled(60), check=False)


def test_cli_plays_a_piped_game_to_the_end() -> None:
    done = _cli("moves\n1\n" * 400 + "quit\n", "ttr-new-york", "--players", "you,bot", "--seed", "3")
    assert done.returncode == 0, done.stderr
    assert "Final scores" in done.stdout and "Winner" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_cli_quit_and_eof_exit_zero_and_bad_game_exits_two() -> None:
    quit_ = _cli("keep all\nquit\n", "ttr-new-york", "--players", "you,bot", "--seed", "3")
    eof = _cli("keep all\n", "ttr-europe", "--players", "you,bot,bot", "--seed", "5")
    bad = _cli("", "ttr-atlantis")
    assert quit_.returncode == 0 and "Game abandoned" in quit_.stdout
    assert eof.returncode == 0 and "Game abandoned" in eof.stdout and "Traceback" not in eof.stderr
    assert bad.returncode == 2 and "unknown game" in bad.stderr


def test_mega_starting_choice_in_two_steps() -> None:
    # first the 2 long tickets (keep one or none), and only then the 5 regular ones, with their rule
    con, buf = console()
    game = play_terminal("ttr-europe", ["you", "bot"], seed=4, variant="mega", console=con,
                         input_fn=script(["keep all", "keep none", "keep all", "quit"]))
    out = buf.getvalue()
    first, second = out.split("✓ keep none")
    assert "Keep at most 1 long ticket, or none" in first and "'keep none'" in first
    assert "at most 1 long" in first  # 'keep all' of both long tickets was refused
    assert "Keep at least 3" in second
    assert len(game.state.tickets[0]) == 5 and not any(game.board.tickets[t].long for t in game.state.tickets[0])

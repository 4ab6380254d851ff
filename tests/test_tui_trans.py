"""Trans Europa / Trans America in the terminal: whole scripted games, secrecy, errors, the board, the CLI."""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

import tracklayer
from tests import waits
from tracklayer.core.errors import IllegalAction, TracklayerError
from tracklayer.tui import trans_render as tr
from tracklayer.tui.play import play_terminal
from tracklayer.tui.trans_simple_bot import TransSimpleBot

ROOT = Path(__file__).resolve().parents[1]


def console(width: int = 120) -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, width=width, color_system=None, force_terminal=False), buf


def script(lines: Iterable[str], limit: int = 3000) -> Callable[[str], str]:
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


def numbered() -> Callable[[str], str]:
    return script(itertools.cycle(["moves", "1"]))


def rendered(renderable: object, width: int = 120) -> str:
    con, buf = console(width)
    con.print(renderable)
    return buf.getvalue()


def per_round(out: str, game: Any) -> list[str]:
    """What the human saw during each round, without the round results (which reveal every city)."""
    rounds = game.view(0)["rounds"]
    for r in rounds:
        block = rendered(tr.round_block(r))
        assert block in out
        out = out.replace(block, f"<round {r['round']} result>\n")
    parts = out.split(" result>\n")
    assert len(parts) == len(rounds) + 1
    return parts[:-1]


# ---------------------------------------------------------------------------- whole games


@pytest.fixture(scope="module")
def full_game() -> tuple[Any, str]:
    """One whole Trans America game, 2 players, the human choosing by number from 'moves'."""
    con, buf = console()
    game = play_terminal("trans-america", ["you", "bot"], seed=3, console=con, input_fn=numbered())
    return game, buf.getvalue()


def test_numbered_moves_play_a_whole_trans_america_game(full_game: tuple[Any, str]) -> None:
    game, out = full_game
    assert game.is_over
    assert "Round 1 ends" in out and "Final scores" in out and "Winner" in out
    assert "Since your last turn:" in out and "bot 1: start" in out
    assert "Game abandoned" not in out
    result = game.result()
    for p in result["players"]:  # per-round cells: "✔ joined +4 = 4" or "9 missing +0 = 0"
        for missing, prestige, total in zip(p["missing_rails"], p["prestige_per_round"],
                                            itertools.accumulate(p["prestige_per_round"]), strict=True):
            how = "✔ joined" if missing == 0 else f"{missing} missing"
            assert f"{how} +{prestige} = {total}" in out
    assert f"Winner: {result['winners'][0]}" in out


def test_the_human_never_sees_the_bots_cities(full_game: tuple[Any, str]) -> None:
    game, out = full_game
    rounds = game.result()["rounds"]
    assert game.is_over and len(rounds) >= 2
    for seen, record in zip(per_round(out, game), rounds, strict=True):
        mine, theirs = record["players"][0]["cities"], record["players"][1]["cities"]
        assert all(name in seen for name in mine)  # the human's own cities are on the screen
        assert not [name for name in theirs if name in seen], f"round {record['round']} shows bot cities"
        assert all(name in out for name in theirs)  # ... revealed with the round's result


def test_cities_a_special_card_turns_face_up_are_shown_and_no_others() -> None:
    con, buf = console()
    game = play_terminal("trans-europa", ["you", "bot"], seed=5, console=con, special_cards=[10],
                         input_fn=script(["status", "quit"]))
    out = buf.getvalue()
    view = game.view(0)
    opened = view["players"][1]["open_cities"]
    hidden = [n for n in game.board.city_names(game.state.hands[1]) if n not in opened]
    assert len(opened) == 2 and len(hidden) == 3
    assert "Face-up cities of others: bot 1:" in out and all(name in out for name in opened)
    assert not [n for n in hidden if n in out]


def test_hot_seat_hides_each_hand() -> None:
    con, buf = console()
    game = play_terminal("trans-america", ["Ann", "Bob", "bot"], seed=4, console=con,
                         input_fn=script(["", "moves", "1", "", "moves", "1", "", "quit"]))
    out = buf.getvalue()
    ann, bob = (game.board.city_names(game.state.hands[p]) for p in (0, 1))
    assert "Ann, your turn: press Enter" in out and "Bob, your turn: press Enter" in out
    bobs_screen = out[out.index("Bob, your turn"):out.rindex("Ann, your turn")]
    anns_screen = out[:out.index("Bob, your turn")]
    assert all(n in bobs_screen for n in bob) and not [n for n in ann if n in bobs_screen]
    assert all(n in anns_screen for n in ann) and not [n for n in bob if n in anns_screen]


def test_bots_only_game_prints_rounds_and_the_result() -> None:
    con, buf = console()
    game = play_terminal("trans-america", ["bot", "bot"], seed=2, console=con)
    out = buf.getvalue()
    assert game.is_over and "bots only" in out and "Round 1 ends" in out and "Final scores" in out


# ---------------------------------------------------------------------------- commands and errors


def test_bad_moves_print_the_engine_message_and_play_goes_on() -> None:
    probe = tracklayer.new_game("trans-america", ["you", "bot 1"], seed=1)
    messages = []
    for text in ["rail 10,8-12,8", "end"]:  # not yet: start markers first
        with pytest.raises(IllegalAction) as exc:
            probe.apply(text)
        messages.append(str(exc.value))
    with pytest.raises(TracklayerError) as exc:
        probe.apply("start 0,0")  # not a point of the board
    messages.append(str(exc.value))
    probe.apply("start Seattle")
    con, buf = console()
    game = play_terminal("trans-america", ["you", "bot"], seed=1, console=con, input_fn=script(
        ["rail 10,8-12,8", "end", "start 0,0", "frobnicate", "start Seattle", "quit"]))
    out = buf.getvalue()
    for message in messages:
        assert f"✘ {message}" in out
    assert "Type 'help' for commands" in out
    assert "✓ start 2,0  (Seattle)" in out and "Game abandoned. Bye!" in out
    assert game.state.markers[0] == probe.state.markers[0]
    # during the rails: a line that does not touch the network, 'end' before a rail
    while game.current_player != 0:
        game.apply(TransSimpleBot(1).choose(game.view(game.current_player), game.legal_actions()))
    far = f"rail {game.board.edge_text(game.board.n_edges - 1)}"  # the south-east corner, far from Seattle
    expected = []
    for text in [far, "end"]:
        with pytest.raises(IllegalAction) as exc:
            game.clone().apply(text)
        expected.append(str(exc.value))
    con, buf = console()
    play_terminal(game, ["you", "bot"], console=con, input_fn=script([far, "end", "quit"]))
    out = buf.getvalue()
    assert "does not touch your network" in expected[0]
    for message in expected:
        assert f"✘ {message}" in out


def test_help_moves_hint_cities_map_and_numbers() -> None:
    con, buf = console()
    game = play_terminal("trans-europa", ["you", "bot", "bot"], seed=5, console=con, input_fn=script([
        "help", "1", "moves", "99", "moves start", "3", "hint", "moves", "cities orange", "map", "1", "quit"]))
    out = buf.getvalue()
    assert "Commands" in out and "start Madrid" in out
    assert "type 'moves' first" in out and "No move 99" in out
    assert "Place your start marker (" in out and "(yours)" in out
    assert "Hints on" in out and "A shortest way:" in out and "★" in out
    assert "Cities matching 'orange'" in out and "Berlin" in out and "Vienna" in out
    assert "Game abandoned. Bye!" in out
    assert game.state.markers[0] >= 0  # '3' from the start listing placed the marker


@pytest.mark.parametrize("stop", [EOFError, KeyboardInterrupt])
def test_eof_and_ctrl_c_end_quietly(stop: type[BaseException]) -> None:
    def walk_away(prompt: str) -> str:
        raise stop

    con, buf = console()
    game = play_terminal("trans-europa", ["you", "bot"], seed=1, console=con, input_fn=walk_away)
    assert "Game abandoned. Bye!" in buf.getvalue() and game.phase == "start"


def test_trans_arguments_are_checked() -> None:
    con, _ = console()
    with pytest.raises(IllegalAction, match="2-6 players"):
        play_terminal("trans-europa", ["you"], seed=1, console=con)
    with pytest.raises(IllegalAction, match="no variants"):
        play_terminal("trans-america", ["you", "bot"], seed=1, console=con, variant="mega")


# ---------------------------------------------------------------------------- the board


@pytest.mark.parametrize("name", ["trans-europa", "trans-america"])
def test_the_board_fits_120_columns_beside_the_panel(name: str) -> None:
    game = tracklayer.new_game(name, ["you", "bot 1", "bot 2"], seed=3)
    bots = [TransSimpleBot(i) for i in range(3)]
    while game.state.supply > 60 or game.current_player != 0:  # some rails down, the human to move
        seat = game.current_player
        game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
    view = game.view(0)
    con, buf = console(120)
    con.print(tr.status(game.board, view, width=120, seed=3, hints=True))
    lines = buf.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 120
    ruler = next(line for line in lines if line.startswith("x  0   2   4"))
    assert f"{game.board.name} · round" in ruler  # side by side, the map not wrapped
    text = buf.getvalue()
    assert any(ch in text for ch in "─╱╲═")  # rails
    for seat in range(3):  # every start marker, by number, on its row
        x, row = game.board.xy[game.board.parse_point(view["players"][seat]["start"])]
        map_line = lines[lines.index(ruler) + 1 + 2 * row]
        assert map_line[tr.GUTTER + 2 * x] == str(seat + 1)
    for c in view["cities"]:  # the human's cities: the panel names them, the map marks them
        x, row = game.board.xy[game.board.parse_point(c["point"])]
        assert c["name"] in text
        cell = lines[lines.index(ruler) + 1 + 2 * row][tr.GUTTER + 2 * x]
        assert cell in (tr.UNICODE.mine, "1")


def test_abbreviations_are_unique_and_short() -> None:
    for name in ("trans-europa", "trans-america"):
        board = tracklayer.new_game(name, 2, seed=1).board
        labels = tr.abbreviations(board)
        assert len(set(labels)) == len(labels) == len(board.cities)
        assert all(2 <= len(label) <= 3 for label in labels)


def test_simple_bot_plays_legal_moves_and_finishes_games() -> None:
    game = tracklayer.new_game("trans-europa", 3, seed=9, special_cards="each-round")
    bots = [TransSimpleBot(i) for i in range(3)]
    while not game.is_over:
        seat = game.current_player
        legal = game.legal_actions()
        action = bots[seat].choose(game.view(seat), legal)
        assert action in legal
        game.apply(action)
    assert len(game.result()["rounds"]) <= 12


# ---------------------------------------------------------------------------- the real command


def _cli(stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "120", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([sys.executable, "-m", "tracklayer.cli", *args], input=stdin, text=True,
                          capture_output=True, cwd=ROOT, env=env, timeout=waits.scaled(120), check=False)


def test_cli_plays_a_piped_trans_game_to_the_end() -> None:
    done = _cli("moves\n1\n" * 600 + "quit\n", "play", "trans-america", "--players", "you,bot", "--seed", "3")
    assert done.returncode == 0, done.stderr
    assert "Final scores" in done.stdout and "Winner" in done.stdout and "Round 1 ends" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_cli_scores_a_trans_round_readably(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "trans.md").read_text(encoding="utf-8")
    block = text.split("## `tracklayer score` for a Trans round", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    path = tmp_path / "round.json"
    path.write_text(block, encoding="utf-8")
    done = _cli("", "score", str(path))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Round scores" in out and "Missing rails" in out and "Leader" in out
    expected = json.loads(_cli("", "score", str(path), "--json").stdout)
    for p in expected["players"]:
        assert re.search(rf"{p['name']}\W.*\W{p['missing_rails']}\W+\+{p['prestige']}\W+{p['total']}\W", out)
        assert f"{p['name']} misses: {' '.join(p['missing_lines'])}" in " ".join(out.split())  # lines wrap

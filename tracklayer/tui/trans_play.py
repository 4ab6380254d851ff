"""Trans Europa / Trans America in the terminal, on the shared loop of ``tui.session``.

A human sees the board (rails by network, start markers, their own cities highlighted), their
cities and missing rails, and plays in the notation (``start 12,5``, ``rail 12,5-13,6``, ``end``,
``pass``, ``return Madrid``) or by number from ``moves``. The end of every round shows the round's
result (all cities are revealed then); the end of the game the prestige per round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from tracklayer.bots import Bot, make_bot, resolve_bot
from tracklayer.core.action import Action
from tracklayer.trans.game import TransGame
from tracklayer.trans.steiner import SteinerInfeasibleError, min_steiner
from tracklayer.tui import trans_render as tr
from tracklayer.tui.session import UNHANDLED, NewsItem, TerminalSession

AUTO_LIST = 8  # city choices with at most this many options are listed at once
_PROMPT = {"start": "start marker", "choose": "choose a city"}


def default_trans_bot(seed: int | str | None) -> Bot:
    """The opponent a plain "bot" seat gets: the registry's Trans bot once there is one, else the simple bot."""
    try:
        from tracklayer.bots.trans_bots import TRANS_BOTS
    except ImportError:  # not there yet: the simple bot plays
        TRANS_BOTS = {}
    if "steiner" in TRANS_BOTS and resolve_bot("steiner") == "steiner":
        return make_bot("steiner", seed)
    from tracklayer.tui.trans_simple_bot import TransSimpleBot

    return TransSimpleBot(seed)


class TransTerminal(TerminalSession[TransGame]):
    commands = ("help", "moves", "map", "status", "hint", "cities", "quit")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.board = self.g.board
        self.hinted: set[int] = set()  # seats that asked for 'hint' (each human chooses in hot-seat)
        self.rounds_seen = 0
        self.ascii = not (self.console.encoding or "").lower().startswith("utf")

    # ------------------------------------------------------------------ views
    def view(self, seat: int | None, hints: bool = True) -> dict[str, Any]:
        return self.g.view(seat, log_tail=0, hints=hints)

    def join_cost(self, view: dict[str, Any]) -> int | None:
        """Rails needed to join the seat's cities (the same from any of them: a start-marker hint)."""
        b = self.board
        cost = list(tr.line_costs(b, view))
        for e in tr.line_ids(b, [r["line"] for r in view["rails"]]):
            cost[e] = 0
        points = [b.parse_point(c["point"]) for c in view.get("cities", [])]
        try:
            return min_steiner(b.n_points, b.adjacency, cost, points)[0] if points else None
        except SteinerInfeasibleError:
            return None

    # ------------------------------------------------------------------ hooks
    def status_screen(self, seat: int, news: list[RenderableType]) -> RenderableType:
        return tr.status(self.board, self.view(seat), width=self.console.width, seed=self.seed,
                         hints=seat in self.hinted, ascii_only=self.ascii, news=news)

    def is_continuing(self, seat: int) -> bool:
        if seat != self.last_mover or self.g.phase != "rails":
            return False
        return self.view(seat, hints=False)["turn"]["used"] > 0

    def prompt(self, seat: int) -> str:
        name = self.g.players[seat]
        phase = self.g.phase
        if phase == "rails":
            left = self.view(seat, hints=False)["turn"]["left"]
            return f"{name} ({left} rail{'s' if left != 1 else ''} left)> "
        return f"{name} ({_PROMPT[phase]})> " if phase in _PROMPT else f"{name}> "

    def completion_words(self, legal: Sequence[Any]) -> list[str]:  # start points in the start phase
        words = [str(a) for a in legal]
        if self.g.phase == "start":
            free = {a.point for a in legal}
            words += [f"start {c.name}" for c in self.board.cities if c.point in free]
        return words

    def moves_listing(self, legal: Sequence[Action], words: list[str]) -> tuple[list[Action], RenderableType]:
        seat = self.g.current_player
        return tr.moves_listing(self.board, self.view(seat), legal, words, hints=seat in self.hinted)

    def help_screen(self) -> RenderableType:
        return tr.help_text()

    def game_command(self, seat: int, word: str, words: list[str], line: str) -> Any:
        if word in ("map", "board") and not words:
            self.show_status(seat)
        elif word in ("hint", "hints") and not words:
            self.hinted ^= {seat}
            on = seat in self.hinted
            self.console.print(f"Hints {'on: a shortest way is drawn' if on else 'off'}.")
            if on:
                self.show_status(seat)
        elif word in ("cities", "city"):
            self.console.print(tr.cities_listing(self.board, self.view(seat, hints=False), words))
        else:
            return UNHANDLED
        return None

    def move_news(self, viewer: int | None, seat: int) -> list[NewsItem]:
        view = self.g.view(viewer, log_tail=1, hints=False)
        entry = view["log"][-1]
        out: list[NewsItem] = [(self.g.players[seat], entry["move"])]
        if len(view["rounds"]) > self.rounds_seen:  # the move ended a round: its result, for everyone
            out.extend(self.round_news(view))
        return out

    def round_news(self, view: dict[str, Any]) -> list[NewsItem]:
        items: list[NewsItem] = [tr.round_block(view["rounds"][-1])]
        if not self.g.is_over:
            items.append(Text(f"Round {view['round']}:", style="bold"))
        return items

    def record(self, seat: int, action: Action | str) -> Any:
        played = super().record(seat, action)
        rounds = len(self.g.result()["rounds"])
        if rounds > self.rounds_seen:
            if seat in self.humans:  # the mover sees the round's result right after their move
                self.news[seat].extend(self.round_news(self.g.view(seat, log_tail=0, hints=False)))
            self.rounds_seen = rounds
        return played

    def show_phase(self, seat: int) -> None:
        g = self.g
        view = self.view(seat)
        if g.phase == "start":
            line = Text("Place your start marker: 'start <city>' or 'start x,row'.", style="bold")
            n = self.join_cost(view)
            if n is not None and view.get("cities"):
                line.append(f"  Your cities need {n} rails to be joined, from any one of them (e.g. "
                            f"'start {view['cities'][0]['name']}').", style="dim")
            self.console.print(line)
        elif g.phase == "rails" and [a.kind for a in g.legal_actions()] == ["pass"]:
            self.console.print("[bold]No free line touches your network: type 'pass'.[/bold]")
        elif g.phase == "rails":
            self.console.print("[dim]Your move: 'rail x,row-x,row' (Tab completes), 'end', or 'moves', 'map', "
                               "'hint', 'help'.[/dim]")
        elif g.phase == "choose":
            choice = view.get("choice", {})
            step = choice.get("step", "")
            what = {"return": "Return one of your city cards to the pile (special card).",
                    "pass": "Pass one of your city cards to your left neighbour (special card).",
                    "draft": f"Draft of the {choice.get('color', '')} cities: pass one on, or the last player "
                             "returns one (special card)."}.get(step, f"Special card step: {step}")
            self.console.print(Text(what, style="bold"))
            block = tr.card_moves_block(view)
            if block is not None:
                self.console.print(block)
            if len(g.legal_actions()) <= AUTO_LIST:
                self.list_moves([])

    def after_error(self, line: str) -> None:
        word = line.split(maxsplit=1)[0].casefold()
        if word not in ("start", "rail", "rails", "end", "pass", "return"):
            super().after_error(line)

    def human_move(self, seat: int, move: Action | str) -> None:
        before = self.view(seat)
        played = self.record(seat, move)
        self.last_human = seat
        self.listing = []
        line = Text("✓ ", style="bold green")
        line.append(str(played))
        if played.kind == "start":
            name = next((c.name for c in self.board.cities if c.point == played.point), None)
            if name:
                line.append(f"  ({name})", style="dim")
        still = self.g.current_player == seat and self.g.phase == "rails"
        after = self.view(seat) if not self.news[seat] else None
        if played.kind in ("rail", "rails") and after is not None and "missing_rails" in after:
            was, now = before.get("missing_rails"), after["missing_rails"]
            line.append(f"  missing rails {was} → {now}" if was is not None else f"  missing rails {now}",
                        style="bold" if now != was else "")
        if still and after is not None:
            left = after["turn"]["left"]
            line.append(f"  · {left} rail{'s' if left != 1 else ''} left ('end' to stop)", style="dim")
        self.console.print(line)
        if self.news[seat]:
            self.flush_news(seat)

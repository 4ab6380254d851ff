"""What every terminal game shares, whatever the game family: the turn loop, bots, news of the others'
moves, the common commands (``help``, ``moves``, numbered choices, ``status``, ``quit``), hot-seat
handover and the final result.

A family's session (``play.TerminalGame`` for Ticket to Ride, ``trans_play.TransTerminal`` for
Trans Europa / America) fills in the hooks: the status screen, the decision at hand, the listing
of legal moves, its own commands and how a human's move is reported. Everything a human is shown
comes from ``game.view(seat)``; bots get their own view and the legal actions only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from rich.console import Console, RenderableType
from rich.markup import escape
from rich.text import Text

from tracklayer.bots import Bot
from tracklayer.core.errors import TracklayerError
from tracklayer.tui import render
from tracklayer.tui.prompt import LineReader
from tracklayer.tui.results import print_result

if TYPE_CHECKING:
    from tracklayer import Game
    from tracklayer.core.action import Action

_G = TypeVar("_G", bound="Game")  # the family's game class

NewsItem = tuple[str, str] | RenderableType  # (player name, move as the reader may see it) or a block
UNHANDLED = object()  # ``game_command`` result: not a command of this family, play the line as a move


class Quit(Exception):
    """The human typed ``quit``."""


class TerminalSession(Generic[_G]):
    """One terminal game: the turn loop, the humans' commands and what each human is shown."""

    commands: tuple[str, ...] = ("help", "moves", "status", "quit")

    def __init__(self, game: _G, bots: dict[int, Bot], console: Console, reader: LineReader,
                 seed: int | str | None) -> None:
        self.g = game
        self.bots = bots
        self.console = console
        self.reader = reader
        self.seed = seed
        self.humans = [p for p in range(game.n_players) if p not in bots]
        # others' moves each human has not seen yet (None: the console when only bots play)
        readers: list[int | None] = [*self.humans] or [None]
        self.news: dict[int | None, list[NewsItem]] = {h: [] for h in readers}
        self.listing: list[Action] = []
        self.last_mover: int | None = None
        self.last_human: int | None = None

    # ------------------------------------------------------------------ hooks
    def status_screen(self, seat: int, news: list[RenderableType]) -> RenderableType:
        """The table as ``seat`` sees it at the start of a turn (``news`` goes near the top)."""
        raise NotImplementedError

    def show_phase(self, seat: int) -> None:
        """What the decision at hand needs (an offer, a choice ...), printed before the prompt."""

    def prompt(self, seat: int) -> str:
        return f"{self.g.players[seat]}> "

    def completion_words(self, legal: Sequence[Action]) -> list[str]:
        return [str(a) for a in legal]

    def moves_listing(self, legal: Sequence[Action], words: list[str]) -> tuple[list[Action], RenderableType]:
        """(numbered actions, renderable) for ``moves [words]``."""
        raise NotImplementedError

    def help_screen(self) -> RenderableType:
        raise NotImplementedError

    def game_command(self, seat: int, word: str, words: list[str], line: str) -> Any:
        """A family's own command: the move to play, None when handled here, or ``UNHANDLED``."""
        return UNHANDLED

    def is_continuing(self, seat: int) -> bool:
        """Whether ``seat`` moves again within one turn (then the full status is not shown again)."""
        return False

    def move_news(self, viewer: int | None, seat: int) -> list[NewsItem]:
        """The last move (by ``seat``) as ``viewer`` may read it."""
        view = self.g.view(viewer, log_tail=1)
        return [(self.g.players[seat], view["log"][-1]["move"])]

    def after_error(self, line: str) -> None:
        self.console.print("[dim]Type 'help' for commands, 'moves' for your legal moves.[/dim]")

    def human_move(self, seat: int, move: Action | str) -> None:
        """Play the human's move and say what it did."""
        played = self.record(seat, move)
        self.last_human = seat
        self.listing = []
        line = Text("✓ ", style="bold green")
        line.append(str(played))
        self.console.print(line)

    # ------------------------------------------------------------------ loop
    def run(self) -> None:
        g = self.g
        if not self.humans:
            self.console.print(f"[bold]{escape(g.board.name)}[/bold]: bots only, seed {self.seed}")
        while (seat := g.current_player) is not None:  # None: the game is over
            if seat in self.bots:
                self.bot_move(seat)
            else:
                self.human_turn(seat, self.is_continuing(seat))
        self.finish()

    def bot_move(self, seat: int) -> None:
        bot = self.bots[seat]
        action = bot.choose(self.g.view(seat), self.g.legal_actions())
        self.record(seat, action)

    def record(self, seat: int, action: Action | str) -> Action:
        """Apply a move and queue it (as each other human may read it) for their next turn."""
        g = self.g
        played = g.apply(action)
        self.last_mover = seat
        watchers = [h for h in self.humans if h != seat] if self.humans else [None]
        for h in watchers:
            self.news[h].extend(self.move_news(h, seat))
        if not self.humans and g.current_player != seat:
            self.flush_news(None)  # a bots-only game prints each turn as it ends
        return played

    @staticmethod
    def news_renderables(items: list[NewsItem]) -> list[RenderableType]:
        """Moves one line per turn (consecutive moves of one player are joined); blocks as they are."""
        out: list[RenderableType] = []
        run: list[tuple[str, str]] = []
        for item in items:
            if isinstance(item, tuple):
                run.append(item)
                continue
            out.extend(render.news_lines(run))
            run = []
            out.append(item)
        out.extend(render.news_lines(run))
        return out

    def flush_news(self, seat: int | None) -> None:
        for line in self.news_renderables(self.news[seat]):
            self.console.print(line)
        self.news[seat] = []

    def finish(self) -> None:
        g = self.g
        reader = self.last_human if self.humans else None  # whose unseen moves to print
        if self.news.get(reader):
            if reader is not None:
                self.console.print(Text("Last moves", style="bold"))
            self.flush_news(reader)
        self.console.rule("Game over")
        seat = self.humans[0] if self.humans else None
        print_result(g.view(seat)["result"], self.console)

    # ------------------------------------------------------------------ humans
    def human_turn(self, seat: int, continuing: bool) -> None:
        g = self.g
        self.listing = []
        if not continuing:
            if len(self.humans) > 1:
                self.handover(seat)
            self.show_status(seat, news=True)
        self.show_phase(seat)
        prompt = self.prompt(seat)
        while True:
            words = [*self.completion_words(g.legal_actions()), *self.commands]
            line = self.reader.read(prompt, words).strip()
            if not line:
                continue
            move = self.command(seat, line)
            if move is None:
                continue
            try:
                self.human_move(seat, move)
            except TracklayerError as exc:
                self.console.print(Text(f"✘ {exc}", style="red"))
                self.after_error(line)
                continue
            return

    def handover(self, seat: int) -> None:
        """Hot-seat: hide the previous player's screen before showing this player's secrets."""
        if self.console.is_terminal:
            self.console.clear()
            self.console.file.write("\x1b[3J")  # and the scrollback, where the last hand still is
        self.reader.read(f"{self.g.players[seat]}, your turn: press Enter when the others look away ")

    def show_status(self, seat: int, news: bool = False) -> None:
        """The table as ``seat`` sees it; with ``news``, first the others' moves since its last turn."""
        lines: list[RenderableType] = []
        if news and self.news[seat]:
            lines = [Text("Since your last turn:", style="bold"), *self.news_renderables(self.news[seat])]
            self.news[seat] = []
        self.console.rule(style="dim")
        self.console.print(self.status_screen(seat, lines))

    def command(self, seat: int, line: str) -> Any:
        """Handle a terminal command; returns the move to play (text or action) or None if handled."""
        word, _, rest = line.partition(" ")
        word = word.casefold()
        words = rest.split()
        if word in ("quit", "exit") and not words:
            raise Quit
        if word in ("help", "?") and not words:
            self.console.print(self.help_screen())
            return None
        if word == "moves":
            self.list_moves(words)
            return None
        if word == "status" and not words:
            self.show_status(seat)
            return None
        if line.isdigit():
            n = int(line)
            if not self.listing:
                self.console.print("[yellow]Numbers pick from the 'moves' list: type 'moves' first.[/yellow]")
            elif not 1 <= n <= len(self.listing):
                self.console.print(f"[yellow]No move {n}: the list goes from 1 to {len(self.listing)}.[/yellow]")
            else:
                return self.listing[n - 1]
            return None
        move = self.game_command(seat, word, words, line)
        return line if move is UNHANDLED else move

    def list_moves(self, words: list[str]) -> None:
        self.listing, shown = self.moves_listing(self.g.legal_actions(), words)
        self.console.print(shown)

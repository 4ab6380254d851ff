"""Play in the terminal: humans (hot-seat if several) against bots, Ticket to Ride or Trans Europa / America.

The loop only ever shows a human what ``game.view(seat)`` gives that seat, and bots only get
their own view plus the legal actions, so the terminal game has the same secrecy as a server game.
Input comes from prompt_toolkit (Tab completion of every legal move) on a terminal, from stdin
lines when piped, or from ``input_fn`` in tests. The loop, news and common commands are in
``tui.session``; this module holds the entry point and the Ticket to Ride session
(``tui.trans_play`` the Trans one).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

from rich.console import Console, RenderableType
from rich.text import Text

import tracklayer
from tracklayer.bots import Bot, make_bot, resolve_bot
from tracklayer.core.action import Action
from tracklayer.core.errors import IllegalAction, TracklayerError
from tracklayer.ttr.actions import ClaimRoute
from tracklayer.ttr.game import TTRGame
from tracklayer.tui import render
from tracklayer.tui.prompt import InputFn, LineReader
from tracklayer.tui.session import UNHANDLED, NewsItem, Quit, TerminalSession

AUTO_LIST = 8  # outside the main phase, decisions with at most this many options are listed at once
_BOT_SEAT = re.compile(r"^\s*([A-Za-z]+)[\s_#-]*(\d*)\s*$")
_PHASE_PROMPT = {"second_draw": "2nd card", "keep": "keep tickets", "initial": "keep tickets", "tunnel": "tunnel"}


def bot_kind(seat: str) -> str | None:
    """Registry key if ``seat`` names a bot ("bot", "Random", "bot2", "bot 3"), else None (a human)."""
    m = _BOT_SEAT.match(seat)
    return resolve_bot(m.group(1)) if m else None


def seat_names(seats: Sequence[str]) -> list[str]:
    """Display names: humans keep theirs, bots become "bot 1", "bot 2" (or their own numbered name)."""
    humans = {s.strip() for s in seats if bot_kind(s) is None}
    used: set[str] = set(humans)
    names: list[str] = []
    n = 0
    for seat in seats:
        if bot_kind(seat) is None:
            names.append(seat.strip())
            continue
        m = _BOT_SEAT.match(seat)
        assert m is not None
        base, digits = m.group(1).lower(), m.group(2)
        name = f"{base}{digits}" if digits else ""
        while not name or name in used:
            n += 1
            name = f"{base} {n}"
        used.add(name)
        names.append(name)
    return names


def seat_bot(seat: str, family: str, seed: str) -> Bot | None:
    """The bot for ``seat`` (None for a human). Plain "bot" is the family's default opponent."""
    kind = bot_kind(seat)
    if kind is None:
        return None
    m = _BOT_SEAT.match(seat)
    if family == "trans" and m is not None and m.group(1).casefold() == "bot":
        from tracklayer.tui.trans_play import default_trans_bot

        return default_trans_bot(seed)
    try:
        bot = make_bot(kind, seed=seed)
    except ImportError as exc:  # a family implementation that is not installed (yet)
        raise TracklayerError(f"bot {kind!r} is not available: {exc}") from None
    factories = getattr(bot, "factories", None)  # bots.FamilyBot: one implementation per game family
    if isinstance(factories, dict) and family not in factories:
        raise TracklayerError(f"bot {kind!r} does not play {family} games; plain 'bot' always does")
    return bot


def play_terminal(game: Any, seats: Sequence[str], *, variant: str | None = None, seed: int | str | None = None,
                  input_fn: InputFn | None = None, console: Console | None = None, **options: Any) -> Any:
    """Play ``game`` (a game name like "ttr-europe" or "trans-america", or a game object) with ``seats``.

    ``seats``: "bot"/"random" (optionally numbered, "bot2") are bots, anything else a human of that
    name. ``options`` go to ``tracklayer.new_game`` (e.g. ``special_cards="each-round"`` for Trans).
    Bad arguments raise :class:`TracklayerError` (the CLI prints them). Quitting, EOF and Ctrl-C end
    the game quietly. Returns the game object.
    """
    console = console or Console()
    seats = [str(s) for s in seats]
    if not seats or any(not s.strip() for s in seats):
        raise IllegalAction("give the seats as names, e.g. 'you,bot' (a name is a human, 'bot' a bot)")
    if isinstance(game, str):
        if seed is None:
            seed = random.SystemRandom().randrange(1_000_000)
        g = tracklayer.new_game(game, seat_names(seats), seed=seed, variant=variant, **options)
    else:
        g = game
        if len(seats) != g.n_players:
            raise IllegalAction(f"the game has {g.n_players} players but {len(seats)} seats were given")
        seed = g.seed if seed is None else seed
    bots = {i: bot for i, s in enumerate(seats) if (bot := seat_bot(s, g.family, f"{seed}/{i}")) is not None}
    session_class: type[TerminalSession[Any]] = TerminalGame
    if g.family == "trans":
        from tracklayer.tui.trans_play import TransTerminal

        session_class = TransTerminal
    session = session_class(g, bots, console, LineReader(console, input_fn), seed)
    try:
        session.run()
    except (EOFError, KeyboardInterrupt):
        console.print()
        console.print("Game abandoned. Bye!")
    except Quit:
        console.print("Game abandoned. Bye!")
    return g


class TerminalGame(TerminalSession[TTRGame]):
    """A Ticket to Ride session: the market, tickets, tunnels and routes on top of the shared loop."""

    commands = ("help", "moves", "map", "routes", "tickets", "status", "quit")

    def is_continuing(self, seat: int) -> bool:
        return seat == self.last_mover and self.g.phase in ("second_draw", "keep", "tunnel")

    def prompt(self, seat: int) -> str:
        name = self.g.players[seat]
        phase = self.g.phase
        return f"{name} ({_PHASE_PROMPT[phase]})> " if phase in _PHASE_PROMPT else f"{name}> "

    def completion_words(self, legal: Sequence[Action]) -> list[str]:
        words = [render.move_label(str(a)) for a in legal]
        if self.g.phase in ("initial", "keep") and self.g.table.keep(tuple(sorted(self.g.state.offers[
                self.g.state.current]))) in legal:  # the player to move (the game goes on)
            words.append("keep all")
        return words

    def move_news(self, viewer: int | None, seat: int) -> list[NewsItem]:
        g = self.g
        view = g.view(viewer, log_tail=1)
        text = view["log"][-1]["move"]
        tunnel = view.get("tunnel")
        if tunnel and g.current_player == seat:
            revealed = ", ".join(tunnel["revealed"]) or "nothing"
            text += f" (tunnel reveals {revealed}: +{tunnel['extra']})"
        return [(g.players[seat], text)]

    def after_error(self, line: str) -> None:
        """Help the next try: number the ways to pay for a claim or station typed without payment."""
        word = line.split(maxsplit=1)[0].casefold()
        if word in ("claim", "station") and ":" not in line and len(line.split()) > 1:
            numbered, shown = render.moves_listing(self.g.legal_actions(), line.split())
            if 1 < len(numbered) <= render.FILTER_CAP:
                self.listing = numbered
                self.console.print(shown)
        elif word not in ("draw", "claim", "station", "pay", "decline", "keep", "pass", "tickets", "ticket"):
            super().after_error(line)

    def status_screen(self, seat: int, news: list[RenderableType]) -> RenderableType:
        view = self.g.view(seat, log_tail=0)
        return render.status(view, board_name=self.g.board.name, stations=self.g.board.features.stations,
                             seed=self.seed, news=news)

    def show_phase(self, seat: int) -> None:
        """What the decision at hand needs: the offer, the tunnel reveal, the second card."""
        g = self.g
        view = g.view(seat, log_tail=0)
        phase = g.phase
        if phase in ("initial", "keep"):
            self.console.print(render.offer_table(view["offer"]))
            self.console.print(render.keep_hint(view["offer"], view["keep_rule"]))
        elif phase == "second_draw":
            self.console.print(render.market_line(view))
            self.console.print(render.hand_line(view))
            self.console.print(f"Take a second card (not a face-up {g.board.locomotive_name}).")
        elif phase == "tunnel":
            line = render.tunnel_line(view, True)
            if line is not None:
                self.console.print(line)
            self.console.print(render.hand_line(view))
        legal = g.legal_actions()
        if phase != "main" and len(legal) <= AUTO_LIST:
            self.list_moves([])
        elif phase == "main":
            self.console.print("[dim]Your move: type it (Tab completes), or 'moves', 'map', 'help'.[/dim]")

    def help_screen(self) -> RenderableType:
        return render.help_text(self.g.board.locomotive_name, self.g.board.features.stations)

    def moves_listing(self, legal: Sequence[Action], words: list[str]) -> tuple[list[Action], RenderableType]:
        return render.moves_listing(legal, words)

    def game_command(self, seat: int, word: str, words: list[str], line: str) -> Any:
        if word in ("map", "routes"):
            self.show_routes(seat, words)
        elif word in ("tickets", "ticket") and not words:
            view = self.g.view(seat, log_tail=0)
            self.console.print(render.tickets_block(view["tickets"]))
            if view["offer"]:
                self.console.print(render.offer_table(view["offer"]))
            self.console.print("[dim](to draw new destination tickets, type 'draw tickets')[/dim]")
        elif " ".join(line.casefold().split()) in ("draw tickets", "draw ticket"):
            return "tickets"
        else:
            return UNHANDLED
        return None

    def show_routes(self, seat: int, words: list[str]) -> None:
        g = self.g
        claimable = {g.board.route_label(a.route) for a in g.legal_actions() if isinstance(a, ClaimRoute)}
        self.console.print(render.routes_listing(g.view(seat, log_tail=0), g.board, claimable, words))

    def human_move(self, seat: int, move: Action | str) -> None:
        """Play the human's move and say what it did (the card drawn, points, tickets completed)."""
        before = self.g.view(seat, log_tail=0)
        played = self.record(seat, move)
        self.last_human = seat
        self.listing = []
        after = self.g.view(seat, log_tail=0)
        line = Text("✓ ", style="bold green")
        line.append(render.move_label(str(played)))
        gained = [name for name, n in after["hand"].items() if n > before["hand"].get(name, 0)]
        if played.kind == "draw" and gained:
            line.append("  → you drew ")
            line.append_text(render.card(gained[0]))
        points = after["players"][seat]["route_points"] - before["players"][seat]["route_points"]
        if points:
            line.append(f"  +{points} points", style="bold")
        self.console.print(line)
        done_before = {t["id"] for t in before["tickets"] if t["completed"]}
        for t in after["tickets"]:
            if t["completed"] and t["id"] not in done_before and played.kind != "keep":
                self.console.print(Text(f"  ✔ ticket {t['id']} {t['from']} – {t['to']} completed "
                                        f"(+{t['points']})", style="bold green"))

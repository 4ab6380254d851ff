"""Play Ticket to Ride in the terminal: humans (hot-seat if several) against bots.

The loop only ever shows a human what ``game.view(seat)`` gives that seat, and bots only get
their own view plus the legal actions, so the terminal game has the same secrecy as a server game.
Input comes from prompt_toolkit (Tab completion of every legal move) on a terminal, from stdin
lines when piped, or from ``input_fn`` in tests.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text

import tracklayer
from tracklayer.bots import Bot, make_bot, resolve_bot
from tracklayer.core.errors import IllegalAction, TracklayerError
from tracklayer.tui import render
from tracklayer.tui.prompt import InputFn, LineReader

COMMANDS = ["help", "moves", "map", "routes", "tickets", "status", "quit"]
AUTO_LIST = 8  # outside the main phase, decisions with at most this many options are listed at once
_BOT_SEAT = re.compile(r"^\s*([A-Za-z]+)[\s_#-]*(\d*)\s*$")
_PHASE_PROMPT = {"second_draw": "2nd card", "keep": "keep tickets", "initial": "keep tickets", "tunnel": "tunnel"}


class _Quit(Exception):
    """The human typed ``quit``."""


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


def play_terminal(game: Any, seats: Sequence[str], *, variant: str | None = None, seed: int | str | None = None,
                  input_fn: InputFn | None = None, console: Console | None = None) -> Any:
    """Play ``game`` (a game name like "ttr-europe", or a game object) with ``seats`` to the end.

    ``seats``: "bot"/"random" (optionally numbered, "bot2") are bots, anything else a human of that
    name. Bad arguments raise :class:`TracklayerError` (the CLI prints them). Quitting, EOF and
    Ctrl-C end the game quietly. Returns the game object.
    """
    console = console or Console()
    seats = [str(s) for s in seats]
    if not seats or any(not s.strip() for s in seats):
        raise IllegalAction("give the seats as names, e.g. 'you,bot' (a name is a human, 'bot' a bot)")
    if isinstance(game, str):
        if seed is None:
            seed = random.SystemRandom().randrange(1_000_000)
        g = tracklayer.new_game(game, seat_names(seats), seed=seed, variant=variant)
    else:
        g = game
        if len(seats) != g.n_players:
            raise IllegalAction(f"the game has {g.n_players} players but {len(seats)} seats were given")
        seed = g.seed if seed is None else seed
    bots = {i: make_bot(kind, seed=f"{seed}/{i}") for i, s in enumerate(seats) if (kind := bot_kind(s))}
    session = TerminalGame(g, bots, console, LineReader(console, input_fn), seed)
    try:
        session.run()
    except (EOFError, KeyboardInterrupt):
        console.print()
        console.print("Game abandoned. Bye!")
    except _Quit:
        console.print("Game abandoned. Bye!")
    return g


class TerminalGame:
    """One terminal session: the turn loop, the human's commands and what each human is shown."""

    def __init__(self, game: Any, bots: dict[int, Bot], console: Console, reader: LineReader,
                 seed: int | str | None) -> None:
        self.g = game
        self.bots = bots
        self.console = console
        self.reader = reader
        self.seed = seed
        self.humans = [p for p in range(game.n_players) if p not in bots]
        # others' moves each human has not seen yet (None: the console when only bots play)
        self.news: dict[int | None, list[tuple[str, str]]] = {h: [] for h in self.humans or [None]}
        self.listing: list[Any] = []
        self.last_mover: int | None = None
        self.last_human: int | None = None

    # ------------------------------------------------------------------ loop
    def run(self) -> None:
        g = self.g
        if not self.humans:
            self.console.print(f"[bold]{escape(g.board.name)}[/bold]: bots only, seed {self.seed}")
        while not g.is_over:
            seat = g.current_player
            if seat in self.bots:
                self.bot_move(seat)
            else:
                continuing = seat == self.last_mover and g.phase in ("second_draw", "keep", "tunnel")
                self.human_turn(seat, continuing)
        self.finish()

    def bot_move(self, seat: int) -> None:
        bot = self.bots[seat]
        action = bot.choose(self.g.view(seat), self.g.legal_actions())
        self.record(seat, action)

    def record(self, seat: int, action: Any) -> Any:
        """Apply a move and queue it (as each other human may read it) for their next turn."""
        g = self.g
        played = g.apply(action)
        self.last_mover = seat
        name = g.players[seat]
        watchers = [h for h in self.humans if h != seat] if self.humans else [None]
        for h in watchers:
            view = g.view(h, log_tail=1)
            text = view["log"][-1]["move"]
            tunnel = view.get("tunnel")
            if tunnel and g.current_player == seat:
                revealed = ", ".join(tunnel["revealed"]) or "nothing"
                text += f" (tunnel reveals {revealed}: +{tunnel['extra']})"
            self.news[h].append((name, text))
        if not self.humans and g.current_player != seat:
            self.flush_news(None)  # a bots-only game prints each turn as it ends
        return played

    def flush_news(self, seat: int | None) -> None:
        for line in render.news_lines(self.news[seat]):
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
        from tracklayer.cli import print_result

        seat = self.humans[0] if self.humans else None
        print_result(g.view(seat)["result"], self.console)

    # ------------------------------------------------------------------ humans
    def human_turn(self, seat: int, continuing: bool) -> None:
        g = self.g
        name = g.players[seat]
        self.listing = []
        if not continuing:
            if len(self.humans) > 1:
                self.handover(seat)
            self.show_status(seat, news=True)
        self.show_phase(seat)
        prompt = f"{name} ({_PHASE_PROMPT[g.phase]})> " if g.phase in _PHASE_PROMPT else f"{name}> "
        while True:
            legal = g.legal_actions()
            words = [render.move_label(str(a)) for a in legal] + COMMANDS
            if g.phase in ("initial", "keep"):
                words.append("keep all")
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

    def after_error(self, line: str) -> None:
        """Help the next try: number the ways to pay for a claim or station typed without payment."""
        word = line.split(maxsplit=1)[0].casefold()
        if word in ("claim", "station") and ":" not in line and len(line.split()) > 1:
            numbered, shown = render.moves_listing(self.g.legal_actions(), line.split())
            if 1 < len(numbered) <= render.FILTER_CAP:
                self.listing = numbered
                self.console.print(shown)
        elif word not in ("draw", "claim", "station", "pay", "decline", "keep", "pass", "tickets", "ticket"):
            self.console.print("[dim]Type 'help' for commands, 'moves' for your legal moves.[/dim]")

    def handover(self, seat: int) -> None:
        """Hot-seat: hide the previous player's screen before showing this player's hand."""
        if self.console.is_terminal:
            self.console.clear()
            self.console.file.write("\x1b[3J")  # and the scrollback, where the last hand still is
        self.reader.read(f"{self.g.players[seat]}, your turn: press Enter when the others look away ")

    def show_status(self, seat: int, news: bool = False) -> None:
        """The table as ``seat`` sees it; with ``news``, first the others' moves since its last turn."""
        lines: list[Text] = []
        if news and self.news[seat]:
            lines = [Text("Since your last turn:", style="bold"), *render.news_lines(self.news[seat])]
            self.news[seat] = []
        view = self.g.view(seat, log_tail=0)
        self.console.rule(style="dim")
        self.console.print(render.status(view, board_name=self.g.board.name,
                                         stations=self.g.board.features.stations, seed=self.seed, news=lines))

    def show_phase(self, seat: int) -> None:
        """What the decision at hand needs: the offer, the tunnel reveal, the second card."""
        g = self.g
        view = g.view(seat, log_tail=0)
        phase = g.phase
        if phase in ("initial", "keep"):
            rules = g.variant.initial if phase == "initial" else None
            least = rules.min_keep if rules else g.variant.draw_min_keep
            self.console.print(render.offer_table(view["offer"]))
            ids = " ".join(t["id"] for t in view["offer"][:least])
            hint = f"Keep at least {least}"
            if rules and any(t.get("long") for t in view["offer"]):
                hint += f" (at most {rules.max_keep_long} long)"
            self.console.print(f"{hint}: e.g. 'keep {ids}' or 'keep all'.")
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

    def command(self, seat: int, line: str) -> Any:
        """Handle a terminal command; returns the move to play (text or action) or None if handled."""
        word, _, rest = line.partition(" ")
        word = word.casefold()
        words = rest.split()
        if word in ("quit", "exit") and not words:
            raise _Quit
        if word in ("help", "?") and not words:
            self.console.print(render.help_text(self.g.board.locomotive_name, self.g.board.features.stations))
        elif word == "moves":
            self.list_moves(words)
        elif word in ("map", "routes"):
            self.show_routes(seat, words)
        elif word in ("tickets", "ticket") and not words:
            view = self.g.view(seat, log_tail=0)
            self.console.print(render.tickets_block(view["tickets"]))
            if view["offer"]:
                self.console.print(render.offer_table(view["offer"]))
            self.console.print("[dim](to draw new destination tickets, type 'draw tickets')[/dim]")
        elif word == "status" and not words:
            self.show_status(seat)
        elif line.isdigit():
            n = int(line)
            if not self.listing:
                self.console.print("[yellow]Numbers pick from the 'moves' list: type 'moves' first.[/yellow]")
            elif not 1 <= n <= len(self.listing):
                self.console.print(f"[yellow]No move {n}: the list goes from 1 to {len(self.listing)}.[/yellow]")
            else:
                return self.listing[n - 1]
        elif " ".join(line.casefold().split()) in ("draw tickets", "draw ticket"):
            return "tickets"
        else:
            return line
        return None

    def list_moves(self, words: list[str]) -> None:
        self.listing, shown = render.moves_listing(self.g.legal_actions(), words)
        self.console.print(shown)

    def show_routes(self, seat: int, words: list[str]) -> None:
        g = self.g
        claimable = {g.board.route_label(a.route) for a in g.legal_actions() if a.kind == "claim"}
        self.console.print(render.routes_listing(g.view(seat, log_tail=0), g.board, claimable, words))

    def human_move(self, seat: int, move: Any) -> None:
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

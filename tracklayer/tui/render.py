"""Rich renderables for the terminal game, built only from a seat's view.

Everything here takes ``view`` (``game.view(seat)``) and, for static map facts, the board: never the
game state, so the screen cannot show a secret the view does not already hand to that seat. Cards
are always written by name (colour is a bonus, never the only cue) for colour-blind players and
for terminals without colour.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rich import box
from rich.columns import Columns
from rich.console import Group, JustifyMethod, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from tracklayer.core.names import fold

# Foreground/background per card name; the name is always printed too.
CARD_STYLES: dict[str, str] = {
    "pink": "black on plum1",
    "white": "black on grey93",
    "blue": "bold white on blue",
    "yellow": "black on yellow1",
    "orange": "black on dark_orange",
    "black": "bold white on grey15",
    "red": "bold white on red3",
    "green": "black on green3",
    "locomotive": "bold black on bright_cyan",
    "taxi": "bold black on bright_cyan",
}

GROUPS: list[tuple[str, str]] = [
    ("draw", "Draw cards"),
    ("tickets", "Destination tickets"),
    ("claim", "Claim a route"),
    ("station", "Build a station"),
    ("pay", "Pay for the tunnel"),
    ("decline", "Give up the tunnel"),
    ("keep", "Keep tickets"),
    ("pass", "Pass"),
]
GROUP_CAP = {"claim": 18, "station": 6}  # moves per group listed by a bare ``moves`` (default 12)
FILTER_CAP = 60  # moves listed by a filtered ``moves ...``


def matches(keys: list[str], text: str) -> bool:
    """Every folded key starts a word of ``text`` ("lon" finds London, not Pamplona)."""
    folded = fold(text)
    return all(re.search(r"(?:^|[\s/:+(-])" + re.escape(k), folded) for k in keys)


def card(name: str | None, count: int | None = None) -> Text:
    """A card chip: ``" red "`` on red, or ``" red ×3 "``; an empty market slot is ``( empty )``."""
    if name is None:
        return Text("( empty )", style="dim")
    label = f" {name} ×{count} " if count is not None else f" {name} "
    return Text(label, style=CARD_STYLES.get(name, "reverse"))


def chips(items: Sequence[Text], sep: str = " ") -> Text:
    out = Text()
    for i, item in enumerate(items):
        if i:
            out.append(sep)
        out.append_text(item)
    return out


def market_line(view: dict[str, Any]) -> Text:
    line = Text("Market  ", style="bold")
    line.append_text(chips([card(c) for c in view["market"]]))
    return line


def hand_line(view: dict[str, Any]) -> Text:
    hand = view.get("hand") or {}
    held = [card(name, n) for name, n in hand.items() if n]
    line = Text(f"Hand ({sum(hand.values())})  ", style="bold")
    line.append_text(chips(held) if held else Text("no cards", style="dim"))
    return line


def players_table(view: dict[str, Any], stations: bool) -> Table:
    """Everyone's public numbers; the viewer and the player to move are marked."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), show_edge=False)
    columns: list[tuple[str, JustifyMethod]] = [("", "left"), ("Player", "left"), ("Score", "right"),
                                                ("Wagons", "right"), ("Cards", "right"), ("Tickets", "right"),
                                                ("Routes", "right")]
    for title, justify in columns:
        table.add_column(title, justify=justify)
    if stations:
        table.add_column("Stations left", justify="right")
    for p in view["players"]:
        turn = "▶" if p["seat"] == view.get("current_player") else ""
        name = Text(p["name"], style="bold" if p["seat"] == view.get("seat") else "")
        if p["seat"] == view.get("seat") and p["name"].casefold() != "you":
            name.append(" (you)", style="dim")
        tickets = Text(str(p["tickets"]))
        if p.get("choosing_tickets"):
            tickets.append(" (choosing)", style="dim italic")
        row: list[RenderableType] = [turn, name, str(p["route_points"]), str(p["wagons"]), str(p["cards"]),
                                     tickets, str(len(p["routes"]))]
        if stations:
            row.append(str(p.get("stations_left", 0)))
        table.add_row(*row)
    return table


def tickets_block(tickets: list[dict[str, Any]], title: str = "Your tickets") -> RenderableType:
    if not tickets:
        return Text(f"{title}: none yet", style="dim")
    done = sum(1 for t in tickets if t.get("completed"))
    items = []
    for t in tickets:
        mark = Text("✔ ", style="bold green") if t.get("completed") else Text("… ", style="yellow")
        mark.append(f"{t['id']} {t['from']} – {t['to']} ({t['points']})")
        if t.get("long"):
            mark.append(" long", style="dim")
        items.append(mark)
    header = Text(f"{title} ({done}/{len(tickets)} done)", style="bold")
    return Group(header, Columns(items, padding=(0, 3)))


def offer_table(offer: list[dict[str, Any]]) -> Table:
    table = Table(title="Tickets offered", box=box.SIMPLE_HEAD, title_justify="left", title_style="bold",
                  show_edge=False)
    columns: list[tuple[str, JustifyMethod]] = [("Id", "left"), ("From", "left"), ("To", "left"), ("Points", "right"),
                                                ("", "left")]
    for title, justify in columns:
        table.add_column(title, justify=justify)
    for t in offer:
        table.add_row(t["id"], t["from"], t["to"], str(t["points"]), "long" if t.get("long") else "")
    return table


def keep_hint(offer: list[dict[str, Any]], rule: dict[str, int]) -> str:
    """The rule of a ticket choice in words, with an example (``rule``: the view's ``keep_rule``)."""
    least, max_long = rule["at_least"], rule["at_most_long"]
    longs = [t["id"] for t in offer if t.get("long")]
    limit_long = len(longs) > max_long
    if least == 0:  # Mega's long tickets: one or none
        example = " or ".join(f"'keep {x}'" for x in [*longs[:max_long], "none"])
        what = "ticket" if max_long == 1 else "tickets"
        return f"Keep at most {max_long} long {what}, or none: e.g. {example}."
    regular = [t["id"] for t in offer if not t.get("long")]
    ids = " ".join(([*longs[:max_long], *regular] if limit_long else [t["id"] for t in offer])[:least])
    hint = f"Keep at least {least}" + (f" (at most {max_long} long)" if limit_long else "")
    return f"{hint}: e.g. 'keep {ids}'" + ("." if limit_long else " or 'keep all'.")


def tunnel_line(view: dict[str, Any], viewer_moves: bool) -> Text | None:
    tunnel = view.get("tunnel")
    if not tunnel:
        return None
    line = Text("Tunnel ", style="bold")
    line.append(f"{tunnel['route']}: played {tunnel['played']}; revealed ")
    line.append_text(chips([card(c) for c in tunnel["revealed"]]))
    extra = tunnel["extra"]
    need = f" → {extra} more card{'s' if extra != 1 else ''} to pay"
    line.append(need if extra else " → no extra cards", style="bold")
    if viewer_moves and extra:
        line.append(", or decline", style="dim")
    return line


def status(view: dict[str, Any], *, board_name: str, stations: bool, seed: Any,
           news: Sequence[RenderableType] = ()) -> Group:
    """The full start-of-turn screen for one seat (``news``: others' moves since its last turn)."""
    me = view["players"][view["seat"]] if view.get("seat") is not None else None
    head = Text(f"{board_name} · {view['variant']} · turn {view['turn'] + 1}", style="bold")
    head.append(f"   deck {view['deck']} · discard {view['discard']} · tickets {view['ticket_deck']}", style="dim")
    if seed is not None:
        head.append(f" · seed {seed}", style="dim")
    parts: list[RenderableType] = [head, *news, Text(), players_table(view, stations), Text()]
    if view.get("final_round"):
        left = view.get("final_turns_left")
        if left == 1:
            text = "Final round! This is the last turn of the game."
        else:
            text = f"Final round! {left} turns left, this one included." if left else "Final round!"
        parts.append(Text(text, style="bold red"))
    parts.append(market_line(view))
    if me is not None:
        parts.append(hand_line(view))
        parts.append(tickets_block(view.get("tickets", [])))
    tunnel = tunnel_line(view, True)
    if tunnel is not None:
        parts.append(tunnel)
    return Group(*parts)


def move_label(text: str) -> str:
    """How a move is shown and typed in the terminal ('tickets' reads as 'draw tickets' there)."""
    return "draw tickets" if text == "tickets" else text


def _target(action: Any) -> str:
    """What a claim or station is for ("claim Paris-Wien", "station Berlin"), without the payment."""
    return str(action).split(":", 1)[0]


def _cheapest_per_target(actions: list[Any]) -> tuple[list[Any], dict[str, int]]:
    """One move per route / city (the payment with the fewest wild cards) and how many ways each has."""
    best: dict[str, Any] = {}
    ways: dict[str, int] = {}
    for a in actions:
        key = _target(a)
        ways[key] = ways.get(key, 0) + 1
        if key not in best or (a.n_loco, str(a)) < (best[key].n_loco, str(best[key])):
            best[key] = a
    return [best[k] for k in sorted(best)], ways


def moves_listing(legal: Sequence[Any], words: list[str]) -> tuple[list[Any], RenderableType]:
    """Numbered legal moves grouped by kind, filtered by ``words``; returns (numbered actions, renderable).

    Claims and stations come in many payment variants; when a group is too long to list, it shows
    one (the cheapest in wild cards) per route or city, with the count of other ways to pay.
    """
    keys = [fold(w) for w in words]
    by_kind: dict[str, list[Any]] = {}
    for action in legal:
        if matches(keys, move_label(str(action))):
            by_kind.setdefault(getattr(action, "kind", ""), []).append(action)
    if not by_kind:
        what = f" matching {' '.join(words)!r}" if words else ""
        return [], Text(f"No legal move{what}.", style="yellow")
    numbered: list[Any] = []
    parts: list[RenderableType] = []
    budget = FILTER_CAP
    titles = dict(GROUPS)
    for kind in [k for k, _ in GROUPS] + [k for k in by_kind if k not in titles]:
        actions = by_kind.get(kind)
        if not actions:
            continue
        cap = max(0, min(budget, FILTER_CAP if words else GROUP_CAP.get(kind, 12)))
        ways: dict[str, int] = {}
        if kind in ("claim", "station"):
            actions = sorted(actions, key=str)  # by route / city: all ways to pay for one sit together
            if len(actions) > cap:
                actions, ways = _cheapest_per_target(actions)
        shown = actions[:cap]
        budget -= len(shown)
        title = f"{titles.get(kind, kind)} ({len(by_kind[kind])})"
        if ways:
            title += f", one way to pay each for {len(actions)} {'routes' if kind == 'claim' else 'cities'}"
        parts.append(Text(title, style="bold"))
        items = []
        for action in shown:
            numbered.append(action)
            item = Text(f"{len(numbered):>3} ", style="cyan")
            item.append(move_label(str(action)))
            others = ways.get(_target(action), 1) - 1
            if others:
                item.append(f" (+{others})", style="dim")
            items.append(item)
        if items:
            parts.append(Columns(items, padding=(0, 2)))
        if len(actions) > len(shown):
            example = f"moves {' '.join(words) or kind} <city>"
            parts.append(Text(f"    … and {len(actions) - len(shown)} more: narrow the list, e.g. '{example}'",
                              style="dim"))
        elif ways:
            parts.append(Text(f"    (+n) = other ways to pay: e.g. 'moves {_target(shown[0])}'", style="dim"))
    parts.append(Text("Type a number from this list, or the move itself (Tab completes).", style="dim"))
    return numbered, Group(*parts)


def routes_listing(view: dict[str, Any], board: Any, claimable: set[str], words: list[str]) -> RenderableType:
    """Free routes (optionally only those matching ``words``) and who owns the claimed ones."""
    keys = [fold(w) for w in words]
    owner = view["route_owner"]
    seat = view.get("seat")
    closed = len(view["players"]) in board.closed_with_players
    items = []
    for r in board.routes:
        if owner[r.index] is not None:
            continue
        twins = [owner[t] for t in r.twins]
        if any(o is not None and (closed or o == seat) for o in twins):
            continue  # this lane cannot be taken any more (by this seat)
        label = board.route_label(r.index)
        color = board.color_name(r.color)
        desc = f"{label} {r.length} {color}"
        if r.tunnel:
            desc += " tunnel"
        if r.locomotives:
            desc += f" ferry×{r.locomotives}"
        if not matches(keys, desc):
            continue
        twin_free = [t for t in r.twins if board.routes[t].identical_to == r.identical_to and owner[t] is None]
        if r.identical_to != r.index and any(t < r.index for t in twin_free):
            continue  # an identical lane was already listed (marked ×2)
        item = Text("★ " if label in claimable else "  ", style="bold green")
        item.append(f"{label} ")
        item.append_text(card(color) if r.color >= 0 else Text(" gray ", style="reverse"))
        item.append(f" {r.length}")
        if r.tunnel:
            item.append(" T", style="bold")
        if r.locomotives:
            item.append(f" F{r.locomotives}", style="bold")
        if twin_free:
            item.append(" ×2", style="dim")
        items.append(item)
    parts: list[RenderableType] = []
    what = f" matching {' '.join(words)!r}" if words else ""
    parts.append(Text(f"Free routes{what}: {len(items)}", style="bold"))
    points = " ".join(f"{n}→{p}" for n, p in sorted(board.route_points.items()))
    legend = "★ claimable now"
    if board.features.tunnels:
        legend += " · T tunnel"
    if board.features.ferries:
        legend += f" · F2 ferry (2 {board.locomotive_name}s)"
    parts.append(Text(f"{legend} · points by length: {points}", style="dim"))
    if items:
        parts.append(Columns(items, padding=(0, 3), column_first=True))
    for p in view["players"]:
        mine = [x for x in p["routes"] if matches(keys, x)]
        if mine:
            line = Text(f"{p['name']} owns: ", style="bold")
            line.append(", ".join(mine))
            parts.append(line)
        if p.get("stations"):
            parts.append(Text(f"{p['name']} stations: {', '.join(p['stations'])}"))
    return Group(*parts)


def news_lines(news: list[tuple[str, str]]) -> list[Text]:
    """Others' moves, one line per turn (consecutive moves of one player are joined)."""
    lines: list[Text] = []
    last = None
    for who, move in news:
        if who == last and lines:
            lines[-1].append(", " + move)
        else:
            line = Text(f"  {who}: ", style="bold")
            line.append(move)
            lines.append(line)
        last = who
    return lines


def help_text(locomotive: str, stations: bool) -> RenderableType:
    cmds = [
        ("moves [words]", "list your legal moves, numbered (e.g. 'moves claim Paris'); then type a number"),
        ("map [words]", "free routes with colour, length, tunnel/ferry; who owns what (alias: routes)"),
        ("tickets", "your destination tickets (to draw new ones type 'draw tickets')"),
        ("status", "show the table again"),
        ("help", "this help"),
        ("quit", "leave the game"),
    ]
    table = Table(box=None, show_header=False, padding=(0, 2))
    table.add_column(style="cyan")
    table.add_column()
    for c, d in cmds:
        table.add_row(c, d)
    examples = [
        "draw deck", "draw red", f"draw {locomotive}", "draw tickets",
        f"claim Paris-Frankfurt/white: 2 white + 1 {locomotive}", "claim Wien-Budapest  (when one payment fits)",
    ]
    if stations:
        examples.append("station Berlin: 2 red")
    examples += [f"pay: 1 red + 1 {locomotive}", "decline", "keep EU03 EU17", "keep all"]
    ex = Columns([Text(f"  {e}") for e in examples], padding=(0, 2))
    return Group(Text("Commands", style="bold"), table, Text("Moves, for example", style="bold"), ex,
                 Text("Tab completes moves; a number picks from the last 'moves' list.", style="dim"),
                 Text(escape("Cards are written by name; colours are only a help."), style="dim"))

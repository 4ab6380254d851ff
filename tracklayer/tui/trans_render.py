"""Trans Europa / Trans America on the terminal: the triangular board as text, and the panels around it.

Like ``tui.render``, everything here is built from one seat's ``view`` plus static board facts
(points, lines, city names and places): the view is the only source of secrets, so the screen
shows the seat's own cities and the cities special cards turned face up, never another hand.

The board: a point ``x,row`` is drawn at column ``2·x`` and line ``2·row``, so a line to the east
neighbour (``x+2``) covers the three cells between, and a diagonal (``x±1, row+1``) the one cell
half-way down. Rails take the colour of their network (a network touching one player's start
marker has that player's colour, a shared one is white); built double lines are drawn ``═`` or
reversed; free double lines are marked in their middle by terrain (``^`` mountains in brown, ``≈`` water in
blue, ``=`` unknown); start markers are the player's number; your cities are ``◉`` with a highlighted
label, other cities ``○``. Rulers give ``x`` (even on top, odd below) and ``row`` (left).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from rich import box
from rich.columns import Columns
from rich.console import Group, JustifyMethod, RenderableType
from rich.table import Table
from rich.text import Text

from tracklayer.core.names import fold
from tracklayer.trans.board import Board
from tracklayer.trans.cards import effects_of
from tracklayer.tui.render import matches

PLAYER_STYLES = ("red1", "dodger_blue1", "green3", "gold1", "orchid1", "grey70")
SHARED_STYLE = "bright_white"
CITY_STYLES = {"brown": "dark_orange3", "white": "grey93", "pink": "hot_pink", "orange": "orange1",
               "turquoise": "turquoise2"}
HINT_STYLE = "bright_cyan"
FREE_STYLE = "grey50"
# the mark in the middle of a free double line, by terrain (cards 4 and 5 make water / mountain doubles single)
TERRAIN_STYLES: dict[str | None, str] = {"water": "dodger_blue2", "mountain": "orange4", None: FREE_STYLE}
GUTTER = 3  # columns for the row numbers
WIDE = 112  # from this console width on, the panel stands beside the board, else below it
LIST_CAP = 60  # moves listed by ``moves``


@dataclass(frozen=True)
class Glyphs:
    east: str  # built single line to the east neighbour (each of the 3 cells)
    east2: str  # built double line
    up: str  # diagonal towards the north-east (drawn ╱)
    down: str  # diagonal towards the south-east (╲)
    free2: dict[str | None, str]  # middle of a free double line, by terrain
    hint_east: str
    hint_diag: tuple[str, str]  # (up, down)
    point: str
    city: str
    mine: str
    open_city: str  # another player's city that a special card turned face up


UNICODE = Glyphs("─", "═", "╱", "╲", {"mountain": "^", "water": "≈", None: "="}, "╌", ("╱", "╲"),
                 "·", "○", "◉", "◈")
ASCII = Glyphs("-", "=", "/", "\\", {"mountain": "^", "water": "~", None: "="}, ".", (":", ":"),
               ".", "o", "@", "%")


def player_style(seat: int) -> str:
    return PLAYER_STYLES[seat % len(PLAYER_STYLES)]


def marker_text(seat: int) -> Text:
    return Text(str(seat + 1), style=f"bold reverse {player_style(seat)}")


# ------------------------------------------------------------------------------------------- board facts
@cache
def abbreviations(board: Board) -> tuple[str, ...]:
    """A short unique label per city: initials of a multi-word name (``NY``, ``SLC``), else 3 letters."""
    used: set[str] = set()
    out = []
    for city in board.cities:
        words = re.findall(r"[A-Za-z]+", fold(city.name))
        words = [w for w in words if w != "st"] or words  # St. Louis -> L..., St. Petersburg -> P...
        cands: list[str] = []
        if len(words) > 1:
            cands.append("".join(w[0] for w in words).upper())
            cands.append(words[0][0].upper() + words[1][:2].capitalize())
        flat = "".join(words)
        cands.append(flat[:3].capitalize())
        cands += [flat[0].upper() + flat[i] + flat[j] for i in range(1, len(flat)) for j in range(i + 1, len(flat))]
        label = next((c for c in cands if c not in used), city.name[:4])
        used.add(label)
        out.append(label)
    return tuple(out)


def _line_points(board: Board, text: str) -> tuple[int, int] | None:
    a, _, b = text.partition("-")
    try:
        return board.parse_point(a), board.parse_point(b)
    except Exception:
        return None


def line_ids(board: Board, texts: Sequence[str]) -> list[int]:
    out = []
    for t in texts:
        pts = _line_points(board, t)
        e = None if pts is None else board.edge(*pts)
        if e is not None:
            out.append(e)
    return out


def line_costs(board: Board, view: dict[str, Any]) -> tuple[int, ...]:
    """The rail cost of every line this round (special cards 4 and 5 make some doubles single)."""
    try:
        return effects_of(board, [c["id"] for c in view.get("special_cards", [])]).line_cost
    except Exception:
        return board.edge_cost


def networks(board: Board, view: dict[str, Any]) -> list[int]:
    """Per point, a representative of its rail network (union-find over the view's rails)."""
    parent = list(range(board.n_points))

    def find(p: int) -> int:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    for e in line_ids(board, [r["line"] for r in view["rails"]]):
        parent[find(board.edge_a[e])] = find(board.edge_b[e])
    return [find(p) for p in range(board.n_points)]


def markers(board: Board, view: dict[str, Any]) -> dict[int, int]:
    """Seat -> start-marker point, for the markers already placed."""
    out = {}
    for p in view["players"]:
        if p.get("start"):
            out[p["seat"]] = board.parse_point(p["start"])
    return out


# ------------------------------------------------------------------------------------------- the board
class Canvas:
    def __init__(self, width: int, height: int) -> None:
        self.chars = [[" "] * width for _ in range(height)]
        self.styles: list[list[str]] = [[""] * width for _ in range(height)]
        self.width = width

    def put(self, line: int, col: int, ch: str, style: str = "") -> None:
        if 0 <= line < len(self.chars) and 0 <= col < self.width:
            self.chars[line][col] = ch
            self.styles[line][col] = style

    def blank(self, line: int, col: int) -> bool:
        return 0 <= line < len(self.chars) and 0 <= col < self.width and self.chars[line][col] == " "

    def text(self, line: int) -> Text:
        out = Text()
        row, styles = self.chars[line], self.styles[line]
        end = len(row)
        while end and row[end - 1] == " ":
            end -= 1
        i = 0
        while i < end:
            j = i
            while j < end and styles[j] == styles[i]:
                j += 1
            out.append("".join(row[i:j]), style=styles[i] or None)
            i = j
        return out


def _line_cells(board: Board, e: int) -> list[tuple[int, int]]:
    """(line, col) canvas cells between the two points of line ``e`` (before the gutter shift)."""
    (xa, ra), (xb, rb) = board.xy[board.edge_a[e]], board.xy[board.edge_b[e]]
    if ra == rb:
        x = min(xa, xb)
        return [(2 * ra, 2 * x + 1), (2 * ra, 2 * x + 2), (2 * ra, 2 * x + 3)]
    (x0, r0), (x1, _) = ((xa, ra), (xb, rb)) if ra < rb else ((xb, rb), (xa, ra))
    return [(2 * r0 + 1, x0 + x1)]


def _diag_up(board: Board, e: int) -> bool:
    """Whether the diagonal ``e`` runs south-west to north-east (``╱``)."""
    (xa, ra), (xb, rb) = board.xy[board.edge_a[e]], board.xy[board.edge_b[e]]
    return (xa - xb) * (ra - rb) < 0


def board_map(board: Board, view: dict[str, Any], *, hints: bool = False, ascii_only: bool = False) -> Group:
    """The board with rails, networks, start markers, cities (yours highlighted) and rulers."""
    g = ASCII if ascii_only else UNICODE
    max_x = max(x for x, _ in board.xy)
    max_row = max(r for _, r in board.xy)
    canvas = Canvas(GUTTER + 2 * max_x + 5, 2 * max_row + 1)

    def put(line: int, col: int, ch: str, style: str = "") -> None:
        canvas.put(line, col + GUTTER, ch, style)

    costs = line_costs(board, view)
    net = networks(board, view)
    placed = markers(board, view)
    seat_of_root: dict[int, list[int]] = {}
    for seat, p in placed.items():
        seat_of_root.setdefault(net[p], []).append(seat)
    built = {}
    for r in view["rails"]:
        ids = line_ids(board, [r["line"]])
        if ids:
            built[ids[0]] = r
    # free double lines: a terrain mark in the middle
    for e in range(board.n_edges):
        if e in built or costs[e] < 2:
            continue
        cells = _line_cells(board, e)
        line, col = cells[len(cells) // 2]
        terrain = board.edge_terrain[e] if board.edge_terrain[e] in g.free2 else None
        put(line, col, g.free2[terrain], TERRAIN_STYLES[terrain])
    # the suggested missing lines
    if hints:
        for e in line_ids(board, view.get("missing_lines") or ()):
            if e in built:
                continue
            cells = _line_cells(board, e)
            for line, col in cells:
                ch = g.hint_east if len(cells) > 1 else g.hint_diag[0 if _diag_up(board, e) else 1]
                put(line, col, ch, f"bold {HINT_STYLE}")
    # built rails, coloured by network
    for e in built:
        seats = seat_of_root.get(net[board.edge_a[e]], [])
        style = player_style(seats[0]) if len(seats) == 1 else (SHARED_STYLE if seats else FREE_STYLE)
        double = costs[e] >= 2 or board.edge_cost[e] >= 2
        cells = _line_cells(board, e)
        for line, col in cells:
            if len(cells) > 1:
                put(line, col, g.east2 if double else g.east, f"bold {style}")
            else:
                put(line, col, g.up if _diag_up(board, e) else g.down,
                    f"bold reverse {style}" if double else f"bold {style}")
    # points, cities, markers
    mine = {c["name"] for c in view.get("cities", [])}
    opened: dict[str, int] = {}
    for p in view["players"]:
        for name in p.get("open_cities", []):
            opened[name] = p["seat"]
    for x, row in board.xy:
        put(2 * row, 2 * x, g.point, FREE_STYLE)
    labels = abbreviations(board)
    for city in board.cities:
        x, row = board.xy[city.point]
        cstyle = CITY_STYLES.get(board.colors[city.color], "")
        if city.name in mine:
            put(2 * row, 2 * x, g.mine, f"bold {cstyle}")
        elif city.name in opened:
            put(2 * row, 2 * x, g.open_city, f"bold {player_style(opened[city.name])}")
        else:
            put(2 * row, 2 * x, g.city, cstyle)
    for seat, p in placed.items():
        x, row = board.xy[p]
        put(2 * row, 2 * x, str(seat + 1), f"bold reverse {player_style(seat)}")
    for row in range(max_row + 1):  # the row ruler, before the labels so that they keep out of it
        for i in range(GUTTER):
            canvas.put(2 * row, i, f"{row:>2} "[i], "dim")
    # labels where they fit: east, west, below, above the point (yours first, so they find room)
    order = sorted(board.cities, key=lambda c: c.name not in mine)
    for city in order:
        x, row = board.xy[city.point]
        label = labels[city.index]
        n = len(label)
        line, col = 2 * row, 2 * x + GUTTER
        spots = [(line, col + 1), (line, col - n), (line + 1, col - n // 2), (line - 1, col - n // 2),
                 (line + 1, col + 1), (line - 1, col + 1), (line + 1, col - n), (line - 1, col - n)]
        for sl, sc in spots:
            if sc >= GUTTER and all(canvas.blank(sl, sc + i) for i in range(n)):
                if city.name in mine:
                    style = f"bold black on {CITY_STYLES.get(board.colors[city.color], 'white')}"
                elif city.name in opened:
                    style = f"underline {player_style(opened[city.name])}"
                else:
                    style = "grey62"
                for i, ch in enumerate(label):
                    canvas.put(sl, sc + i, ch, style)
                break
    out: list[RenderableType] = [_ruler(max_x, 0), *(canvas.text(i) for i in range(len(canvas.chars))),
                                 _ruler(max_x, 1)]
    return Group(*out)


def _ruler(max_x: int, parity: int) -> Text:
    cells = [" "] * (GUTTER + 2 * max_x + 3)
    for x in range(parity, max_x + 1, 2):
        for i, ch in enumerate(str(x)):
            if GUTTER + 2 * x + i < len(cells):
                cells[GUTTER + 2 * x + i] = ch
    cells[0] = "x"
    return Text("".join(cells).rstrip(), style="dim")


def legend(ascii_only: bool = False, hints: bool = False) -> Text:
    g = ASCII if ascii_only else UNICODE
    t = Text(style="dim")
    t.append(f"{g.east}{g.up}{g.down}", style="bold")
    t.append(" rail (the network's colour; white: shared)  ")
    t.append(g.east2, style="bold")
    t.append(g.up, style="bold reverse")
    t.append(" built double  ")
    t.append(g.free2["mountain"], style=TERRAIN_STYLES["mountain"])
    t.append(g.free2["water"], style=TERRAIN_STYLES["water"])
    t.append(" free double (mountains, water)  ")
    t.append(g.mine, style="bold")
    t.append(" yours ")
    t.append(g.city)
    t.append(" city ")
    t.append("1", style="bold reverse")
    t.append(" start marker")
    if hints:
        t.append("  ")
        t.append(g.hint_east * 2, style=HINT_STYLE)
        t.append(" shortest way")
    return t


# ------------------------------------------------------------------------------------------- the panel
def _prestige_now(board: Board, view: dict[str, Any], missing: int) -> int:
    try:
        return effects_of(board, [c["id"] for c in view.get("special_cards", [])]).table.points(missing)
    except Exception:
        return board.prestige.points(missing)


def players_table(view: dict[str, Any]) -> RenderableType:
    """Everyone's public numbers: marker number, prestige, start point, city cards; who shares a network."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), show_edge=False)
    columns: list[tuple[str, JustifyMethod]] = [("", "left"), ("Player", "left"), ("Prestige", "right"),
                                                ("Start", "right"), ("Cards", "right")]
    for title, justify in columns:
        table.add_column(title, justify=justify)
    notes = []
    for p in view["players"]:
        seat = p["seat"]
        mark = Text("▶" if seat == view.get("current_player") else " ")
        mark.append_text(marker_text(seat))
        name = Text(p["name"], style="bold" if seat == view.get("seat") else "")
        if seat == view.get("start_player"):
            name.append(" *", style="dim")
        table.add_row(mark, name, str(p["score"]), p["start"] or "–", str(p["cities"]))
        group = "+".join(str(s + 1) for s in sorted({seat, *(p.get("shares_network_with") or [])}))
        if "+" in group and group not in notes:
            notes.append(group)
    extra = Text("* starts the round", style="dim")
    if notes:
        extra.append(" · shared networks: " + ", ".join(notes), style="dim")
    return Group(table, extra)


def my_cities(board: Board, view: dict[str, Any], ascii_only: bool = False) -> RenderableType:
    """The seat's own cities with colour and point, ✔ when joined to its start marker."""
    cities = view.get("cities", [])
    if not cities:
        return Text("You hold no city cards.", style="dim")
    net = networks(board, view)
    home = markers(board, view).get(view["seat"])
    labels = abbreviations(board)
    rows = []
    joined = 0
    for c in cities:
        p = board.parse_point(c["point"])
        ok = home is not None and net[p] == net[home]
        joined += ok
        item = Text("✔ " if ok else "  ", style="bold green")
        item.append((ASCII if ascii_only else UNICODE).mine + " ", style=f"bold {CITY_STYLES.get(c['color'], '')}")
        item.append(f"{c['name']} ", style="bold")
        idx = board.city(c["name"])
        item.append(f"{labels[idx]} {c['color']} {c['point']}", style="dim")
        rows.append(item)
    head = Text("Your cities", style="bold")
    if home is not None:
        head.append(f" ({joined}/{len(cities)} joined to your marker)", style="dim")
    return Group(head, *rows)


def missing_block(board: Board, view: dict[str, Any], hints: bool) -> RenderableType | None:
    if "missing_rails" not in view:
        return None
    n = view["missing_rails"]
    t = Text("Missing rails: ", style="bold")
    t.append(str(n), style="bold yellow" if n else "bold green")
    t.append(f"  (now worth +{_prestige_now(board, view, n)} prestige)", style="dim")
    parts: list[RenderableType] = [t]
    if hints and view.get("missing_lines"):
        parts.append(Text("A shortest way: " + " ".join(view["missing_lines"]), style=HINT_STYLE))
    elif not hints:
        parts.append(Text("('hint' shows a shortest way on the board)", style="dim"))
    return Group(*parts)


def card_moves_block(view: dict[str, Any]) -> RenderableType | None:
    moves = view.get("card_moves") or []
    if not moves:
        return None
    names = {p["seat"]: p["name"] for p in view["players"]}
    items = []
    for m in moves:
        if "returned" in m:
            items.append(f"returned {m['returned']}")
        elif "took" in m:
            items.append(f"took {m['took']}")
        elif "passed" in m:
            items.append(f"passed {m['passed']} to {names.get(m['to'], m['to'])}")
        else:
            items.append(f"received {m['received']} from {names.get(m['from'], m['from'])}")
    return Text("Your card moves: " + "; ".join(items), style="dim")


def special_cards_block(view: dict[str, Any]) -> RenderableType | None:
    cards = view.get("special_cards") or []
    if not cards:
        return None
    lines: list[RenderableType] = [Text("Special cards", style="bold")]
    for c in cards:
        t = Text(f" {c['id']:>2} {c['title']}: ", style="bold")
        t.append(c["text"], style="")
        lines.append(t)
    return Group(*lines)


def open_cities_block(view: dict[str, Any]) -> RenderableType | None:
    items = []
    for p in view["players"]:
        if p["seat"] != view.get("seat") and p.get("open_cities"):
            items.append(f"{p['name']}: {', '.join(p['open_cities'])}")
    if not items:
        return None
    return Text("Face-up cities of others: " + "; ".join(items))


def turn_line(view: dict[str, Any]) -> Text:
    phase = view["phase"]
    t = Text()
    who = next((p["name"] for p in view["players"] if p["seat"] == view.get("current_player")), "")
    if phase == "start":
        t.append("Start markers are placed", style="bold")
        t.append(f" (now: {who})")
    elif phase == "rails":
        turn = view["turn"]
        t.append(f"{who}: {turn['left']} of {turn['budget']} rails left this turn", style="bold")
        if turn.get("finishing"):
            t.append(" · the round ends after this turn", style="bold red")
    elif phase == "choose":
        choice = view.get("choice", {})
        t.append(f"Special cards: {choice.get('step', '')} step", style="bold")
        t.append(f" (now: {who})")
    return t


def panel(board: Board, view: dict[str, Any], *, seed: Any, hints: bool, ascii_only: bool = False,
          news: Sequence[RenderableType] = ()) -> Group:
    head = Text(f"{board.name} · round {view['round']}", style="bold")
    head.append(f" · supply {view['supply']}/{board.rails}", style="dim")
    sub = Text(f"prestige goal {view['goal']}", style="dim")
    if seed is not None:
        sub.append(f" · seed {seed}")
    parts: list[RenderableType] = [head, sub, *news, players_table(view), turn_line(view)]
    for block in (special_cards_block(view), open_cities_block(view), card_moves_block(view)):
        if block is not None:
            parts.append(block)
    if view.get("seat") is not None:
        parts.append(Text())
        parts.append(my_cities(board, view, ascii_only))
        block = missing_block(board, view, hints)
        if block is not None:
            parts.append(block)
    return Group(*parts)


def status(board: Board, view: dict[str, Any], *, width: int, seed: Any, hints: bool, ascii_only: bool = False,
           news: Sequence[RenderableType] = ()) -> RenderableType:
    """The start-of-turn screen: the board and, beside it on a wide terminal (below on a narrow one), the panel."""
    the_map = board_map(board, view, hints=hints, ascii_only=ascii_only)
    side = panel(board, view, seed=seed, hints=hints, ascii_only=ascii_only)
    foot = legend(ascii_only, hints)
    map_width = GUTTER + 2 * max(x for x, _ in board.xy) + 5
    if width >= WIDE:
        grid = Table.grid(padding=(0, 2))
        grid.add_column(width=map_width, no_wrap=True)
        grid.add_column()
        grid.add_row(the_map, side)
        return Group(*news, grid, foot)
    return Group(*news, the_map, foot, side)


# ------------------------------------------------------------------------------------------- moves
def moves_listing(board: Board, view: dict[str, Any], legal: Sequence[Any], words: list[str], *,
                  hints: bool) -> tuple[list[Any], RenderableType]:
    """Numbered legal moves, filtered by ``words``: start markers (your cities first), rails
    (those of a shortest way first with ★ when hints are on), end/pass, city choices."""
    keys = [fold(w) for w in words]
    costs = line_costs(board, view)
    wanted = set(view.get("missing_lines") or ()) if hints else set()
    city_at = {c.point: c.name for c in board.cities}
    mine = {board.parse_point(c["point"]): c["name"] for c in view.get("cities", [])}
    entries: list[tuple[str, Any, Text]] = []  # (group, action, label)
    for a in legal:
        text = str(a)
        label = Text(text)
        group = a.kind
        if a.kind == "start":
            name = city_at.get(a.point)
            if name:
                label.append(f"  {name}", style="bold" if a.point in mine else "")
            if a.point in mine:
                label.append(" (yours)", style="dim")
            search = f"{text} {name or ''}"
        elif a.kind == "rail":
            line = text.split(" ", 1)[1]
            e = line_ids(board, [line])
            if e and costs[e[0]] >= 2:
                label.append(" double", style="yellow")
            if line in wanted:
                label.append(" ★", style=f"bold {HINT_STYLE}")
            search = text
        else:
            search = text
        if matches(keys, search):
            entries.append((group, a, label))
    if not entries:
        what = f" matching {' '.join(words)!r}" if words else ""
        return [], Text(f"No legal move{what}.", style="yellow")

    def rank(entry: tuple[str, Any, Text]) -> tuple[int, int, str]:
        group, a, _ = entry
        order = {"start": 0, "rail": 1, "end": 2, "pass": 3, "return": 4, "give": 5}.get(group, 6)
        if group == "start":
            return order, 0 if a.point in mine else (1 if a.point in city_at else 2), ""
        if group == "rail":
            return order, 0 if str(a).split(" ", 1)[1] in wanted else 1, ""
        return order, 0, ""

    entries.sort(key=rank)
    titles = {"start": "Place your start marker", "rail": "Place a rail", "end": "End your turn",
              "pass": "Pass (no rail possible)", "return": "Return a city card", "give": "Pass a city card left"}
    numbered: list[Any] = []
    parts: list[RenderableType] = []
    groups: dict[str, list[tuple[Any, Text]]] = {}
    for group, a, label in entries:
        groups.setdefault(group, []).append((a, label))
    cap = LIST_CAP
    for group, items in groups.items():
        shown = items
        if group == "start" and not words:
            shown = [(a, lb) for a, lb in items if a.point in mine] or items[:12]
        if group in ("rail", "start"):  # the long groups share the cap; end, pass and city choices always show
            shown = shown[:max(0, cap)]
            cap -= len(shown)
        parts.append(Text(f"{titles.get(group, group)} ({len(items)})", style="bold"))
        cells = []
        for a, label in shown:
            numbered.append(a)
            cell = Text(f"{len(numbered):>3} ", style="cyan")
            cell.append_text(label)
            cells.append(cell)
        if cells:
            parts.append(Columns(cells, padding=(0, 2)))
        if len(items) > len(shown):
            more = "any free point: 'start x,row' or 'start <city>', or 'moves start <city>'" if group == "start" \
                else "narrow the list, e.g. 'moves rail 12,5'"
            parts.append(Text(f"    … and {len(items) - len(shown)} more: {more}", style="dim"))
    parts.append(Text("Type a number from this list, or the move itself (Tab completes).", style="dim"))
    return numbered, Group(*parts)


def cities_listing(board: Board, view: dict[str, Any], words: list[str]) -> RenderableType:
    """Every city of the board (a board fact): label, name, card colour, point; yours marked."""
    keys = [fold(w) for w in words]
    mine = {c["name"] for c in view.get("cities", [])}
    labels = abbreviations(board)
    items = []
    for city in sorted(board.cities, key=lambda c: (c.color, c.name)):
        color = board.colors[city.color]
        text = f"{labels[city.index]} {city.name} {color} {board.point_text(city.point)}"
        if not matches(keys, text):
            continue
        t = Text(UNICODE.mine if city.name in mine else UNICODE.city, style=f"bold {CITY_STYLES.get(color, '')}")
        t.append(f" {labels[city.index]:<3} ", style="dim")
        t.append(city.name, style="bold" if city.name in mine else "")
        t.append(f" {board.point_text(city.point)}", style="dim")
        items.append(t)
    what = f" matching {' '.join(words)!r}" if words else ""
    return Group(Text(f"Cities{what} (by card colour): label, name, point", style="bold"),
                 Columns(items, padding=(0, 2), column_first=True))


def round_block(summary: dict[str, Any]) -> RenderableType:
    """A finished round as everyone sees it (all cities revealed)."""
    how = {"connected": "someone joined all their cities", "supply": "the rails ran out"}.get(
        summary["ended_by"], summary["ended_by"])
    table = Table(title=f"Round {summary['round']} ends: {how}", title_justify="left", title_style="bold",
                  box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    columns: list[tuple[str, JustifyMethod]] = [("Player", "left"), ("Start", "right"), ("Cities", "left"),
                                                ("Joined", "left"), ("Missing", "right"), ("Prestige", "right"),
                                                ("Total", "right")]
    for title, justify in columns:
        table.add_column(title, justify=justify)
    for q, p in enumerate(summary["players"]):
        name = Text(f"{q + 1} ", style=f"bold {player_style(q)}")
        name.append(p["name"])
        table.add_row(name, p["start"], ", ".join(p["cities"]), "✔" if p["connected"] else "✘",
                      str(p["missing_rails"]), f"+{p['prestige']}", str(p["total"]))
    return table


def help_text() -> RenderableType:
    cmds = [
        ("moves [words]", "your legal moves, numbered (e.g. 'moves rail 12,5'); then type a number"),
        ("map", "show the board and the table again (alias: status)"),
        ("hint", "show / hide a shortest way to join your cities (board and moves ★)"),
        ("cities [words]", "every city with its label and point (e.g. 'cities orange')"),
        ("help", "this help"),
        ("quit", "leave the game"),
    ]
    table = Table(box=None, show_header=False, padding=(0, 2))
    table.add_column(style="cyan")
    table.add_column()
    for c, d in cmds:
        table.add_row(c, d)
    examples = ["start 12,5", "start Madrid", "rail 12,5-13,6", "rail 12,5-13,6 13,6-14,5", "end", "pass",
                "return Madrid", "pass Madrid"]
    return Group(
        Text("Commands", style="bold"), table, Text("Moves, for example", style="bold"),
        Columns([Text(f"  {e}") for e in examples], padding=(0, 2)),
        Text("Points are x,row: read x on the rulers above (even) and below (odd) the board, row on the left.",
             style="dim"),
        Text("Each turn: 2 rails from your network (a double line takes both); the first to join all their "
             "cities ends the round.", style="dim"),
    )

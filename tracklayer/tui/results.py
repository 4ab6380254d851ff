"""A finished game's or a scored table's result as rich text in the terminal (``tracklayer play``,
``tracklayer score``)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text


def _lit(value: Any, style: str = "") -> Text:
    """User data (a player's name, a city) as literal text: never read as rich markup or emoji codes."""
    return Text(str(value), style=style)


def print_result(result: dict[str, Any], console: Console) -> None:
    """Readable score breakdown (shared by ``score`` and the end of ``play``)."""
    if str(result.get("game", "")).startswith("trans-"):
        _print_trans_result(result, console)
        return
    players = result["players"]
    table = Table(title="Final scores", show_lines=False)
    table.add_column("Player")
    columns = [("route_points", "Routes"), ("ticket_points", "Tickets"), ("completed_tickets", "Done"),
               ("station_points", "Stations"), ("longest_path", "Longest"), ("longest_path_bonus", "Express"),
               ("attraction_points", "Attractions"), ("total", "Total"), ("rank", "Rank")]
    shown = [(k, title) for k, title in columns if k in players[0]]
    for _, title in shown:
        table.add_column(title, justify="right")
    for p in players:
        table.add_row(_lit(p["name"]), *(str(p[k]) for k, _ in shown))
    console.print(table)
    for p in players:
        console.print(_lit(p["name"], "bold"))
        for t in p.get("tickets", []):
            mark = ("✔", "green") if t["completed"] else ("✘", "red")
            sign = "+" if t["completed"] else "-"
            console.print(Text.assemble("  ", mark, f" {t['from']} – {t['to']} {sign}{t['points']}"))
        for st in p.get("stations", []):
            console.print(Text(f"  station {st['city']}: borrows {st['borrows'] or 'nothing'}"))
        if p.get("longest_path_routes"):
            console.print(Text(f"  longest path {p['longest_path']}: {', '.join(p['longest_path_routes'])}"))
        if p.get("attractions"):
            console.print(Text(f"  attractions: {', '.join(p['attractions'])}"))
    _print_winners(result, "Winner", f" (decided by {result['tiebreak']})", console)


def _print_winners(result: dict[str, Any], label: str, tail: str, console: Console) -> None:
    winners = ", ".join(result["winners"])
    console.print(Text.assemble((f"{label}{'s' if len(result['winners']) > 1 else ''}: {winners}", "bold"), tail))


def _print_trans_result(result: dict[str, Any], console: Console) -> None:
    """Trans Europa / America: a game's prestige round by round, or one round scored from a table."""
    players = result["players"]
    if "rounds" in result:  # a whole game (``TransGame.result()``)
        final = result.get("final", True)
        table = Table(title="Final scores" if final else "Scores so far", show_lines=False)
        table.add_column("Round")
        for p in players:
            table.add_column(_lit(p["name"]), justify="right")
        table.add_column("Ended by")
        for r in result["rounds"]:
            cells = []
            for q in r["players"]:
                how = "✔ joined" if q["connected"] else f"{q['missing_rails']} missing"
                cells.append(f"{how} +{q['prestige']} = {q['total']}")
            table.add_row(str(r["round"]), *cells, r["ended_by"])
        table.add_section()
        table.add_row("Total", *(f"[bold]{p['total']}[/bold]" for p in players), "")
        table.add_row("Rank", *(str(p["rank"]) for p in players), "")
        console.print(table)
        console.print("[dim]Per round: joined all cities, or the rails still missing; prestige; total. "
                      f"The game ends after a round in which someone reaches {result.get('goal', 13)}.[/dim]")
    else:  # one round scored from a table (``score_trans_table``)
        table = Table(title="Round scores", show_lines=False)
        for title in ("Player", "Connected", "Missing rails", "Prestige", "Total", "Rank"):
            table.add_column(title, justify="left" if title == "Player" else "right")
        for p in players:
            table.add_row(_lit(p["name"]), "✔" if p["connected"] else "✘", str(p["missing_rails"]),
                          f"+{p['prestige']}", str(p["total"]), str(p["rank"]))
        console.print(table)
        for p in players:
            if p.get("missing_lines"):
                console.print(Text.assemble((p["name"], "bold"), f" misses: {' '.join(p['missing_lines'])}"))
        if result.get("game_over"):
            console.print("Someone reached 13 prestige: the game is over.")
    over = result.get("final", True) if "rounds" in result else result.get("game_over")
    _print_winners(result, "Winner" if over else "Leader", " (most prestige; ties share)", console)

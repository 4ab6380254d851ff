"""The ``tracklayer`` command: play, score, and (later) serve, simulate and tournaments."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Faithful engines, bots and play for rail-building board games.")


def fail(message: str) -> typer.Exit:
    """Print an error on stderr, unwrapped (scripts read it), and return the exit-2 signal to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


@app.command()
def games() -> None:
    """List the games and their variants."""
    import tracklayer
    from tracklayer.ttr.board import load_board

    for name in tracklayer.games():
        if name.startswith("ttr-"):
            board = load_board(name)
            typer.echo(f"{name}: {board.name} ({board.min_players}-{board.max_players} players); "
                       f"variants: {', '.join(board.variants)}")
        else:
            typer.echo(name)


@app.command()
def score(
    file: Annotated[Path, typer.Argument(help="JSON position of a game played on a table ('-' for stdin)")],
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of tables")] = False,
) -> None:
    """Score a finished game played on a real table (see docs/score-files.md)."""
    from tracklayer.core.errors import TracklayerError

    try:
        text = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot read {file}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise fail(f"{file}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    try:
        result = _score(data)
    except TracklayerError as exc:
        raise fail(f"{file}: {exc}") from None
    if as_json:
        typer.echo(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print_result(result, Console())


def _score(data: Any) -> dict[str, Any]:
    from tracklayer.ttr.table_score import ScoreInputError, score_table

    game = data.get("game") if isinstance(data, dict) else None
    if isinstance(game, str) and game.startswith("trans-"):
        try:
            from tracklayer.trans.table_score import score_trans_table
        except ImportError:
            raise ScoreInputError(f"scoring {game} positions is not available yet") from None
        return score_trans_table(data)
    return score_table(data)


def print_result(result: dict[str, Any], console: Console) -> None:
    """Readable score breakdown (shared by ``score`` and the end of ``play``)."""
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
        table.add_row(p["name"], *(str(p[k]) for k, _ in shown))
    console.print(table)
    for p in players:
        console.print(f"[bold]{p['name']}[/bold]")
        for t in p.get("tickets", []):
            mark = "[green]✔[/green]" if t["completed"] else "[red]✘[/red]"
            sign = "+" if t["completed"] else "-"
            console.print(f"  {mark} {t['from']} – {t['to']} {sign}{t['points']}")
        for st in p.get("stations", []):
            console.print(f"  station {st['city']}: borrows {st['borrows'] or 'nothing'}")
        if p.get("longest_path_routes"):
            console.print(f"  longest path {p['longest_path']}: {', '.join(p['longest_path_routes'])}")
        if p.get("attractions"):
            console.print(f"  attractions: {', '.join(p['attractions'])}")
    winners = ", ".join(result["winners"])
    console.print(f"[bold]Winner{'s' if len(result['winners']) > 1 else ''}: {winners}[/bold] "
                  f"(decided by {result['tiebreak']})")


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="ttr-europe or ttr-new-york")],
    players: Annotated[str, typer.Option(help="comma-separated seats: 'you' (or any name) for a human, "
                                              "'bot' or 'random' for a bot")] = "you,bot",
    variant: Annotated[str | None, typer.Option(help="variant, e.g. classic, 1912, mega, big-cities")] = None,
    seed: Annotated[int | None, typer.Option(help="seed for a reproducible game")] = None,
) -> None:
    """Play in the terminal against bots."""
    from tracklayer.core.errors import TracklayerError
    from tracklayer.tui.play import play_terminal

    try:
        play_terminal(game, [p.strip() for p in players.split(",") if p.strip()], variant=variant, seed=seed)
    except TracklayerError as exc:
        raise fail(str(exc)) from None


def main() -> None:
    app()


if __name__ == "__main__":
    main()

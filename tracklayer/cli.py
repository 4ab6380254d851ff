"""The ``tracklayer`` command: play, score, and (later) serve, simulate and tournaments."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from tracklayer.tui.results import print_result

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Faithful engines, bots and play for rail-building board games.")


def _version(value: bool) -> None:
    if value:
        import tracklayer
        from tracklayer.native import describe

        typer.echo(f"tracklayer {tracklayer.__version__}")
        typer.echo(describe())
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="print the version and which build of the engine runs")] = False,
) -> None:
    """Faithful engines, bots and play for rail-building board games."""


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
    """Score a finished game played on a real table (see docs/score-files.md).

    Any file, however broken or hostile, ends in a result or in one line ``error: FILE: where: what``
    with exit code 2: ``score_document`` (shared with ``POST /api/score``) decodes and checks it.
    """
    from tracklayer.score_file import ScoreFileError, read_score_file, score_document

    shown = _printable(str(file))
    try:
        result = score_document(read_score_file(str(file)))
    except ScoreFileError as exc:
        raise fail(f"{shown}: {exc}") from None
    try:
        if as_json:
            typer.echo(json.dumps(result, indent=2, ensure_ascii=False))
        else:
            print_result(result, Console())
    except UnicodeEncodeError:
        raise fail(f"{shown}: the result has letters this terminal's encoding cannot show; "
                   "set PYTHONIOENCODING=utf-8 or use --json") from None


def _printable(text: str) -> str:
    """``text`` with control characters and undecodable bytes escaped, for one line on stderr."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="ttr-europe, ttr-new-york, trans-europa or trans-america")],
    players: Annotated[str, typer.Option(help="comma-separated seats: 'you' (or any name) for a human, "
                                              "'bot' for the default bot, or a bot's name (e.g. 'random')")
                       ] = "you,bot",
    variant: Annotated[str | None, typer.Option(help="Ticket to Ride variant, e.g. classic, 1912, mega, "
                                                     "big-cities")] = None,
    seed: Annotated[int | None, typer.Option(help="seed for a reproducible game")] = None,
) -> None:
    """Play in the terminal against bots (several humans: hot-seat). Type 'help' in the game for commands."""
    from tracklayer.core.errors import TracklayerError
    from tracklayer.tui.play import play_terminal

    try:
        play_terminal(game, [p.strip() for p in players.split(",") if p.strip()], variant=variant, seed=seed)
    except TracklayerError as exc:
        raise fail(str(exc)) from None


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to listen on")] = 8000,
    # the envvar names and defaults are those of tracklayer.server.app's ENV_VARS and Settings (not
    # imported here: the web framework would slow every command down); tests/server/test_settings.py
    # checks they agree
    database_url: Annotated[str | None, typer.Option(
        envvar="TRACKLAYER_DATABASE_URL",
        help="sqlite:///path or postgresql://user:pass@host/db (default: a SQLite file in your data "
             "directory)")] = None,
    bot_delay: Annotated[float, typer.Option(envvar="TRACKLAYER_BOT_DELAY", help="seconds between bot moves")] = 0.4,
    rate_limit: Annotated[float, typer.Option(
        envvar="TRACKLAYER_RATE", help="websocket messages a second per connection (0: none)")] = 10.0,
    idle_timeout: Annotated[float, typer.Option(
        envvar="TRACKLAYER_IDLE_SECONDS",
        help="seconds after which a game nobody is using is unloaded from memory (it is rebuilt from the "
             "database when next opened)")] = 900.0,
    workers: Annotated[int, typer.Option(
        help="server processes sharing the port, e.g. one per core (PostgreSQL only)")] = 1,
    log_level: Annotated[str, typer.Option(
        help="level of tracklayer's own log (debug: every stored move too)")] = "info",
    bot_workers: Annotated[int | None, typer.Option(
        envvar="TRACKLAYER_BOT_WORKERS",
        help="processes bots think in (default: one per core but one, at least one)")] = None,
    bot_seconds: Annotated[float, typer.Option(
        envvar="TRACKLAYER_BOT_SECONDS",
        help="time cap of one bot move; past it the bot plays a cheap fallback move")] = 5.0,
    games_per_minute: Annotated[float, typer.Option(
        envvar="TRACKLAYER_GAMES_PER_MINUTE", help="games one client address may create a minute (0: no limit)")
    ] = 20.0,
    bot_games: Annotated[int, typer.Option(
        envvar="TRACKLAYER_BOT_GAMES",
        help="games without a human seat one client address may have running at once (0: no limit)")] = 3,
    forwarded_allow_ips: Annotated[str | None, typer.Option(
        envvar="TRACKLAYER_FORWARDED_ALLOW_IPS",
        help="reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed: comma-separated "
             "addresses or networks, e.g. 127.0.0.1 for an nginx on this host (default: none)")] = None,
) -> None:
    """Play in the browser: lobby, live multiplayer and bots (see docs/server.md).

    Each option with an environment variable reads it when the option is not given; the settings
    without an option are read from theirs (TRACKLAYER_*, see docs/server.md)."""
    from tracklayer.server import Settings
    from tracklayer.server.db import default_database_url
    from tracklayer.server.workers import configure_logging, hold_sqlite, run, sqlite_refusal

    try:
        settings = Settings.from_env()
    except ValueError as exc:
        raise fail(str(exc)) from None
    settings.database_url = database_url or default_database_url()
    settings.bot_delay = bot_delay
    settings.rate = rate_limit
    settings.idle_seconds = idle_timeout
    if workers < 1:
        raise fail("--workers must be 1 or more")
    if log_level.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise fail(f"--log-level: debug, info, warning or error, not {log_level!r}")
    refusal = sqlite_refusal(settings.database_url, workers) or hold_sqlite(settings.database_url)
    if refusal:  # several processes on one SQLite file would each show their own copy of a game
        raise fail(refusal)
    settings.bot_workers = bot_workers
    settings.bot_seconds = bot_seconds
    settings.games_per_minute = games_per_minute
    settings.bot_games = bot_games
    settings.forwarded_allow_ips = forwarded_allow_ips
    configure_logging(log_level)
    typer.echo(f"tracklayer: open http://{'localhost' if host in ('127.0.0.1', '::1') else host}:{port}/", err=True)
    run(settings, host, port, workers, log_level)


# ---------------------------------------------------------------------------- simulation lab (tracklayer.lab)
_BACKEND_HELP = "process (local worker processes) or ray (a Ray cluster; see --address)"


def _lab_progress(console: Console, total: int, label: str) -> Any:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    progress = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TimeRemainingColumn(), console=console, transient=False, disable=not console.is_terminal)
    return progress


def _lab_console(to_stderr: bool) -> Console:
    """The lab's console: wide enough for its table when the output is piped to a file."""
    stream = sys.stderr if to_stderr else sys.stdout
    return Console(stderr=to_stderr, width=None if stream.isatty() else 120)


def _print_lab(result: dict[str, Any], console: Console) -> None:
    summary, rating = result["summary"], result.get("ratings") or {}
    table = Table(title=f"{result['meta']['game']}: {len(result['games'])} games")
    ttr = any("routes" in s["sources_mean"] for s in summary.values())
    sources = "Routes/Tickets/Bonus" if ttr else "Rounds won"
    for col in ("Bot", "Games", "Win % [95% CI]", "Score ± SD", sources, "Length", "s/move", "Elo"):
        table.add_column(col, justify="left" if col == "Bot" else "right", no_wrap=True)
    for name, s in summary.items():
        src = s["sources_mean"]
        bonus = src.get("stations", 0) + src.get("longest_path", 0) + src.get("attractions", 0)
        split = (f"{src['routes']:.0f}/{src['tickets']:.0f}/{bonus:.0f}" if "routes" in src
                 else f"{src.get('rounds_connected', 0):.1f}")
        elo = rating.get(name, {}).get("elo")
        table.add_row(name, str(s["games"]),
                      f"{s['win_rate']:.0%} [{s['win_ci95'][0]:.0%}–{s['win_ci95'][1]:.0%}]",
                      f"{s['score_mean']:.1f} ± {s['score_sd']:.1f}", split, f"{s['length_mean']:.0f}",
                      f"{s['move_seconds_mean']:.3f}", "-" if elo is None else f"{elo:.0f}")
    console.print(table)
    play = {name: s.get("play_mean") for name, s in summary.items() if s.get("play_mean")}
    if play:  # Ticket to Ride: what a strong player would exploit, per game
        habits = Table(title="How they play (per game)")
        columns = [("cards_at_end", "Cards at end"), ("ticket_draws", "Ticket draws"),
                   ("face_up_locomotives", "Face-up locos"), ("stations_built", "Stations"),
                   ("stations_used", "used"), ("tickets_failed", "Failed tickets")]
        habits.add_column("Bot", no_wrap=True)
        for _key, title in columns:
            habits.add_column(title, justify="right", no_wrap=True)
        habits.add_column("Blocked", justify="right", no_wrap=True)
        habits.add_column("won then", justify="right", no_wrap=True)
        for name, stats in play.items():
            blocked = stats.get("blocked", 0.0)
            won = stats.get("won_after_blocked", 0.0)
            habits.add_row(name, *(f"{stats.get(key, 0):.2f}" for key, _title in columns), f"{blocked:.0%}",
                           f"{won / blocked:.0%}" if blocked else "-")
        console.print(habits)
    if result.get("ladder"):
        console.print("Ladder: " + " > ".join(result["ladder"]))
    for f in result.get("files", []):
        console.print(f"wrote {f}")


GameArg = Annotated[str, typer.Argument(help="ttr-europe, ttr-new-york, trans-europa or trans-america")]
JobsOpt = Annotated[int, typer.Option(help="games played in parallel")]
OutOpt = Annotated[Path | None, typer.Option(help="directory for JSON, CSV and PNG results")]
VariantOpt = Annotated[str | None, typer.Option(help="game variant (Ticket to Ride)")]
BudgetOpt = Annotated[str | None, typer.Option(help="thinking budget per move: '0.5s' or '200i' (iterations)")]
BackendOpt = Annotated[str, typer.Option(help=_BACKEND_HELP)]
AddressOpt = Annotated[str | None, typer.Option(help="Ray cluster address (with --backend ray)")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print the summary as JSON")]
IsolateOpt = Annotated[bool | None, typer.Option(
    "--isolate-bots/--in-process-bots",
    help="each bot in a process of its own, where it cannot reach the game object (default: only bots from "
         "outside the project, package.module:factory)")]


def _run_lab(run: Any, keys: tuple[str, ...], as_json: bool, total: int | None, **kwargs: Any) -> None:
    """Run a lab job with a progress bar, then print its report (or the JSON ``keys`` of it)."""
    from tracklayer.core.errors import TracklayerError

    console = _lab_console(as_json)
    try:
        with _lab_progress(console, total or 0, "games") as bar:
            task = bar.add_task("games", total=total)
            result = run(**kwargs, progress=lambda done, tot: bar.update(task, completed=done, total=tot))
    except TracklayerError as exc:
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps({k: result[k] for k in keys}, indent=2))
    else:
        _print_lab(result, console)


@app.command()
def simulate(
    game: GameArg,
    players: Annotated[str, typer.Option(help="comma-separated bots, one per seat, e.g. planner,greedy,mcts")],
    games_: Annotated[int, typer.Option("--games", help="number of games")] = 100,
    seed: Annotated[int, typer.Option(help="seed of the whole run (deals, bots)")] = 0,
    jobs: JobsOpt = 1,
    out: OutOpt = None,
    variant: VariantOpt = None,
    budget: BudgetOpt = None,
    backend: BackendOpt = "process",
    address: AddressOpt = None,
    as_json: JsonOpt = False,
    isolate_bots: IsolateOpt = None,
) -> None:
    """Play many bot games (seats rotated over every deal) and report win rates with 95% CIs."""
    from tracklayer.lab import simulate as run

    _run_lab(run, ("meta", "summary", "ratings"), as_json, games_, game=game, players=players.split(","),
             n_games=games_, seed=seed, jobs=jobs, variant=variant, budget=budget, backend=backend, address=address,
             out=out, isolate_bots=isolate_bots)


@app.command()
def tournament(
    game: GameArg,
    bots: Annotated[str, typer.Option(help="comma-separated bots, e.g. random,greedy,planner,mcts")],
    games_: Annotated[int, typer.Option("--games", help="games per match (pairing or group)")] = 20,
    players_per_game: Annotated[int, typer.Option(help="seats per game (round robin over groups of this size)")] = 2,
    fmt: Annotated[str, typer.Option("--format", help="round-robin or ladder")] = "round-robin",
    passes: Annotated[int, typer.Option(help="ladder passes")] = 2,
    seed: Annotated[int, typer.Option(help="seed of the whole run")] = 0,
    jobs: JobsOpt = 1,
    out: OutOpt = None,
    variant: VariantOpt = None,
    budget: BudgetOpt = None,
    backend: BackendOpt = "process",
    address: AddressOpt = None,
    as_json: JsonOpt = False,
    isolate_bots: IsolateOpt = None,
) -> None:
    """Round-robin or ladder tournament between bots, with Elo ratings (Bradley–Terry, 95% bootstrap CI)."""
    from tracklayer.lab import tournament as run

    _run_lab(run, ("meta", "summary", "ratings", "matches", "ladder"), as_json, None, game=game,
             bots=bots.split(","), games_per_match=games_, players_per_game=players_per_game, fmt=fmt, seed=seed,
             jobs=jobs, variant=variant, budget=budget, backend=backend, address=address, passes=passes, out=out,
             isolate_bots=isolate_bots)


ladder_app = typer.Typer(no_args_is_help=True, help="The rating ladder of the game server.")
app.add_typer(ladder_app, name="ladder")


@ladder_app.command("seed")
def ladder_seed(
    games_: Annotated[int, typer.Option("--games", help="bot-vs-bot games to play and rate")] = 20,
    game: Annotated[str, typer.Option(help="game to play (its family's ladder gets the ratings)")] = "ttr-new-york",
    bots: Annotated[str, typer.Option(help="comma-separated bots that meet in turn")] = "random,greedy,planner",
    players: Annotated[int, typer.Option(help="seats per game")] = 2,
    seed: Annotated[int, typer.Option(help="seed of the whole run (the same seed rates nothing twice)")] = 0,
    database_url: Annotated[str | None, typer.Option(help="the server's database (default: the local SQLite file)")]
    = None,
) -> None:
    """Play bot-vs-bot games through the engine and record them as rated games, so a fresh site has a
    ladder (each bot is one player on it: a difficulty scale for people)."""
    import tracklayer
    from tracklayer.bots import resolve_bot
    from tracklayer.server.db import Store, default_database_url
    from tracklayer.server.ladder_seed import seed_ladder

    if game not in tracklayer.games():
        raise fail(f"unknown game {game!r}; games: {', '.join(tracklayer.games())}")
    names = [b.strip() for b in bots.split(",") if b.strip()]
    keys = [resolve_bot(b) for b in names]
    unknown = [b for b, key in zip(names, keys, strict=True) if key is None]
    if unknown or len(set(names)) < 2:
        raise fail(f"name at least two different known bots (unknown: {', '.join(unknown) or 'none'})")
    if not 2 <= players <= len(names):
        raise fail("--players is between 2 and the number of bots")
    store = Store(database_url or default_database_url())  # migrates the database first
    try:
        rated = seed_ladder(store.engine, game, [key for key in keys if key is not None], games_, seed, players,
                            progress=lambda k: typer.echo(f"\r{k}/{games_} games", nl=False, err=True))
    finally:
        store.close()
    typer.echo("", err=True)
    typer.echo(f"{rated} games rated ({games_ - rated} were rated before)")


def main() -> None:
    app()


if __name__ == "__main__":
    main()

"""The server's settings and their environment variables: one table (``ENV_VARS``) drives
``Settings.from_env`` and ``Settings.to_env``; ``serve --workers N`` hands its settings to the
worker processes through it, and ``tracklayer serve``'s options and docs/server.md name the same
variables."""

from __future__ import annotations

import dataclasses
import os
import pickle
import types
import typing
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tracklayer.cli import app as cli_app
from tracklayer.server import workers
from tracklayer.server.app import ENV_VARS, Settings

ROOT = Path(__file__).resolve().parents[2]
FIELDS = [f.name for f in dataclasses.fields(Settings)]

# every field away from its default (test_other_differs_everywhere keeps it so for new fields)
OTHER = Settings(database_url="postgresql://u:p@db.example/tracklayer", bot_delay=0.05, rate=2.5, burst=7,
                 max_message=1000, max_frame=20_000, max_body=12_345, header_timeout=2.5, body_timeout=0.0,
                 hello_timeout=3.25, tune_gc=False,
                 idle_seconds=61.5, max_rooms=17, bot_workers=2, bot_seconds=0.75, games_per_minute=0.5,
                 bot_games=0, away_seconds=33.0, api_requests=0, login_attempts=7, undo_grace=1.5,
                 forwarded_allow_ips="10.0.0.0/8,127.0.0.1", smtp_host="mail.example", smtp_port=465,
                 smtp_user="tl", smtp_password="secret", smtp_security="ssl", mail_from="tl@example.org",
                 public_url="https://play.example.org", mail_retry_seconds=2.5)


def field_type(name: str) -> type:
    """The field's type, ``X`` for ``X | None``."""
    hint = typing.get_type_hints(Settings)[name]
    if isinstance(hint, types.UnionType):
        (hint,) = [a for a in typing.get_args(hint) if a is not type(None)]
    return hint


def test_every_field_has_one_variable() -> None:
    assert list(ENV_VARS) == FIELDS  # same order too, so the table reads like the class
    names = [var for var, _ in ENV_VARS.values()]
    assert len(set(names)) == len(names)
    assert all(var.startswith("TRACKLAYER_") for var in names)
    for name, (_var, kind) in ENV_VARS.items():
        assert kind is field_type(name), name


def test_other_differs_everywhere() -> None:
    default = Settings()
    assert [f for f in FIELDS if getattr(OTHER, f) == getattr(default, f)] == []


@pytest.mark.parametrize("settings", [Settings(), OTHER], ids=["defaults", "other"])
def test_round_trip_through_the_real_environment(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    for var, text in settings.to_env().items():
        monkeypatch.setenv(var, text)
    assert Settings.from_env() == settings


def _value(kind: type, optional: bool) -> st.SearchStrategy[Any]:
    # text an environment can hold: no NUL, no lone surrogates; "" stands for None
    base = {str: st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1),
            int: st.integers(), float: st.floats(allow_nan=False), bool: st.booleans()}[kind]
    return st.none() | base if optional else base


SETTINGS = st.builds(Settings, **{name: _value(kind, Settings.__dataclass_fields__[name].default is None)
                                  for name, (_var, kind) in ENV_VARS.items()})


@given(SETTINGS)
def test_round_trip(settings: Settings) -> None:
    env = settings.to_env()
    assert set(env) == {var for var, _ in ENV_VARS.values()}
    assert Settings.from_env(env) == settings


def test_unset_and_empty_mean_default() -> None:
    assert Settings.from_env({}) == Settings()
    assert Settings.from_env(dict.fromkeys(Settings().to_env(), "")) == Settings()
    assert Settings.from_env({"TRACKLAYER_TUNE_GC": "off", "TRACKLAYER_BOT_GAMES": "5"}) == Settings(
        tune_gc=False, bot_games=5)


@pytest.mark.parametrize(("env", "message"), [
    ({"TRACKLAYER_BOT_DELAY": "fast"}, "$TRACKLAYER_BOT_DELAY must be a number, got 'fast'"),
    ({"TRACKLAYER_BURST": "2.5"}, "$TRACKLAYER_BURST must be a whole number, got '2.5'"),
    ({"TRACKLAYER_TUNE_GC": "maybe"}, "$TRACKLAYER_TUNE_GC must be 1 or 0 (true/false, yes/no, on/off), got 'maybe'"),
])
def test_a_bad_value_names_its_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError) as info:
        Settings.from_env(env)
    assert str(info.value) == message


# ------------------------------------------------------------------------------------ serve --workers
def test_workers_hand_every_setting_to_their_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the worker processes read back (``make_app``) is exactly the parent's settings, even
    where the parent's own environment said otherwise (a None field clears its variable)."""
    import uvicorn

    env = {"TRACKLAYER_BOT_WORKERS": "9", "TRACKLAYER_BURST": "1", "PATH": "/bin"}
    monkeypatch.setattr(os, "environ", env)
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: calls.append(kwargs))
    settings = dataclasses.replace(OTHER, bot_workers=None)
    workers.run(settings, "127.0.0.1", 1, 2, "debug")
    assert calls and calls[0]["workers"] == 2
    assert Settings.from_env(env) == settings
    # uvicorn builds each worker's protocol from this (pickled to the spawned process)
    protocol = pickle.loads(pickle.dumps(calls[0]["http"]))
    assert protocol.keywords == {"header_timeout": 2.5, "body_timeout": 0.0}
    assert env["TRACKLAYER_LOG_LEVEL"] == "debug" and env["PATH"] == "/bin"


# ------------------------------------------------------------------------------------ tracklayer serve
def _serve_params() -> list[Any]:
    """The click parameters of ``tracklayer serve`` (typer bundles its own click: no isinstance)."""
    return typer.main.get_command(cli_app).commands["serve"].params  # type: ignore[attr-defined]


def test_serve_options_name_the_table_variables_and_defaults() -> None:
    by_var = {var: name for name, (var, _) in ENV_VARS.items()}
    with_env = [p for p in _serve_params() if p.envvar]
    assert len(with_env) == 9  # database_url, bot_delay, rate, idle_seconds, bot_*, games_per_minute, forwarded_*
    for param in with_env:
        assert param.envvar in by_var, param.name
        assert param.default == getattr(Settings(), by_var[param.envvar]), param.name


def _serve(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, env: dict[str, str], *args: str) -> Any:
    """``tracklayer serve`` up to the point it would start uvicorn; the settings it would serve."""
    seen: list[Settings] = []
    monkeypatch.setattr(workers, "run", lambda settings, *_: seen.append(settings))
    monkeypatch.setattr(workers, "configure_logging", lambda level: None)
    for var, _ in ENV_VARS.values():
        monkeypatch.delenv(var, raising=False)
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    res = CliRunner().invoke(cli_app, ["serve", "--database-url", url, *args], env=env)
    return res, (seen[0] if seen else None)


def test_serve_reads_the_variables_options_win(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    env = {"TRACKLAYER_BOT_DELAY": "9", "TRACKLAYER_RATE": "2.5", "TRACKLAYER_BOT_GAMES": "7",
           "TRACKLAYER_BURST": "5", "TRACKLAYER_TUNE_GC": "0"}
    res, settings = _serve(monkeypatch, tmp_path, env, "--bot-delay", "0.1")
    assert res.exit_code == 0, res.output
    assert (settings.bot_delay, settings.rate, settings.bot_games, settings.burst, settings.tune_gc) == (
        0.1, 2.5, 7, 5, False)
    assert settings.bot_seconds == Settings().bot_seconds


def test_serve_refuses_a_bad_variable_in_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    res, settings = _serve(monkeypatch, tmp_path, {"TRACKLAYER_MAX_ROOMS": "many"})
    assert settings is None and res.exit_code == 2
    assert res.output == "error: $TRACKLAYER_MAX_ROOMS must be a whole number, got 'many'\n"


def test_the_docs_list_every_variable() -> None:
    text = (ROOT / "docs" / "server.md").read_text()
    assert [var for var, _ in ENV_VARS.values() if f"`{var}`" not in text] == []

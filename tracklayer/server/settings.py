"""The server's settings: one dataclass, each field also an environment variable (``ENV_VARS``), so
that ``serve --workers N`` can hand them to worker processes it does not create itself."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tracklayer.server import guard


def _flag(text: str) -> bool:
    word = text.strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    raise ValueError(text)


# how a variable's text becomes a field's value, and what to call it when it cannot
_PARSERS: dict[type, tuple[Callable[[str], Any], str]] = {
    str: (str, "text"), int: (int, "a whole number"), float: (float, "a number"),
    bool: (_flag, "1 or 0 (true/false, yes/no, on/off)"),
}

# Every Settings field and the environment variable that carries it. One table read by
# Settings.from_env and written by Settings.to_env, because ``serve --workers N`` hands its settings
# to the N worker processes through the environment (uvicorn spawns them: no Python object crosses),
# and a field missing here would silently fall back to its default in every worker
# (tests/server/test_settings.py checks that no field is missing). ``tracklayer serve``'s options
# name the same variables (``envvar=``), and docs/server.md lists them.
ENV_VARS: dict[str, tuple[str, type]] = {
    "database_url": ("TRACKLAYER_DATABASE_URL", str),
    "bot_delay": ("TRACKLAYER_BOT_DELAY", float),
    "rate": ("TRACKLAYER_RATE", float),
    "burst": ("TRACKLAYER_BURST", int),
    "max_message": ("TRACKLAYER_MAX_MESSAGE", int),
    "max_frame": ("TRACKLAYER_MAX_FRAME", int),
    "max_body": ("TRACKLAYER_MAX_BODY", int),
    "header_timeout": ("TRACKLAYER_HEADER_TIMEOUT", float),
    "body_timeout": ("TRACKLAYER_BODY_TIMEOUT", float),
    "hello_timeout": ("TRACKLAYER_HELLO_TIMEOUT", float),
    "tune_gc": ("TRACKLAYER_TUNE_GC", bool),
    "idle_seconds": ("TRACKLAYER_IDLE_SECONDS", float),
    "max_rooms": ("TRACKLAYER_MAX_ROOMS", int),
    "bot_workers": ("TRACKLAYER_BOT_WORKERS", int),
    "bot_seconds": ("TRACKLAYER_BOT_SECONDS", float),
    "games_per_minute": ("TRACKLAYER_GAMES_PER_MINUTE", float),
    "bot_games": ("TRACKLAYER_BOT_GAMES", int),
    "away_seconds": ("TRACKLAYER_AWAY_SECONDS", float),
    "api_requests": ("TRACKLAYER_API_REQUESTS", int),
    "login_attempts": ("TRACKLAYER_LOGIN_ATTEMPTS", int),
    "undo_grace": ("TRACKLAYER_UNDO_GRACE_SECONDS", float),
    "forwarded_allow_ips": ("TRACKLAYER_FORWARDED_ALLOW_IPS", str),
    "smtp_host": ("TRACKLAYER_SMTP_HOST", str),
    "smtp_port": ("TRACKLAYER_SMTP_PORT", int),
    "smtp_user": ("TRACKLAYER_SMTP_USER", str),
    "smtp_password": ("TRACKLAYER_SMTP_PASSWORD", str),
    "smtp_security": ("TRACKLAYER_SMTP_SECURITY", str),
    "mail_from": ("TRACKLAYER_MAIL_FROM", str),
    "public_url": ("TRACKLAYER_PUBLIC_URL", str),
    "mail_retry_seconds": ("TRACKLAYER_MAIL_RETRY_SECONDS", float),
}


@dataclass
class Settings:
    """The server's settings. Each field also travels as an environment variable (``ENV_VARS``)."""

    database_url: str | None = None
    bot_delay: float = 0.4  # seconds between bot moves, so people can follow them
    rate: float = 10.0  # websocket messages a second per connection (0: no limit)
    burst: int = 30
    max_message: int = 4096  # bytes of one websocket message from a client
    max_frame: int = 65536  # bytes of one websocket frame: a bigger one closes the socket (1009)
    max_body: int = guard.MAX_BODY  # bytes of one HTTP request body (413 beyond)
    header_timeout: float = 10.0  # seconds a request's headers may take to arrive (408 and closed; server/deadlines.py)
    body_timeout: float = 30.0  # seconds a request's body may take to arrive after its headers (0: no limit, both)
    hello_timeout: float = 15.0
    tune_gc: bool = True  # see core/gcpause.py (a process-wide setting: off when embedding the app elsewhere)
    idle_seconds: float = 900.0  # a game nobody uses is unloaded from memory after this (rebuilt on next use)
    max_rooms: int = 2000  # games in memory at most, idle ones permitting
    bot_workers: int | None = None  # processes bots think in (None: one per core but one, at least one)
    bot_seconds: float = 5.0  # time cap of one bot move; past it a cheap fallback move is played
    games_per_minute: float = 20.0  # games one client address may create a minute (0: no limit)
    bot_games: int = 3  # bot-only games one address may have running at once (0: no limit)
    away_seconds: float = 120.0  # a person away this long (no clock, or a real-time one): others may hand the seat over
    api_requests: int = 60  # HTTP requests one bot account's API token may make a minute (0: no limit)
    login_attempts: int = 20  # logins and registrations one client address may try in 5 minutes
    undo_grace: float = 5.0  # seconds bots wait after a move its player may still take back (0: they never wait)
    # reverse proxies whose X-Forwarded-For / X-Forwarded-Proto are believed: comma-separated addresses
    # or networks ("127.0.0.1", "10.0.0.0/8"; "*": any); None: no proxy, every client is its peer address
    forwarded_allow_ips: str | None = None
    # e-mail (tracklayer.server.mail): no SMTP host, no mail (the pages say so); links in mail start with
    # public_url (the address people open the site at, e.g. "https://play.example.org"), needed as well
    smtp_host: str | None = None
    smtp_port: int = 587
    smtp_user: str | None = None  # log in to the SMTP server with these (None: no login)
    smtp_password: str | None = None
    smtp_security: str = "starttls"  # starttls (upgrade a plain connection), ssl (TLS from the start) or none
    mail_from: str | None = None  # the From address (None: tracklayer@<the public URL's host>)
    public_url: str | None = None
    mail_retry_seconds: float = 30.0  # a failed send is tried again after this, then twice and four times as long

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """The defaults, overridden by each ``ENV_VARS`` variable set in ``env`` (``os.environ`` if
        None) to a non-empty value; ValueError naming the variable if a value does not parse."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for name, (var, kind) in ENV_VARS.items():
            text = env.get(var)
            if not text:  # unset or empty: the default (so to_env can say "None" with "")
                continue
            parse, what = _PARSERS[kind]
            try:
                values[name] = parse(text)
            except ValueError:
                raise ValueError(f"${var} must be {what}, got {text!r}") from None
        return cls(**values)

    def to_env(self) -> dict[str, str]:
        """Every field as its ``ENV_VARS`` variable, such that ``from_env(s.to_env()) == s``; a None
        field becomes "" (its default, None: every optional field defaults to None)."""
        out: dict[str, str] = {}
        for name, (var, _kind) in ENV_VARS.items():
            value = getattr(self, name)
            # str of a float is its shortest text that reads back as the same float
            out[var] = "" if value is None else ("1" if value else "0") if isinstance(value, bool) else str(value)
        return out

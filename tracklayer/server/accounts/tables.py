"""The account tables (migrations 0003, 0006, 0007, 0008, 0009, 0010, 0012 and 0013)."""

from __future__ import annotations

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()
SKELETON_MAX = 512  # characters of a stored skeleton: a 24-character name's is at most 432 (U+FDFA gives 18)

# ---------------------------------------------------------------------------- tables (migration 0003)
accounts = Table(
    "accounts", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("username", String(24), nullable=False),
    Column("username_key", String(96), nullable=False, unique=True),  # casefolded: names unique ignoring case
    # UTS #39 skeleton (migration 0007): look-alike names are one name. Unique; NULL only for an account
    # that already looked like an older one when the column was added (the older one keeps the skeleton)
    Column("username_skeleton", String(SKELETON_MAX), nullable=True),
    Index("ux_accounts_username_skeleton", "username_skeleton", unique=True),
    Column("password_hash", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    # migration 0008: a bot account (an outside program playing over the network) names the account that
    # owns it; NULL for a person's account. A bot account has no password: it acts with API tokens only
    Column("bot_owner", Integer, nullable=True, index=True),
    Column("bot_description", Text, nullable=True),  # migration 0012: a bot account's, in its owner's words
)
sessions = Table(
    "sessions", metadata,
    Column("id_hash", String(64), primary_key=True),  # sha256 of the cookie's session id
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("csrf", String(64), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
)
account_games = Table(
    "account_games", metadata,
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("game_id", String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("rank", Integer, nullable=True),  # set when the game ends
    Column("players", Integer, nullable=True),
    Column("joined_at", Float, nullable=False),
    # migration 0009: the seat's final numbers as JSON (tracklayer.server.accounts.stats), set with the rank;
    # NULL for a game that has not ended or ended before statistics were kept
    Column("stats", Text, nullable=True),
)
ratings = Table(
    "ratings", metadata,
    Column("family", String(16), primary_key=True),
    Column("identity", String(64), primary_key=True),  # "acct:<id>" or "bot:<name>"
    Column("kind", String(8), nullable=False),  # human or bot
    Column("name", String(64), nullable=False),
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("updated_at", Float, nullable=False),
)
rated_games = Table(
    "rated_games", metadata,
    Column("game_id", String(64), primary_key=True),  # one row per rated game: the exactly-once guard
    Column("family", String(16), nullable=False),
    Column("game", String(64), nullable=False),
    Column("rated_at", Float, nullable=False),
)
rating_history = Table(
    "rating_history", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", String(64), nullable=False),
    Column("family", String(16), nullable=False),
    Column("identity", String(64), nullable=False),
    Column("rank", Integer, nullable=False),
    Column("players", Integer, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("ordinal", Float, nullable=False),
    Column("at", Float, nullable=False),
)
login_limits = Table(  # migration 0006: login attempts counted across every server process (LoginLimiter)
    "login_limits", metadata,
    Column("key", String(64), primary_key=True),  # sha256 of "addr\0<address>" or "name\0<username key>"
    Column("started", Float, nullable=False),  # the window of this count started then (epoch seconds)
    Column("count", Integer, nullable=False),
)
api_tokens = Table(  # migration 0008: the API tokens of bot accounts (docs/protocol.md, Bots over the network)
    "api_tokens", metadata,
    Column("id", String(16), primary_key=True),  # public: names the token in lists and to revoke it
    Column("secret_hash", String(64), nullable=False, unique=True),  # sha256 of the secret; the secret is shown once
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),  # the bot account
    Column("label", String(64), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("last_used_at", Float, nullable=True),
    Column("revoked_at", Float, nullable=True),  # a revoked token authenticates nothing; the row stays for the list
)
# ---------------------------------------------------------------------------- friends (migration 0010)
follows = Table(  # one row per follow: ``follower_id`` follows ``followee_id``; both ways is a friendship
    "follows", metadata,
    Column("follower_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("followee_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("created_at", Float, nullable=False),
    Index("ix_follows_followee", "followee_id"),
)
presence = Table(  # when an account was last active on the site, and the game it last opened a seat of
    "account_presence", metadata,
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("last_seen_at", Float, nullable=False),
    Column("game_id", String(32), nullable=True),  # NULL when its last game websocket closed
)
invitations = Table(  # a seat of a game offered to one account; the seat's token is read when it is accepted
    "invitations", metadata,
    Column("id", String(16), primary_key=True),  # public: names the invitation in the invitee's answers
    Column("game_id", String(32), ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("inviter_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("invitee_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("state", String(10), nullable=False, server_default="waiting"),  # waiting, accepted or declined
    Index("ux_invitations_seat_invitee", "game_id", "seat", "invitee_id", unique=True),
    Index("ix_invitations_invitee", "invitee_id"),
)

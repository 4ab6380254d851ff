"""Optional accounts, sessions, seat links, skill ratings per game family, the leaderboard and profiles.

Guests keep playing by link exactly as before: an account only adds a name that lasts, a history
and a rating. Decisions (documented in ``docs/server.md``):

* Passwords are hashed with argon2id (argon2-cffi's ``PasswordHasher``; a hash made with older
  parameters is replaced at the next login). Hashing runs in a worker thread: it is CPU-heavy on
  purpose and must not stall the event loop that serves every game.
* A session is a random id in an ``HttpOnly``, ``SameSite=Lax`` cookie (``Secure`` over https). The
  database keeps only the SHA-256 of the id (a leaked table opens no session), with an expiry;
  logout deletes the row.
* CSRF: every state-changing request that the cookie authenticates must carry the session's own
  token in ``X-CSRF-Token`` (given by ``GET /api/me`` and by login/register), else 403. Login and
  register, which have no session yet, refuse a cross-site ``Origin`` instead (login CSRF).
* A username is refused if it looks like an existing one: names are compared by their Unicode
  confusable skeleton (UTS #39, ICU's ``SpoofChecker`` through PyICU) of the NFKC, case-folded
  name, stored in ``username_skeleton`` (a unique column), so ``Vıctım`` or ``Ｖictim`` cannot sit
  next to ``Victim``; names are shown as typed.
* Login is rate-limited per client address and per username (failures), in the database so that the
  limits hold across server processes (:class:`LoginLimiter`).
* A game is rated when it ends with at least two rated seats: seats linked to an account and bot
  seats (each bot name is one identity per family, ``bot:planner``, so the ladder shows how strong
  the bots are; a bot on several seats gets the mean of their updates). Guests are not rated and
  do not count. Ranks are the engine's final ranks; a seat
  marked ``resigned`` is ranked last. The update is applied exactly once: the ``rated_games`` row of
  the game is inserted in the same transaction as the new ratings (and the final ranks), so a second
  process (or a second call) fails on its primary key and changes nothing.
* A crash between a game's last move and its rating is made good by a sweep every process runs at
  start and every 2 minutes (:func:`rate_unrated`): finished games with account seats and no ranks.

The package, one module per concern: ``tables`` (the schema), ``names`` (usernames, passwords),
``limiter`` (login attempts), ``store`` (reads and writes), ``ratings`` (the openskill update),
``sweep`` (games a crash left unrated), ``friends`` (following, who is online, invitations to a seat) and
``service`` (sessions and the game server's hooks). The routes are ``tracklayer.server.routers.accounts``,
``.ratings`` and ``.friends``.
"""

from __future__ import annotations

from tracklayer.server.accounts.limiter import LOGIN_FAILS_PER_NAME, LOGIN_PER_ADDRESS, LOGIN_WINDOW, LoginLimiter
from tracklayer.server.accounts.names import (
    PASSWORD_MAX,
    PASSWORD_MIN,
    USERNAME_MAX,
    USERNAME_MIN,
    check_password,
    check_username,
    hasher,
    username_key,
    username_skeleton,
    verify_password,
)
from tracklayer.server.accounts.ratings import final_ranks, ordinal
from tracklayer.server.accounts.service import COOKIE, CSRF_HEADER, Accounts, _same_origin
from tracklayer.server.accounts.store import FAMILIES, SESSION_SECONDS, AccountStore, _sid_hash, family_of
from tracklayer.server.accounts.sweep import (
    SWEEP_BATCH,
    SWEEP_EVERY,
    SWEEP_GRACE,
    SWEEP_SKIP_MAX,
    rate_stored,
    rate_unrated,
    with_seat_flags,
)
from tracklayer.server.accounts.tables import (
    SKELETON_MAX,
    account_games,
    accounts,
    login_limits,
    metadata,
    rated_games,
    rating_history,
    ratings,
    sessions,
)

__all__ = [
    "COOKIE", "CSRF_HEADER", "FAMILIES", "LOGIN_FAILS_PER_NAME", "LOGIN_PER_ADDRESS", "LOGIN_WINDOW", "PASSWORD_MAX",
    "PASSWORD_MIN", "SESSION_SECONDS", "SKELETON_MAX", "SWEEP_BATCH", "SWEEP_EVERY", "SWEEP_GRACE", "SWEEP_SKIP_MAX",
    "USERNAME_MAX", "USERNAME_MIN", "AccountStore", "Accounts", "LoginLimiter", "_same_origin",
    "_sid_hash", "account_games", "accounts", "check_password", "check_username", "family_of", "final_ranks", "hasher",
    "login_limits", "metadata", "ordinal", "rate_stored", "rate_unrated", "rated_games", "rating_history", "ratings",
    "sessions", "username_key", "username_skeleton", "verify_password", "with_seat_flags",
]

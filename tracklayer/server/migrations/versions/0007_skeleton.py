"""Look-alike usernames: the UTS #39 confusable skeleton of every account's name, in a unique column.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27

``accounts.username_skeleton`` holds ``tracklayer.server.accounts.username_skeleton(username)``;
its unique index refuses a new name that looks like an existing one (``Vıctım``, ``Ｖictim`` next
to ``Victim``), also when two registrations race. Existing accounts are backfilled oldest first;
an account whose name already looked like an older account's keeps its name and its logins, with no
skeleton (NULL, which a unique index allows any number of times): the older account holds the
skeleton, so no new name can look like either of them. Such pairs are logged, never an error:
the upgrade must not fail on data that was valid when it was stored.
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from alembic import op

from tracklayer.server.accounts import SKELETON_MAX, username_skeleton

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

log = logging.getLogger("tracklayer.server")


def upgrade() -> None:
    op.add_column("accounts", sa.Column("username_skeleton", sa.String(SKELETON_MAX), nullable=True))
    conn = op.get_bind()
    table = sa.table("accounts", sa.column("id", sa.Integer), sa.column("username", sa.String),
                     sa.column("username_skeleton", sa.String))
    holders: dict[str, tuple[int, str]] = {}
    rows = conn.execute(sa.select(table.c.id, table.c.username).order_by(table.c.id)).all()
    for account_id, username in rows:
        skeleton = username_skeleton(username)
        if skeleton in holders:
            log.warning("account %d (%r) looks like the older account %d (%r): it keeps its name, and the "
                        "older one holds the look-alike key", account_id, username, *holders[skeleton])
            continue
        holders[skeleton] = (account_id, username)
        conn.execute(sa.update(table).where(table.c.id == account_id).values(username_skeleton=skeleton))
    op.create_index("ux_accounts_username_skeleton", "accounts", ["username_skeleton"], unique=True)


def downgrade() -> None:
    op.drop_index("ux_accounts_username_skeleton", table_name="accounts")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("username_skeleton")

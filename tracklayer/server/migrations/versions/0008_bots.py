"""Bot accounts and their API tokens: outside programs that play rated games over the network.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30

``accounts.bot_owner``: a bot account names the person's account that owns it (NULL: a person).
``api_tokens``: the bearer tokens of bot accounts, stored as the SHA-256 of their random secret (the
secret itself is shown once, when the token is made), with a public id, a label, when it was last
used and when it was revoked.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a plain column (no rebuild of the accounts table on SQLite, whose rows other tables reference)
    op.add_column("accounts", sa.Column("bot_owner", sa.Integer, nullable=True))
    op.create_index("ix_accounts_bot_owner", "accounts", ["bot_owner"])
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("secret_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("label", sa.String(64), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("last_used_at", sa.Float, nullable=True),
        sa.Column("revoked_at", sa.Float, nullable=True),
    )
    op.create_index("ix_api_tokens_account", "api_tokens", ["account_id"])


def downgrade() -> None:
    op.drop_index("ix_api_tokens_account", table_name="api_tokens")
    op.drop_table("api_tokens")
    op.drop_index("ix_accounts_bot_owner", table_name="accounts")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("bot_owner")

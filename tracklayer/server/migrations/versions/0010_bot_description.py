"""A bot account's description: what the program is, in its owner's words.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27

``accounts.bot_description``: at most 200 characters, set when the bot account is made (the bots page,
``POST /api/me/bots``) and shown on its profile; NULL for a person and for a bot made without one.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("accounts", sa.Column("bot_description", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("bot_description")

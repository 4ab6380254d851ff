"""A bot account's description: what the program is, in its owner's words.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-27

``accounts.bot_description``: at most 200 characters, set when the bot account is made (the bots page,
``POST /api/me/bots``) and shown on its profile; NULL for a person and for a bot made without one.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("accounts", sa.Column("bot_description", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("bot_description")

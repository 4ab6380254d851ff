"""Turn clocks and seat control: creator token, clock, stand-in/resigned seats, stored deadlines.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # games made before have no row: no clock, no creator (they play on exactly as before)
    op.create_table(
        "clocks",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("creator_token", sa.String(64), nullable=False),
        sa.Column("spec", sa.Text, nullable=True),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("deadline", sa.Float, nullable=True),
        sa.Column("version", sa.Integer, nullable=False, server_default="0"),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_index("ix_clocks_deadline", "clocks", ["deadline"])


def downgrade() -> None:
    op.drop_index("ix_clocks_deadline", table_name="clocks")
    op.drop_table("clocks")

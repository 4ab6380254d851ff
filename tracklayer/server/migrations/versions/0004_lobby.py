"""Lobby (#13): the creator's token, public/private games, open seats filled by bots at a deadline.

Revision ID: 0004
Revises: 0001
Create Date: 2026-11-24

Games made before this revision get NULLs: no creator token (their links were shown once, at
creation), ``private`` unknown (still listed, but without a watch link: their spectator links were
handed out as secrets), no deadline and no quick-play pool.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("creator_token", sa.String(64), nullable=True))
        batch.add_column(sa.Column("private", sa.Boolean, nullable=True))
        batch.add_column(sa.Column("fill_at", sa.Float, nullable=True))
        batch.add_column(sa.Column("quick", sa.String(80), nullable=True))
        batch.create_unique_constraint("uq_games_creator_token", ["creator_token"])
    op.create_index("ix_games_quick_status", "games", ["quick", "status"])


def downgrade() -> None:
    op.drop_index("ix_games_quick_status", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_constraint("uq_games_creator_token", type_="unique")
        batch.drop_column("quick")
        batch.drop_column("fill_at")
        batch.drop_column("private")
        batch.drop_column("creator_token")

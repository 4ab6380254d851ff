"""Per-player statistics of finished games, for profiles.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02

``account_games.stats``: the final numbers of an account's seat (points by source, tickets completed and
failed, longest path, stations; Trans: rounds won and missing rails) as JSON, written with the seat's
rank when the game ends (``tracklayer.server.accounts.stats``). NULL for games that ended before: a
profile counts only the games that have it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("account_games", sa.Column("stats", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("account_games") as batch:
        batch.drop_column("stats")

"""Login limits shared by every server process; an index for the sweep that rates games a crash left unrated.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24

``login_limits``: one counter row per client address and per username (keyed by a SHA-256, so the
table holds neither the addresses nor the names people typed), counting attempts in a window that
starts at the first one; every process increments the same row, so ``serve --workers N`` gives an
attacker no more attempts than one process does.

``ix_account_games_unranked``: a partial index on the account seats whose game has not been
finished by the rating code yet (``rank IS NULL``), so the recovery sweep of
``tracklayer.server.accounts`` reads a handful of rows, however many games were ever played.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "login_limits",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("started", sa.Float, nullable=False),
        sa.Column("count", sa.Integer, nullable=False),
    )
    op.create_index("ix_login_limits_started", "login_limits", ["started"])
    op.create_index("ix_account_games_unranked", "account_games", ["game_id"],
                    sqlite_where=sa.text("rank IS NULL"), postgresql_where=sa.text("rank IS NULL"))


def downgrade() -> None:
    op.drop_index("ix_account_games_unranked", table_name="account_games")
    op.drop_index("ix_login_limits_started", table_name="login_limits")
    op.drop_table("login_limits")

"""Friends: following players, being seen online, invitations to a seat.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27

``follows``: one row per account following another (both ways: friends). ``account_presence``: when an
account was last active on the site (a request of its session, an open game websocket) and the game it has
a seat open in. ``invitations``: a seat of a game offered to one account (the invitee takes the seat's
token when accepting; the table holds no token). All three are new tables: nothing existing changes.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "follows",
        sa.Column("follower_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("followee_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_follows_followee", "follows", ["followee_id"])
    op.create_table(
        "account_presence",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("last_seen_at", sa.Float, nullable=False),
        sa.Column("game_id", sa.String(32), nullable=True),
    )
    op.create_table(
        "invitations",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("inviter_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("invitee_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ux_invitations_seat_invitee", "invitations", ["game_id", "seat", "invitee_id"], unique=True)
    op.create_index("ix_invitations_invitee", "invitations", ["invitee_id"])


def downgrade() -> None:
    op.drop_index("ix_invitations_invitee", table_name="invitations")
    op.drop_index("ux_invitations_seat_invitee", table_name="invitations")
    op.drop_table("invitations")
    op.drop_table("account_presence")
    op.drop_index("ix_follows_followee", table_name="follows")
    op.drop_table("follows")

"""An invitation's state, so that its sender sees what became of it.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27

``invitations.state``: ``waiting`` (the invitee has not answered), ``accepted`` (the invitee took the seat)
or ``declined``. An answered invitation stays, for the game's creator to see, until the creator cancels it or
the game goes; only a waiting one is in the invitee's lobby.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("invitations", sa.Column("state", sa.String(10), nullable=False, server_default="waiting"))


def downgrade() -> None:
    op.execute("DELETE FROM invitations WHERE state <> 'waiting'")
    with op.batch_alter_table("invitations") as batch:
        batch.drop_column("state")

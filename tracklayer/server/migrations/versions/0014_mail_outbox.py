"""The outbox: mail to send is kept in the database, so that a server that stops loses none.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-28

``mail_outbox``: one row a mail, written when the mail is decided on, before it is sent: the message,
how the log names it, its state (``pending``, ``sent`` or ``failed``), the attempts made and when the next
may be, the process that claims it and until when, the last error, and when it was made and finished.
Sent and failed rows are deleted after a retention period (``tracklayer.server.mail.outbox``).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mail_outbox",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("what", sa.String(200), nullable=False),
        sa.Column("message", sa.LargeBinary, nullable=True),
        sa.Column("state", sa.String(8), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("next_at", sa.Float, nullable=False),
        sa.Column("claimed_by", sa.String(32), nullable=True),
        sa.Column("claimed_until", sa.Float, nullable=True),
        sa.Column("error", sa.String(200), nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("done_at", sa.Float, nullable=True),
    )
    op.create_index("ix_mail_outbox_due", "mail_outbox", ["state", "next_at"])
    op.create_index("ix_mail_outbox_done", "mail_outbox", ["state", "done_at"])


def downgrade() -> None:
    op.drop_index("ix_mail_outbox_done", table_name="mail_outbox")
    op.drop_index("ix_mail_outbox_due", table_name="mail_outbox")
    op.drop_table("mail_outbox")

"""E-mail: an optional, verified address on an account, "your turn" and invite mail.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27

``account_mail``: an account's address, when it was verified, the nonce of its one valid verification
link, its two switches (turn mail, invite mail) and the language its mail is written in.
``mail_log``: the mail accepted for sending (kind, recipient account, hashed sender and recipient
address, a unique key for mail sent once, e.g. one turn's): the rate limits count it.
``mail_secret``: the key that signs verification links, made here once, so that every server
process signs with the same key.
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "account_mail",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("email", sa.String(254), nullable=True),
        sa.Column("verified_at", sa.Float, nullable=True),
        sa.Column("verify_nonce", sa.String(32), nullable=True),
        sa.Column("turn_mail", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("invite_mail", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("lang", sa.String(8), nullable=False, server_default="en"),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_table(
        "mail_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("account_id", sa.Integer, nullable=True),
        sa.Column("sender", sa.String(64), nullable=True),
        sa.Column("target", sa.String(64), nullable=True),
        sa.Column("once", sa.String(128), nullable=True, unique=True),
        sa.Column("sent_at", sa.Float, nullable=False),
    )
    op.create_index("ix_mail_log_account", "mail_log", ["kind", "account_id", "sent_at"])
    op.create_index("ix_mail_log_sender", "mail_log", ["kind", "sender", "sent_at"])
    op.create_index("ix_mail_log_target", "mail_log", ["kind", "target", "sent_at"])
    secret = op.create_table(
        "mail_secret",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("secret", sa.String(64), nullable=False),
    )
    op.bulk_insert(secret, [{"id": 1, "secret": secrets.token_hex(32)}])


def downgrade() -> None:
    op.drop_table("mail_secret")
    op.drop_index("ix_mail_log_target", table_name="mail_log")
    op.drop_index("ix_mail_log_sender", table_name="mail_log")
    op.drop_index("ix_mail_log_account", table_name="mail_log")
    op.drop_table("mail_log")
    op.drop_table("account_mail")

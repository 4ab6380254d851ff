"""The mail tables (migrations 0011 and 0014): each account's address and switches, the mail sent, the signing
key, and the outbox of mail to send."""

from __future__ import annotations

from sqlalchemy import Boolean, Column, Float, ForeignKey, Index, Integer, LargeBinary, String, Table

from tracklayer.server.accounts.tables import metadata

EMAIL_MAX = 254  # characters of an address (RFC 5321's limit on a path)

account_mail = Table(
    "account_mail", metadata,
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("email", String(EMAIL_MAX), nullable=True),  # as typed; NULL: no address
    Column("verified_at", Float, nullable=True),  # NULL: not verified, no mail but the verification goes to it
    # the nonce of the one verification link that is valid now (NULL: none); a new address or a new link
    # replaces it, verifying clears it, so a link works once and only for the address it was sent to
    Column("verify_nonce", String(32), nullable=True),
    Column("turn_mail", Boolean, nullable=False, default=True),  # "your turn" in turn-based games
    Column("invite_mail", Boolean, nullable=False, default=True),  # other players may mail this account a seat
    Column("lang", String(8), nullable=False, default="en"),  # the language mail to it is written in
    Column("updated_at", Float, nullable=False),
)
mail_log = Table(  # every mail accepted for sending: exactly-once keys and rate limits
    "mail_log", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(16), nullable=False),  # verify, turn or invite
    Column("account_id", Integer, nullable=True),  # the recipient's account, if any
    Column("sender", String(64), nullable=True),  # sha256 of who asked for it (invites: an account or an address)
    Column("target", String(64), nullable=True),  # sha256 of the recipient's address (casefolded)
    Column("once", String(128), nullable=True, unique=True),  # a mail sent at most once, e.g. one turn's
    Column("sent_at", Float, nullable=False),
    Index("ix_mail_log_account", "kind", "account_id", "sent_at"),
    Index("ix_mail_log_sender", "kind", "sender", "sent_at"),
    Index("ix_mail_log_target", "kind", "target", "sent_at"),
)
mail_secret = Table(  # one row: the key verification links are signed with (made by the migration)
    "mail_secret", metadata,
    Column("id", Integer, primary_key=True),
    Column("secret", String(64), nullable=False),
)
mail_outbox = Table(  # mail to send, and for a while mail sent or given up (tracklayer.server.mail.outbox)
    "mail_outbox", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("what", String(200), nullable=False),  # how the log names it: no address, no token
    Column("message", LargeBinary, nullable=True),  # the whole message (RFC 5322 bytes); NULL once sent
    Column("state", String(8), nullable=False),  # pending, sent or failed
    Column("attempts", Integer, nullable=False, default=0),  # sends tried so far
    Column("next_at", Float, nullable=False),  # a pending mail is not tried before this
    Column("claimed_by", String(32), nullable=True),  # the process that sends it (NULL: any may take it)
    Column("claimed_until", Float, nullable=True),  # the claim lapses then unless its process renews it
    Column("error", String(200), nullable=True),  # why the last attempt failed (the error's type and SMTP code)
    Column("created_at", Float, nullable=False),
    Column("done_at", Float, nullable=True),  # when it was sent or given up
    Index("ix_mail_outbox_due", "state", "next_at"),
    Index("ix_mail_outbox_done", "state", "done_at"),
)

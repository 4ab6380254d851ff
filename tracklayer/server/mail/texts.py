"""The mail's words: one JSON catalog per language beside this module (``i18n/<lang>.json``, the web
client's five languages), and the messages built from them, each plain text with a simple HTML part."""

from __future__ import annotations

import functools
import html
import json
from email.message import EmailMessage
from importlib import resources
from typing import Any

from tracklayer.server.mail.store import LANGS


@functools.cache
def catalog(lang: str) -> dict[str, str]:
    """The messages of a language (English for an unknown one, and for a key a catalog lacks)."""
    english = json.loads((resources.files("tracklayer.server.mail") / "i18n" / "en.json").read_text("utf-8"))
    if lang not in LANGS or lang == "en":
        return english
    own = json.loads((resources.files("tracklayer.server.mail") / "i18n" / f"{lang}.json").read_text("utf-8"))
    return {**english, **own}


def compose(kind: str, lang: str, mail_from: str, to: str, link: str, profile: str | None,
            **params: Any) -> EmailMessage:
    """The ``kind`` mail (verify, turn, invite) in ``lang`` to ``to``: greeting, body, the ``link`` as
    its action, and a footer (the ``profile`` link where the recipient has an account)."""
    words = catalog(lang)

    def say(key: str, escape: bool = False) -> str:
        values = {k: html.escape(str(v)) if escape else str(v) for k, v in params.items()}
        if profile is not None:
            values["profile"] = html.escape(profile) if escape else profile
        return words[key].format_map(values)

    paragraphs = [f"{kind}.body"] + ([f"{kind}.expiry"] if kind == "verify" else []) + (
        [f"{kind}.private"] if kind == "invite" else [])
    footer = "footer" if profile is not None else "footer.invite"
    text = "\n\n".join([say(f"{kind}.intro"), *(say(p) for p in paragraphs),
                        f"{say(f'{kind}.action')}: {link}", "-- ", say(footer)]) + "\n"
    body = "".join(f"<p>{say(p, True)}</p>" for p in [f"{kind}.intro", *paragraphs])
    action = (f'<p><a href="{html.escape(link)}" style="display:inline-block;padding:10px 16px;background:#a80f1d;'
              f'color:#fff;text-decoration:none;border-radius:6px">{html.escape(say(f"{kind}.action"))}</a></p>'
              f'<p style="font-size:13px;color:#555">{html.escape(link)}</p>')
    page = (f'<!doctype html><html lang="{lang}"><body style="font-family:sans-serif;line-height:1.5;color:#222">'
            f'{body}{action}<hr><p style="font-size:13px;color:#555">{say(footer, True)}</p></body></html>')
    msg = EmailMessage()
    msg["Subject"] = say(f"{kind}.subject")
    msg["From"] = mail_from
    msg["To"] = to
    msg.set_content(text)
    msg.add_alternative(page, subtype="html")
    msg["Content-Language"] = lang  # after the parts: making them moves Content-* headers into the first
    return msg

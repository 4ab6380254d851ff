"""Usernames and passwords: what is accepted, how names are compared (look-alikes are one name), the
password hasher."""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import cache

import icu
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import HTTPException

from tracklayer.server.guard import clean_name

USERNAME_MIN, USERNAME_MAX = 3, 24
PASSWORD_MIN, PASSWORD_MAX = 8, 256  # characters; the maximum bounds the work one login makes argon2 do
_USERNAME_CHARS = re.compile(r"^[\w.-]+$")

hasher = PasswordHasher()


@cache
def _dummy_hash() -> str:
    """Made on first use: a hash costs as much as a login, and most processes never see an unknown name."""
    return hasher.hash("not a password of anybody")


def verify_password(stored: str | None, password: str) -> bool:
    """Whether ``password`` is the one ``stored`` was made from. An unknown name (``None``) costs a verify
    too, so the time of the answer does not tell which names exist."""
    try:
        hasher.verify(stored or _dummy_hash(), password)
    except (VerificationError, InvalidHashError):
        return False
    return stored is not None


def username_key(name: str) -> str:
    return unicodedata.normalize("NFC", name.casefold())


_spoof = threading.local()  # an ICU SpoofChecker per thread (registration runs in worker threads)


def username_skeleton(name: str) -> str:
    """What ``name`` looks like, for telling look-alike names apart: the UTS #39 confusable skeleton
    (ICU's data and algorithm) of the NFKC-normalised, case-folded name. NFKC maps compatibility
    forms (fullwidth ``Ｖ``, ``ﬁ``) to plain ones and case folding ignores case; the skeleton maps
    confusables (dotless ``ı``, Cyrillic ``а``, ``rn`` and ``m``) to one prototype. Two names with the
    same skeleton can be mistaken for each other; a skeleton is a key, never shown."""
    checker = getattr(_spoof, "checker", None)
    if checker is None:
        checker = _spoof.checker = icu.SpoofChecker()
    return str(checker.getSkeleton(0, unicodedata.normalize("NFKC", name).casefold()))


def check_username(raw: object) -> str:
    """A username as stored: a name by guard.clean_name's rules (printable, NFC, at most 24) that is
    also 3+ characters of letters, digits, ``_ . -`` (it is a URL path segment: ``/u/{username}``)."""
    name = clean_name(raw, "", "username")
    if not USERNAME_MIN <= len(name) <= USERNAME_MAX:
        raise HTTPException(400, f"a username has {USERNAME_MIN} to {USERNAME_MAX} characters")
    if not _USERNAME_CHARS.match(name) or name.startswith((".", "-")):
        raise HTTPException(400, "a username holds only letters, digits, '_', '.' and '-' (no spaces), "
                                 "and starts with a letter or digit")
    return name


def check_password(raw: object) -> str:
    if not isinstance(raw, str):
        raise HTTPException(400, "'password' is a text")
    if not PASSWORD_MIN <= len(raw) <= PASSWORD_MAX:
        raise HTTPException(400, f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters")
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        raise HTTPException(400, "the password is not valid Unicode") from None
    return raw

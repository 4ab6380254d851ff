"""A safe decoder and a small schema check for JSON that people write by hand (score files).

Hostile or broken files used to reach the engine as whatever ``json.loads`` made of them: a route
that is a number, a name with rich markup or a lone surrogate, a number of 5,000 digits, JSON nested
thousands deep, a 20,000-character city name that fuzzy matching then compared with every city.
Each gave a traceback or a long hang somewhere else. Instead, every document passes two steps
before any engine code sees it:

1. :func:`decode_json` turns bytes into a JSON value: :func:`decode_text`, the only decoder of a
   score file's bytes (UTF-8 with or without a BOM, UTF-16 or UTF-32 with a BOM), a size limit, no
   RecursionError, huge numbers kept as :class:`HugeNumber` (never converted, so Python's
   int-string limit is never hit).
2. :func:`check` matches the value against a schema (:class:`Text`, :class:`Whole`, :class:`ListOf`,
   :class:`Row`, :class:`Obj`, :class:`Choice`) and names the first problem with its path
   (``players[1].routes[3]``), then :func:`check_tree` walks the rest (keys the schema ignores):
   depth, clean text (no surrogates, no control characters), finite numbers.

Every check is linear in the size of the input and every string and list has a length limit, so
the engine that runs next only sees small, well-typed values. Errors are :class:`ScoreFileError`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tracklayer.core.errors import ScoreFileError

MAX_BYTES = 1_000_000  # a real score file is a few KB
MAX_DEPTH = 16  # score files nest 5 levels deep
MAX_NUMBER_CHARS = 30  # longer numbers are never converted (int('9' * 5000) raises, float of it is inf)
MAX_TEXT = 10_000  # any string anywhere (fields have their own, much smaller limits)

_BAD_CHARS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")


class HugeNumber:
    """A JSON number too long to convert: only its length is kept, and the schema check refuses it."""

    __slots__ = ("length",)

    def __init__(self, text: str) -> None:
        self.length = len(text)

    def __repr__(self) -> str:
        return f"<number of {self.length} characters>"


def join(path: str, key: str | int) -> str:
    """``path`` extended by a list index or an object key (odd keys quoted, ASCII only, shortened)."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _KEY.fullmatch(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key[:30] + ('…' if len(key) > 30 else ''))}]"


def describe(value: Any) -> str:
    """A short, printable description of any value for an error message (never the whole value)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        text = str(value) if value.bit_length() < 64 else None
        return text or "a very large number"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, HugeNumber):
        return f"a number of {value.length} characters"
    if isinstance(value, str):
        short = value if len(value) <= 40 else value[:40] + "…"
        return repr(short) if len(value) <= 40 else f"{short!r} ({len(value)} characters)"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}"
    return f"a {type(value).__name__}"


# ------------------------------------------------------------------------------------------ decoding
# the byte order marks read, longest first: UTF-32's little-endian mark starts with UTF-16's
_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32", "utf-32"), (b"\x00\x00\xfe\xff", "UTF-32", "utf-32"),
         (b"\xff\xfe", "UTF-16", "utf-16"), (b"\xfe\xff", "UTF-16", "utf-16"))


def decode_text(raw: bytes | bytearray | memoryview) -> str:
    """The one decoder of a score file's bytes (``tracklayer score`` and ``POST /api/score`` both
    reach it through :func:`decode_json`): UTF-8 (a BOM is skipped), or UTF-16 or UTF-32 with a BOM
    (big- or little-endian). Anything else is named with the offset of the first bad byte, never
    guessed: a Latin-1 file read as UTF-8 would score with misspelt cities."""
    raw = bytes(raw)
    if len(raw) > MAX_BYTES:
        raise ScoreFileError("", f"more than {MAX_BYTES:,} bytes; a score file is a few thousand")
    for bom, name, codec in _BOMS:
        if raw.startswith(bom):
            try:
                return raw.decode(codec)  # the codec reads the BOM for the byte order and drops it
            except UnicodeDecodeError as exc:
                raise ScoreFileError("", f"not valid {name} text: {exc.reason} at byte offset {exc.start}; "
                                         "save the file as UTF-8") from None
    if _CONTROL_BYTES.search(raw):  # never in JSON text; UTF-16 without a BOM looks like this too
        raise ScoreFileError("", "binary data, not a JSON text (UTF-16 without a byte order mark is not "
                                 "read either); save the file as UTF-8")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScoreFileError("", f"not UTF-8 text: byte 0x{raw[exc.start]:02X} at offset {exc.start} "
                                 "(Latin-1 or Windows-1252?); save the file as UTF-8") from None


def _int(text: str) -> int | HugeNumber:
    return HugeNumber(text) if len(text) > MAX_NUMBER_CHARS else int(text)


def _float(text: str) -> float | HugeNumber:
    return HugeNumber(text) if len(text) > MAX_NUMBER_CHARS else float(text)


def decode_json(data: bytes | bytearray | memoryview | str) -> Any:
    """Parse one JSON document safely (check it with :func:`check` before use)."""
    text = decode_text(data) if isinstance(data, (bytes, bytearray, memoryview)) else data
    if isinstance(data, str) and len(text) > MAX_BYTES:
        raise ScoreFileError("", f"more than {MAX_BYTES:,} characters; a score file is a few thousand")
    if isinstance(data, str) and text.startswith("\ufeff"):
        text = text[1:]
    try:
        value = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=float)
    except json.JSONDecodeError as exc:
        raise ScoreFileError(f"line {exc.lineno}, column {exc.colno}", f"not valid JSON: {exc.msg}") from None
    except RecursionError:  # the C decoder counts its depth: this comes fast, at any depth
        raise ScoreFileError("", f"nested more than {MAX_DEPTH} levels deep") from None
    return value


def check_tree(value: Any) -> None:
    """Depth, text and numbers of a whole decoded value, without recursion (any input is safe: a
    Python value that shares sub-lists could be far larger than its memory, hence the node budget)."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    budget = MAX_BYTES
    while stack:
        v, path, depth = stack.pop()
        budget -= 1
        if budget < 0:
            raise ScoreFileError("", f"more than {MAX_BYTES:,} values; a score file is a few thousand")
        if isinstance(v, str):
            check_text(v, path)
        elif isinstance(v, float) and not math.isfinite(v):
            raise ScoreFileError(path, f"{describe(v)} is not a finite number")
        elif isinstance(v, HugeNumber):
            raise ScoreFileError(path, f"{describe(v)}; the numbers in a score file are small")
        elif isinstance(v, (Mapping, list, tuple)):
            if depth >= MAX_DEPTH:
                raise ScoreFileError(path, f"nested more than {MAX_DEPTH} levels deep")
            if isinstance(v, Mapping):
                for k, item in v.items():
                    if not isinstance(k, str):
                        raise ScoreFileError(path, f"an object key must be text, got {describe(k)}")
                    check_text(k, path)
                    stack.append((item, join(path, k), depth + 1))
            else:
                stack.extend((item, join(path, i), depth + 1) for i, item in enumerate(v))
        elif not (v is None or isinstance(v, (bool, int, float))):
            raise ScoreFileError(path, f"{describe(v)} is not a JSON value")


def check_text(text: str, path: str) -> None:
    """Text that is safe to print anywhere: no lone surrogates, no control characters, not huge."""
    if len(text) > MAX_TEXT:
        raise ScoreFileError(path, f"a text of {len(text):,} characters; at most {MAX_TEXT:,}")
    bad = _BAD_CHARS.search(text)
    if bad:
        ch = bad.group()
        kind = "a lone surrogate" if "\ud800" <= ch <= "\udfff" else "a control character"
        raise ScoreFileError(path, f"text with {kind} (U+{ord(ch):04X})")


# ------------------------------------------------------------------------------------------ schema
class Spec:
    """A schema node: ``check(value, path)`` returns the value (normalised) or raises."""

    def check(self, value: Any, path: str) -> Any:
        raise NotImplementedError


@dataclass(frozen=True)
class Text(Spec):
    """Non-empty text (after stripping) of at most ``max_len`` characters."""

    what: str
    max_len: int = 64

    def check(self, value: Any, path: str) -> Any:
        if not isinstance(value, str):
            raise ScoreFileError(path, f"{self.what} must be text, got {describe(value)}")
        if len(value) > self.max_len:
            raise ScoreFileError(path, f"{self.what} has at most {self.max_len} characters, got {len(value):,}")
        check_text(value, path)
        if not value.strip():
            raise ScoreFileError(path, f"{self.what} must not be empty")
        return value


@dataclass(frozen=True)
class Choice(Spec):
    """One of a few fixed words."""

    what: str
    options: tuple[str, ...]

    def check(self, value: Any, path: str) -> Any:
        if not isinstance(value, str) or value not in self.options:
            raise ScoreFileError(path, f"{self.what} must be one of {', '.join(self.options)}, got {describe(value)}")
        return value


@dataclass(frozen=True)
class Whole(Spec):
    """A whole number (not a bool, not 5.0) from ``lo`` to ``hi``."""

    what: str
    lo: int
    hi: int

    def check(self, value: Any, path: str) -> Any:
        if not isinstance(value, int) or isinstance(value, bool) or not self.lo <= value <= self.hi:
            kind = (f"a positive whole number (at most {self.hi})" if self.lo == 1
                    else f"a whole number from {self.lo} to {self.hi}")
            raise ScoreFileError(path, f"{self.what} must be {kind}, got {describe(value)}")
        return value


@dataclass(frozen=True)
class ListOf(Spec):
    """A list of ``min_len`` to ``max_len`` items, each matching ``item``."""

    what: str
    item: Spec
    max_len: int
    min_len: int = 0

    def check(self, value: Any, path: str) -> Any:
        if not isinstance(value, (list, tuple)):
            raise ScoreFileError(path, f"{self.what} must be a list, got {describe(value)}")
        if not self.min_len <= len(value) <= self.max_len:
            if not value:
                raise ScoreFileError(path, f"{self.what} must be a non-empty list")
            many = f"at least {self.min_len}" if len(value) < self.min_len else f"at most {self.max_len}"
            raise ScoreFileError(path, f"{self.what} must have {many} entries, got {len(value):,}")
        return [self.item.check(v, join(path, i)) for i, v in enumerate(value)]


@dataclass(frozen=True)
class Row(Spec):
    """A short list with a fixed meaning per position: ``[city, city]`` or ``[city, city, colour]``."""

    shape: str  # how it is written, for the message: "[city, city] or [city, city, colour]"
    items: tuple[Spec, ...]
    optional: int = 0  # how many of the last items may be left out

    def check(self, value: Any, path: str) -> Any:
        if not isinstance(value, (list, tuple)) or not len(self.items) - self.optional <= len(value) <= len(
                self.items):
            raise ScoreFileError(path, f"this must be {self.shape}, got {describe(value)}")
        return [spec.check(v, join(path, i)) for i, (spec, v) in enumerate(zip(self.items, value, strict=False))]


@dataclass(frozen=True)
class Obj(Spec):
    """An object with known fields; ``required`` ones must be present. Other keys are ignored."""

    what: str
    fields: Mapping[str, Spec]
    required: tuple[str, ...] = field(default=())

    def check(self, value: Any, path: str) -> Any:
        if not isinstance(value, Mapping):
            raise ScoreFileError(path, f"{self.what} must be a JSON object, got {describe(value)}")
        for key in self.required:
            if key not in value:
                raise ScoreFileError(path, f"{self.what} needs {key!r}")
        out = dict(value)
        for key, spec in self.fields.items():
            if key in value:
                out[key] = spec.check(value[key], join(path, key))
        return out


def check(spec: Spec, value: Any) -> Any:
    """``value`` checked against ``spec``, then :func:`check_tree` for the keys the schema ignores.

    The schema goes first for its precise messages; it is safe on any value because it only looks
    as deep as its own shape and checks lengths before it iterates.
    """
    out = spec.check(value, "")
    check_tree(value)
    return out

"""Matching of human-typed names (cities, tickets) to canonical ones.

People type ``münchen``, ``MUNCHEN`` or ``Munich``; boards spell ``Munchen``. Matching folds case
and accents and accepts the aliases that the map data lists (and only those), so that a lookup never
guesses silently; a miss gets "did you mean" suggestions instead.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable

from tracklayer.core.errors import UnknownName

# letters with no decomposition that people still type without their mark
_UNMARKED_LETTERS: dict[str, str | int | None] = {"ø": "o", "Ø": "o", "ł": "l", "Ł": "l", "ß": "ss", "æ": "ae"}
_UNMARKED = str.maketrans(_UNMARKED_LETTERS)


def fold(text: str) -> str:
    """Case-, accent- and spacing-insensitive key (``"  São  Paulo"`` -> ``"sao paulo"``)."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    stripped = stripped.translate(_UNMARKED)
    return " ".join(stripped.casefold().split())


class NameIndex:
    """Resolves folded names and aliases to canonical names of one kind (e.g. cities of a map)."""

    def __init__(self, kind: str, entries: Iterable[tuple[str, Iterable[str]]]) -> None:
        self.kind = kind
        self._by_key: dict[str, str] = {}
        self._canonical: list[str] = []
        self._longest = 0  # the longest folded spelling (see suggest)
        for name, aliases in entries:
            self._canonical.append(name)
            for spelling in (name, *aliases):
                key = fold(spelling)
                other = self._by_key.get(key)
                if other is not None and other != name:
                    raise ValueError(f"{kind} spelling {spelling!r} names both {other!r} and {name!r}")
                self._by_key[key] = name
                self._longest = max(self._longest, len(key))

    def get(self, text: str) -> str | None:
        return self._by_key.get(fold(text))

    def resolve(self, text: str) -> str:
        """Canonical name for ``text``, or :class:`UnknownName` with suggestions."""
        found = self._by_key.get(fold(text))
        if found is not None:
            return found
        raise UnknownName(self.kind, text, self.suggest(text))

    def suggest(self, text: str, n: int = 3) -> list[str]:
        """Close spellings of ``text``; none for text far longer than any name (difflib's matching is
        quadratic in the length, and such text is not a typo of a name: it would only cost time)."""
        key = fold(text)
        if len(key) > 2 * self._longest + 8:
            return []
        keys = difflib.get_close_matches(key, list(self._by_key), n=n * 2, cutoff=0.6)
        out: list[str] = []
        for key in keys:
            name = self._by_key[key]
            if name not in out:
                out.append(name)
        return out[:n]

    def __contains__(self, text: str) -> bool:
        return fold(text) in self._by_key

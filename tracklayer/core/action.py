"""The action base shared by every game family.

Actions are immutable values with a canonical notation text. Families intern them (one object per
distinct move) so that generating legal actions costs lookups, not allocations; equality and
hashing go by ``key`` so a parsed action equals the generated one.
"""

from __future__ import annotations

from typing import ClassVar


class Action:
    __slots__ = ("key", "text")
    kind: ClassVar[str] = ""

    def __init__(self, key: tuple[object, ...], text: str) -> None:
        self.key = key
        self.text = text

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Action) and self.key == other.key)

    def __hash__(self) -> int:
        return hash(self.key)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.text!r}>"

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (type(self), self.key, self.text))


def _rebuild(cls: type[Action], key: tuple[object, ...], text: str) -> Action:
    obj = cls.__new__(cls)
    Action.__init__(obj, key, text)
    return obj

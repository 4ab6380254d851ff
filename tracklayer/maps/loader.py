"""Finding and reading map data files.

Maps ship inside the package (``tracklayer/maps/data``) so the engine needs no checkout beside it;
a user can also point at a JSON file of their own. Either way a broken file fails here with the
file's name and the JSON position, before any family-specific validation runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from tracklayer.core.errors import MapError

_DATA = "data"
B = TypeVar("B")


def builtin_maps() -> list[str]:
    """Names of the maps shipped with the package (file stems)."""
    folder = resources.files("tracklayer.maps").joinpath(_DATA)
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


def read_map(name_or_path: str | Path) -> tuple[dict[str, Any], str]:
    """Return ``(data, source)`` for a built-in map name or a path to a JSON file."""
    path = Path(name_or_path)
    if path.suffix == ".json" or path.exists():
        source = str(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise MapError(f"{source}: cannot read map file ({exc.strerror or exc})") from exc
    else:
        name = str(name_or_path)
        entry = resources.files("tracklayer.maps").joinpath(_DATA, f"{name}.json")
        if not entry.is_file():
            raise MapError(f"unknown map {name!r}; built-in maps: {', '.join(builtin_maps())}")
        source = f"{name}.json"
        text = entry.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MapError(f"{source}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise MapError(f"{source}: the top level must be a JSON object, not {type(data).__name__}")
    return data, source


def load_cached(name_or_path: str | Path, build: Callable[[dict[str, Any], str, str], B], cache: dict[str, B]) -> B:
    """Read, validate (``build(data, source, key)``) and cache a map: built-in maps parse once per process."""
    key = str(name_or_path)
    board = cache.get(key)
    if board is None:
        data, source = read_map(name_or_path)
        stem = Path(key).stem if key.endswith(".json") else key
        board = cache[key] = build(data, source, stem)
    return board


def need(cond: bool, where: str, problem: str) -> None:
    """Validation step: ``where`` names the file and entry, ``problem`` what is wrong."""
    if not cond:
        raise MapError(f"{where}: {problem}")


def get_field(obj: Mapping[str, Any], key: str, where: str, kind: type | tuple[type, ...]) -> Any:
    """A required field of a given type (booleans are not accepted as numbers)."""
    if key not in obj:
        raise MapError(f"{where}: missing field {key!r}")
    value = obj[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in kinds):
        raise MapError(f"{where}: field {key!r} must be {'/'.join(k.__name__ for k in kinds)}, got {value!r}")
    return value


def read_header(data: Mapping[str, Any], source: str, family: str, title: str) -> tuple[str, int, int]:
    """The part every map file starts with: its family, name and player range (min, max)."""
    found = data.get("family", family)
    need(found == family, source, f"family {found!r} is not a {title} map")
    name = get_field(data, "name", source, str)
    players = get_field(data, "players", source, dict)
    min_p = get_field(players, "min", f"{source}: players", int)
    max_p = get_field(players, "max", f"{source}: players", int)
    need(2 <= min_p <= max_p, f"{source}: players", f"need 2 <= min <= max, got {min_p}..{max_p}")
    return name, min_p, max_p

"""One entry point for scoring a score file: ``tracklayer score`` and ``POST /api/score`` both call it.

:func:`score_document` takes the file's bytes, its text, or an already decoded JSON value, and
returns exactly the JSON result that ``tracklayer score --json`` prints; every problem is a
:class:`ScoreFileError` whose ``str()`` is the one line both show (``players[1].routes[3]: unknown
city 'Pariss'; did you mean 'Paris'?``). Nothing else escapes: the file is decoded safely and
checked against a schema (``core/schema.py``) before any engine code runs, and an unexpected
engine failure is still reported as a ScoreFileError rather than a traceback, because a score
file is untrusted input that a person typed.
"""

from __future__ import annotations

from typing import Any

from tracklayer.core.errors import ScoreFileError
from tracklayer.core.schema import MAX_BYTES, Choice, decode_json, describe

__all__ = ["GAMES", "ScoreFileError", "read_score_file", "score_document"]

GAMES = ("ttr-europe", "ttr-new-york", "trans-europa", "trans-america")
_GAME = Choice("'game'", GAMES)


def score_document(data: bytes | bytearray | str | Any) -> dict[str, Any]:
    """Score a table position (bytes or text of a JSON file, or its decoded value); see docs/score-files.md."""
    value = decode_json(data) if isinstance(data, (bytes, bytearray, memoryview, str)) else data
    if not isinstance(value, dict):
        raise ScoreFileError("", f"the file must hold a JSON object with 'game' and 'players', got {describe(value)}")
    if "game" not in value:
        raise ScoreFileError("", f"the file needs 'game' (one of {', '.join(GAMES)})")
    game = _GAME.check(value["game"], "game")
    try:
        if game.startswith("trans-"):
            from tracklayer.trans.table_score import score_trans_table

            return score_trans_table(value)
        from tracklayer.ttr.table_score import score_table

        return score_table(value)
    except ScoreFileError:
        raise
    except (RecursionError, MemoryError, ValueError, TypeError, KeyError, IndexError, OverflowError) as exc:
        # the schema should make this unreachable; if it is not, the user still gets one line, not a traceback
        raise ScoreFileError("", f"cannot score this file ({type(exc).__name__}); please report it") from exc


def read_score_file(path: str) -> bytes:
    """The bytes of a score file (``-``: standard input); any OS problem is a ScoreFileError."""
    import sys

    if path == "-":
        return sys.stdin.buffer.read(MAX_BYTES + 1)  # one byte more than the decoder takes: it names the size
    try:
        with open(path, "rb") as f:
            return f.read(MAX_BYTES + 1)
    except IsADirectoryError:
        raise ScoreFileError("", "is a directory, not a file") from None
    except FileNotFoundError:
        raise ScoreFileError("", "no such file") from None
    except PermissionError:
        raise ScoreFileError("", "permission denied") from None
    except OSError as exc:
        raise ScoreFileError("", f"cannot read it: {exc.strerror or type(exc).__name__}") from None

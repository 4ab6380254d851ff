"""Where the human's lines come from: prompt_toolkit on a terminal, plain stdin otherwise, or a test's function.

prompt_toolkit needs a real terminal on both ends, so a piped game (scripts, CI, the subprocess
test) falls back to reading lines; a test injects ``input_fn`` and gets the same transcript.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from rich.console import Console

from tracklayer.core.names import fold

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession

InputFn = Callable[[str], str]


class MoveCompleter(Completer):
    """Completes a whole move: every typed word must appear in it (``cl par fra`` -> the Paris-Frankfurt claims)."""

    def __init__(self) -> None:
        self.words: list[str] = []

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        typed = document.text_before_cursor
        keys = fold(typed).split()
        folded_typed = fold(typed)
        starts = [w for w in self.words if fold(w).startswith(folded_typed)]
        rest = [w for w in self.words if w not in starts and all(k in fold(w) for k in keys)]
        for word in (starts + rest)[:300]:
            yield Completion(word, start_position=-len(typed))


class LineReader:
    """Reads one line per call; raises EOFError / KeyboardInterrupt as ``input`` does."""

    def __init__(self, console: Console, input_fn: InputFn | None = None) -> None:
        self.console = console
        self.input_fn = input_fn
        self.completer = MoveCompleter()
        self._session: PromptSession[str] | None = None
        if input_fn is None and sys.stdin.isatty() and sys.stdout.isatty():
            from prompt_toolkit import PromptSession
            from prompt_toolkit.history import InMemoryHistory

            self._session = PromptSession(history=InMemoryHistory(), completer=self.completer,
                                          complete_while_typing=False)

    @property
    def interactive(self) -> bool:
        return self._session is not None

    def read(self, prompt: str, words: Sequence[str] = ()) -> str:
        """Ask for a line; ``words`` are offered by Tab completion when a terminal is attached."""
        self.completer.words = list(words)
        if self._session is not None:
            return self._session.prompt(prompt)
        if self.input_fn is not None:
            answer = self.input_fn(prompt)
        else:
            self.console.file.flush()
            line = sys.stdin.readline()
            if not line:
                self.console.print(prompt, markup=False, highlight=False)
                raise EOFError
            answer = line.rstrip("\r\n")
        # a script's answers are echoed so the transcript reads like a terminal session
        self.console.print(f"{prompt}{answer}", markup=False, highlight=False)
        return answer

"""Which build of the engine runs: compiled (Cython) or interpreted, and the switch between them.

The engine modules below are ordinary Python in Cython's pure-Python mode: the hot classes carry C
type declarations (``@cython.cclass``, ``@cython.locals``, and ``.pxd`` files beside the modules whose
classes other modules use as C types), which the interpreter reads as plain Python. ``setup.py``
compiles them with Cython when the package is installed and a C compiler is there; Python then
imports the extension module in place of the ``.py`` file. Both builds must play identical games
(``tests/test_native.py`` and ``benchmarks/differential.py`` compare them), so this module also lets a
process choose the interpreted build: ``TRACKLAYER_INTERPRETED=1`` in the environment before
``tracklayer`` is imported.

A compiled module is used only while its source is the one it was built from: the build writes the
SHA-256 of every compiled source (and of the package's ``.pxd`` declarations) to ``native_build.json``,
and when a module's source changed since (an edited checkout, a ``git pull`` without ``pip install -e .``)
the whole engine runs interpreted, with one warning, instead of running stale rules: all or none, because
the compiled modules use each other's C types and cannot load beside an interpreted one.

This file imports nothing from ``tracklayer``: ``setup.py`` reads the module list from it before the
package exists.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.abc
import importlib.machinery
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

# The modules that make up the engine's hot path: rules, legal moves, state, scoring, views, the RL
# codecs that turn a state into arrays, and the Ticket to Ride bots' planning and search (what a search
# bot runs thousands of times a move). Everything else (server, other bots, CLI) stays interpreted.
COMPILED_MODULES: tuple[str, ...] = (
    "tracklayer.core.rng",
    "tracklayer.core.game",
    "tracklayer.ttr.actions",
    "tracklayer.ttr.cards",
    "tracklayer.ttr.game",
    "tracklayer.ttr.legal",
    "tracklayer.ttr.rules",
    "tracklayer.ttr.scoring",
    "tracklayer.ttr.state",
    "tracklayer.ttr.stations",
    "tracklayer.ttr.trail",
    "tracklayer.ttr.view",
    "tracklayer.trans.actions",
    "tracklayer.trans.cards",
    "tracklayer.trans.game",
    "tracklayer.trans.networks",
    "tracklayer.trans.rules",
    "tracklayer.trans.scoring",
    "tracklayer.trans.state",
    "tracklayer.trans.steiner",
    "tracklayer.trans.view",
    "tracklayer.rl.ttr_codec",
    "tracklayer.rl.ttr_arrays",
    "tracklayer.rl.fastpath",
    "tracklayer.rl.trans_codec",
    "tracklayer.bots.ttr_common",
    "tracklayer.bots.ttr_heuristic",
    "tracklayer.bots.ttr_mcts",
)

# Python semantics, exactly: type annotations stay documentation (with annotation typing on, Cython turns
# ``x: list[int]`` into an exact-type check that refuses what the interpreted build accepts), and no local
# variable gets a C or builtin type by inference (Cython's inferred ``bytearray`` refuses a ``bytes`` slice
# assignment that Python accepts). C types come only where the code declares them (``@cython.locals``,
# ``cython.declare``, the ``.pxd`` files), and the differential test holds both builds to the same games.
COMPILER_DIRECTIVES: dict[str, Any] = {
    "annotation_typing": False,
    "infer_types": False,
    "language_level": 3,
}

MANIFEST = "native_build.json"  # written by the build next to the compiled modules
ENV_INTERPRETED = "TRACKLAYER_INTERPRETED"
_PACKAGE_DIR = Path(__file__).resolve().parent


def source_digest(path: Path) -> str:
    """SHA-256 of a module's source and of every ``.pxd`` of the package: the C declarations of the typed
    classes are compiled into each module that uses them, so a changed declaration makes them all stale."""
    h = hashlib.sha256(path.read_bytes())
    package = path.parent  # the top-level package: the highest folder with an __init__.py
    while (package.parent / "__init__.py").is_file():
        package = package.parent
    for pxd in sorted(package.rglob("*.pxd")):
        h.update(pxd.relative_to(package).as_posix().encode())
        h.update(pxd.read_bytes())
    return h.hexdigest()


def _source_path(name: str, root: Path) -> Path:
    return root.joinpath(*name.split(".")).with_suffix(".py")


def write_manifest(names: Sequence[str], source_root: Path, out_root: Path) -> None:
    """Record the digest of each compiled module's source (called by ``setup.py`` after building)."""
    digests = {name: source_digest(_source_path(name, source_root)) for name in names}
    (out_root / "tracklayer" / MANIFEST).write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")


def _manifest() -> dict[str, str]:
    try:
        data = json.loads((_PACKAGE_DIR / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


class _EngineFinder(importlib.abc.MetaPathFinder):
    """Chooses, for each engine module, the compiled extension or the ``.py`` source.

    Python's own finder prefers an extension module over a source file of the same name; this one
    runs first and hands out the source when the interpreted build is asked for or the extension is
    stale. Modules outside ``COMPILED_MODULES`` are left to the normal machinery.
    """

    def __init__(self, interpreted: bool) -> None:
        self.interpreted = interpreted
        self.digests = _manifest()
        self.stale: list[str] = []
        self.mixed: bool | None = None  # whether the built modules cannot all be used (decided once: _mixed)

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in COMPILED_MODULES or not path:
            return None
        leaf = fullname.rpartition(".")[2]
        for entry in path:
            source = Path(entry) / f"{leaf}.py"
            if not source.is_file():
                continue
            if not self.interpreted and not self._mixed(source.parents[fullname.count(".")]):
                return None  # every compiled module is current: Python's finder loads this one
            loader = importlib.machinery.SourceFileLoader(fullname, str(source))
            return importlib.machinery.ModuleSpec(fullname, loader, origin=str(source))
        return None

    def extension_state(self, fullname: str, source: Path) -> str:
        """``"fresh"``, ``"stale"`` (built from another source) or ``"missing"``: the compiled module beside
        ``source``, looked at without importing anything."""
        leaf = fullname.rpartition(".")[2]
        if not any((source.parent / f"{leaf}{suffix}").is_file()
                   for suffix in importlib.machinery.EXTENSION_SUFFIXES):
            return "missing"
        return "fresh" if self.digests.get(fullname) == source_digest(source) else "stale"

    def _mixed(self, root: Path) -> bool:
        """Whether the engine must run interpreted although modules are built: one of them is stale, or
        missing while others are there. All or none: a compiled module uses the C types of the others
        (``.pxd``), and Python refuses to load it beside an interpreted class of the same name ("size
        changed"). Decided at the first engine import (``root``: the folder holding the package), with
        one warning naming the stale modules."""
        if self.mixed is None:
            states = {name: self.extension_state(name, _source_path(name, root)) for name in COMPILED_MODULES
                      if _source_path(name, root).is_file()}
            self.stale = [name for name, state in states.items() if state == "stale"]
            built = any(state != "missing" for state in states.values())
            self.mixed = bool(self.stale) or (built and "missing" in states.values())
            if self.stale:
                warnings.warn(f"the compiled {', '.join(self.stale)} {'was' if len(self.stale) == 1 else 'were'} "
                              "built from another version of the source; the engine runs interpreted (rebuild "
                              "with: pip install -e .)", RuntimeWarning, stacklevel=3)
            elif self.mixed:
                warnings.warn("only some engine modules are compiled; the engine runs interpreted (rebuild with: "
                              "pip install -e .)", RuntimeWarning, stacklevel=3)
        return self.mixed


def install() -> None:
    """Put the engine finder first on ``sys.meta_path`` (once; ``tracklayer/__init__`` calls it)."""
    if not any(isinstance(f, _EngineFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _EngineFinder(os.environ.get(ENV_INTERPRETED, "") not in ("", "0")))


def engine_info() -> dict[str, Any]:
    """Which build of the engine this process runs.

    ``build`` is ``"compiled"`` when every engine module is a native extension, ``"interpreted"`` when
    none is, ``"partial"`` otherwise; ``compiled`` and ``interpreted`` list the modules; ``reason``
    says why a module runs interpreted (asked for, stale, or not built).
    """
    compiled: list[str] = []
    interpreted: list[str] = []
    finder = next((f for f in sys.meta_path if isinstance(f, _EngineFinder)), None)
    # whether imports load the compiled modules at all (the finder's decision for the whole engine; it also
    # lists the stale modules)
    usable = finder is not None and not finder.interpreted and not finder._mixed(_PACKAGE_DIR.parent)
    for name in COMPILED_MODULES:
        module = sys.modules.get(name)
        if module is not None:  # loaded: what was loaded
            native = isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)
        else:  # not loaded (the RL codecs need the optional extras): what an import would load
            native = usable and finder is not None and \
                finder.extension_state(name, _source_path(name, _PACKAGE_DIR.parent)) == "fresh"
        (compiled if native else interpreted).append(name)
    if not interpreted:
        build, reason = "compiled", ""
    else:
        build = "partial" if compiled else "interpreted"
        if finder is not None and finder.interpreted:
            reason = f"{ENV_INTERPRETED} is set"
        elif finder is not None and finder.stale:
            reason = "compiled modules are older than their source: " + ", ".join(finder.stale)
        elif finder is not None and finder.mixed:
            reason = "only some engine modules are compiled: pip install . with gcc to compile them all"
        else:
            reason = "not compiled at install (no C compiler or no Cython): pip install . with gcc to compile"
    return {"build": build, "compiled": compiled, "interpreted": interpreted, "reason": reason}


def describe() -> str:
    """One line for ``tracklayer --version`` and the server's start-up log."""
    info = engine_info()
    if info["build"] == "compiled":
        return f"engine: compiled ({len(info['compiled'])} modules, Cython)"
    return f"engine: {info['build']} ({info['reason']})"

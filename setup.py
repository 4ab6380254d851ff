"""Build hook: compile the rules engines to native code with Cython, when a compiler is there.

The engine modules listed in ``tracklayer/native.py`` are plain Python (Cython's pure-Python mode):
the same files run interpreted and, compiled, as extension modules that Python imports in their
place. So there is one source of rules; the compiled build is an accelerator, never a requirement.
Without Cython or a C compiler the build says so once and installs the interpreted package, which
``tracklayer --version`` and ``tracklayer.engine_info()`` then report.

``TRACKLAYER_NO_COMPILE=1`` skips the compilation on purpose (the differential test's interpreted
build, or a platform whose compiler misbehaves).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tracklayer"))
from native import COMPILED_MODULES, COMPILER_DIRECTIVES, write_manifest  # noqa: E402  (the list lives beside the code)

sys.path.pop(0)


def _say(message: str) -> None:
    print(f"tracklayer: {message}", file=sys.stderr)


class OptionalBuildExt(build_ext):
    """``build_ext`` that falls back to the interpreted engine instead of failing the install."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1  # the modules compile independently

    def run(self) -> None:
        self.built: list[str] = []
        try:
            super().run()
        except Exception as exc:  # no compiler at all (DistutilsPlatformError and kin)
            _say(f"no native build ({exc}); the engine runs interpreted")
        if self.built:
            # the package root the extensions went to: the source tree (editable) or the build folder
            first = Path(self.get_ext_fullpath(self.built[0]))
            write_manifest(self.built, ROOT, first.parents[self.built[0].count(".")])
            _say(f"compiled {len(self.built)} of {len(COMPILED_MODULES)} engine modules")

    def build_extension(self, ext):  # type: ignore[no-untyped-def]
        try:
            super().build_extension(ext)
        except Exception as exc:  # a module that fails to compile stays interpreted; the others are kept
            _say(f"{ext.name} not compiled ({exc.__class__.__name__}: {exc}); it runs interpreted")
        else:
            self.built.append(ext.name)


def extensions() -> list:  # type: ignore[type-arg]
    if os.environ.get("TRACKLAYER_NO_COMPILE"):
        _say("TRACKLAYER_NO_COMPILE is set: the engine runs interpreted")
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        _say("Cython is not installed: the engine runs interpreted")
        return []
    from setuptools import Extension

    # no debug symbols: they triple the compile time of the generated C and serve no user
    modules = [Extension(name, [name.replace(".", "/") + ".py"], extra_compile_args=["-g0"])
               for name in COMPILED_MODULES]
    return cythonize(modules, compiler_directives=COMPILER_DIRECTIVES, language_level=3, quiet=True,
                     nthreads=os.cpu_count() or 1)


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})

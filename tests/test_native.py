"""The compiled engine: which build runs, its fallbacks, and that it plays the interpreted build's games."""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tracklayer
from tests import waits
from tracklayer import native

ROOT = Path(__file__).resolve().parents[1]
COMPILED = tracklayer.engine_info()["build"] == "compiled"


def run_python(code: str, **env: str) -> str:
    environ = {k: v for k, v in os.environ.items() if k != native.ENV_INTERPRETED} | env
    out = subprocess.run([sys.executable, "-c", code], env=environ, cwd=ROOT, capture_output=True, text=True,
                         timeout=waits.scaled(120), check=True)
    return out.stdout


def test_engine_info_names_every_engine_module_once() -> None:
    info = tracklayer.engine_info()
    assert sorted(info["compiled"] + info["interpreted"]) == sorted(native.COMPILED_MODULES)
    assert info["build"] == ("compiled" if not info["interpreted"] else
                             "partial" if info["compiled"] else "interpreted")
    assert bool(info["reason"]) == (info["build"] != "compiled")


def test_engine_info_imports_nothing_optional() -> None:
    """``tracklayer --version`` works on a plain install: the RL codecs (numpy, gymnasium) are not imported."""
    optional = ("tracklayer.rl", "gymnasium", "numpy")
    out = run_python(f"import sys, tracklayer; b = tracklayer.engine_info()['build']; "
                     f"print(b, sorted(m for m in sys.modules if m.startswith({optional!r})))")
    assert out.split(" ", 1)[1].strip() == "[]", out
    assert out.split(" ", 1)[0] == tracklayer.engine_info()["build"]


def test_ci_runs_the_compiled_build() -> None:
    """CI installs with a compiler: a build that silently fell back to the interpreter fails here."""
    if not os.environ.get("CI"):
        pytest.skip("only CI promises a compiler")
    assert tracklayer.engine_info()["build"] == "compiled", tracklayer.engine_info()


def test_the_interpreted_build_can_be_asked_for() -> None:
    out = run_python("import json, tracklayer; print(json.dumps(tracklayer.engine_info()))",
                     **{native.ENV_INTERPRETED: "1"})
    info = json.loads(out)
    assert info["build"] == "interpreted" and not info["compiled"]
    assert native.ENV_INTERPRETED in info["reason"]


def test_version_says_which_build_runs() -> None:
    out = subprocess.run([sys.executable, "-m", "tracklayer.cli", "--version"], capture_output=True, text=True,
                         cwd=ROOT, timeout=waits.scaled(120), check=True).stdout
    assert out.startswith(f"tracklayer {tracklayer.__version__}\n")
    assert f"engine: {tracklayer.engine_info()['build']}" in out


def _fake_package(tmp_path: Path, source: str) -> Path:
    """A package ``pkg`` with ``mod.py`` and a (never loaded) extension file beside it."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "mod.py").write_text(source)
    (pkg / f"mod{importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(b"")
    return pkg


def test_a_compiled_module_older_than_its_source_is_not_used(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """An edited checkout never runs the rules it was compiled from: the source wins, with one warning."""
    pkg = _fake_package(tmp_path, "X = 2\n")
    monkeypatch.setattr(native, "COMPILED_MODULES", ("pkg.mod",))
    digests = {"pkg.mod": native.source_digest(pkg / "mod.py")}
    finder = native._EngineFinder(interpreted=False)
    finder.digests = digests
    assert finder.find_spec("pkg.mod", [str(pkg)]) is None  # current: Python's own finder takes the extension
    (pkg / "mod.py").write_text("X = 3\n")
    finder = native._EngineFinder(interpreted=False)  # a process decides at its first engine import
    finder.digests = digests
    with pytest.warns(RuntimeWarning, match="pkg.mod was built from another version"):
        spec = finder.find_spec("pkg.mod", [str(pkg)])
    assert spec is not None and isinstance(spec.loader, importlib.machinery.SourceFileLoader)
    assert finder.stale == ["pkg.mod"]
    assert native._EngineFinder(interpreted=True).find_spec("pkg.mod", [str(pkg)]) is not None


def test_one_stale_module_makes_the_whole_engine_run_interpreted(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiled modules use each other's C types: a current one cannot load beside the interpreted class of
    a stale one ("size changed"), so an edited module sends every engine module to its source."""
    pkg = _fake_package(tmp_path, "X = 2\n")
    (pkg / "other.py").write_text("Y = 1\n")
    (pkg / f"other{importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(b"")
    monkeypatch.setattr(native, "COMPILED_MODULES", ("pkg.mod", "pkg.other"))
    digests = {name: native.source_digest(pkg / f"{name[4:]}.py") for name in native.COMPILED_MODULES}
    (pkg / "mod.py").write_text("X = 3\n")
    finder = native._EngineFinder(interpreted=False)
    finder.digests = digests
    with pytest.warns(RuntimeWarning, match="pkg.mod was built from another version"):
        spec = finder.find_spec("pkg.other", [str(pkg)])  # current, but the engine runs interpreted
    assert spec is not None and isinstance(spec.loader, importlib.machinery.SourceFileLoader)
    assert finder.find_spec("pkg.mod", [str(pkg)]) is not None
    assert finder.stale == ["pkg.mod"] and finder.mixed


def test_an_engine_built_in_part_runs_interpreted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = _fake_package(tmp_path, "X = 2\n")
    (pkg / "other.py").write_text("Y = 1\n")  # no extension beside it
    monkeypatch.setattr(native, "COMPILED_MODULES", ("pkg.mod", "pkg.other"))
    finder = native._EngineFinder(interpreted=False)
    finder.digests = {"pkg.mod": native.source_digest(pkg / "mod.py")}
    with pytest.warns(RuntimeWarning, match="only some engine modules are compiled"):
        assert finder.find_spec("pkg.mod", [str(pkg)]) is not None
    assert finder.stale == [] and finder.mixed


def test_a_changed_declaration_file_makes_the_compiled_modules_stale(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``.pxd`` declarations are compiled into every module that uses their C types: a module built
    before one of them changed (anywhere in the package) is not used."""
    pkg = _fake_package(tmp_path, "X = 2\n")
    (pkg / "__init__.py").write_text("")
    (pkg / "sub").mkdir()
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "other.pxd").write_text("cdef class A:\n    cdef int n\n")
    monkeypatch.setattr(native, "COMPILED_MODULES", ("pkg.mod",))
    finder = native._EngineFinder(interpreted=False)
    finder.digests = {"pkg.mod": native.source_digest(pkg / "mod.py")}
    assert finder.extension_state("pkg.mod", pkg / "mod.py") == "fresh"
    (pkg / "sub" / "other.pxd").write_text("cdef class A:\n    cdef long n\n")
    assert finder.extension_state("pkg.mod", pkg / "mod.py") == "stale"


def test_modules_outside_the_engine_are_left_to_python(tmp_path: Path) -> None:
    pkg = _fake_package(tmp_path, "X = 1\n")
    assert native._EngineFinder(interpreted=True).find_spec("pkg.mod", [str(pkg)]) is None


def test_the_build_falls_back_to_the_interpreter_without_a_compiler(tmp_path: Path) -> None:
    """``pip install .`` on a machine without a C compiler installs the interpreted engine and says so."""
    pytest.importorskip("Cython")
    env = {k: v for k, v in os.environ.items() if k != native.ENV_INTERPRETED} | {"CC": "/bin/false"}
    # a copy of the sources without any build output (the generated C is kept: it only saves Cython's time)
    src = tmp_path / "src"
    src.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "tracklayer", src / "tracklayer",
                    ignore=shutil.ignore_patterns("*.so", "__pycache__", native.MANIFEST))
    out = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                          "--target", str(tmp_path / "site"), str(src)],
                         env=env, capture_output=True, text=True, timeout=waits.scaled(900))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    site = tmp_path / "site"
    assert not list(site.glob("tracklayer/**/*.so"))
    # the C declarations travel with the package: a compiled module's digest covers them (native.source_digest)
    declared = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tracklayer").rglob("*.pxd"))
    assert declared and sorted(p.relative_to(site).as_posix() for p in site.glob("tracklayer/**/*.pxd")) == declared
    show = "import json, tracklayer; print(json.dumps(tracklayer.engine_info()))"
    info = subprocess.run([sys.executable, "-c", show],
                          env={k: v for k, v in env.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(site)},
                          cwd=tmp_path, capture_output=True, text=True, timeout=waits.scaled(120), check=True)
    engine = json.loads(info.stdout)
    assert engine["build"] == "interpreted" and "not compiled at install" in engine["reason"]


@pytest.mark.skipif(not COMPILED, reason="the engine is not compiled here: nothing to compare")
@pytest.mark.parametrize("first", [0, 100])
def test_compiled_and_interpreted_builds_play_identical_games(first: int) -> None:
    """200 seeded games (two halves, so that test workers share them) over every map, variant and player
    count, Trans special cards included: the same legal moves in the same order, RNG draws, views,
    observations, masks, saves and results."""
    out = subprocess.run([sys.executable, "benchmarks/differential.py", "--games", "100", "--first", str(first),
                          "--jobs", "1"], cwd=ROOT, capture_output=True, text=True, timeout=waits.scaled(1200))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "100 games, 0 different" in out.stdout

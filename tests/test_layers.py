"""The package's layers point one way, with no import circle: read from the source (every import, at
module level or inside a function, but not those only for type checkers)."""

from __future__ import annotations

import ast
from pathlib import Path

import tracklayer

PACKAGE = Path(tracklayer.__file__).resolve().parent
# core -> maps -> ttr / trans -> bots -> rl, lab, server, tui: a module may import its own layer and those
# below it (native.py, cli.py and the package's __init__ stand outside)
LAYERS = {"core": 0, "maps": 1, "ttr": 2, "trans": 2, "bots": 3, "rl": 4, "lab": 4, "server": 4, "tui": 4}


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def imports(path: Path, known: dict[str, Path], typing: bool = False) -> set[str]:
    """The package's modules ``path`` imports, leaving out its own packages (importing a submodule runs
    its package's ``__init__`` first, whatever the code) and, unless ``typing``, imports under
    ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = set() if typing else {
        id(n) for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
    me = next(name for name, p in known.items() if p == path)
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != me and not me.startswith(name + "."):
                found.add(name)
    return found


def graph(typing: bool = False) -> dict[str, set[str]]:
    known = modules()
    return {name: imports(path, known, typing) for name, path in known.items()}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def layer(name: str) -> int | None:
    parts = name.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


def test_no_import_circle() -> None:
    assert cycles(graph()) == []


def test_no_import_circle_in_the_server_even_for_type_checkers() -> None:
    """Inside the server the modules point one way even counting the imports only type checkers read:
    a service that ``Rooms`` builds (clocks, resume, the fan-out) names rooms through
    ``tracklayer.server.room`` (one room and the ``Host`` protocol), never ``tracklayer.server.rooms``,
    which imports them."""
    server = {a: {b for b in deps if b.startswith("tracklayer.server")}
              for a, deps in graph(typing=True).items() if a.startswith("tracklayer.server")}
    assert cycles(server) == []


def test_layers_point_one_way() -> None:
    wrong = [f"{a} -> {b}" for a, deps in graph().items() for b in deps
             if layer(a) is not None and layer(b) is not None and layer(b) > layer(a)]  # type: ignore[operator]
    assert wrong == []


def test_the_checks_see_a_circle_and_an_upward_import() -> None:
    g = {"tracklayer.core.a": {"tracklayer.server.b"}, "tracklayer.server.b": {"tracklayer.core.a"}}
    assert cycles(g) == [["tracklayer.core.a", "tracklayer.server.b"]]
    assert layer("tracklayer.server.b") > layer("tracklayer.core.a")  # type: ignore[operator]


def test_the_servers_services_never_import_its_routes() -> None:
    """Inside the server, the application (``server/app.py``) includes the routers (``server/routers/``),
    the routers use the services (rooms, store, accounts, …), and no service imports a router or the
    application: a service stays usable, and testable, without the web framework's routes."""
    top = ("tracklayer.server.app", "tracklayer.server.routers")
    wrong = [f"{a} -> {b}" for a, deps in graph().items()
             if a.startswith("tracklayer.server.") and not a.startswith(top) for b in deps if b.startswith(top)]
    assert wrong == []
    assert "tracklayer.server.routers.games" in graph()["tracklayer.server.routers"]


def test_the_network_client_imports_nothing_of_tracklayer() -> None:
    """``tracklayer.client`` is what an outside program needs to play on a server (with httpx and
    websockets): no engine, no server, no bot, so it can be vendored alone."""
    assert graph()["tracklayer.client"] == set()
    tree = ast.parse((PACKAGE / "client.py").read_text(encoding="utf-8"))
    roots = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    roots |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert roots <= {"__future__", "collections", "dataclasses", "json", "logging", "time", "typing", "httpx",
                     "websockets"}

"""Dependencies point one way (#29).

The module graph of our apps is read from the source with ``ast``: every import statement, also
one inside a function, relative ones resolved; migrations are left out. ``from a.b import c``
depends on the module ``a.b.c`` when there is one, and on the package ``a.b`` in any case (its
``__init__`` runs first). The graph must have no circle, ``core`` imports no other app of ours,
the read package imports nothing of the write side, and each app imports only the apps of the
layers below its own. A last test imports every module in a fresh process, so a circle that
only shows when the code runs (an ``importlib`` call, a setting) fails too.
"""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# An app may import the apps of the layers before its own, never one of its layer or after.
LAYERS = (("core",), ("tenders",), ("sourcing", "rfq"), ("mcp_server", "pages"), ("config",))
LAYER = {app: n for n, layer in enumerate(LAYERS) for app in layer}
READ = "tenders.read"
WRITE_SIDE = ("tenders.publication", "tenders.importers")

Graph = dict[str, dict[str, int]]  # module -> {module it imports: line of the first import}


def our_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every importable module of our apps by dotted name (packages by their own name)."""
    found = {}
    for app in LAYER:
        for path in sorted((root / app).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if "migrations" in parts or any("." in part for part in parts):
                continue  # gunicorn.conf.py is a file gunicorn reads, not a module
            name = ".".join(parts).removesuffix(".__init__")
            found[name] = path
    return found


def imports_of(source: str, module: str, is_package: bool, known) -> dict[str, int]:
    """The modules of ``known`` that ``module``'s source imports, with the line of each."""
    package = module if is_package else module.rpartition(".")[0]
    found: dict[str, int] = {}

    def add(name: str, line: int) -> None:
        while name and name not in known:  # an attribute of a module, or an outside one
            name = name.rpartition(".")[0]
        if name and name != module:
            found.setdefault(name, line)

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            add(base, node.lineno)
            for alias in node.names:
                add(f"{base}.{alias.name}", node.lineno)
    return found


def import_graph(root: Path = ROOT) -> Graph:
    modules = our_modules(root)
    return {
        name: imports_of(path.read_text(), name, path.name == "__init__.py", modules)
        for name, path in modules.items()
    }


def circles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def _edges(graph: Graph, sources, allowed) -> list[str]:
    return [
        f"{source} -> {target} (line {line})"
        for source in sorted(sources)
        for target, line in sorted(graph[source].items())
        if allowed(source, target)
    ]


@pytest.fixture(scope="module")
def graph() -> Graph:
    return import_graph()


def test_no_module_is_part_of_an_import_circle(graph):
    found = circles(graph)
    described = [
        "\n  ".join(_edges(graph, members, lambda _s, target, m=members: target in m))
        for members in found
    ]
    assert not found, "Import circles (move the shared piece to a lower module):\n  " + (
        "\n\n  ".join(described)
    )


def test_core_imports_no_other_app(graph):
    wrong = _edges(
        graph,
        [m for m in graph if m.split(".")[0] == "core"],
        lambda _s, target: target.split(".")[0] != "core",
    )
    assert not wrong, "core imports another app:\n" + "\n".join(wrong)


def _write_side(module: str) -> bool:
    inside = any(module == w or module.startswith(w + ".") for w in WRITE_SIDE)
    return inside or "admin" in module.split(".")


def test_the_read_package_imports_nothing_of_the_write_side(graph):
    reading = [m for m in graph if m == READ or m.startswith(READ + ".")]
    assert len(reading) > 5
    wrong = _edges(graph, reading, lambda _s, target: _write_side(target))
    assert not wrong, "The read package imports the write side:\n" + "\n".join(wrong)


def test_each_app_imports_only_the_apps_below_its_layer(graph):
    def upward(source: str, target: str) -> bool:
        mine, theirs = source.split(".")[0], target.split(".")[0]
        return mine != theirs and LAYER[theirs] >= LAYER[mine]

    wrong = _edges(graph, graph, upward)
    layers = " <- ".join("{" + ", ".join(layer) + "}" for layer in LAYERS)
    assert not wrong, f"Imports against {layers}:\n" + "\n".join(wrong)


def test_the_checks_see_what_they_look_for():
    """The reader resolves relative imports and imports inside functions; a circle is found."""
    known = {"app", "app.models", "app.models.things", "app.services", "app.read"}
    source = "from .models import Thing\ndef later():\n    from ..read import x\n"
    assert imports_of(source, "app.models.things", False, known) == {
        "app.models": 1,
        "app.read": 3,
    }
    assert imports_of("from . import services", "app", True, known) == {"app.services": 1}
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}, "e": {}}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b": 1}, "b": {}}) == []


def test_every_module_imports_in_a_fresh_process():
    """``python -c``: Django set up, then each module of our apps imported in turn."""
    program = (
        "import importlib, sys, traceback\n"
        "import django\n"
        "django.setup()\n"
        "failed = 0\n"
        "for name in sys.argv[1:]:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception:\n"
        "        failed += 1\n"
        "        print(f'--- {name}', traceback.format_exc(), sep='\\n')\n"
        "sys.exit(1 if failed else 0)\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [sys.executable, "-c", program, *sorted(our_modules())],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr

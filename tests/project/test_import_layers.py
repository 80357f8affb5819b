"""The top-level packages import each other in one direction only, and so do the modules: no cycle (a cycle
means neither can be understood, tested or changed without the other). Counted statically over every import
statement, module-level or inside a function; imports under ``if TYPE_CHECKING:`` never run and are not
counted. ``groundbench/cli.py``, ``groundbench/entry.py`` and the commands (``groundbench/commands/``) may
import every package (they wire the packages together); the packages read of them only the command table and
the command protocol, which import nothing of the project."""

from __future__ import annotations

import ast
import copy
import functools
import importlib
from pathlib import Path

from groundbench.commands import GROUPS, STAGES
from groundbench.tools.dvcdeps import Closure, imported_names, load_layout

REPO = Path(__file__).resolve().parents[2]
# What wires the packages together: it may import every one of them (the module docstring).
WIRING = frozenset({"cli", "entry", "__main__", "commands"})
# The layers, lowest first (DESIGN's order): a package imports only packages of a lower layer. Which package
# is in the tree is found (``packages``); where a new one sits is a decision, so it is written here, and
# ``test_every_package_has_a_layer`` fails until it is.
LAYERS: tuple[frozenset[str], ...] = tuple(
    frozenset(layer)
    for layer in (
        {"errors"},
        {"schemas"},
        {"core", "masks"},
        {"loaders", "fetch"},
        {"cards"},
        {"scoring"},  # the rules and baselines, the score report and its headline figures
        {"converters"},  # the GUI facts count centre clicks by scoring's official rule
        {"review"},
        {"results"},
        {"evaluate"},
        {"stages"},
        {"tools"},  # verify, publish and dvc-deps read what the stages build
    )
)


def packages(root: Path) -> frozenset[str]:
    """Every package (or module) directly under ``groundbench``, wherever it lives: the folders
    ``pyproject.toml``'s package-dir maps (``scoring/`` is ``groundbench.scoring``) and the ones inside
    ``groundbench/``, read from the tree, so a new one is checked without a line here; the wiring left out."""
    return frozenset(module.split(".")[1] for module in load_layout(root).modules if "." in module) - WIRING


PACKAGES = packages(REPO)


class _DropTypeChecking(ast.NodeTransformer):
    def visit_If(self, node: ast.If) -> ast.AST | None:
        test = node.test
        name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else None
        return None if name == "TYPE_CHECKING" else self.generic_visit(node)


def _package(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in PACKAGES else None


@functools.cache  # read only by the tests; parsing every module once per run is enough (the checkout does not change)
def package_graph(root: Path) -> dict[tuple[str, str], list[str]]:
    """(importer package, imported package) -> the module imports that make the edge."""
    layout = load_layout(root)
    closure = Closure(root, layout)
    edges: dict[tuple[str, str], list[str]] = {}
    for module, path in layout.modules.items():
        source = _package(module)
        if source is None:
            continue
        tree = _DropTypeChecking().visit(copy.deepcopy(closure.tree(module)))
        names = imported_names(tree, module, path.name == "__init__.py")
        for target_module in closure._project_modules(names):
            target = _package(target_module)
            if target is not None and target != source:
                edges.setdefault((source, target), []).append(f"{module} -> {target_module}")
    return edges


def cycles(edges: dict[tuple[str, str], list[str]]) -> list[tuple[str, str]]:
    """Every edge a -> b such that b reaches a again."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            node = todo.pop()
            if node == goal:
                return True
            if node not in seen:
                seen.add(node)
                todo.extend(graph.get(node, ()))
        return False

    return sorted((a, b) for a, b in edges if reaches(b, a))


def test_no_import_cycle_between_top_level_packages() -> None:
    edges = package_graph(REPO)
    found = cycles(edges)
    assert found == [], "\n".join(f"{a} <-> {b}: {edges[(a, b)][:3]}" for a, b in found)


def test_the_package_list_is_read_from_the_tree() -> None:
    assert {"results", "scoring", "converters", "review", "core", "errors"} <= PACKAGES  # results was once missed
    assert not PACKAGES & WIRING


def test_every_package_has_a_layer() -> None:
    placed = [name for layer in LAYERS for name in layer]
    assert len(placed) == len(set(placed)), "a package in two layers"
    assert set(placed) == PACKAGES, (
        f"place {sorted(PACKAGES - set(placed))} in LAYERS, drop {sorted(set(placed) - PACKAGES)}"
    )


def test_every_package_imports_only_lower_layers() -> None:
    rank = {name: level for level, layer in enumerate(LAYERS) for name in layer}
    upward = {edge: modules for edge, modules in package_graph(REPO).items() if rank[edge[0]] <= rank[edge[1]]}
    assert upward == {}, "\n".join(f"{a} -> {b}: {modules[:3]}" for (a, b), modules in sorted(upward.items()))


def test_the_layers_that_matter_point_down() -> None:
    edges = package_graph(REPO)
    assert ("scoring", "loaders") in edges and ("loaders", "scoring") not in edges  # requests use prompts
    assert ("core", "schemas") in edges and ("schemas", "core") not in edges  # shards write the schema
    assert ("stages", "review") in edges and ("review", "stages") not in edges  # the card's contact sheets
    assert ("tools", "stages") in edges and ("stages", "tools") not in edges  # verify/publish read a build
    assert ("stages", "loaders") in edges and ("loaders", "stages") not in edges  # assemble writes the folder


def _imports(module: str) -> set[str]:
    """The project modules ``module`` imports (anywhere in it, TYPE_CHECKING blocks left out)."""
    layout = load_layout(REPO)
    closure = Closure(REPO, layout)
    tree = _DropTypeChecking().visit(copy.deepcopy(closure.tree(module)))
    names = imported_names(tree, module, layout.modules[module].name == "__init__.py")
    return closure._project_modules(names)


def test_the_former_module_circles_are_broken() -> None:
    """cli -> dvcdeps -> entry -> cli (dvc-deps read the stages through the entry, which loads the CLI by name)
    and parallel <-> dask_engine (the Dask engine reused the pool's helpers): each now one direction only."""
    assert "groundbench.tools.dvcdeps" in _imports("groundbench.commands.dvc_deps")
    assert not {
        m for m in _imports("groundbench.tools.dvcdeps") if m.startswith(("groundbench.entry", "groundbench.cli"))
    }
    assert _imports("groundbench.cli") == {"groundbench", "groundbench.entry"}
    assert "groundbench.core.dask_engine" in _imports("groundbench.core.parallel")
    assert "groundbench.core.parallel" not in _imports("groundbench.core.dask_engine")


# What loads the command table's modules by name (their names are data there, not import statements): the
# whole command line every command's, a stage's parser its stage's.
BY_TABLE = {
    "groundbench.commands.parser": {module for _, table in GROUPS for module in table.values()},
    "groundbench.stages.command": set(STAGES.values()),
}


def _by_name(tree: ast.AST) -> tuple[set[str], bool]:
    """The modules ``tree`` loads with ``importlib.import_module("literal")``, and whether it loads any other."""
    literal, computed = set(), False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module":
            if node.args and isinstance(node.args[0], ast.Constant):
                literal.add(node.args[0].value)
            else:
                computed = True
    return literal, computed


@functools.cache  # as package_graph: once per run
def module_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the project modules it imports: by statement, by a literal name, and the table's modules for
    what loads them. A module's own packages are left out: Python has loaded them before it runs."""
    layout = load_layout(root)
    closure = Closure(root, layout)
    graph: dict[str, set[str]] = {}
    for module, path in layout.modules.items():
        tree = _DropTypeChecking().visit(copy.deepcopy(closure.tree(module)))
        names = imported_names(tree, module, path.name == "__init__.py")
        literal, computed = _by_name(tree)
        if computed and "groundbench.commands" in closure._project_modules(names):
            assert module in BY_TABLE, f"{module} loads the command table's modules: add it to BY_TABLE"
        targets = closure._project_modules(names | literal) | BY_TABLE.get(module, set())
        graph[module] = {t for t in targets if t != module and not module.startswith(f"{t}.")}
    return graph


def module_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every group of modules that import each other round a circle (strongly connected, more than one)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while not group or group[-1] != node:
                group.append(stack.pop())
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_between_modules() -> None:
    assert module_cycles(module_graph(REPO)) == []


def test_the_command_line_is_read_by_the_packages_only_through_its_table_and_protocol() -> None:
    graph = module_graph(REPO)
    read = {t for m, targets in graph.items() if _package(m) for t in targets if t.startswith("groundbench.commands")}
    assert read == {"groundbench.commands", "groundbench.commands.protocol"}
    assert graph["groundbench.commands"] == graph["groundbench.commands.protocol"] == set()
    # The table names every command's module, and each module its own command.
    for _, table in GROUPS:
        for name, module in table.items():
            assert name == importlib.import_module(module).NAME


def test_a_module_cycle_is_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert module_cycles(graph) == [["a", "b", "c"]]
    assert module_cycles({"a": {"b"}, "b": set()}) == []


def test_a_cycle_is_found() -> None:
    edges = {("a", "b"): ["x"], ("b", "c"): ["y"], ("c", "a"): ["z"], ("c", "d"): ["w"]}
    assert cycles(edges) == [("a", "b"), ("b", "c"), ("c", "a")]
    assert cycles({("a", "b"): ["x"]}) == []

"""The top-level packages import each other in one direction only: no cycle between them (a cycle means
neither can be understood, tested or changed without the other). Counted statically over every import
statement, module-level or inside a function; imports under ``if TYPE_CHECKING:`` never run and are not
counted. ``groundbench/cli.py`` and ``groundbench/entry.py`` may import everything (they wire the packages
together)."""

from __future__ import annotations

import ast
import copy
from pathlib import Path

from groundbench.tools.dvcdeps import Closure, imported_names, load_layout

REPO = Path(__file__).resolve().parents[2]
PACKAGES = (
    "core",
    "stages",
    "tools",
    "review",
    "evaluate",
    "fetch",
    "converters",
    "schemas",
    "scoring",
    "loaders",
    "cards",
)


class _DropTypeChecking(ast.NodeTransformer):
    def visit_If(self, node: ast.If) -> ast.AST | None:
        test = node.test
        name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else None
        return None if name == "TYPE_CHECKING" else self.generic_visit(node)


def _package(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in PACKAGES else None


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
    """cli <-> dvcdeps (dvc-deps read the stages through the CLI's parser) and parallel <-> dask_engine
    (the Dask engine reused the pool's helpers): each pair now imports in one direction only."""
    assert "groundbench.tools.dvcdeps" in _imports("groundbench.cli")
    assert "groundbench.cli" not in _imports("groundbench.tools.dvcdeps")
    assert "groundbench.core.dask_engine" in _imports("groundbench.core.parallel")
    assert "groundbench.core.parallel" not in _imports("groundbench.core.dask_engine")


def test_a_cycle_is_found() -> None:
    edges = {("a", "b"): ["x"], ("b", "c"): ["y"], ("c", "a"): ["z"], ("c", "d"): ["w"]}
    assert cycles(edges) == [("a", "b"), ("b", "c"), ("c", "a")]
    assert cycles({("a", "b"): ["x"]}) == []

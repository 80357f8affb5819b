"""pyproject.toml declares every third-party package the code imports directly, once: the package's modules
import only runtime dependencies (or the ``eval`` extra's), tests and benchmarks also the ``dev`` extra's, and
the lock files pin each declared package. Imports are read from the source (ast), lazy ones included; an
import inside ``try: ... except ImportError`` is optional and exempt (it says what is missing when absent)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections import Counter
from importlib.metadata import packages_distributions

from tests.conftest import REPO

PACKAGE = ("groundbench", "converters", "samples", "schemas", "scoring", "cards", "loaders")
DEVELOPMENT = ("tests", "benchmarks")
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement(text: str) -> str:
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", text.strip())
    assert match, text
    return normal(match.group())


def declared() -> dict[str, list[str]]:
    """Each group (``dependencies``, then each extra) -> its package names, the self-reference left out."""
    groups = {"dependencies": PYPROJECT["dependencies"], **PYPROJECT["optional-dependencies"]}
    name = normal(PYPROJECT["name"])
    return {group: [r for r in map(requirement, items) if r != name] for group, items in groups.items()}


def _optional(tree: ast.AST) -> set[int]:
    """ids of the import nodes inside a ``try`` that catches ImportError (or ModuleNotFoundError)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try):
            continue
        caught = {
            n.id for h in node.handlers if h.type is not None for n in ast.walk(h.type) if isinstance(n, ast.Name)
        }
        if caught & {"ImportError", "ModuleNotFoundError"}:
            found |= {id(n) for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.Import | ast.ImportFrom)}
    return found


def imported(folders: tuple[str, ...]) -> dict[str, set[str]]:
    """Top-level third-party module -> the files that import it (stdlib, first-party and local modules out)."""
    local = {"groundbench", "tests", "__future__", *PACKAGE}
    local |= {p.stem for folder in folders for p in (REPO / folder).rglob("*.py")}  # e.g. benchmarks' helpers
    found: dict[str, set[str]] = {}
    for folder in folders:
        for path in sorted((REPO / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            optional = _optional(tree)
            for node in ast.walk(tree):
                if id(node) in optional:
                    continue
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for top in {n.split(".")[0] for n in names}:
                    if top not in sys.stdlib_module_names and top not in local:
                        found.setdefault(top, set()).add(str(path.relative_to(REPO)))
    return found


def _undeclared(modules: dict[str, set[str]], allowed: set[str]) -> list[str]:
    distributions = packages_distributions()
    problems = []
    for module, files in sorted(modules.items()):
        names = {normal(d) for d in distributions.get(module, [])}
        if not names:
            problems.append(f"{module}: imported by {sorted(files)[0]} but no installed distribution provides it")
        elif not names & allowed:
            problems.append(f"{module} ({', '.join(sorted(names))}): imported by {sorted(files)[0]}, not declared")
    return problems


def test_the_package_imports_only_what_pyproject_declares() -> None:
    groups = declared()
    modules = imported(PACKAGE)
    assert {"numpy", "pydantic", "fsspec", "ruamel"} <= set(modules)  # the walk sees the package's imports
    assert _undeclared(modules, set(groups["dependencies"]) | set(groups["eval"])) == []


def test_tests_and_benchmarks_import_only_declared_packages() -> None:
    every = {name for names in declared().values() for name in names}
    assert _undeclared(imported(DEVELOPMENT), every) == []


def test_every_package_is_declared_once() -> None:
    counts = Counter(name for names in declared().values() for name in names)
    assert [name for name, count in counts.items() if count > 1] == []


def _pinned(lock: str) -> set[str]:
    lines = (REPO / lock).read_text(encoding="utf-8").splitlines()
    return {normal(line.split("==")[0]) for line in lines if "==" in line and not line.startswith("#")}


def test_the_lock_files_pin_every_declared_package() -> None:
    groups = declared()
    runtime, development = _pinned("requirements.lock"), _pinned("requirements-dev.lock")
    assert [name for name in groups["dependencies"] if name not in runtime] == []
    extras = [name for group, names in groups.items() if group != "dependencies" for name in names]
    assert [name for name in extras if name not in runtime | development] == []


def test_the_checks_see_an_undeclared_and_a_twice_declared_package() -> None:
    assert _undeclared({"yaml": {"x.py"}}, {"numpy"}) == ["yaml (pyyaml): imported by x.py, not declared"]
    assert _undeclared({"yaml": {"x.py"}}, {"pyyaml"}) == []
    tree = ast.parse("try:\n    import rtree\nexcept ImportError:\n    pass\nimport numpy\n")
    assert len(_optional(tree)) == 1
    assert requirement("dvc[s3]") == requirement("dvc") == "dvc" and requirement("ruamel.yaml") == "ruamel-yaml"

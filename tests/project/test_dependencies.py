"""pyproject.toml declares every third-party package the code imports directly, once: the package's modules
import only runtime dependencies (or the ``build``, ``plots`` and ``eval`` extras'), tests and benchmarks also the
``dev`` extra's, and the lock files pin each declared package: requirements.lock the light runtime (no extra),
requirements-build.lock what the build extra adds, requirements-dev.lock the rest, none twice. Every module an
extra brings is in groundbench/core/extras.py's table (so a command without it names the extra). Imports are read
from the source (ast), lazy ones included; an import inside ``try: ... except ImportError`` is optional and exempt
(it says what is missing when absent)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections import Counter
from importlib.metadata import packages_distributions

from groundbench.core.extras import EXTRA_MODULES, extra_of
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
    package_groups = ("dependencies", "build", "plots", "eval")
    assert _undeclared(modules, {name for group in package_groups for name in groups[group]}) == []


def test_tests_and_benchmarks_import_only_declared_packages() -> None:
    every = {name for names in declared().values() for name in names}
    assert _undeclared(imported(DEVELOPMENT), every) == []


def test_every_package_is_declared_once() -> None:
    counts = Counter(name for names in declared().values() for name in names)
    assert [name for name, count in counts.items() if count > 1] == []


def _pinned(lock: str) -> set[str]:
    lines = (REPO / lock).read_text(encoding="utf-8").splitlines()
    return {normal(line.split("==")[0]) for line in lines if "==" in line and not line.startswith("#")}


LOCKS = ("requirements.lock", "requirements-build.lock", "requirements-dev.lock")


def test_the_lock_files_pin_every_declared_package() -> None:
    groups = declared()
    light, build, development = (_pinned(lock) for lock in LOCKS)
    assert [name for name in groups["dependencies"] if name not in light] == []
    assert [name for name in groups["build"] + groups["plots"] if name not in light | build] == []
    extras = [name for group, names in groups.items() if group != "dependencies" for name in names]
    assert [name for name in extras if name not in light | build | development] == []


def test_each_package_is_pinned_in_one_lock_and_the_light_one_holds_no_build_package() -> None:
    light, build, development = (_pinned(lock) for lock in LOCKS)
    assert (light & build, light & development, build & development) == (set(), set(), set())
    groups = declared()
    heavy = {"dvc", "opencv-python-headless", "trimesh", "dask", "distributed", "matplotlib", "scipy", "pandera"}
    assert heavy <= set(groups["build"] + groups["plots"]) and not heavy & light
    assert [name for name in groups["build"] + groups["plots"] if name in light] == []


def test_every_module_an_extra_brings_is_in_the_extras_table() -> None:
    """A module the package imports from an extra's package (and from no runtime one) maps to that extra, so
    the command needing it names the extra; and the table names no module that is not one of its extra's."""
    groups = declared()
    runtime = set(groups["dependencies"])
    owner = {name: group for group in ("build", "plots", "eval") for name in groups[group]}
    distributions = packages_distributions()
    wrong = []
    for module in sorted(imported(PACKAGE)):
        names = {normal(d) for d in distributions.get(module, [])}
        extras = {owner[n] for n in names if n in owner}
        if names & runtime or not extras:
            assert extra_of(module) is None, module
        elif extra_of(module) not in extras:
            wrong.append(f"{module}: from the {sorted(extras)} extra, table says {extra_of(module)}")
    assert wrong == []
    for extra, modules in EXTRA_MODULES.items():
        for module in modules:
            names = {normal(d) for d in distributions.get(module, [])}
            assert {owner.get(n) for n in names} & {extra}, f"{module} is no module of the {extra} extra"


def test_the_checks_see_an_undeclared_and_a_twice_declared_package() -> None:
    assert _undeclared({"yaml": {"x.py"}}, {"numpy"}) == ["yaml (pyyaml): imported by x.py, not declared"]
    assert _undeclared({"yaml": {"x.py"}}, {"pyyaml"}) == []
    tree = ast.parse("try:\n    import rtree\nexcept ImportError:\n    pass\nimport numpy\n")
    assert len(_optional(tree)) == 1
    assert requirement("dvc[s3]") == requirement("dvc") == "dvc" and requirement("ruamel.yaml") == "ruamel-yaml"

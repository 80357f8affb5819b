"""The code dependencies of every ``dvc.yaml`` stage, derived from the import closure of its command.

DVC re-runs a stage only when one of its declared ``deps`` changes, so a module a stage runs but does not
declare lets a cached output go stale unnoticed. Instead of picking deps by hand, each stage's command is
mapped to the CLI function that implements it (through the CLI's own parser, so the mapping cannot drift),
and the project modules it can import are followed statically (every ``import``, module-level or inside a
function, is counted: a lazy import may run). The package data those modules ship (templates, CSS, YAML,
declared in ``pyproject.toml``) counts too. ``groundbench dvc-deps --write`` rewrites the code deps of
``dvc.yaml`` from this; ``--check`` (and the test suite) fails when they differ.

Code deps are every dep under a package folder (``groundbench/``, ``converters/``, ...); every other dep
(``data/...``, ``requirements.lock``) is hand-written and left alone. A needed file of a package without
subpackages is listed as that package's folder (see ``compact``).
"""

from __future__ import annotations

import argparse
import ast
import re
import shlex
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from groundbench.errors import GroundBenchError

PACKAGE = "groundbench"
CLI_MODULE = "groundbench.cli"


@dataclass(frozen=True)
class Layout:
    """Where each project module and package-data file lives, relative to the repository root."""

    modules: dict[str, PurePosixPath]  # dotted module name -> its .py file
    package_data: dict[str, tuple[PurePosixPath, ...]]  # package name -> its non-Python files
    roots: tuple[PurePosixPath, ...]  # the package folders (code deps live under these)

    def is_code(self, dep: str) -> bool:
        path = PurePosixPath(dep)
        return any(path == root or root in path.parents for root in self.roots)


def load_layout(root: Path) -> Layout:
    """Read the package map (``[tool.setuptools]`` package-dir and package-data) and list the modules."""
    pyproject = root / "pyproject.toml"
    try:
        setuptools = tomllib.loads(pyproject.read_text())["tool"]["setuptools"]
        package_dir: dict[str, str] = setuptools["package-dir"]
        data_patterns: dict[str, list[str]] = setuptools.get("package-data", {})
    except (OSError, KeyError, tomllib.TOMLDecodeError) as exc:
        raise GroundBenchError(pyproject, "tool.setuptools.package-dir", f"cannot read the package map: {exc}") from exc
    # The deepest mapping wins: groundbench.scoring lives in scoring/, not groundbench/scoring/.
    folders = sorted(package_dir.items(), key=lambda item: -item[0].count("."))
    modules: dict[str, PurePosixPath] = {}
    for package, folder in folders:
        base = root / folder
        for path in sorted(base.rglob("*.py")):
            relative = path.relative_to(base)
            if "__pycache__" in relative.parts:
                continue
            parts = list(relative.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join([package, *parts])
            modules.setdefault(name, PurePosixPath(folder, *relative.parts))
    package_data: dict[str, tuple[PurePosixPath, ...]] = {}
    for package, patterns in data_patterns.items():
        base = root / _package_folder(package, package_dir)
        files = sorted({p for pattern in patterns for p in base.glob(pattern) if p.is_file()})
        package_data[package] = tuple(PurePosixPath(p.relative_to(root).as_posix()) for p in files)
    roots = tuple(PurePosixPath(folder) for folder in sorted(set(package_dir.values())))
    return Layout(modules=modules, package_data=package_data, roots=roots)


def _package_folder(package: str, package_dir: dict[str, str]) -> str:
    parts = package.split(".")
    for cut in range(len(parts), 0, -1):
        head = ".".join(parts[:cut])
        if head in package_dir:
            return str(PurePosixPath(package_dir[head], *parts[cut:]))
    raise GroundBenchError("pyproject.toml", f"tool.setuptools.package-data.{package}", "package not in package-dir")


def _resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


# "groundbench.pkg.module:function": a factory the registry imports by name when a stage runs it.
FACTORY_REFERENCE = re.compile(r"(groundbench(?:\.\w+)+):\w+")


def imported_names(tree: ast.AST, module: str, is_package: bool, factories: bool = True) -> set[str]:
    """Every dotted name an import statement anywhere in ``tree`` may load (``from a import b``: a and a.b),
    plus (``factories``) the module of every ``"groundbench.x.y:function"`` string: the registry's converter
    factories, loaded with importlib, are code the stage runs just the same. They are plug-ins named by
    string, not imports, so the package layering (``tests/test_import_layers.py``) leaves them out."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if not factories:
                continue
            reference = FACTORY_REFERENCE.fullmatch(node.value)
            if reference:
                names.add(reference.group(1))
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(node, module, is_package)
            names.add(target)
            names.update(f"{target}.{alias.name}" for alias in node.names)
    return names


class Closure:
    """Static import closure over the project's modules (third-party imports are not followed)."""

    def __init__(self, root: Path, layout: Layout):
        self.root = root
        self.layout = layout
        self._trees: dict[str, ast.Module] = {}
        self._direct: dict[str, set[str]] = {}

    def tree(self, module: str) -> ast.Module:
        if module not in self._trees:
            path = self.layout.modules[module]
            self._trees[module] = ast.parse((self.root / path).read_text(), filename=str(path))
        return self._trees[module]

    def _project_modules(self, names: Iterable[str]) -> set[str]:
        found: set[str] = set()
        for name in names:
            parts = name.split(".")
            # Importing a.b.c runs a/__init__, a/b/__init__ and a/b/c.
            heads = (".".join(parts[:cut]) for cut in range(1, len(parts) + 1))
            found.update(head for head in heads if head in self.layout.modules)
        return found

    def of(self, start: Iterable[str], loaded: Iterable[str] = ()) -> set[str]:
        """The modules reachable from the dotted names in ``start``; ``loaded`` are counted but not followed."""
        seen: set[str] = set(loaded)
        todo = sorted(self._project_modules(start) - seen)
        while todo:
            module = todo.pop()
            if module in seen:
                continue
            seen.add(module)
            todo.extend(self.direct(module) - seen)
        return seen

    def direct(self, module: str) -> set[str]:
        """The project modules ``module`` imports anywhere in its text."""
        if module not in self._direct:
            is_package = self.layout.modules[module].name == "__init__.py"
            self._direct[module] = self._project_modules(imported_names(self.tree(module), module, is_package))
        return self._direct[module]

    def files(self, modules: Iterable[str]) -> set[PurePosixPath]:
        """The modules' files plus the package data of every package any of them belongs to."""
        modules = set(modules)
        files = {self.layout.modules[m] for m in modules}
        for package, data in self.layout.package_data.items():
            if package in modules:
                files.update(data)
        return files


def _module_level_imports(tree: ast.Module, module: str) -> set[str]:
    """Imports executed when the module is loaded (top level, including ``if``/``try`` blocks)."""
    skipped = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    top = ast.Module(body=[n for n in tree.body if not isinstance(n, skipped)], type_ignores=[])
    return imported_names(top, module, False)


def _function_imports(tree: ast.Module, module: str, names: Iterable[str]) -> set[str]:
    """Imports inside the named functions of ``tree`` and of the module-level functions they call."""
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    todo, seen, found = list(names), set(), set()
    while todo:
        name = todo.pop()
        if name in seen or name not in functions:
            continue
        seen.add(name)
        found |= imported_names(functions[name], module, False)
        # Only calls are followed: ``build_parser`` names every sub-command's function without calling it
        # (the dispatch goes through ``args.func``, resolved by the parser in ``command_entry``).
        todo.extend(
            n.func.id for n in ast.walk(functions[name]) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        )
    return found


def command_entry(command: str) -> tuple[str, argparse.Namespace]:
    """The CLI function a stage command runs, found by the CLI's own parser (so it cannot be mapped wrong)."""
    from groundbench.cli import build_parser

    argv = shlex.split(command)
    # bin/groundbench runs the checkout's .venv (or PATH's) groundbench with the same arguments.
    if not argv or argv[0] not in ("groundbench", "bin/groundbench"):
        raise GroundBenchError("dvc.yaml", command, "a stage command must be `bin/groundbench ...`")
    args = build_parser().parse_args(argv[1:])
    return args.func.__name__, args


def command_modules(closure: Closure, command: str) -> set[str]:
    """Every project module ``groundbench <args>`` can import: the CLI module, ``main`` and the sub-command."""
    func, _ = command_entry(command)
    tree = closure.tree(CLI_MODULE)
    # The CLI module is loaded, but only its top level, ``main`` and the sub-command's function run (the
    # other sub-commands' lazy imports do not), so it is not followed like the other modules.
    start = _module_level_imports(tree, CLI_MODULE) | _function_imports(tree, CLI_MODULE, ["main", func])
    return closure.of(start, loaded=[CLI_MODULE])


def compact(needed: set[PurePosixPath], layout: Layout) -> list[str]:
    """``needed`` as dep paths at package granularity: each file's package folder when that package has no
    subpackages (a new module there is then covered without regenerating), else the file itself."""
    packages = {path.parent for path in layout.modules.values() if path.name == "__init__.py"}
    parents_of_packages = {folder.parent for folder in packages}
    deps: set[PurePosixPath] = set()
    for path in needed:
        package = next(folder for folder in path.parents if folder in packages)
        deps.add(path if package in parents_of_packages else package)
    return sorted(str(d) for d in deps if not any(other in d.parents for other in deps))


def covered(path: PurePosixPath, deps: Iterable[str]) -> bool:
    """True when ``path`` is one of ``deps`` or lies in one of them (a folder)."""
    return any(path == PurePosixPath(d) or PurePosixPath(d) in path.parents for d in deps)


@dataclass(frozen=True)
class StageCode:
    """One stage of ``dvc.yaml`` (foreach instances merged): its commands and the code its commands run."""

    name: str
    commands: tuple[str, ...]
    needed: frozenset[PurePosixPath]
    declared: tuple[str, ...]  # the code deps dvc.yaml declares today


def _expand(text: str, key: str, item: Any) -> str:
    text = text.replace("${key}", key)
    if isinstance(item, dict):
        for field, value in item.items():
            text = text.replace("${item." + field + "}", str(value))
    else:
        text = text.replace("${item}", str(item))
    return text


def stage_commands(stage: dict[str, Any]) -> list[str]:
    """The command of a plain stage, or of every instance of a ``foreach`` stage."""
    if "foreach" not in stage:
        return [stage["cmd"]]
    items = stage["foreach"]
    pairs = items.items() if isinstance(items, dict) else ((str(i), i) for i in items)
    return [_expand(stage["do"]["cmd"], key, item) for key, item in pairs]


def stage_code(root: Path) -> list[StageCode]:
    """Every stage of ``root/dvc.yaml`` with the code its commands can run and the code deps it declares."""
    import yaml

    layout = load_layout(root)
    closure = Closure(root, layout)
    spec = yaml.safe_load((root / "dvc.yaml").read_text())
    result = []
    for name, stage in spec["stages"].items():
        body = stage.get("do", stage)
        commands = stage_commands(stage)
        needed = frozenset(f for c in commands for f in closure.files(command_modules(closure, c)))
        declared = tuple(d if isinstance(d, str) else next(iter(d)) for d in body.get("deps", []))
        result.append(StageCode(name, tuple(commands), needed, tuple(d for d in declared if layout.is_code(d))))
    return result


def check(root: Path) -> list[str]:
    """One line per stage whose code deps differ from the generated ones (empty: dvc.yaml is current)."""
    layout = load_layout(root)
    problems = []
    for stage in stage_code(root):
        want = compact(set(stage.needed), layout)
        if list(stage.declared) != want:
            missing = sorted(str(f) for f in stage.needed if not covered(f, stage.declared))
            extra = sorted(set(stage.declared) - set(want))
            problems.append(
                f"{stage.name}: code deps differ (missing {missing or 'nothing'}; not needed {extra or 'nothing'})"
            )
    return problems


def write(root: Path) -> list[str]:
    """Rewrite the code deps of every stage in ``root/dvc.yaml`` (comments and data deps kept); the changed stages."""
    from ruamel.yaml import YAML

    layout = load_layout(root)
    wanted = {stage.name: compact(set(stage.needed), layout) for stage in stage_code(root)}
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 120
    yaml.indent(mapping=2, sequence=4, offset=2)
    path = root / "dvc.yaml"
    spec = yaml.load(path.read_text())
    changed = []
    for name, stage in spec["stages"].items():
        body = stage.get("do", stage)
        deps = body.get("deps", [])
        code = [d for d in deps if isinstance(d, str) and layout.is_code(d)]
        if code == wanted[name]:
            continue
        changed.append(name)
        for dep in code:
            deps.remove(dep)
        deps.extend(wanted[name])
        body["deps"] = deps
    if changed:
        from io import StringIO

        from groundbench.core.atomic import write_bytes

        buffer = StringIO()
        yaml.dump(spec, buffer)
        write_bytes(path, buffer.getvalue().encode())
    return changed

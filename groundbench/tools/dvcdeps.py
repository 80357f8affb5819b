"""The code dependencies of every ``dvc.yaml`` stage, derived from the import closure of its command.

DVC re-runs a stage only when one of its declared ``deps`` changes, so a module a stage runs but does not
declare lets a cached output go stale unnoticed. Instead of picking deps by hand, each stage's command is
mapped to the stage module that implements it (through that module's own parser, so it cannot drift),
and the project modules it can import are followed statically (every ``import``, module-level or inside a
function, is counted: a lazy import may run; one under ``if TYPE_CHECKING:`` never runs and is not).
The package data those modules ship (templates, CSS, YAML, declared in ``pyproject.toml``) counts too.

A stage command runs ``groundbench/entry.py``, which imports only that stage's module (the command table's
``STAGES``, ``groundbench/commands/__init__.py``).
Code a stage loads by a "module:function" string (a converter, a sample writer: ``core/plugins.py``) is
followed exactly as the stage declares it for the command's arguments (``plugins(args)`` of the stage
module), so a convert stage depends on its own source's converter and on no other. The source folders'
specs the registry loads by name are those the stage declares (``folders(args)``, by default its
``--folder``: ``groundbench.stages.command.stage_folders``; the registry refuses any other while it runs), and
the record schema loads every folder's ``columns.py`` (the one schema every config's shards share).

``groundbench dvc-deps --write`` rewrites the code deps of ``dvc.yaml`` from this; ``--check`` (and the test
suite) fails when they differ; ``--matrix`` prints what editing each module re-runs.

Code deps are every dep under a package folder (``groundbench/``, ``converters/``, ...); every other dep
(``data/...``, ``requirements.lock``) is hand-written and left alone. A package folder is listed as one dep
only when every file in it is needed (see ``compact``); otherwise its needed files are.
"""

from __future__ import annotations

import argparse
import ast
import shlex
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from groundbench.errors import GroundBenchError

PACKAGE = "groundbench"
ENTRY_MODULE = "groundbench.entry"


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


def _is_type_checking(node: ast.AST) -> bool:
    """``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``): imports for the type checker, never run."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(tree: ast.AST) -> Iterable[ast.AST]:
    """``ast.walk`` without the bodies of ``if TYPE_CHECKING:`` blocks (their ``else`` runs and is kept)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if _is_type_checking(node):
            todo.extend(node.orelse)  # type: ignore[attr-defined]
            continue
        todo.extend(ast.iter_child_nodes(node))


def imported_names(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """Every dotted name an import statement anywhere in ``tree`` may load (``from a import b``: a and a.b).
    Plug-ins named by "module:function" strings are not imports: each stage declares the ones it loads."""
    names: set[str] = set()
    for node in _walk(tree):
        if isinstance(node, ast.Import):
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
        """The project modules ``module`` imports anywhere in its text; a lazy attribute of a package
        (``from pkg import name`` served by ``pkg.__getattr__``) counts the imports of that ``__getattr__``."""
        if module not in self._direct:
            is_package = self.layout.modules[module].name == "__init__.py"
            tree = _without_getattr(self.tree(module))
            names = imported_names(tree, module, is_package)
            for name in list(names):
                package = name.rpartition(".")[0]
                if name not in self.layout.modules and package in self.layout.modules:
                    names |= self.lazy(package)
            self._direct[module] = self._project_modules(names)
        return self._direct[module]

    def lazy(self, module: str) -> set[str]:
        """What a module-level ``__getattr__`` (PEP 562) imports: run only for an attribute the module lacks."""
        is_package = self.layout.modules[module].name == "__init__.py"
        hooks = [n for n in self.tree(module).body if isinstance(n, ast.FunctionDef) and n.name == "__getattr__"]
        return {name for hook in hooks for name in imported_names(hook, module, is_package)}

    def files(self, modules: Iterable[str]) -> set[PurePosixPath]:
        """The modules' files plus the package data of every package any of them belongs to."""
        modules = set(modules)
        files = {self.layout.modules[m] for m in modules}
        for package, data in self.layout.package_data.items():
            if package in modules:
                files.update(data)
        return files


def _without_getattr(tree: ast.Module) -> ast.Module:
    """``tree`` without its module-level ``__getattr__`` (followed only where it is used: ``Closure.lazy``)."""
    body = [n for n in tree.body if not (isinstance(n, ast.FunctionDef) and n.name == "__getattr__")]
    return ast.Module(body=body, type_ignores=[])


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
        # Only calls are followed: ``entry.main`` runs a stage through ``run_stage``; the whole command line it
        # imports by name for other commands is no stage's code.
        todo.extend(
            n.func.id for n in _walk(functions[name]) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        )
    return found


def command_entry(command: str) -> tuple[str, argparse.Namespace]:
    """The stage module a command runs and its parsed arguments (its own parser: it cannot be mapped wrong)."""
    from groundbench.commands import STAGES, command_name
    from groundbench.stages.command import stage_parser

    argv = shlex.split(command)
    # bin/groundbench runs the checkout's .venv (or PATH's) groundbench with the same arguments.
    if not argv or argv[0] not in ("groundbench", "bin/groundbench"):
        raise GroundBenchError("dvc.yaml", command, "a stage command must be `bin/groundbench ...`")
    name = command_name(argv[1:])
    if name not in STAGES:
        raise GroundBenchError("dvc.yaml", command, f"not a stage command; expected one of {sorted(STAGES)}")
    return STAGES[name], stage_parser(name).parse_args(argv[1:])


def command_plugins(command: str) -> list[str]:
    """The "module:function" references the stage loads for this command's arguments."""
    _, args = command_entry(command)
    from groundbench.stages.command import stage_plugins

    return stage_plugins(args.command_module, args)


def command_folders(command: str) -> tuple[str, ...] | None:
    """The source folders the stage loads for this command's arguments (None: every listed folder)."""
    _, args = command_entry(command)
    from groundbench.stages.command import stage_folders

    return stage_folders(args.command_module, args)


def command_modules(closure: Closure, command: str) -> set[str]:
    """Every project module ``groundbench <args>`` can import: the entry's stage path, the stage module, the
    plug-ins it declares for these arguments and the source folders' modules loaded by name (below)."""
    from groundbench.core.plugins import split_ref

    module, _ = command_entry(command)
    tree = closure.tree(ENTRY_MODULE)
    # The entry module is loaded, but only its top level and the stage path run (it imports the whole command
    # line by name, for other commands), so it is not followed like the other modules.
    start = _module_level_imports(tree, ENTRY_MODULE) | _function_imports(tree, ENTRY_MODULE, ["main"])
    plugins = {split_ref(ref)[0] for ref in command_plugins(command)}
    found = closure.of(start | {module} | plugins, loaded=[ENTRY_MODULE])
    folders = command_folders(command)
    while True:  # a folder's modules may bring in another loader (a spec importing the record schema)
        more = by_name(found, folders) - found
        if not more:
            return found
        found |= closure.of(more, loaded=found)


REGISTRY_MODULE = "groundbench.core.registry"
FEATURES_MODULE = "groundbench.schemas.features"


def by_name(found: set[str], folders: tuple[str, ...] | None) -> set[str]:
    """The source folders' modules that modules in ``found`` load by name (schemas/folders.py): the registry
    loads the spec of each folder the stage serves (``folders``; None: every one), and the record schema
    (``schemas/features.py``) every folder's columns; both read the listing (``converters/__init__.py``)."""
    from groundbench.schemas.folders import COLUMNS, LISTING, SPEC, listed, module_of

    packages = listed()
    wanted: set[str] = set()
    if REGISTRY_MODULE in found:
        names = packages if folders is None else folders
        wanted |= {LISTING, *(module_of(packages[name], SPEC) for name in names)}
    if FEATURES_MODULE in found:
        wanted |= {LISTING, *(module_of(package, COLUMNS) for package in packages.values())}
    return wanted


def listed_modules(part: str) -> list[str]:
    """The listing of source folders and each folder's ``spec`` or ``columns`` module (their import names)."""
    from groundbench.schemas.folders import LISTING, listed, module_of

    return [LISTING, *(module_of(package, part) for package in listed().values())]


def compact(needed: set[PurePosixPath], layout: Layout) -> list[str]:
    """``needed`` as dep paths: a package's folder when every file in it (its modules, its package data, its
    subpackages) is needed, else the needed files one by one (so editing a module the stage does not run
    changes none of its deps)."""
    contents: dict[PurePosixPath, set[PurePosixPath]] = {}
    everything = set(layout.modules.values()) | {f for data in layout.package_data.values() for f in data}
    packages = {path.parent for path in layout.modules.values() if path.name == "__init__.py"}
    for path in everything:
        for folder in path.parents:
            if folder in packages:
                contents.setdefault(folder, set()).add(path)
    deps: set[PurePosixPath] = set(needed)
    for folder, files in contents.items():
        if files <= needed:
            deps.add(folder)
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
    return problems + stale_deps(root)


def stale_deps(root: Path) -> list[str]:
    """Module or folder deps outside ``data/`` that name nothing: code that moved out of every package folder
    is no longer a code dep (``--write`` leaves it alone), so it would stay behind and fail ``dvc repro``."""
    import yaml

    spec = yaml.safe_load((root / "dvc.yaml").read_text())
    problems = []
    for name, stage in spec["stages"].items():
        for dep in stage.get("do", stage).get("deps", []):
            path = dep if isinstance(dep, str) else next(iter(dep))
            code_like = path.endswith(".py") or "/" in path  # a module or a folder's path, not a top-level file
            if code_like and "${" not in path and not path.startswith("data/") and not (root / path).exists():
                problems.append(f"{name}: dep {path} does not exist (moved or removed: delete it from dvc.yaml)")
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


def matrix(root: Path) -> tuple[list[str], str]:
    """Each module file -> the stages whose code deps cover it (what editing it re-runs), and a summary."""
    layout = load_layout(root)
    wanted = {stage.name: compact(set(stage.needed), layout) for stage in stage_code(root)}
    lines = []
    counts = {"none": 0, "all": 0, "some": 0}
    files = sorted(set(layout.modules.values()))
    for path in files:
        stages = [name for name, deps in wanted.items() if covered(path, deps)]
        kind = "none" if not stages else "all" if len(stages) == len(wanted) else "some"
        counts[kind] += 1
        lines.append(f"{path} -> {', '.join(stages) if stages else '(no stage)'}")
    summary = (
        f"{len(files)} module files: {counts['none']} invalidate no stage, {counts['all']} all {len(wanted)} "
        f"stages, {counts['some']} some"
    )
    return lines, summary

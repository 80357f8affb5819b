"""The code a ``dvc.yaml`` stage runs, read from the source text alone: the import closure of its roots.

A stage's roots are its code deps in ``dvc.yaml`` (its stage module, the plug-ins it loads for its arguments,
the specs of the source folders it loads by name: ``groundbench dvc-deps --write`` records them). From them
every project module they can import is followed statically (every ``import``, module-level or inside a
function, is counted: a lazy import may run; one under ``if TYPE_CHECKING:`` never runs and is not), plus what
every stage process runs first (``groundbench/entry.py``'s top level and its stage path) and what the project
loads by name (the folder listing, every folder's ``columns.py`` for the record schema). The package data
those modules ship (templates, CSS, YAML, declared in ``pyproject.toml``) counts too.

Light on purpose (the standard library and the project's error type): the ``code`` stage
(``groundbench/stages/code.py``) runs this after every code edit to hash each stage's closure into its
fingerprint file, so an import added without ``dvc-deps --write`` still re-runs the stages that now run it.
"""

from __future__ import annotations

import ast
import hashlib
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from groundbench.errors import GroundBenchError

ENTRY_MODULE = "groundbench.entry"
REGISTRY_MODULE = "groundbench.core.registry"
FEATURES_MODULE = "groundbench.schemas.features"
LISTING = "groundbench.converters"  # FOLDERS: the package of every source folder (schemas/folders.py)
COLUMNS = "columns"  # every listed folder's columns module makes the record schema (schemas/folders.py)


@dataclass(frozen=True)
class Layout:
    """Where each project module and package-data file lives, relative to the repository root."""

    modules: dict[str, PurePosixPath]  # dotted module name -> its .py file
    package_data: dict[str, tuple[PurePosixPath, ...]]  # package name -> its non-Python files
    roots: tuple[PurePosixPath, ...]  # the package folders (code deps live under these)

    def is_code(self, dep: str) -> bool:
        path = PurePosixPath(dep)
        return any(path == root or root in path.parents for root in self.roots)

    def module_of(self, path: str | PurePosixPath) -> str | None:
        """The dotted name of the module in file ``path`` (None: not a project module)."""
        wanted = PurePosixPath(path)
        return next((name for name, file in self.modules.items() if file == wanted), None)


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
            self._trees[module] = ast.parse((self.root / path).read_bytes(), filename=str(path))
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
            # A folder of data files only (loaders/prompts/templates) is a package for setuptools alone: its
            # files come with the package around it, which is what reads them.
            owner = package if package in self.layout.modules else package.rpartition(".")[0]
            if owner in modules:
                files.update(data)
        return files

    def entry(self) -> set[str]:
        """What every stage process imports before its stage module: the entry module's top level and the
        stage path of its ``main``. It imports the whole command line by name, for other commands, so it
        is not followed like the other modules."""
        tree = self.tree(ENTRY_MODULE)
        return {ENTRY_MODULE} | self.of(
            _module_level_imports(tree, ENTRY_MODULE) | _function_imports(tree, ENTRY_MODULE, ["main"]),
            loaded=[ENTRY_MODULE],
        )

    def listed(self) -> dict[str, str]:
        """Folder name -> package, as ``converters/__init__.py`` lists them (read, not imported)."""
        tree = self.tree(LISTING)
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "FOLDERS" for t in node.targets):
                packages: tuple[str, ...] = ast.literal_eval(node.value)
                return {package.rpartition(".")[2]: package for package in packages}
        raise GroundBenchError(str(self.layout.modules[LISTING]), "FOLDERS", "the listing of source folders is missing")

    def by_name(self, found: set[str]) -> set[str]:
        """The modules ``found`` loads by name besides the specs a stage names as roots: the registry reads
        the folder listing, the record schema (``schemas/features.py``) every listed folder's columns."""
        wanted: set[str] = set()
        if REGISTRY_MODULE in found:
            wanted.add(LISTING)
        if FEATURES_MODULE in found:
            wanted |= {LISTING, *(f"{package}.{COLUMNS}" for package in self.listed().values())}
        return wanted

    def stage(self, roots: Iterable[str]) -> set[str]:
        """Every module a stage process with these root modules can import (see the module's docstring)."""
        found = self.of(roots, loaded=self.entry()) | self.entry()
        while True:  # a folder's columns may bring in another loader
            more = self.by_name(found) - found
            if not more:
                return found
            found |= self.of(more, loaded=found)


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


def stage_files(closure: Closure, roots: Iterable[str | PurePosixPath]) -> set[PurePosixPath]:
    """The files (modules and package data) a stage whose roots are these module files runs."""
    modules = set()
    for path in roots:
        module = closure.layout.module_of(path)
        if module is None:
            raise GroundBenchError("dvc.yaml", str(path), "a code dep that is no module of the project")
        modules.add(module)
    return closure.files(closure.stage(modules))


def fingerprint(root: Path, files: Iterable[PurePosixPath]) -> bytes:
    """A stage's fingerprint: every file it runs with the sha256 of its bytes, one line each, sorted, in
    ``sha256sum``'s format (``sha256sum -c`` checks it; two of them diff to the file that changed)."""
    lines = [f"{hashlib.sha256((root / path).read_bytes()).hexdigest()}  {path}\n" for path in sorted(set(files))]
    return "".join(lines).encode()

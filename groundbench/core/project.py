"""Where the GroundBench project is: one rule for ``--root`` of every command and for ``--data``'s default.

``--root`` when given, else the project the working directory lies in (a folder holding ``params.yaml`` and
``dvc.yaml``, or one of its parents: run from ``docs/`` or any other subfolder, a command reads the project
around it, and a second clone reads its own build, not the one the installed package came from), else the
checkout this package runs from. Light on purpose: every stage process imports it.
"""

from __future__ import annotations

from pathlib import Path

from groundbench.errors import GroundBenchError

ROOT_HELP = (
    "project root holding params.yaml, dvc.yaml and data/ (default: the project the working directory "
    "lies in, else the checkout this package runs from)"
)


def is_project(folder: Path) -> bool:
    return (folder / "params.yaml").is_file() and (folder / "dvc.yaml").is_file()


def checkout() -> Path | None:
    """The project root this package runs from (a checkout, or an editable install of one); None for a wheel."""
    root = Path(__file__).resolve().parents[2]
    return root if is_project(root) else None


def enclosing_project(start: Path | None = None) -> Path | None:
    """The GroundBench project ``start`` (default: the working directory) lies in, or None."""
    here = (start or Path.cwd()).resolve()
    return next((folder for folder in (here, *here.parents) if is_project(folder)), None)


def find_project(given: str | Path | None = None) -> Path | None:
    """``given`` (``--root``), else :func:`enclosing_project`, else :func:`checkout`; None when there is none."""
    if given is not None and str(given):
        return Path(given).resolve()
    return enclosing_project() or checkout()


def project_root(given: str | Path | None = None) -> Path:
    """:func:`find_project`, or one error saying how to name the project."""
    found = find_project(given)
    if found is None:
        raise GroundBenchError(
            Path.cwd(),
            "--root",
            "not inside a GroundBench project (no params.yaml and dvc.yaml here or in a parent folder) and no "
            "checkout to fall back on: run the command in a checkout of the GroundBench repository or pass --root",
        )
    return found

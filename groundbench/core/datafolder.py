"""Where the published folder is, for every command that takes ``--data`` and for ``load_config``.

One rule: the folder given (``--data``, ``load_config``'s ``folder``), else ``$GROUNDBENCH_DATA``, else
``data/groundbench`` of the project root: ``--root`` when given, else the GroundBench project the working
directory lies in (a folder holding ``params.yaml`` and ``dvc.yaml``, or one of its parents: a second clone
reads its own build, not the one the installed package came from), else the checkout this package runs
from. Never a bare ``data/groundbench`` of any working directory: outside a project it would be taken for a
Hub repo id of that name. A module of its own, so that no pipeline stage depends on it.
"""

from __future__ import annotations

import os
from pathlib import Path

from groundbench.errors import GroundBenchError

DATA_ENV = "GROUNDBENCH_DATA"  # a published folder or a Hub repo id
DATA_DEFAULT = "(default: $GROUNDBENCH_DATA, else data/groundbench of the project you are in, else of the checkout)"
DATA_HELP = f"published folder or Hub repo id ORG/NAME {DATA_DEFAULT}"
TRY = "pass --data FOLDER or ORG/NAME, or set GROUNDBENCH_DATA"


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


def data_location(given: str | Path | None, root: Path | None = None) -> str | Path:
    """``given`` when given, else $GROUNDBENCH_DATA (both: a path or a Hub repo id, resolved by the caller),
    else ``data/groundbench`` of ``root``, of :func:`enclosing_project` or of :func:`checkout`, which must exist."""
    if given is not None and str(given):
        return given
    if os.environ.get(DATA_ENV):
        return os.environ[DATA_ENV]
    base = root if root is not None else enclosing_project() or checkout()
    if base is None:
        raise GroundBenchError(DATA_ENV, "folder", f"no folder given and no checkout to take one from: {TRY}")
    folder = base / "data" / "groundbench"
    if not folder.is_dir():
        raise GroundBenchError(folder, "folder", f"no published folder here: build it (`make build`), {TRY}")
    return folder

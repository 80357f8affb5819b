"""Where the published folder is, for every command that takes ``--data`` and for ``load_config``.

One rule: the folder given (``--data``, ``load_config``'s ``folder``), else ``$GROUNDBENCH_DATA``, else
``data/groundbench`` of the project root, found as every command finds it (``groundbench.core.project``:
``--root``, else the project the working directory lies in, else the checkout this package runs from).
Never a bare ``data/groundbench`` of any working directory: outside a project it would be taken for a Hub
repo id of that name.
"""

from __future__ import annotations

import os
from pathlib import Path

from groundbench.core.project import find_project
from groundbench.errors import GroundBenchError

DATA_ENV = "GROUNDBENCH_DATA"  # a published folder or a Hub repo id
DATA_DEFAULT = "(default: $GROUNDBENCH_DATA, else data/groundbench of the project you are in, else of the checkout)"
DATA_HELP = f"published folder or Hub repo id ORG/NAME {DATA_DEFAULT}"
TRY = "pass --data FOLDER or ORG/NAME, or set GROUNDBENCH_DATA"


def data_location(given: str | Path | None, root: Path | None = None) -> str | Path:
    """``given`` when given, else $GROUNDBENCH_DATA (both: a path or a Hub repo id, resolved by the caller),
    else ``data/groundbench`` of ``root`` or of :func:`~groundbench.core.project.find_project`, which must exist."""
    if given is not None and str(given):
        return given
    if os.environ.get(DATA_ENV):
        return os.environ[DATA_ENV]
    base = root if root is not None else find_project()
    if base is None:
        raise GroundBenchError(DATA_ENV, "folder", f"no folder given and no checkout to take one from: {TRY}")
    folder = base / "data" / "groundbench"
    if not folder.is_dir():
        raise GroundBenchError(folder, "folder", f"no published folder here: build it (`make build`), {TRY}")
    return folder

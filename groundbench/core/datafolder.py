"""Where the published folder is, for every command that takes ``--data`` and for ``load_config``.

One rule: the folder given (``--data``, ``load_config``'s ``folder``), else ``$GROUNDBENCH_DATA``, else
``data/groundbench`` of the project root (``--root`` when given, else the checkout this package runs from).
Never the working directory by accident: outside the checkout a relative ``data/groundbench`` would be
taken for a Hub repo id of that name. A module of its own, so that no pipeline stage depends on it.
"""

from __future__ import annotations

import os
from pathlib import Path

from groundbench.errors import GroundBenchError

DATA_ENV = "GROUNDBENCH_DATA"  # a published folder or a Hub repo id
DATA_HELP = "published folder or Hub repo id ORG/NAME (default: $GROUNDBENCH_DATA or the checkout's data/groundbench)"
TRY = "pass --data FOLDER or ORG/NAME, or set GROUNDBENCH_DATA"


def checkout() -> Path | None:
    """The project root this package runs from (a checkout, or an editable install of one); None for a wheel."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "params.yaml").is_file() else None


def data_location(given: str | Path | None, root: Path | None = None) -> str | Path:
    """``given`` when given, else $GROUNDBENCH_DATA (both: a path or a Hub repo id, resolved by the caller),
    else ``data/groundbench`` of ``root`` or of :func:`checkout`, which must exist."""
    if given is not None and str(given):
        return given
    if os.environ.get(DATA_ENV):
        return os.environ[DATA_ENV]
    base = root if root is not None else checkout()
    if base is None:
        raise GroundBenchError(DATA_ENV, "folder", f"no folder given and no checkout to take one from: {TRY}")
    folder = base / "data" / "groundbench"
    if not folder.is_dir():
        raise GroundBenchError(folder, "folder", f"no published folder here: build it (`make build`), {TRY}")
    return folder

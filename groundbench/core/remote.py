"""Sources at an fsspec URL (``s3://bucket/umd``, ``gs://…``): mirrored to a local folder before converting.

The converters read local folders. A source given as a URL is copied once into
``$GROUNDBENCH_MIRROR/<sha256 of the URL>/`` (default: the system temp folder) by the machine that lists
the items and, on the dask engine, by every worker (a worker plugin), so the item paths the driver hands
out exist on every worker. Credentials and endpoints come from the usual environment of fsspec's
backend (for S3: ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_ENDPOINT_URL``), never from
params.yaml.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from groundbench.errors import GroundBenchError

if TYPE_CHECKING:
    from groundbench.core.params import Params

COMPLETE = ".groundbench-mirror-complete"


def mirror_root() -> Path:
    """Where mirrors go: ``$GROUNDBENCH_MIRROR``, else ``groundbench-mirror`` in the system temp folder.

    Every worker must resolve the same folder: set ``GROUNDBENCH_MIRROR`` where their temp folders differ."""
    return Path(os.environ.get("GROUNDBENCH_MIRROR") or Path(tempfile.gettempdir()) / "groundbench-mirror")


def is_url(value: object) -> bool:
    return isinstance(value, str) and "://" in value and not value.startswith("file://")


def mirror_path(url: str, cache: Path | None = None) -> Path:
    return (cache or mirror_root()) / hashlib.sha256(url.rstrip("/").encode()).hexdigest()[:16]


def mirror(url: str, cache: Path | None = None) -> Path:
    """The tree at ``url`` as a local folder (copied once; a finished copy is marked and reused)."""
    import fsspec

    target = mirror_path(url, cache)
    if (target / COMPLETE).is_file():
        return target
    partial = target.with_name(target.name + f".partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        fs, root = fsspec.core.url_to_fs(url)
        root = root.rstrip("/")
        files = [path for path in fs.find(root) if not path.endswith("/")]
        if not files:
            raise GroundBenchError("params.yaml", url, "no files at this URL")
        for path in files:
            local = partial / path[len(root) + 1 :]
            local.parent.mkdir(parents=True, exist_ok=True)
            fs.get_file(path, str(local))
    except (OSError, ValueError, ImportError) as exc:
        shutil.rmtree(partial, ignore_errors=True)
        raise GroundBenchError("params.yaml", url, f"cannot read the source at this URL ({exc})") from exc
    (partial / COMPLETE).write_text(url + "\n")
    try:
        partial.rename(target)
    except OSError:  # another process finished first: theirs is complete too
        shutil.rmtree(partial, ignore_errors=True)
    return target


def localise_sources(params: Params, cache: Path | None = None) -> tuple[Params, tuple[str, ...]]:
    """``params`` with every source URL replaced by its local mirror, and the URLs (for the workers)."""
    urls: list[str] = []

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {key: walk(value) for key, value in node.items()}
        if is_url(node):
            urls.append(node)
            return str(mirror(node, cache))
        return node

    sources = walk(params.sources.model_dump())
    if not urls:
        return params, ()
    return params.model_copy(update={"sources": type(params.sources).model_validate(sources)}), tuple(urls)

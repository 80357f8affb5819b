"""The published folder (``data/groundbench/`` or a Hub copy of it): its Parquet data files, read and written.

Every tool that reads published rows (scoring, requests, preview, sheet, the card facts, the card
check, publish, verify) goes through :func:`iter_batches` (streaming) or :func:`read_config` (one
table), so there is one reader of the folder's data files. A folder is found from a local path or a
Hub dataset repo id (:func:`resolve_folder`), and its format version is checked against the
package's before any row is read (:func:`check_format_version`).

Writing follows what ``datasets`` itself does for ``push_to_hub``: row groups sized by
``datasets.config.MAX_ROW_GROUP_SIZE`` (the viewer reads a row group at a time), files cut at
``datasets.config.MAX_SHARD_SIZE``, content-defined chunking (the Hub's Xet storage deduplicates
unchanged pages between versions), a page index, and the per-column options ``datasets`` chooses
for its features. The ``datasets`` features ride in the schema metadata (``huggingface`` key), so
``load_dataset`` restores the ``Image`` feature. Two writes of the same rows give the same bytes.

The card records the sha256 of every data file (``groundbench.data_files_sha256``, written by
``groundbench assemble``). :func:`content_key` hashes a config's files, refuses any that differ from
that record, and returns one digest of the config's bytes: ``groundbench.loaders.load_config`` keys
the ``datasets`` cache on it, so changed bytes are never answered from an old cache.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from stat import S_ISREG
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from groundbench.core.atomic import atomic_dir
from groundbench.core.datafolder import data_location
from groundbench.core.manifests import sha256_file
from groundbench.core.project import is_project
from groundbench.core.sealcache import SETTLED_NS, file_sha256, remembered
from groundbench.errors import GroundBenchError, unknown_name
from groundbench.schemas.baselines_features import BASELINES_CONFIG
from groundbench.schemas.features import FORMAT_METADATA_KEY, FORMAT_VERSION

SPLIT = "test"
DATA_SUFFIX = ".parquet"
DATA_GLOB = f"{SPLIT}-*{DATA_SUFFIX}"
CARD = "README.md"
CHECKSUMS = "SHA256SUMS"  # every other file of a built folder -> sha256 (sha256sum's format; not uploaded)
CARD_KEY = "groundbench"  # the card's YAML key with format_version, dataset_version and per-config facts
DATA_FILES_KEY = "data_files_sha256"  # under CARD_KEY: every data file (path in the folder) -> its sha256
SEALS = "groundbench-seals"  # content_key's remembered digests, in the datasets cache folder
REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")


# ---------------------------------------------------------------- reading


def data_files(config_dir: Path) -> list[Path]:
    """A config's Parquet files in order (``test-00000-of-0000N.parquet``)."""
    return sorted(config_dir.glob(DATA_GLOB))


def published_configs(folder: Path) -> list[str]:
    """Configs with data files in the folder (sorted; ``baselines`` included when present)."""
    data = folder / "data"
    return sorted(p.name for p in data.iterdir() if p.is_dir() and data_files(p)) if data.is_dir() else []


def open_data_file(path: Path) -> pq.ParquetFile:
    try:
        return pq.ParquetFile(str(path), memory_map=True)
    except (pa.ArrowInvalid, OSError) as exc:
        raise GroundBenchError(path, "file", f"not a complete Parquet file ({exc})") from exc


def iter_file_batches(
    path: Path, columns: Sequence[str] | None = None, rows: int | None = None
) -> Iterator[pa.RecordBatch]:
    """One data file's rows, one row group at a time (``rows``: that many rows at a time, pages read as needed)."""
    reader = open_data_file(path)
    names = None if columns is None else list(columns)
    if rows is not None:
        yield from reader.iter_batches(batch_size=rows, columns=names)
        return
    for index in range(reader.num_row_groups):
        table = reader.read_row_group(index, columns=names)
        yield from table.combine_chunks().to_batches()


def iter_batches(
    config_dir: Path, columns: Sequence[str] | None = None, rows: int | None = None
) -> Iterator[pa.RecordBatch]:
    """THE reader of published data files: a config folder's rows, one row group (or ``rows``) at a time, in order."""
    for path in data_files(config_dir):
        yield from iter_file_batches(path, columns, rows)


def record_configs(folder: Path) -> list[str]:
    """The configs whose rows are records (a row to ask, preview or score): all but ``baselines``, which holds
    aggregates."""
    return [n for n in published_configs(folder) if n != BASELINES_CONFIG]


def config_dir(folder: Path, config: str) -> Path:
    """``folder/data/<config>``, or one clear error when the folder does not publish that config."""
    path = folder / "data" / config
    if not data_files(path) and config == BASELINES_CONFIG:
        raise GroundBenchError(folder, "config", "this folder publishes no baselines config (groundbench assemble)")
    if not data_files(path):
        raise unknown_config(folder, config, record_configs(folder))
    return path


def unknown_config(folder: Path, config: str, valid: Sequence[str]) -> GroundBenchError:
    """The error for a config ``folder`` does not publish: a name GroundBench defines is said to be left out of
    this build (the card gives the reason), any other is an unknown name (the shared wording)."""
    from groundbench.core.registry import BY_NAME  # the source folders' specs: declarations, nothing converted

    recorded = recorded_data_files(folder) or {}
    pulled = bool(data_files(folder / "data" / config))  # baselines is here but not a config of rows
    if not pulled and any(name.startswith(f"data/{config}/") for name in recorded):  # built, its files not here
        return GroundBenchError(
            folder / "data" / config,
            "config",
            f"config {config!r} is in this build (its card records its data files) but was not pulled here: run "
            f"`groundbench pull {config}` in the project (or `dvc pull`); configs here: {', '.join(valid)}",
        )
    if config in BY_NAME and config != BASELINES_CONFIG:
        return GroundBenchError(
            folder,
            "config",
            f"config {config!r} is not in this build (its card, README.md, says why under 'why it is not in "
            f"this build'); configs here: {', '.join(valid)}",
        )
    return unknown_name(folder, "config", config, valid)


def record_config_dir(folder: Path, config: str) -> Path:
    """:func:`config_dir` of a config of records; ``baselines`` (no records) is refused as a name not among them,
    with the same error as a misspelt config."""
    if config == BASELINES_CONFIG:
        raise unknown_name(folder, "config", config, record_configs(folder))
    return config_dir(folder, config)


def read_config(folder: Path, config: str, columns: Sequence[str] | None = None) -> pa.Table:
    """One published config as a table (``columns`` selects; never the images unless asked for)."""
    path = config_dir(folder, config)
    batches = list(iter_batches(path, columns))
    schema = open_data_file(data_files(path)[0]).schema_arrow
    if columns is not None:
        schema = pa.schema([schema.field(name) for name in columns], metadata=schema.metadata)
    return pa.Table.from_batches(batches, schema=schema)


def row_columns(folder: Path, config: str) -> list[str]:
    """Every column of a published config except the image bytes."""
    schema = open_data_file(data_files(config_dir(folder, config))[0]).schema_arrow
    return [name for name in schema.names if name != "image"]


def iter_rows(folder: Path, config: str) -> Iterator[dict[str, Any]]:
    """Every record of a published config as a dict with its image, one at a time (a screenshot batch is never
    turned into Python bytes at once). An unpublished config (or ``baselines``) is an error here, not an empty
    iterator."""
    return _rows_of(record_config_dir(folder, config))


ROWS_AT_ONCE = 16  # a few rows' pages decoded at a time: the first rows come without reading a whole row group


def _rows_of(path: Path) -> Iterator[dict[str, Any]]:
    for batch in iter_batches(path, rows=ROWS_AT_ONCE):
        for index in range(batch.num_rows):
            yield batch.slice(index, 1).to_pylist()[0]


# ---------------------------------------------------------------- writing


def _parquet_options(schema: pa.Schema) -> dict[str, Any]:
    from datasets import Features, config
    from datasets.arrow_writer import get_parquet_column_options

    return {
        "use_content_defined_chunking": dict(config.DEFAULT_CDC_OPTIONS),
        "write_page_index": True,
        **get_parquet_column_options(Features.from_arrow_schema(schema), schema),
    }


def rows_per_group(rows: int, nbytes: int) -> int:
    """Rows per row group, as ``datasets`` sizes them (at most MAX_ROW_GROUP_SIZE uncompressed bytes)."""
    from datasets.arrow_writer import get_writer_batch_size_from_data_size

    return get_writer_batch_size_from_data_size(rows, nbytes) if rows else 1


def max_file_bytes() -> int:
    from datasets import config
    from datasets.utils.py_utils import convert_file_size_to_int

    return int(convert_file_size_to_int(config.MAX_SHARD_SIZE))


def write_config(
    target: Path,
    batches: Iterable[pa.RecordBatch],
    schema: pa.Schema,
    group: int,
    max_bytes: int | None = None,
) -> None:
    """Write one config's rows to ``target`` as ``test-NNNNN-of-MMMMM.parquet``, ``group`` rows per row group.

    Memory stays at one row group; the folder appears complete or not at all.
    """
    limit = max_file_bytes() if max_bytes is None else max_bytes
    with atomic_dir(target) as tmp:
        files = _FileSet(tmp, schema, _parquet_options(schema), limit)
        buffer: list[pa.RecordBatch] = []
        buffered = 0
        for batch in batches:
            buffer.append(batch)
            buffered += batch.num_rows
            while buffered >= group:
                table = pa.Table.from_batches(buffer, schema=schema)
                files.write(table.slice(0, group), group)
                rest = table.slice(group)
                buffer, buffered = rest.to_batches(), rest.num_rows
        if buffered or not files.paths:
            files.write(pa.Table.from_batches(buffer, schema=schema), group)
        files.close()


class _FileSet:
    """Parquet files of one config, a new one started when the next row group would pass ``limit`` bytes."""

    def __init__(self, folder: Path, schema: pa.Schema, options: dict[str, Any], limit: int) -> None:
        self.folder, self.schema, self.options, self.limit = folder, schema, options, limit
        self.paths: list[Path] = []
        self._writer: pq.ParquetWriter | None = None
        self._bytes = 0

    def write(self, table: pa.Table, group: int) -> None:
        if self._writer is not None and self._bytes and self._bytes + table.nbytes > self.limit:
            self._writer.close()
            self._writer = None
        if self._writer is None:
            path = self.folder / f"part-{len(self.paths):05d}{DATA_SUFFIX}"
            self.paths.append(path)
            self._writer = pq.ParquetWriter(str(path), self.schema, **self.options)
            self._bytes = 0
        self._writer.write_table(table.combine_chunks(), row_group_size=max(group, 1))
        self._bytes += table.nbytes

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        total = len(self.paths)
        for number, path in enumerate(self.paths):
            path.rename(path.with_name(f"{SPLIT}-{number:05d}-of-{total:05d}{DATA_SUFFIX}"))


# ---------------------------------------------------------------- finding a folder, checking its version


def resolve_folder(spec: str | Path | None, root: Path | None = None) -> Path:
    """A published folder from a local path or a Hub dataset repo id (``ORG/NAME``, downloaded once).

    THE resolver of ``--data`` and of ``load_config``'s folder: ``None`` means ``$GROUNDBENCH_DATA``, else
    the ``data/groundbench`` of ``root`` (``--root``, when given) or of the checkout this package runs from
    (:func:`groundbench.core.datafolder.data_location`). A relative path is taken in ``root`` when it lies
    there, else as given.
    """
    spec = data_location(spec, root)
    path = Path(spec)
    if not path.is_absolute() and root is not None and (root / path).is_dir():
        path = root / path
    if path.is_dir() and is_project(path):  # `--data .` in a checkout: the project, not what it publishes
        raise GroundBenchError(
            path.resolve(),
            "folder",
            f"a GroundBench project, not its published folder: pass --data {Path('data', 'groundbench')} "
            "(the project's published folder is also the default when --data is not given)",
        )
    if path.is_dir():
        return path
    text = str(spec)
    if REPO_ID.match(text) and not path.exists():
        return _download(text, path)
    raise GroundBenchError(
        path, "folder", "no such folder (expected a published GroundBench folder, or a Hub repo id ORG/NAME)"
    )


def _download(repo_id: str, local: Path) -> Path:
    """The Hub copy of ``repo_id`` (from the local Hub cache when it holds one); each failure says its cause."""
    from huggingface_hub import constants, snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError, RepositoryNotFoundError

    here = f"no folder {local} here"
    try:
        return Path(snapshot_download(repo_id, repo_type="dataset", allow_patterns=[CARD, "croissant.json", "data/**"]))
    except LocalEntryNotFoundError as exc:
        if constants.HF_HUB_OFFLINE:
            reason = (
                f"{here}, and HF_HUB_OFFLINE=1 forbids downloading the Hub dataset {repo_id} (it is not in the "
                f"local Hub cache): run with HF_HUB_OFFLINE=0 to download it once, or pass a local folder"
            )
        else:
            reason = f"{here}, and the Hub could not be reached to download {repo_id} ({exc.__class__.__name__})"
        raise GroundBenchError(repo_id, "folder", reason) from exc
    except RepositoryNotFoundError as exc:
        reason = f"{here}, and no dataset {repo_id} on the Hub (or it is private: log in with `hf auth login`)"
        raise GroundBenchError(repo_id, "folder", reason) from exc
    except (HfHubHTTPError, OSError) as exc:
        reason = f"{here}, and the Hub dataset {repo_id} could not be downloaded ({exc.__class__.__name__}: {exc})"
        raise GroundBenchError(repo_id, "folder", " ".join(reason.split())) from exc


def card_front_matter(folder: Path) -> dict[str, Any]:
    """The card's YAML front matter (empty when the folder has no card or the card has none); a card that
    cannot be read or parsed is an error naming it. Parsed once per card file identity in a process (a
    command reads it for the format version, the seal record and the gate), handed out as a copy."""
    card = folder / CARD
    try:
        stat = card.stat()
    except OSError:
        return {}
    if not S_ISREG(stat.st_mode):
        return {}
    identity = (str(card.resolve()), stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
    parsed = _CARDS.get(identity)
    if parsed is None:
        parsed = _parse_card(card)
        # remembered only once settled: a rewrite within a timestamp tick could keep the identity (sealcache)
        if time.time_ns() - max(stat.st_mtime_ns, stat.st_ctime_ns) >= SETTLED_NS:
            _CARDS[identity] = parsed
    return copy.deepcopy(parsed)


_CARDS: dict[tuple[Any, ...], dict[str, Any]] = {}  # card identity -> its front matter (a process's few cards)


def _parse_card(card: Path) -> dict[str, Any]:
    try:
        text = card.read_text(encoding="utf-8")
        match = re.match(r"^---\n(.*?)\n---\n", text, re.S)
        # libyaml's parser when present: the features make the YAML long (a pure-Python parse is ~0.2 s).
        data = yaml.load(match.group(1), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) if match else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        reason = str(exc).replace("\n", " ")
        raise GroundBenchError(card, "front matter", f"expected the card's YAML ({reason})") from exc
    return data if isinstance(data, dict) else {}


def card_metadata(folder: Path) -> dict[str, Any]:
    """The card's ``groundbench:`` YAML mapping (empty when the card has none)."""
    value = card_front_matter(folder).get(CARD_KEY)
    return value if isinstance(value, dict) else {}


def folder_format_version(folder: Path) -> str | None:
    """The data's format version: the card's ``groundbench.format_version``, else a data file's schema metadata."""
    found = card_metadata(folder).get("format_version")
    if found is not None:
        return str(found)
    for config in published_configs(folder):
        raw = (open_data_file(data_files(folder / "data" / config)[0]).schema_arrow.metadata or {}).get(
            FORMAT_METADATA_KEY
        )
        if raw is not None:
            return str(json.loads(raw)["format_version"])
    return None


def recorded_data_files(folder: Path) -> dict[str, str] | None:
    """The card's record of every data file's sha256 (``data/<config>/<file>`` -> sha256); None when the
    card has none (a folder not written by ``groundbench assemble``)."""
    found = card_metadata(folder).get(DATA_FILES_KEY)
    if found is None:
        return None
    if not isinstance(found, dict) or not all(isinstance(v, str) for v in found.values()):
        raise GroundBenchError(folder / CARD, f"{CARD_KEY}.{DATA_FILES_KEY}", "expected a mapping of file -> sha256")
    return {str(name): value for name, value in found.items()}


def seal_store(cache_dir: str | Path | None) -> Path:
    """Where :func:`content_key` remembers the files it hashed: beside the ``datasets`` cache whose key it
    makes (``cache_dir``, else ``datasets``' own cache folder), so clearing that cache clears them too."""
    if cache_dir is None:
        from datasets import config  # here: the pipeline reads published folders without datasets

        cache_dir = config.HF_DATASETS_CACHE
    return Path(cache_dir) / SEALS


def content_key(folder: Path, config: str, seals: Path | None = None) -> str:
    """One sha256 of a config's data files (names and bytes).

    When the card records the files (:func:`recorded_data_files`), a missing, extra or changed file is
    an error naming it: the folder's bytes are not the ones it was published with. Without a record the
    files' own sha256s make the key, so changed bytes still change it. Each file is hashed now, or, with
    ``seals`` (:func:`seal_store`), once per file identity (``groundbench.core.sealcache``): a file that
    has not changed since it was hashed is not read again.
    """
    files = data_files(folder / "data" / config)
    found = {
        f"data/{config}/{path.name}": sha256_file(path) if seals is None else file_sha256(path, seals) for path in files
    }
    recorded = recorded_config_files(folder, config)
    if recorded is not None:
        check_seal(folder, recorded, found)
    return listing_key(found)


def recorded_config_files(folder: Path, config: str) -> dict[str, str] | None:
    """The card's record of one config's data files (``data/<config>/<file>`` -> sha256), None without one."""
    recorded = recorded_data_files(folder)
    if recorded is None:
        return None
    return {name: sha for name, sha in recorded.items() if name.startswith(f"data/{config}/")}


def listing_key(files: dict[str, str]) -> str:
    """The content key of a config's files (name -> sha256): what :func:`content_key` returns for them."""
    listing = "".join(f"{sha}  {name}\n" for name, sha in sorted(files.items()))
    return hashlib.sha256(listing.encode("utf-8")).hexdigest()


def unsealed_files(folder: Path, config: str, seals: Path) -> list[Path]:
    """The config's data files the seal store does not remember at their present identity (to be hashed)."""
    return [path for path in data_files(folder / "data" / config) if remembered(path, seals) is None]


def check_seal(folder: Path, expected: dict[str, str], found: dict[str, str]) -> None:
    """Refuse a missing, extra or changed data file against the card's record (``expected``), naming it."""
    rerun = "rebuild the folder (`groundbench assemble`) or download it again"
    for name in sorted(set(expected) | set(found)):
        if name not in found:
            raise GroundBenchError(folder / name, "file", f"missing: the card records it ({rerun})")
        if name not in expected:
            raise GroundBenchError(folder / name, "file", f"not in the card's {DATA_FILES_KEY} ({rerun})")
        if found[name] != expected[name]:
            raise GroundBenchError(
                folder / name,
                "sha256",
                f"{found[name]} differs from the card's record {expected[name]}: the file changed after it "
                f"was built ({rerun})",
            )


class FormatVersionError(GroundBenchError):
    """The data's format version cannot be read by this package (LeRobot's check_version_compatibility)."""


def check_version_compatibility(
    where: str | Path, data_version: str | None, package_version: str = FORMAT_VERSION
) -> None:
    """Refuse data this package would misread; warn when it reads older data of the same major version.

    A different major version changes or removes columns; a newer minor version adds columns this
    package does not know. Both are errors with the fix named. An older minor version is read (its
    columns are a subset) with a warning.
    """
    if data_version is None:
        raise FormatVersionError(where, "format_version", "missing: not a folder written by `groundbench assemble`")
    data = _parts(where, data_version)
    package = _parts(where, package_version)
    if data[0] != package[0] or data[1] > package[1]:
        raise FormatVersionError(
            where,
            "format_version",
            f"the data has format {data_version}, this groundbench package reads {package_version}: install the "
            f"groundbench release that wrote it, or rebuild the folder with this one (`groundbench assemble`)",
        )
    if data[1] < package[1]:
        warnings.warn(
            f"{where}: format {data_version} is older than this package's {package_version}; newer columns are absent",
            stacklevel=2,
        )


def _parts(where: str | Path, version: str) -> tuple[int, int, int]:
    match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", version.strip())
    if not match:
        raise FormatVersionError(where, "format_version", f"expected MAJOR.MINOR.PATCH, found {version!r}")
    return int(match.group(1)), int(match.group(2)), int(match.group(3))


def check_format_version(folder: Path) -> None:
    check_version_compatibility(folder, folder_format_version(folder))

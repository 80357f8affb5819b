"""``groundbench verify``: every byte a user or a score reads against what the build recorded.

What is checked (the records are :mod:`groundbench.core.manifests`' formats):

- each config's manifest ``data/manifests/<config>.jsonl`` reads back, and its sha256 is the card's
  ``groundbench.configs.<config>.manifest_sha256`` (the gate predictions carry);
- each Arrow shard in ``data/shards/<config>/`` is listed in the manifest with its size and sha256,
  and every listed shard is there;
- each image store file the manifest lists hashes to its name and has its size;
- the published folder ``data/groundbench/``: every file is listed in ``SHA256SUMS`` and hashes to
  it (the card and ``croissant.json`` included), every config the card lists has exactly the Parquet
  files its ``groundbench.data_files_sha256`` records, with those sha256s, and every built config with
  rows is in the card.

A file whose bytes differ is then read row by row against the manifest, so the report names each row
(``example_id``) whose fields differ from its ``row_sha256``, each embedded image that does not hash to
its ``image_sha256``, and each row missing or not listed (``rows=True`` does this for every file).

The work is a list of independent jobs (one file, or a batch of store files) spread over a process
pool, one per core, each streaming its file in blocks, so verification is bound by hashing speed, not
by one core or by memory. Reports are merged in job order, so the list of mismatches is the same
whatever the number of workers. Nothing to verify (no build, no card) is an error, not "ok".
"""

from __future__ import annotations

import hashlib
import multiprocessing
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pyarrow as pa

from groundbench.core.manifests import ConfigManifest, read_config_manifest, read_sha256sums, row_digests, sha256_file
from groundbench.core.parallel import chunks, leave_signals_to_parent, signals_held, worker_count
from groundbench.core.registry import CONFIGS
from groundbench.core.shards import ABSENT_MARKER, embedded_images, open_shard, shard_files
from groundbench.errors import GroundBenchError
from groundbench.loaders.published import (
    CARD,
    CARD_KEY,
    CHECKSUMS,
    DATA_FILES_KEY,
    DATA_SUFFIX,
    card_front_matter,
    data_files,
    iter_file_batches,
)
from groundbench.schemas.baselines_features import BASELINES_CONFIG

STORE_FILES_PER_JOB = 512
# Below this many bytes to hash, starting worker processes costs more than it saves.
PARALLEL_MIN_BYTES = 64 * 1024 * 1024
MISSING_SHOWN = 20  # rows listed by name when a config's files miss rows of its manifest
HF_FOLDER = "groundbench"  # data/groundbench: the published folder
PULLED = (CARD, "croissant.json")  # besides its data, what `groundbench pull CONFIG` brings of the folder


@dataclass
class VerifyReport:
    configs: int = 0  # configs of rows verified
    baselines: bool = False  # whether the baselines config (each row's baseline answers, no rows) was verified too
    checked_files: int = 0
    checked_images: int = 0  # embedded images whose bytes were checked (by their file's sha256, or one by one)
    mismatches: list[str] = field(default_factory=list)
    hashed_bytes: int = 0  # bytes run through sha256
    changed: list[str] = field(default_factory=list)  # files whose bytes differ from their record

    def merge(self, other: VerifyReport) -> None:
        self.checked_files += other.checked_files
        self.checked_images += other.checked_images
        self.mismatches.extend(other.mismatches)
        self.hashed_bytes += other.hashed_bytes
        self.changed.extend(other.changed)


@dataclass(frozen=True)
class Expected:
    sha256: str
    where: str  # the record naming it, e.g. "data/manifests/bulk_umd.jsonl"
    size: int | None = None


@dataclass(frozen=True)
class FileJob:
    path: str
    expected: tuple[Expected, ...]
    images: int = 0  # embedded images this file holds (counted as checked when it matches)


@dataclass(frozen=True)
class StoreJob:
    """Store files to hash: (path, expected sha256, expected size, manifest path)."""

    files: tuple[tuple[str, str, int, str], ...]


@dataclass(frozen=True)
class RowsJob:
    """One shard or Parquet file read row by row against its config's manifest."""

    path: str
    manifest_path: str
    rows: dict[str, str]  # example_id -> row_sha256
    images: frozenset[str]
    changed: bool  # its sha256 differs from its record (else only --rows reads it, and its images are counted)


@dataclass(frozen=True)
class RowsResult:
    report: VerifyReport
    seen: tuple[str, ...]  # example_ids read from the file


@dataclass
class _Config:
    """What one selected config's checks need in the second (row by row) pass."""

    name: str
    manifest_path: Path
    manifest: ConfigManifest | None = None
    files: dict[str, list[Path]] = field(default_factory=dict)  # "shards" / "Parquet files" -> paths


@dataclass
class _Plan:
    jobs: list[FileJob | StoreJob] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    configs: list[_Config] = field(default_factory=list)
    total_bytes: int = 0
    selected: int = 0  # configs of rows verified
    baselines: bool = False  # the baselines config verified too
    missing: list[str] = field(default_factory=list)  # recorded files that are not there

    def lost(self, path: Path, where: str) -> None:
        self.problems.append(f"{path}: missing (recorded in {where})")
        self.missing.append(str(path))

    def check(self, path: Path, *expected: Expected, images: int = 0) -> None:
        self.jobs.append(FileJob(str(path), expected, images))
        self.total_bytes += path.stat().st_size


def verify(data: Path, configs: Sequence[str] | None = None, workers: int = 0, rows: bool = False) -> VerifyReport:
    """Check ``configs`` (None: every built config and every config the card lists) and the published
    folder; ``workers=0`` uses every core; ``rows`` reads every shard and Parquet file row by row."""
    plan = _plan(data, configs)
    report = VerifyReport(
        configs=plan.selected, baselines=plan.baselines, mismatches=list(plan.problems), changed=list(plan.missing)
    )
    count = worker_count(workers)
    parallel = count > 1 and plan.total_bytes >= PARALLEL_MIN_BYTES
    for result in _run(run_job, plan.jobs, count if parallel else 1):
        report.merge(result)
    _row_pass(plan.configs, report, rows, count if parallel and rows else 1)
    return report


def _row_pass(configs: list[_Config], report: VerifyReport, every: bool, count: int) -> None:
    """Read row by row every file of each (config, kind) with a changed file (``every``: of all of them)."""
    changed = set(report.changed)
    groups: list[tuple[_Config, str, list[RowsJob]]] = []
    for config in configs:
        manifest = config.manifest
        for kind, paths in config.files.items():
            if manifest is not None and (every or any(str(path) in changed for path in paths)):
                images = frozenset(manifest.images)
                jobs = [
                    RowsJob(str(p), str(config.manifest_path), manifest.rows, images, str(p) in changed) for p in paths
                ]
                groups.append((config, kind, jobs))
    results = iter(_run(run_rows_job, [job for _, _, jobs in groups for job in jobs], count))
    for config, kind, jobs in groups:
        seen: Counter[str] = Counter()
        for result in (next(results) for _ in jobs):
            report.merge(result.report)
            seen.update(result.seen)
        report.mismatches += [
            f"{config.manifest_path}: {example_id}: in the config's {kind} {count} times"
            for example_id, count in sorted(seen.items())
            if count > 1
        ]
        assert config.manifest is not None
        missing = [example_id for example_id in config.manifest.rows if example_id not in seen]
        report.mismatches += [
            f"{config.manifest_path}: {example_id}: listed, but in none of the config's {kind}"
            for example_id in missing[:MISSING_SHOWN]
        ]
        if len(missing) > MISSING_SHOWN:
            report.mismatches.append(f"{config.manifest_path}: {len(missing) - MISSING_SHOWN} more rows missing")


T = TypeVar("T")
R = TypeVar("R")


def _run(func: Callable[[T], R], jobs: list[T], count: int) -> Iterator[R]:
    if count <= 1 or len(jobs) <= 1:
        yield from map(func, jobs)
        return
    # spawn, not fork: the parent may hold Arrow thread pools that fork would copy mid-state.
    context = multiprocessing.get_context("spawn")
    # Workers leave Ctrl-C and SIGTERM to this process (which stops with one line) instead of printing stacks.
    with ProcessPoolExecutor(
        max_workers=min(count, len(jobs)), mp_context=context, initializer=leave_signals_to_parent
    ) as pool:
        with signals_held():  # map submits every job now, starting the workers: none may meet a signal half-way
            results = pool.map(func, jobs)
        yield from results  # in job order: deterministic report


def repair_hints(root: Path, report: VerifyReport) -> list[str]:
    """How to restore what ``report`` found changed: the DVC cache object behind it and the command."""
    if not report.changed:
        return []
    from groundbench.tools.dvccache import diagnose

    diagnosis = diagnose(root, report.changed)
    lines = diagnosis.lines(root)
    if diagnosis.untracked:
        lines.append(
            f"{len(diagnosis.untracked)} changed file(s) ({diagnosis.untracked[0]}, ...) have no good copy in a DVC "
            "cache: rebuild them from the sources (`make build`, or `dvc repro --force STAGE` when DVC recorded "
            "the changed bytes; without DVC, rerun the stages from `groundbench convert`)"
        )
    return lines


def verify_and_repair(root: Path, configs: Sequence[str] | None = None) -> list[str]:
    """``groundbench verify --repair``: restore every damaged DVC cache object and damaged copy found."""
    from groundbench.tools.dvccache import diagnose, repair

    report = verify(root / "data", configs)
    if not report.changed:
        return ["repair: nothing to repair (no file differs from its record)"]
    return [f"repair: {line}" for line in repair(root, diagnose(root, report.changed))]


# ---------------------------------------------------------------- what to check (reads records only)


def built_configs(data: Path) -> list[str]:
    """Configs with a shard folder that is not marked absent, in registry order."""
    shards = data / "shards"
    return [c.name for c in CONFIGS if (shards / c.name).is_dir() and not (shards / c.name / ABSENT_MARKER).exists()]


def _plan(data: Path, selected: Sequence[str] | None) -> _Plan:
    if not data.is_dir():
        raise GroundBenchError(
            data, "folder", "no GroundBench build here (pass --root PROJECT, or build one: `make build`)"
        )
    plan = _Plan()
    folder = data / HF_FOLDER
    card = _read_card(folder, plan)
    listed = card.configs if card is not None else []
    built = built_configs(data)
    everything = selected is None or not selected
    names = sorted({*built, *listed}) if everything else list(dict.fromkeys(selected or ()))
    unknown = [name for name in names if name not in built and name not in listed]
    if unknown:
        raise GroundBenchError(
            data, "configs", f"{', '.join(unknown)}: neither built (data/shards) nor in the card; built: {built}"
        )
    if not names:
        raise GroundBenchError(
            data, "configs", "nothing to verify: no built config in data/shards and no card in data/groundbench"
        )
    plan.selected = len([name for name in names if name != BASELINES_CONFIG])
    plan.baselines = BASELINES_CONFIG in names
    store = data / "images"
    for name in names:
        if name == BASELINES_CONFIG:
            continue  # aggregates: no manifest, no images; its Parquet files are checked with the folder
        config = _Config(name, data / "manifests" / f"{name}.jsonl")
        plan.configs.append(config)
        if name not in built:
            plan.problems.append(f"{data / 'shards' / name}: missing: the card lists config {name} (build or pull it)")
            continue
        try:
            config.manifest = read_config_manifest(config.manifest_path)
        except GroundBenchError as exc:
            plan.problems.append(str(exc))
            continue
        _plan_shards(plan, config, data / "shards" / name)
        entries = [
            (str(store / entry.store_path()), sha, entry.bytes, str(config.manifest_path))
            for sha, entry in sorted(config.manifest.images.items())
        ]
        plan.total_bytes += sum(entry[2] for entry in entries)
        plan.jobs.extend(StoreJob(tuple(batch)) for batch in chunks(entries, STORE_FILES_PER_JOB))
    if card is None:
        if any(c.manifest is not None and c.manifest.rows for c in plan.configs):
            plan.problems.append(f"{folder / CARD}: missing: the published folder was not assembled (run assemble)")
        return plan
    _plan_folder(plan, folder, card, names, partial=not everything)
    return plan


def _plan_shards(plan: _Plan, config: _Config, shards: Path) -> None:
    assert config.manifest is not None
    where = str(config.manifest_path)
    files = shard_files(shards)
    recorded = {record.name: record for record in config.manifest.shards}
    for path in files:
        record = recorded.get(path.name)
        if record is None:
            plan.problems.append(f"{path}: not listed in {where}")
        else:
            plan.check(path, Expected(record.sha256, where, record.bytes), images=_rows_in(path))
    for name in sorted(recorded.keys() - {p.name for p in files}):
        plan.lost(shards / name, where)
    config.files["shards"] = files


def _in(name: str, config: str) -> bool:
    return name.startswith(f"data/{config}/")


def _rows_in(path: Path) -> int:
    try:
        if path.suffix == DATA_SUFFIX:
            import pyarrow.parquet as pq

            return int(pq.ParquetFile(str(path)).metadata.num_rows)
        reader = open_shard(path)
        return sum(reader.get_batch(index).num_rows for index in range(reader.num_record_batches))
    except (GroundBenchError, pa.ArrowException, OSError):
        return 0  # unreadable: its sha256 check reports it


@dataclass(frozen=True)
class _Card:
    configs: list[str]  # the card's `configs` (every published config, baselines included)
    data_files: dict[str, str] | None  # groundbench.data_files_sha256
    manifests: dict[str, str]  # groundbench.configs.<name>.manifest_sha256
    sums: dict[str, str] | None  # SHA256SUMS


def _read_card(folder: Path, plan: _Plan) -> _Card | None:
    if not (folder / CARD).is_file():
        return None
    sums = None
    try:
        sums = read_sha256sums(folder / CHECKSUMS)
    except GroundBenchError as exc:
        plan.problems.append(
            str(exc) if (folder / CHECKSUMS).is_file() else f"{folder / CHECKSUMS}: missing (run assemble)"
        )
    try:
        yaml = card_front_matter(folder)
    except GroundBenchError as exc:
        plan.problems.append(str(exc))
        yaml = {}
    found = yaml.get(CARD_KEY)
    key: dict = found if isinstance(found, dict) else {}
    where = f"{folder / CARD}: {CARD_KEY}"
    listed = yaml.get("configs")
    configs = [str(c.get("config_name")) for c in listed if isinstance(c, dict)] if isinstance(listed, list) else []
    recorded = key.get(DATA_FILES_KEY)
    if not isinstance(recorded, dict):
        plan.problems.append(f"{where}.{DATA_FILES_KEY}: missing: the card records no data file sha256 (run assemble)")
        recorded = None
    manifests = {
        str(name): str(value.get("manifest_sha256"))
        for name, value in _mapping(key.get("configs")).items()
        if isinstance(value, dict)
    }
    data_files_sums = None if recorded is None else {str(k): str(v) for k, v in recorded.items()}
    return _Card(configs, data_files_sums, manifests, sums)


def _mapping(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _plan_folder(plan: _Plan, folder: Path, card: _Card, names: list[str], partial: bool) -> None:
    """The published folder's files against SHA256SUMS and the card's records (selected configs only).

    ``partial`` (configs named): the folder may be what ``groundbench pull CONFIG`` brings, the card, the
    Croissant file and those configs' data, so other absent files (teaser, audits) are not missing."""
    sums_where = str(folder / CHECKSUMS)
    card_where = f"{folder / CARD} {CARD_KEY}.{DATA_FILES_KEY}"

    def selected(name: str) -> bool:
        parts = name.split("/")
        return parts[0] != "data" or len(parts) < 2 or parts[1] in names

    present = {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*")) if p.is_file()}
    present.pop(CHECKSUMS, None)
    by_config: dict[str, list[Path]] = {}
    for name in sorted(set(present) | set(card.sums or {}) | set(card.data_files or {})):
        if not selected(name):
            continue
        path = folder / name
        expected = []
        if card.sums is not None:
            if name in card.sums:
                expected.append(Expected(card.sums[name], sums_where))
            elif name in present:
                plan.problems.append(f"{path}: not listed in {sums_where}")
        if card.data_files is not None and name.startswith("data/"):
            if name in card.data_files:
                expected.append(Expected(card.data_files[name], card_where))
            elif name in present and name.endswith(DATA_SUFFIX):
                plan.problems.append(f"{path}: not a data file the card records ({card_where})")
        if name not in present and partial and not name.startswith("data/") and name not in PULLED:
            continue
        if name not in present:
            plan.lost(path, sums_where if name in (card.sums or {}) else card_where)
        elif expected:
            has_images = name.startswith("data/") and name.endswith(DATA_SUFFIX) and not _in(name, BASELINES_CONFIG)
            plan.check(path, *expected, images=_rows_in(path) if has_images else 0)
        if name.startswith("data/") and name.endswith(DATA_SUFFIX) and name in present:
            by_config.setdefault(name.split("/")[1], []).append(path)
    manifests_by_name = {c.name: c for c in plan.configs}
    for name in names:
        in_card = name in card.configs
        if in_card and not data_files(folder / "data" / name):
            plan.problems.append(
                f"{folder / 'data' / name}: missing: the card lists config {name}, with no data file here"
            )
        config = manifests_by_name.get(name)
        if config is None or config.manifest is None:
            continue
        config.files["Parquet files"] = sorted(by_config.get(name, []))
        if not in_card:
            if config.manifest.rows:
                rows = len(config.manifest.rows)
                plan.problems.append(
                    f"{folder / CARD}: config {name} is built with {rows} rows but not in the card (run assemble)"
                )
            continue
        sha = card.manifests.get(name)
        where = f"{folder / CARD} {CARD_KEY}.configs.{name}.manifest_sha256"
        if sha is None:
            plan.problems.append(f"{where}: missing")
        else:
            plan.check(config.manifest_path, Expected(sha, where))


# ---------------------------------------------------------------- the jobs (run in workers)


def run_job(job: FileJob | StoreJob) -> VerifyReport:
    return _verify_file(job) if isinstance(job, FileJob) else _verify_store(job)


def _verify_file(job: FileJob) -> VerifyReport:
    report = VerifyReport(checked_files=1)
    path = Path(job.path)
    try:
        size = path.stat().st_size
        found = sha256_file(path)
    except OSError as exc:
        report.mismatches.append(f"{path}: unreadable ({exc.strerror or exc})")
        report.changed.append(job.path)
        return report
    report.hashed_bytes += size
    bad = [e for e in job.expected if e.sha256 != found or (e.size is not None and e.size != size)]
    if bad:
        what = "size" if all(e.sha256 == found for e in bad) else "sha256"
        report.mismatches.append(
            f"{path}: {what} differs from the one recorded in {' and '.join(e.where for e in bad)}"
        )
        report.changed.append(job.path)
    else:
        report.checked_images += job.images
    return report


def _verify_store(job: StoreJob) -> VerifyReport:
    report = VerifyReport()
    for name, sha, size, manifest_path in job.files:
        path = Path(name)
        report.checked_files += 1
        if not path.is_file():
            report.mismatches.append(f"{path}: missing from the image store (listed in {manifest_path})")
            report.changed.append(name)
            continue
        report.hashed_bytes += path.stat().st_size
        if sha256_file(path) != sha:
            report.mismatches.append(f"{path}: sha256 differs from {manifest_path}")
            report.changed.append(name)
        elif path.stat().st_size != size:
            report.mismatches.append(f"{path}: size differs from {manifest_path}")
            report.changed.append(name)
    return report


def run_rows_job(job: RowsJob) -> RowsResult:
    """Every row of one file against the manifest: its digest, its embedded image, whether it is listed."""
    report = VerifyReport()
    path = Path(job.path)
    seen: list[str] = []
    mismatched = 0
    try:
        for batch in _file_batches(path):
            digests = row_digests(batch)
            images = embedded_images(batch.column("image").field("bytes"))
            shas = batch.column("image_sha256").to_pylist()
            for example_id, digest, sha, data in zip(
                batch.column("example_id").to_pylist(), digests, shas, images, strict=True
            ):
                seen.append(example_id)
                report.checked_images += job.changed
                problems = _row_problems(job, example_id, digest, sha, data)
                if data is not None:
                    report.hashed_bytes += len(data)
                mismatched += bool(problems)
                report.mismatches += [f"{path}: {example_id}: {problem}" for problem in problems]
    except GroundBenchError as exc:
        report.mismatches.append(str(exc))
        return RowsResult(report, tuple(seen))
    except Exception as exc:  # a damaged file can fail anywhere inside Arrow
        report.mismatches.append(f"{path}: unreadable ({type(exc).__name__}: {exc})")
        return RowsResult(report, tuple(seen))
    if job.changed and not mismatched and len(seen) == len(set(seen)):
        report.mismatches.append(
            f"{path}: every row and image in it matches {job.manifest_path}: the changed bytes are outside the "
            "rows' fields (file metadata or padding; in a Parquet file, possibly the published prompts/license)"
        )
    return RowsResult(report, tuple(seen))


def _row_problems(job: RowsJob, example_id: str, digest: str, sha: str, data: memoryview | None) -> list[str]:
    problems = []
    if example_id not in job.rows:
        problems.append(f"row not listed in {job.manifest_path}")
    elif job.rows[example_id] != digest:
        problems.append(f"row fields differ from its row_sha256 in {job.manifest_path}")
    if data is None or hashlib.sha256(data).hexdigest() != sha:
        problems.append(f"embedded image does not hash to {sha}")
    elif sha not in job.images:
        problems.append(f"image {sha} not listed in {job.manifest_path}")
    return problems


def _file_batches(path: Path) -> Iterator[pa.RecordBatch]:
    """A published Parquet file's or an Arrow shard's batches, one at a time."""
    if path.suffix == DATA_SUFFIX:
        yield from iter_file_batches(path)
        return
    reader = open_shard(path)
    for index in range(reader.num_record_batches):
        yield reader.get_batch(index)

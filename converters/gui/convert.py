"""GUI converter, top-down: find annotation files -> parse records (format detected by keys) ->
group rows by screenshot -> convert each screenshot (in parallel) -> records in example_id order,
shards, manifests.

The source side of the converter contract (:mod:`groundbench.core.runner`) for the four GUI formats
(``pointerbench``, ``screenspot``, ``screenspot_v2``, ``screenspot_pro``): the runner writes
``<out>/<config>/`` (shards + ``manifest.jsonl``) for each config of the source, or an ``ABSENT``
marker saying why a config has no data (for example ``gui_pro`` without a ``pointerbench-pro/``).

The unit of work is one screenshot with all its annotation rows (:func:`convert_item`): a row's
candidate parts are the other targets on the same screenshot, so a screenshot is the smallest piece
that converts on its own. Each screenshot file is read and hashed exactly once, in the worker.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from groundbench.converters.gui import osworld_g, pointerbench, screenspot, ui_vision
from groundbench.converters.gui.boxes import PixelBox, centre, to_pixels
from groundbench.converters.gui.detect import detect_format
from groundbench.converters.gui.params import GuiParams
from groundbench.converters.gui.release import ItemResult, OrderedRelease
from groundbench.converters.gui.rows import Candidate, SourceRow, build_record
from groundbench.converters.gui.version import CONVERTER, CONVERTER_VERSION
from groundbench.core.images import ImageInfo, inspect_image
from groundbench.core.manifests import ManifestEntry, Producer, sha256_bytes
from groundbench.core.parallel import worker_count
from groundbench.core.params import ShardParams, source_root
from groundbench.core.paths import Containment, inside_root, relative_to
from groundbench.core.runner import Context, Emit, MapOptions, Source, run
from groundbench.errors import GroundBenchError

GENERATOR_STAMP = "generator.yaml"  # written by `groundbench generate-gui` at the root of each source it writes
GENERATED_SOURCE = "groundbench_gui"
MAX_NEIGHBOURS = 8  # other annotated targets on the same screenshot offered as candidate parts
# Where ScreenSpot-family roots keep screenshots (screenspot_imgs/: v1's tar; screenspotv2_image/: v2's zip).
IMAGE_FOLDERS = ("", "images", "screenspot_imgs", "screenspotv2_image")
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # \uD800-\uDFFF, maybe a lone half of a pair
PARALLEL_MIN_BYTES = 1024**3  # screenshot bytes from which `workers: 0` starts worker processes (see _workers)


@dataclass(frozen=True)
class Screenshot:
    path: Path
    rel: str
    sha256: str
    info: ImageInfo
    bytes: int


def _loads(text: str, rel: str, where: str, expected: str) -> Any:
    """``json.loads`` with every way it can fail turned into one error naming the file and place.

    Besides malformed JSON: integers past Python's digit limit (ValueError), nesting deeper than
    the recursion limit (RecursionError), and lone-surrogate escapes such as ``"\\ud800"``, which
    parse but cannot be written as UTF-8 (Arrow would fail later, far from the row).
    """
    try:
        data = json.loads(text)
        if SURROGATE_ESCAPE.search(text):  # a strict UTF-8 read holds none: only an escape makes one
            json.dumps(data, ensure_ascii=False).encode("utf-8")
    except json.JSONDecodeError as exc:
        line = where if where.startswith("line") else f"line {exc.lineno}"
        raise GroundBenchError(rel, line, f"expected {expected} ({exc.msg})") from exc
    except UnicodeEncodeError as exc:
        raise GroundBenchError(
            rel, where, f"expected valid Unicode text, found a lone surrogate escape ({exc.reason})"
        ) from exc
    except (ValueError, RecursionError) as exc:
        raise GroundBenchError(rel, where, f"expected {expected} ({type(exc).__name__}: {str(exc)[:120]})") from exc
    return data


def read_annotation(path: Path, root: Path) -> list[tuple[int, Any]]:
    """(1-based line or 0-based index, record) pairs from a JSON array or a JSONL file."""
    rel = relative_to(root, path)
    try:
        content = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GroundBenchError(rel, "file", f"expected a readable UTF-8 file ({exc})") from exc
    if path.suffix == ".jsonl":
        records = []
        # JSON Lines separates records by "\n" only: str.splitlines would also split inside a string
        # holding U+2028 or a form feed, which JSON allows unescaped.
        for number, line in enumerate(content.split("\n"), start=1):
            if not line.strip():
                continue
            records.append((number, _loads(line, rel, f"line {number}", "one JSON object")))
        if not records:
            raise GroundBenchError(rel, "file", "expected at least one JSON record per line, found none")
        return records
    data = _loads(content, rel, "file", "a JSON array")
    if not isinstance(data, list):
        raise GroundBenchError(rel, "file", f"expected a JSON array of records, got {type(data).__name__}")
    if not data:
        raise GroundBenchError(rel, "file", "expected a JSON array of records, got an empty array")
    return list(enumerate(data))


def _generator_producer(root: Path) -> Producer | None:
    stamp = root / GENERATOR_STAMP
    if not stamp.is_file():
        return None
    try:
        facts = yaml.safe_load(inside_root(root, stamp, GENERATOR_STAMP).read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise GroundBenchError(GENERATOR_STAMP, "file", f"expected the generator's YAML stamp ({exc})") from exc
    if not isinstance(facts, dict) or not isinstance(facts.get("packages") or {}, dict):
        raise GroundBenchError(GENERATOR_STAMP, "file", "expected a mapping with a 'packages' mapping")
    return Producer(
        name=CONVERTER,
        version=CONVERTER_VERSION,
        call=f"copied source bytes unchanged; rendered by {facts.get('generator', 'groundbench generate-gui')}",
        packages={str(k): str(v) for k, v in sorted((facts.get("packages") or {}).items())},
    )


def _is_file(path: Path, row: SourceRow) -> bool:
    try:
        return path.is_file()
    except OSError as exc:  # e.g. a name longer than the file system allows
        raise GroundBenchError(
            row.where, "image", f"cannot look up screenshot {row.image_name[:120]!r} ({exc.strerror})"
        ) from exc


def _locate(root: Containment, candidates: list[Path], row: SourceRow) -> tuple[Path, str]:
    """(the screenshot inside the root, its path relative to the root): a look-up, nothing read."""
    for path in candidates:
        if _is_file(path, row):
            return root.resolve(path, "image"), relative_to(root.root, path)
    looked = ", ".join(repr(relative_to(root.root, p)[:200]) for p in candidates)
    raise GroundBenchError(row.where, "image", f"screenshot {row.image_name[:200]!r} not found (looked for {looked})")


def _screenshot(item: ScreenshotItem) -> tuple[Screenshot, bytes]:
    try:
        data = item.path.read_bytes()
    except OSError as exc:
        raise GroundBenchError(item.rel, "image", f"expected a readable file ({exc})") from exc
    info = inspect_image(data, item.rel, item.max_image_pixels)
    return Screenshot(path=item.path, rel=item.rel, sha256=sha256_bytes(data), info=info, bytes=len(data)), data


def _target(row: SourceRow, shot: Screenshot) -> PixelBox | None:
    """The row's target in pixels; None on a refusal row (no element to find)."""
    size = (shot.info.width, shot.info.height)
    if row.declared_size is not None and row.declared_size != size:
        raise GroundBenchError(
            row.where, "image size", f"annotation says {list(row.declared_size)}, {shot.rel} is {list(size)}"
        )
    if row.region_kind == "none":
        return None
    if row.reference_point is not None:
        x, y = row.reference_point
        if not (0.0 <= x <= size[0] and 0.0 <= y <= size[1]):
            raise GroundBenchError(
                row.where, "point", f"{list(row.reference_point)} lies outside the {size[0]}x{size[1]} image"
            )
    return to_pixels(row.raw_box, row.corners, size[0], size[1], row.where, row.box_field)


def _neighbours(
    row: SourceRow, target: PixelBox | None, same_image: list[tuple[SourceRow, PixelBox | None]], size: tuple[int, int]
) -> list[Candidate]:
    """The generator's own candidates; else the other annotated targets on the screenshot, nearest first
    (a refusal row has none: it has no target to be near)."""
    if target is None:
        return []
    out: list[Candidate] = []
    for cand in row.candidates:
        box = (
            max(0.0, cand.box[0]),
            max(0.0, cand.box[1]),
            min(float(size[0]), cand.box[2]),
            min(float(size[1]), cand.box[3]),
        )
        if box[2] > box[0] and box[3] > box[1]:
            out.append(Candidate(cand.part_id, cand.category, box, cand.point))
    if row.candidates:
        return out
    here = centre(target.box)
    others = {}
    for other, placed in same_image:
        if placed is None:  # a refusal row on the same screenshot: no target to offer
            continue
        if other.target_id != row.target_id and placed.box != target.box and placed.box not in others:
            others[placed.box] = Candidate(other.target_id, other.target_category, placed.box)
    ranked = sorted(others.values(), key=lambda c: (math.dist(here, centre(c.box)), c.part_id))
    return ranked[:MAX_NEIGHBOURS]


@dataclass(frozen=True)
class ScreenshotItem:
    """The unit :func:`convert_item` converts: one screenshot file and every annotation row that uses it.

    ``rows`` keep the annotation order (the first bad row is the one reported; equal neighbour boxes
    keep the first row's id). Everything else the records need travels with the item, so a worker
    process converts it without the rest of the source.
    """

    path: Path  # resolved, inside the source root
    rel: str  # relative to the source root, as records and messages name it
    rows: tuple[SourceRow, ...]
    annotation_sha256: dict[str, str]  # annotation file (relative) -> sha256, for the rows' provenance
    source: str  # the records' ``source``
    producer: Producer
    max_image_pixels: int

    @property
    def first_id(self) -> str:
        return min(row.example_id for row in self.rows)


def convert_item(item: ScreenshotItem) -> ItemResult:
    """One screenshot's records, sorted by ``example_id``, and its manifest entry.

    A pure function of the screenshot file and its rows: it reads the file once, hashes it once and
    checks every row against it. Items come from :func:`list_items` (or the converters' own planning).
    """
    shot, data = _screenshot(item)
    size = (shot.info.width, shot.info.height)
    targets = [(row, _target(row, shot)) for row in item.rows]
    records = []
    for row, target in sorted(targets, key=lambda pair: pair[0].example_id):
        records.append(
            build_record(
                row,
                item.source,
                {"bytes": data, "path": f"{shot.sha256}.{shot.info.extension}"},
                shot.sha256,
                size,
                target,
                _neighbours(row, target, targets, size),
                {
                    "source_paths": [row.annotation, shot.rel],
                    "source_sha256": [item.annotation_sha256[row.annotation], shot.sha256],
                },
            )
        )
    entry = ManifestEntry(
        sha256=shot.sha256,
        bytes=shot.bytes,
        width=size[0],
        height=size[1],
        format=shot.info.format,
        source_path=shot.rel,
        producer=item.producer,
    )
    return ItemResult(records=records, manifest=entry, path=item.path, rel=item.rel)


def _plan(
    root: Path,
    source: str,
    rows: list[SourceRow],
    image_paths: Callable[[SourceRow], list[Path]],
    max_image_pixels: int,
) -> list[ScreenshotItem]:
    """One config's rows grouped by screenshot (looked up, not read), in order of each item's first id."""
    ids = [r.example_id for r in rows]
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})[0]
        raise GroundBenchError(rows[0].annotation, "id", f"example id {dup!r} occurs more than once")
    producer = _generator_producer(root) or Producer(name=CONVERTER, version=CONVERTER_VERSION)
    record_source = GENERATED_SOURCE if (root / GENERATOR_STAMP).is_file() else source
    annotation_sha = {name: sha256_bytes((root / name).read_bytes()) for name in sorted({r.annotation for r in rows})}
    located: dict[str, tuple[Path, str]] = {}
    containment = Containment(root)
    groups: dict[str, tuple[Path, list[SourceRow]]] = {}
    for row in rows:  # annotation order: the first row whose screenshot is missing is the one reported
        key = f"{row.annotation}\0{row.image_name}"
        if key not in located:
            located[key] = _locate(containment, image_paths(row), row)
        path, rel = located[key]
        groups.setdefault(rel, (path, []))[1].append(row)
    items = [
        ScreenshotItem(path, rel, tuple(group), annotation_sha, record_source, producer, max_image_pixels)
        for rel, (path, group) in groups.items()
    ]
    return sorted(items, key=lambda item: item.first_id)


def _workers(queue: list[ScreenshotItem], params: GuiParams) -> int:
    """``workers: 0`` (auto) uses every core only for sources of at least ``PARALLEL_MIN_BYTES``.

    Measured on 2 cores (benchmark source, 1,000 screenshots, 76 MB): one process converts them in
    0.5 s, of which reading, hashing and building the records is 0.2 s and the shard writer 0.3 s.
    With workers the writer still receives every byte (unpickling alone costs 0.1 s), and spawning
    two workers costs about a second: 1.5 s in all. Workers pay only where hashing large frames
    dominates (ScreenSpot-Pro's 4K screenshots). An explicit ``workers: N`` is obeyed.
    """
    if len(queue) <= max(1, params.window):
        return 1  # one window or less: nothing to overlap
    if params.workers > 0:
        return params.workers
    total = 0
    for item in queue:
        with suppress(OSError):  # the worker reports an unreadable file with its name
            total += item.path.stat().st_size
    return worker_count(0) if total >= PARALLEL_MIN_BYTES else 1


class GuiSource(Source[ScreenshotItem, ItemResult]):
    """One GUI source folder -> its configs, one screenshot (with all its rows) per item.

    Why whole screenshots in the workers, released in example_id order (release.py), rather than light
    per-screenshot facts first and the records streamed afterwards: the latter reads every screenshot
    twice. Here the worker reads and hashes it once and returns its records with the bytes. Bounded:
    the items in flight (``window``), the records held back for example_id order (at most
    ``max_held_bytes`` of image bytes; on real files at most two screenshots) and the shard writer's
    batch -- never a whole config. All configs share one pool.
    """

    unit = "screenshot"

    def __init__(
        self,
        root: Path,
        source: str,
        rows_by_config: dict[str, list[SourceRow]],
        absent: dict[str, str],
        image_paths: Callable[[SourceRow], list[Path]],
        knobs: GuiParams,
    ) -> None:
        self.label = f"{source} screenshots"
        self.knobs = knobs
        self.convert = convert_item
        self.plans = {
            config: _plan(root, source, rows, image_paths, knobs.max_image_pixels)
            for config, rows in sorted(rows_by_config.items())
        }
        self.configs = tuple(self.plans)
        self.reasons = absent
        # Per position in the queue: its config and the first id of the next item of that config (None: last).
        self.queue = [item for items in self.plans.values() for item in items]
        self.steps = [
            (config, items[k + 1].first_id if k + 1 < len(items) else None)
            for config, items in self.plans.items()
            for k in range(len(items))
        ]
        self.position = 0
        self.release: OrderedRelease | None = None
        self.listed: set[str] = set()  # sha256 already in the config's manifest (the first screenshot keeps it)

    def items(self) -> Sequence[ScreenshotItem]:
        return self.queue

    def map_options(self, items: Sequence[ScreenshotItem]) -> MapOptions:
        workers = _workers(self.queue, self.knobs)
        # In one process (`workers: 0` below PARALLEL_MIN_BYTES) the screenshots are still read and hashed on a
        # thread per core: both release the GIL, so they overlap the records being built and written (full-scale
        # benchmark source, 4,072 screenshots: 2.4-2.7 s -> 1.9-2.3 s). An explicit `workers: 1` means one thread.
        threads = worker_count(0) if workers == 1 and self.knobs.workers == 0 else 1
        return MapOptions(workers, self.knobs.window, threads)

    def absent(self) -> Mapping[str, str]:
        return {config: f"{config}: {reason}" for config, reason in self.reasons.items()}

    def accept(self, result: ItemResult) -> Iterable[Emit]:
        config, following = self.steps[self.position]
        if self.position == 0 or self.steps[self.position - 1][0] != config:
            self.release, self.listed = OrderedRelease(self.knobs.max_held_bytes), set()
        assert self.release is not None
        self.position += 1
        released = self.release.push(result, following)
        entries = []
        for _, item in released:
            if item.manifest.sha256 not in self.listed:
                self.listed.add(item.manifest.sha256)
                entries.append(item.manifest)
        return [Emit(config, [record for record, _ in released], entries)]


def pointerbench_rows(root: Path) -> tuple[dict[str, list[SourceRow]], dict[str, str]]:
    """(rows per config, reason per absent config) of ``<root>/pointerbench-{sheets,text,pro}/data/test/``."""
    if not root.is_dir():
        raise GroundBenchError(root, "sources.gui.pointerbench", "expected a folder holding pointerbench-*/data/test/")
    rows: dict[str, list[SourceRow]] = {}
    absent: dict[str, str] = {}
    for subset, config in pointerbench.SUBSET_CONFIGS.items():
        metadata = root / subset / "data" / "test" / "metadata.jsonl"
        if not metadata.is_file():
            absent[config] = f"no {subset}/data/test/metadata.jsonl in the configured PointerBench source"
            if (root / GENERATOR_STAMP).is_file():
                # The generated sample has only Sheets and Text: Pro is screenshots of third-party
                # professional applications, which we neither generate nor redistribute.
                absent[config] = (
                    f"the embedded sample generates no {subset} (PointerBench-Pro is screenshots of "
                    "third-party professional applications); set sources.gui.pointerbench to a PointerBench "
                    "download with pointerbench-pro/ to build it"
                )
            continue
        inside_root(root, metadata, "metadata.jsonl")
        annotation = relative_to(root, metadata)
        rows[config] = []
        for line, record in read_annotation(metadata, root):
            fmt = detect_format(record, f"{annotation}: line {line}")
            if fmt != "pointerbench":
                raise GroundBenchError(
                    f"{annotation}: line {line}", "keys", f"expected a PointerBench record, got {fmt}"
                )
            rows[config].append(pointerbench.parse(record, subset, annotation, line))
    if not rows:
        raise GroundBenchError(
            root,
            "pointerbench-*/",
            "no PointerBench subset found (expected <root>/pointerbench-sheets/data/test/metadata.jsonl, ...)",
        )
    return rows, absent


def _pointerbench_paths(root: Path) -> Callable[[SourceRow], list[Path]]:
    return lambda row: [(root / row.annotation).parent / row.image_name]


def pointerbench_source(root: Path, knobs: GuiParams) -> GuiSource:
    """``<root>/pointerbench-{sheets,text,pro}/data/test/metadata.jsonl`` -> gui_sheets, gui_text, gui_pro."""
    rows, absent = pointerbench_rows(root)
    return GuiSource(root, "pointerbench", rows, absent, _pointerbench_paths(root), knobs)


def convert_pointerbench(
    root: Path, out: Path, knobs: GuiParams, shards: ShardParams, progress: bool = True
) -> dict[str, int]:
    return run(pointerbench_source(root, knobs), out, shards, progress)


def annotation_files(root: Path) -> list[Path]:
    """``*.json`` / ``*.jsonl`` directly in the root or in ``annotations/`` (the generator stamp excepted)."""
    found = []
    for folder in (root, root / "annotations"):
        if folder.is_dir():
            found += [p for p in sorted(folder.iterdir()) if p.is_file() and p.suffix in (".json", ".jsonl")]
    for path in found:
        inside_root(root, path, "annotation")
    return found


def screenspot_rows(root: Path, source: str, config: str) -> list[SourceRow]:
    """The rows of every ScreenSpot-family annotation file under ``root``, as rows of ``config``."""
    if not root.is_dir():
        raise GroundBenchError(root, f"sources.gui.{source}", "expected a folder with ScreenSpot annotation files")
    files = annotation_files(root)
    if not files:
        raise GroundBenchError(root, "annotations", "no *.json / *.jsonl annotation file in the folder or annotations/")
    rows: list[SourceRow] = []
    for path in files:
        annotation = relative_to(root, path)
        for index, record in read_annotation(path, root):
            where = f"{annotation}: row {index}"
            fmt = detect_format(record, where)
            if fmt == "pointerbench":
                raise GroundBenchError(where, "keys", "a PointerBench record in a ScreenSpot source")
            rows.append(screenspot.parse(record, fmt, config, annotation, index))
    return rows


def _screenspot_paths(root: Path) -> Callable[[SourceRow], list[Path]]:
    return lambda row: [root / folder / row.image_name for folder in IMAGE_FOLDERS]


SCREENSPOT_PRO_CN = "gui_screenspot_pro_cn"  # ScreenSpot-Pro asked in Chinese (the official --language cn)


def chinese_rows(rows: list[SourceRow]) -> tuple[list[SourceRow], str | None]:
    """ScreenSpot-Pro's rows asked with their ``instruction_cn``, as the official script's ``--language cn`` asks
    every row; (no rows, the reason) when a row has none, since that run would have no prompt for it."""
    missing = [r for r in rows if not (r.extras.get("instruction_cn") or "").strip()]
    if missing:
        return [], (
            f"{len(missing)} of {len(rows)} ScreenSpot-Pro rows carry no instruction_cn (first: {missing[0].where}); "
            "the official --language cn run asks every row in Chinese"
        )
    return [
        replace(
            row,
            config=SCREENSPOT_PRO_CN,
            example_id=f"{SCREENSPOT_PRO_CN}/{row.target_id}",
            instruction=str(row.extras["instruction_cn"]),
            extras={**row.extras, "language": "zh"},
        )
        for row in rows
    ], None


def screenspot_configs(root: Path, source: str, config: str) -> tuple[dict[str, list[SourceRow]], dict[str, str]]:
    """(rows per config, reason per absent config): ScreenSpot-Pro adds its Chinese config."""
    rows = screenspot_rows(root, source, config)
    if source != "screenspot_pro":
        return {config: rows}, {}
    chinese, reason = chinese_rows(rows)
    if reason is not None:
        return {config: rows}, {SCREENSPOT_PRO_CN: reason}
    return {config: rows, SCREENSPOT_PRO_CN: chinese}, {}


def screenspot_source(root: Path, source: str, config: str, knobs: GuiParams) -> GuiSource:
    """Every ScreenSpot-family annotation file under ``root`` -> ``config`` (ScreenSpot-Pro: and its Chinese config)."""
    rows, absent = screenspot_configs(root, source, config)
    return GuiSource(root, source, rows, absent, _screenspot_paths(root), knobs)


def convert_screenspot(
    root: Path, out: Path, source: str, config: str, knobs: GuiParams, shards: ShardParams, progress: bool = True
) -> dict[str, int]:
    return run(screenspot_source(root, source, config, knobs), out, shards, progress)


def osworld_g_annotation(root: Path) -> Path:
    """``OSWorld-G.json`` at the root or in ``benchmark/`` (the code repository's layout)."""
    if not root.is_dir():
        raise GroundBenchError(root, "sources.gui.osworld_g", f"expected a folder holding {osworld_g.ANNOTATION}")
    for folder in (root, root / "benchmark"):
        path = folder / osworld_g.ANNOTATION
        if path.is_file():
            return inside_root(root, path, osworld_g.ANNOTATION)
    raise GroundBenchError(
        root, osworld_g.ANNOTATION, f"not found (expected <root>/{osworld_g.ANNOTATION} or <root>/benchmark/...)"
    )


def osworld_g_rows(root: Path, refined: bool = False) -> list[SourceRow]:
    """Every record of the OSWorld-G benchmark file (``refined``: of ``OSWorld-G_refined.json`` beside it, as
    gui_osworld_g_refined), refusal rows included, with their capability groups."""
    path = osworld_g_annotation(root)
    config = osworld_g.CONFIG
    if refined:
        path = inside_root(root, path.parent / osworld_g.REFINED_ANNOTATION, osworld_g.REFINED_ANNOTATION)
        config = osworld_g.REFINED_CONFIG
    annotation = relative_to(root, path)
    classification = path.parent / osworld_g.CLASSIFICATION
    groups: dict[str, list[str]] = {}
    if classification.is_file():
        rel = relative_to(root, inside_root(root, classification, osworld_g.CLASSIFICATION))
        try:
            content = classification.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise GroundBenchError(rel, "file", f"expected a readable UTF-8 file ({exc})") from exc
        groups = osworld_g.read_classification(_loads(content, rel, "file", "a JSON object"), rel)
    return [osworld_g.parse(record, annotation, index, groups, config) for index, record in read_annotation(path, root)]


def osworld_g_configs(root: Path) -> tuple[dict[str, list[SourceRow]], dict[str, str]]:
    """gui_osworld_g, and gui_osworld_g_refined when ``OSWorld-G_refined.json`` sits beside the benchmark file
    (else that config is absent, with the reason)."""
    rows = {osworld_g.CONFIG: osworld_g_rows(root)}
    annotation = osworld_g_annotation(root)
    if not (annotation.parent / osworld_g.REFINED_ANNOTATION).is_file():
        beside = relative_to(root, annotation)
        reason = f"no {osworld_g.REFINED_ANNOTATION} beside {beside} in the configured OSWorld-G source"
        return rows, {osworld_g.REFINED_CONFIG: reason}
    return rows | {osworld_g.REFINED_CONFIG: osworld_g_rows(root, refined=True)}, {}


def _osworld_g_paths(root: Path) -> Callable[[SourceRow], list[Path]]:
    def paths(row: SourceRow) -> list[Path]:
        here = (root / row.annotation).parent
        return [here / "images" / row.image_name, here / row.image_name]

    return paths


def osworld_g_source(root: Path, knobs: GuiParams) -> GuiSource:
    """``<root>[/benchmark]/OSWorld-G.json`` (+ ``classification_result.json``, ``images/``) -> gui_osworld_g;
    ``OSWorld-G_refined.json`` beside it -> gui_osworld_g_refined."""
    rows, absent = osworld_g_configs(root)
    return GuiSource(root, "osworld_g", rows, absent, _osworld_g_paths(root), knobs)


UI_VISION_FOLDERS = ("", "annotations", "uivision_annotations")  # where element_grounding/ may sit
UI_VISION_IMAGES = ("uivision_imgs", "images", "")


def ui_vision_annotation(root: Path, kind: str) -> Path | None:
    """``element_grounding_<kind>.json`` in ``[<folder>/]element_grounding/`` or ``<folder>/`` (sample_script.sh's
    ``uivision_annotations/element_grounding/``, a Hub copy's ``annotations/...``, or the root)."""
    name = ui_vision.FILE.format(kind=kind)
    for folder in UI_VISION_FOLDERS:
        for sub in ("element_grounding", ""):
            path = root / folder / sub / name
            if path.is_file():
                return inside_root(root, path, name)
    return None


def ui_vision_rows(root: Path) -> tuple[list[SourceRow], list[str]]:
    """Every element-grounding record of the three instruction kinds (rows, the kinds not found)."""
    if not root.is_dir():
        raise GroundBenchError(root, "sources.gui.ui_vision", "expected a folder holding element_grounding_*.json")
    categories: dict[str, str] = {}
    for folder in UI_VISION_FOLDERS:
        path = root / folder / ui_vision.CATEGORIES
        if path.is_file():
            rel = relative_to(root, inside_root(root, path, ui_vision.CATEGORIES))
            categories = ui_vision.read_categories(_loads(path.read_text(encoding="utf-8"), rel, "file", "JSON"), rel)
            break
    rows: list[SourceRow] = []
    missing = []
    for kind in ui_vision.KINDS:
        path = ui_vision_annotation(root, kind)
        if path is None:
            missing.append(kind)
            continue
        annotation = relative_to(root, path)
        rows += [ui_vision.parse(r, kind, annotation, i, categories) for i, r in read_annotation(path, root)]
    if not rows:
        raise GroundBenchError(
            root,
            "element_grounding_*.json",
            "no UI-Vision element-grounding file (expected e.g. "
            "uivision_annotations/element_grounding/element_grounding_basic.json)",
        )
    return rows, missing


def _ui_vision_paths(root: Path) -> Callable[[SourceRow], list[Path]]:
    return lambda row: [root / folder / row.image_name for folder in UI_VISION_IMAGES]


def ui_vision_source(root: Path, knobs: GuiParams) -> GuiSource:
    """UI-Vision element grounding (basic, functional, spatial) -> gui_ui_vision."""
    rows, _ = ui_vision_rows(root)
    return GuiSource(root, "ui_vision", {ui_vision.CONFIG: rows}, {}, _ui_vision_paths(root), knobs)


def source(ctx: Context) -> GuiSource:
    """The registry's factory: the GUI source ``ctx.name`` as ``params.yaml`` configures it."""
    folder = source_root(ctx.root, ctx.params, ctx.name)
    assert folder is not None  # the pipeline marks a null source absent
    if ctx.name == "pointerbench":
        return pointerbench_source(folder, ctx.params.gui)
    if ctx.name == "osworld_g":
        return osworld_g_source(folder, ctx.params.gui)
    if ctx.name == "ui_vision":
        return ui_vision_source(folder, ctx.params.gui)
    return screenspot_source(folder, ctx.name, f"gui_{ctx.name}", ctx.params.gui)


def list_items(root: Path, source: str, max_image_pixels: int) -> dict[str, list[ScreenshotItem]]:
    """The items :func:`convert_item` converts, per config, for a GUI source folder as the pipeline reads it.

    ``source`` is ``pointerbench`` or a ScreenSpot-family source (``screenspot``, ``screenspot_v2``,
    ``screenspot_pro``, written to ``gui_<source>``). Within a config the items are in order of their
    first ``example_id``; each item's records come back sorted.
    """
    if source == "pointerbench":
        rows, _ = pointerbench_rows(root)
        paths = _pointerbench_paths(root)
    elif source == "osworld_g":
        rows = osworld_g_configs(root)[0]
        paths = _osworld_g_paths(root)
    elif source == "ui_vision":
        rows = {ui_vision.CONFIG: ui_vision_rows(root)[0]}
        paths = _ui_vision_paths(root)
    else:
        rows = screenspot_configs(root, source, f"gui_{source}")[0]
        paths = _screenspot_paths(root)
    return {
        config: _plan(root, source, config_rows, paths, max_image_pixels)
        for config, config_rows in sorted(rows.items())
    }

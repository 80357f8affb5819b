"""GUI converter, top-down: find annotation files -> parse records (format detected by keys) ->
read each screenshot once (size, sha256) -> pixel boxes and neighbours -> sorted records, shards, manifests.

One function per source (``convert_pointerbench``, ``convert_screenspot``); both write
``<out>/<config>/`` (shards + ``manifest.jsonl``) for each config of the source, or an ``ABSENT``
marker saying why a config has no data (for example ``gui_pro`` without a ``pointerbench-pro/``).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from tqdm import tqdm

from groundbench.atomic import atomic_dir
from groundbench.converters.gui import CONVERTER, CONVERTER_VERSION, pointerbench, screenspot
from groundbench.converters.gui.boxes import PixelBox, centre, to_pixels
from groundbench.converters.gui.detect import detect_format
from groundbench.converters.gui.rows import Candidate, SourceRow, build_record
from groundbench.errors import GroundBenchError
from groundbench.images import ImageInfo, inspect_image
from groundbench.manifests import ManifestEntry, Producer, sha256_bytes, write_manifest
from groundbench.paths import inside_root, relative_to
from groundbench.shards import ShardWriter

ABSENT_MARKER = "ABSENT"
GENERATOR_STAMP = "generator.yaml"  # written by `groundbench generate-gui` at the root of each source it writes
GENERATED_SOURCE = "groundbench_gui"
MAX_NEIGHBOURS = 8  # other annotated targets on the same screenshot offered as candidate parts
IMAGE_FOLDERS = ("", "images", "screenspot_imgs")  # where ScreenSpot-family roots keep screenshots


@dataclass(frozen=True)
class GuiParams:
    max_image_pixels: int = 64_000_000
    max_shard_bytes: int = 256 * 1024 * 1024
    rows_per_batch: int = 256


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


def _screenshot(root: Path, candidates: list[Path], row: SourceRow, max_pixels: int) -> Screenshot:
    for path in candidates:
        if _is_file(path, row):
            real = inside_root(root, path, "image")
            try:
                data = real.read_bytes()
            except OSError as exc:
                raise GroundBenchError(relative_to(root, path), "image", f"expected a readable file ({exc})") from exc
            rel = relative_to(root, path)
            info = inspect_image(data, rel, max_pixels)
            return Screenshot(path=real, rel=rel, sha256=sha256_bytes(data), info=info, bytes=len(data))
    looked = ", ".join(repr(relative_to(root, p)[:200]) for p in candidates)
    raise GroundBenchError(row.where, "image", f"screenshot {row.image_name[:200]!r} not found (looked for {looked})")


def _target(row: SourceRow, shot: Screenshot) -> PixelBox:
    size = (shot.info.width, shot.info.height)
    if row.declared_size is not None and row.declared_size != size:
        raise GroundBenchError(
            row.where, "image size", f"annotation says {list(row.declared_size)}, {shot.rel} is {list(size)}"
        )
    if row.reference_point is not None:
        x, y = row.reference_point
        if not (0.0 <= x <= size[0] and 0.0 <= y <= size[1]):
            raise GroundBenchError(
                row.where, "point", f"{list(row.reference_point)} lies outside the {size[0]}x{size[1]} image"
            )
    return to_pixels(row.raw_box, row.corners, size[0], size[1], row.where, row.box_field)


def _neighbours(row: SourceRow, target: PixelBox, same_image: list[tuple[SourceRow, PixelBox]], size: tuple[int, int]):
    """The generator's own candidates; else the other annotated targets on the screenshot, nearest first."""
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
    for other, box in same_image:
        if other.target_id != row.target_id and box.box != target.box and box.box not in others:
            others[box.box] = Candidate(other.target_id, other.target_category, box.box)
    ranked = sorted(others.values(), key=lambda c: (math.dist(here, centre(c.box)), c.part_id))
    return ranked[:MAX_NEIGHBOURS]


def write_configs(
    root: Path,
    out: Path,
    source: str,
    rows_by_config: dict[str, list[SourceRow]],
    absent: dict[str, str],
    image_paths: Callable[[SourceRow], list[Path]],
    params: GuiParams,
    progress: bool,
) -> dict[str, int]:
    producer = _generator_producer(root) or Producer(name=CONVERTER, version=CONVERTER_VERSION)
    record_source = GENERATED_SOURCE if (root / GENERATOR_STAMP).is_file() else source
    annotation_sha: dict[str, str] = {}
    counts: dict[str, int] = {}
    with atomic_dir(out) as tmp:
        for config, reason in sorted(absent.items()):
            (tmp / config).mkdir()
            (tmp / config / ABSENT_MARKER).write_text(f"{config}: {reason}\n", encoding="utf-8")
        for config, rows in sorted(rows_by_config.items()):
            ids = [r.example_id for r in rows]
            if len(set(ids)) != len(ids):
                dup = sorted({i for i in ids if ids.count(i) > 1})[0]
                raise GroundBenchError(rows[0].annotation, "id", f"example id {dup!r} occurs more than once")
            shots: dict[str, Screenshot] = {}
            targets: dict[str, PixelBox] = {}
            by_image: dict[str, list[tuple[SourceRow, PixelBox]]] = defaultdict(list)
            for row in tqdm(rows, desc=f"{config} screenshots", unit="row", disable=not progress):
                key = f"{row.annotation}\0{row.image_name}"
                if key not in shots:
                    shots[key] = _screenshot(root, image_paths(row), row, params.max_image_pixels)
                targets[row.example_id] = _target(row, shots[key])
                by_image[shots[key].rel].append((row, targets[row.example_id]))
            manifest: dict[str, ManifestEntry] = {}
            with ShardWriter(tmp / config, params.max_shard_bytes, params.rows_per_batch) as writer:
                for row in sorted(rows, key=lambda r: r.example_id):
                    shot = shots[f"{row.annotation}\0{row.image_name}"]
                    if row.annotation not in annotation_sha:
                        annotation_sha[row.annotation] = sha256_bytes((root / row.annotation).read_bytes())
                    data = shot.path.read_bytes()
                    if sha256_bytes(data) != shot.sha256:
                        raise GroundBenchError(shot.rel, "image", "changed while the conversion was running")
                    size = (shot.info.width, shot.info.height)
                    target = targets[row.example_id]
                    record = build_record(
                        row,
                        record_source,
                        {"bytes": data, "path": f"{shot.sha256}.{shot.info.extension}"},
                        shot.sha256,
                        size,
                        target,
                        _neighbours(row, target, by_image[shot.rel], size),
                        {
                            "source_paths": [row.annotation, shot.rel],
                            "source_sha256": [annotation_sha[row.annotation], shot.sha256],
                        },
                    )
                    writer.add(record)
                    manifest.setdefault(
                        shot.sha256,
                        ManifestEntry(
                            sha256=shot.sha256,
                            bytes=shot.bytes,
                            width=size[0],
                            height=size[1],
                            format=shot.info.format,
                            source_path=shot.rel,
                            producer=producer,
                        ),
                    )
            write_manifest(tmp / config / "manifest.jsonl", manifest)
            counts[config] = writer.rows
    return counts


def convert_pointerbench(root: Path, out: Path, params: GuiParams, progress: bool = True) -> dict[str, int]:
    """``<root>/pointerbench-{sheets,text,pro}/data/test/metadata.jsonl`` -> gui_sheets, gui_text, gui_pro."""
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

    def image_paths(row: SourceRow) -> list[Path]:
        return [(root / row.annotation).parent / row.image_name]

    return write_configs(root, out, "pointerbench", rows, absent, image_paths, params, progress)


def annotation_files(root: Path) -> list[Path]:
    """``*.json`` / ``*.jsonl`` directly in the root or in ``annotations/`` (the generator stamp excepted)."""
    found = []
    for folder in (root, root / "annotations"):
        if folder.is_dir():
            found += [p for p in sorted(folder.iterdir()) if p.is_file() and p.suffix in (".json", ".jsonl")]
    for path in found:
        inside_root(root, path, "annotation")
    return found


def convert_screenspot(
    root: Path, out: Path, source: str, config: str, params: GuiParams, progress: bool = True
) -> dict[str, int]:
    """Every ScreenSpot-family annotation file under ``root`` -> ``config``."""
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

    def image_paths(row: SourceRow) -> list[Path]:
        return [root / folder / row.image_name for folder in IMAGE_FOLDERS]

    return write_configs(root, out, source, {config: rows}, {}, image_paths, params, progress)

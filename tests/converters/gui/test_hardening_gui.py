"""Fuzz the four GUI annotation formats through real conversions; hostile GUI inputs.

The only outcomes allowed are rows that pass the record validation `bake` runs (some kept with an
exclusion tag) or the project's one error type naming file, field and reason. Anything else fails
the test. What the campaigns record goes into docs/reliability.md (tests/support/reliability.py).
"""

from __future__ import annotations

import io
import json
import os
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groundbench.converters.gui.convert import convert_pointerbench, convert_screenspot
from groundbench.core.params import load_params
from groundbench.core.shards import read_table
from groundbench.errors import GroundBenchError
from groundbench.schemas.rules import validate_table
from groundbench.scoring.baselines import bake_row_baselines
from tests.conftest import REPO
from tests.support.reliability import CAMPAIGNS, FUZZ, Campaign, _bomb_png, _record, mutations, same_constant_pool

same_constant_pool()  # before any campaign generates (tests/support/reliability.py)


# GUI annotation formats. Each case is a real conversion of a small source folder: the annotation
# file (a mutation of real fixture records, tests/fixtures/gui) and blank screenshots of the sizes
# those records give. A conversion that succeeds must also pass the record validation that `bake`
# runs: the converter may refuse a row, or keep it with an exclusion tag, but never write an invalid one.

GUI_FIXTURES = REPO / "tests" / "fixtures" / "gui"
GUI_CONFIG = {
    "screenspot": "gui_screenspot",
    "screenspot_v2": "gui_screenspot_v2",
    "screenspot_pro": "gui_screenspot_pro",
}
_PNGS: dict[tuple[int, int], bytes] = {}


def _blank_png(size: tuple[int, int]) -> bytes:
    from PIL import Image

    if size not in _PNGS:
        buffer = io.BytesIO()
        Image.new("L", size, 255).save(buffer, "PNG")
        _PNGS[size] = buffer.getvalue()
    return _PNGS[size]


@dataclass(frozen=True)
class GuiFormat:
    """One annotation format: where its file lies in a source folder and real records to mutate."""

    input_class: str
    source: str  # pointerbench, or the ScreenSpot-family source
    annotation: str  # path of the annotation file inside the source folder
    records: tuple[dict, ...]
    images: tuple[tuple[str, tuple[int, int]], ...]  # (path inside the folder, size) of the screenshots
    jsonl: bool
    nested: tuple[str, ...] = ()  # "outer.inner" keys the structured mutations may also replace


def _jsonl(path: Path, count: int) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[:count]]


def _gui_formats() -> dict[str, GuiFormat]:
    pointerbench = []
    for subset in ("sheets", "text", "pro"):
        folder = f"pointerbench-{subset}/data/test"
        records = _jsonl(GUI_FIXTURES / "pointerbench" / folder / "metadata.jsonl", 2)
        images = tuple((f"{folder}/{r['file_name']}", tuple(r["image_size"])) for r in records)
        pointerbench.append((folder, records, images))
    actor = {
        split: json.loads((GUI_FIXTURES / "gui-actor" / f"screenspot_{split}_v2.json").read_text(encoding="utf-8"))
        for split in ("mobile", "desktop", "web")
    }
    sizes = {r["img_filename"]: tuple(r["img_size"]) for records in actor.values() for r in records}
    uground = [r for r in _jsonl(GUI_FIXTURES / "uground" / "re_gpt-4o.jsonl", 40) if r["image"] in sizes][:3]
    # SeeClick's own ScreenSpot v1 keys (UGround's file is that data with `image` for `img_filename`).
    seeclick = [
        {
            "img_filename": r["image"],
            "bbox": r["bbox"],
            "instruction": r["instruction"],
            "data_type": r["data_type"],
            "data_source": r["data_source"],
        }
        for r in uground
    ]
    pro = json.loads((GUI_FIXTURES / "screenspot_pro/annotations/android_studio_macos.json").read_text("utf-8"))
    v2 = actor["desktop"][:3]
    formats = [
        GuiFormat(
            f"PointerBench {folder.split('/')[0]} metadata.jsonl",
            "pointerbench",
            f"{folder}/metadata.jsonl",
            tuple(records),
            images,
            jsonl=True,
            nested=("eval.bbox", "eval.type", "eval.min_coverage", "eval.min_precision"),
        )
        for folder, records, images in pointerbench
    ]
    return {
        **{f"pointerbench:{f.annotation.split('/')[0]}": f for f in formats},
        "screenspot": GuiFormat(
            "ScreenSpot v1 JSON (SeeClick [x, y, w, h])",
            "screenspot",
            "screenspot_desktop.json",
            tuple(seeclick),
            tuple((r["img_filename"], sizes[r["img_filename"]]) for r in seeclick),
            jsonl=False,
        ),
        "screenspot_v2": GuiFormat(
            "ScreenSpot-v2 JSON (GUI-Actor corners + img_size)",
            "screenspot_v2",
            "screenspot_desktop_v2.json",
            tuple(v2),
            tuple((r["img_filename"], tuple(r["img_size"])) for r in v2),
            jsonl=False,
        ),
        "uground": GuiFormat(
            "ScreenSpot v1 JSONL (UGround)",
            "screenspot",
            "re_gpt-4o.jsonl",
            tuple(uground),
            tuple((r["image"], sizes[r["image"]]) for r in uground),
            jsonl=True,
        ),
        "screenspot_pro": GuiFormat(
            "ScreenSpot-Pro JSON",
            "screenspot_pro",
            "annotations/android_studio_macos.json",
            tuple(pro),
            tuple((f"images/{r['img_filename']}", tuple(r["img_size"])) for r in pro),
            jsonl=False,
        ),
    }


GUI_FORMATS = _gui_formats()
PATHLIKE = ["../../outside.png", "/etc/hostname", "a" * 5000, "x\x00y.png", "images/../../x.png", ""]
# JSON values a field may be replaced with: every JSON type, huge and non-finite numbers, hostile strings.
HOSTILE_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([10**30, -(10**30), 10**400, 2**63, 0, -1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from([*PATHLIKE, "\ud800", "line\u2028separator", "point", "bbox", "iou"]),
    st.lists(st.one_of(st.integers(-(10**6), 10**6), st.floats(allow_nan=True, allow_infinity=True)), max_size=5),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)
DELETE = object()


def _serialise(records: list[object], fmt: GuiFormat, ascii_only: bool) -> bytes:
    # json.dumps writes NaN / Infinity literals (Python's json reads them back) and, with ascii_only,
    # a lone surrogate as its escape; without it, surrogates become invalid UTF-8 bytes.
    if fmt.jsonl:
        text = "".join(json.dumps(r, ensure_ascii=ascii_only) + "\n" for r in records)
    else:
        text = json.dumps(records, ensure_ascii=ascii_only, indent=4)
    return text.encode("utf-8", "surrogatepass")


def _edit_records(fmt: GuiFormat, index: int, key: str, value: object, ascii_only: bool) -> bytes:
    records: list[object] = json.loads(json.dumps(list(fmt.records)))
    record = records[index % len(records)]
    assert isinstance(record, dict)
    target, leaf = record, key
    if "." in key:
        outer, leaf = key.split(".", 1)
        target = record.setdefault(outer, {}) if isinstance(record.get(outer), dict) else record
    if value is DELETE:
        target.pop(leaf, None)
    else:
        target[leaf] = value
    return _serialise(records, fmt, ascii_only)


def gui_files(fmt: GuiFormat) -> st.SearchStrategy[bytes]:
    """Byte mutations of the real file, or one field of one record replaced / deleted, or a record dropped."""
    seed = _serialise(list(fmt.records), fmt, ascii_only=True)
    keys = sorted({k for r in fmt.records for k in r} | set(fmt.nested))
    edited = st.builds(
        _edit_records,
        st.just(fmt),
        st.integers(0, 10),
        st.sampled_from(keys),
        st.one_of(st.just(DELETE), HOSTILE_VALUES),
        st.booleans(),
    )
    shuffled = st.permutations(list(fmt.records)).map(lambda rs: _serialise(rs[1:], fmt, True))
    return st.one_of(mutations([seed]), edited, edited, shuffled)


def _scrub(base: Path) -> Callable[[str], str]:
    """Error text without this run's temporary folder (the table must be the same on every run)."""
    real = os.path.realpath(base)
    return lambda message: message.replace(real, "<tmp>").replace(str(base), "<tmp>")


def convert_gui_folder(root: Path, out: Path, source: str) -> str:
    """Convert like the pipeline, then validate like `bake`; returns the outcome for the table."""
    params = load_params(REPO)
    if source == "pointerbench":
        counts = convert_pointerbench(root, out, params.gui, params.shards, progress=False)
    else:
        config = GUI_CONFIG[source]
        counts = convert_screenspot(root, out, source, config, params.gui, params.shards, progress=False)
    excluded = clamped = 0
    for config in counts:
        table = read_table(out / config)
        try:
            baked = [bake_row_baselines(b) for b in table.to_batches()]
            validate_table(table.from_batches(baked, schema=baked[0].schema if baked else table.schema), config)
        except GroundBenchError as exc:  # the converter wrote a row that bake would refuse: a bug
            raise AssertionError(f"converter wrote an invalid row: {exc}") from exc
        excluded += sum(table.column("excluded").to_pylist())
        clamped += sum("box_clamped" in flags for flags in table.column("flags").to_pylist())
    if excluded:
        return "parsed, rows kept excluded"
    return "parsed, rows flagged box_clamped" if clamped else "parsed"  # drawn clamped, scored as annotated


def _gui_case(base: Path, fmt: GuiFormat, data: bytes, counter: Iterator[int], input_class: str) -> None:
    case = base / f"case{next(counter)}"
    root = case / "source"
    for name, size in fmt.images:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(_blank_png(size))
    (root / fmt.annotation).parent.mkdir(parents=True, exist_ok=True)
    (root / fmt.annotation).write_bytes(data)
    _record("gui", input_class, lambda: convert_gui_folder(root, case / "out", fmt.source), _scrub(base))


def test_fuzz_pointerbench_metadata(tmp_path: Path) -> None:
    counter = iter(range(1 << 30))
    subsets = [f for key, f in GUI_FORMATS.items() if key.startswith("pointerbench:")]

    @FUZZ
    @given(st.sampled_from(subsets).flatmap(lambda f: st.tuples(st.just(f), gui_files(f))))
    def run(case: tuple[GuiFormat, bytes]) -> None:
        _gui_case(tmp_path, case[0], case[1], counter, "PointerBench metadata.jsonl (sheets, text, pro)")

    run()


def _fuzz_format(key: str, tmp_path: Path) -> None:
    counter = iter(range(1 << 30))
    fmt = GUI_FORMATS[key]

    @FUZZ
    @given(gui_files(fmt))
    def run(data: bytes) -> None:
        _gui_case(tmp_path, fmt, data, counter, fmt.input_class)

    run()


def test_fuzz_screenspot_v1_json(tmp_path: Path) -> None:
    _fuzz_format("screenspot", tmp_path)


def test_fuzz_screenspot_v2_corner_json(tmp_path: Path) -> None:
    _fuzz_format("screenspot_v2", tmp_path)


def test_fuzz_screenspot_uground_jsonl(tmp_path: Path) -> None:
    _fuzz_format("uground", tmp_path)


def test_fuzz_screenspot_pro_json(tmp_path: Path) -> None:
    _fuzz_format("screenspot_pro", tmp_path)


# Hostile GUI inputs: one source folder each, built by the function; the outcome it must have.


def _pro_record(**changes: object) -> dict:
    record = dict(GUI_FORMATS["screenspot_pro"].records[0])
    record.update(changes)
    return record


def _pro_folder(base: Path, text: str | bytes) -> Path:
    """A ScreenSpot-Pro folder: the fixture's screenshots (blank) and ``text`` as its one annotation file."""
    fmt = GUI_FORMATS["screenspot_pro"]
    root = base / "source"
    for name, size in fmt.images:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(_blank_png(size))
    (root / "annotations").mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8") if isinstance(text, str) else text
    (root / fmt.annotation).write_bytes(data)
    return root


def _pro_with(base: Path, record: dict) -> Path:
    return _pro_folder(base, json.dumps([record]))


def _pro_raw_bbox(base: Path, bbox: str) -> Path:
    """A record whose bbox is written as raw JSON text (numbers json.dumps would never write)."""
    text = json.dumps([_pro_record(bbox=[0, 0, 0, 0])]).replace("[0, 0, 0, 0]", bbox)
    return _pro_folder(base, text)


def _pointerbench_folder(base: Path, records: list[dict] | None = None, raw: str | None = None) -> Path:
    fmt = GUI_FORMATS["pointerbench:pointerbench-text"]
    root = base / "source"
    for name, size in fmt.images:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(_blank_png(size))
    lines = raw if raw is not None else "".join(json.dumps(r) + "\n" for r in records or fmt.records)
    (root / fmt.annotation).write_text(lines, encoding="utf-8")
    return root


def _pointerbench_record(**changes: object) -> dict:
    record = json.loads(json.dumps(GUI_FORMATS["pointerbench:pointerbench-text"].records[0]))
    record.update(changes)
    return record


def _outside_png(base: Path) -> Path:
    outside = base / "outside.png"
    outside.write_bytes(_blank_png((3840, 2160)))
    return outside


def _symlinked_screenshot(base: Path) -> Path:
    root = _pro_with(base, _pro_record())
    image = root / "images" / _pro_record()["img_filename"]
    image.unlink()
    image.symlink_to(_outside_png(base))
    return root


def _symlinked_annotation(base: Path) -> Path:
    root = _pro_with(base, _pro_record())
    outside = base / "elsewhere.json"
    outside.write_text(json.dumps([_pro_record()]), encoding="utf-8")
    (root / "annotations" / "android_studio_macos.json").unlink()
    (root / "annotations" / "android_studio_macos.json").symlink_to(outside)
    return root


def _symlinked_metadata(base: Path) -> Path:
    root = _pointerbench_folder(base)
    metadata = root / GUI_FORMATS["pointerbench:pointerbench-text"].annotation
    outside = base / "metadata.jsonl"
    outside.write_bytes(metadata.read_bytes())
    metadata.unlink()
    metadata.symlink_to(outside)
    return root


def _absolute_image(base: Path) -> Path:
    return _pro_with(base, _pro_record(img_filename=str(_outside_png(base))))


def _dotdot_image(base: Path) -> Path:
    _outside_png(base)
    return _pro_with(base, _pro_record(img_filename="../../outside.png"))


def _dotdot_pointerbench_image(base: Path) -> Path:
    _outside_png(base)
    return _pointerbench_folder(base, [_pointerbench_record(file_name="../../../../outside.png")])


def _bomb_screenshot(base: Path) -> Path:
    root = _pro_with(base, _pro_record(img_size=[100_000, 100_000]))
    (root / "images" / _pro_record()["img_filename"]).write_bytes(_bomb_png())
    return root


def _bad_generator_stamp(base: Path) -> Path:
    root = _pro_with(base, _pro_record())
    (root / "generator.yaml").write_text("packages: [unclosed\n", encoding="utf-8")
    return root


REFUSED = "refused: GroundBenchError"
HOSTILE_GUI: dict[str, tuple[str, str, Callable[[Path], Path]]] = {
    # case: (source, outcome it must have, folder builder)
    "JSON integer of 5000 digits in a box": (
        "screenspot_pro",
        REFUSED,
        lambda b: _pro_raw_bbox(b, "[" + "9" * 5000 + ", 0, 5, 5]"),
    ),
    "400-digit integer coordinate (overflows a float)": (
        "screenspot_pro",
        REFUSED,
        lambda b: _pro_with(b, _pro_record(bbox=[10**400, 0, 5, 5])),
    ),
    "1e999 coordinate (parses as infinity)": (
        "screenspot_pro",
        REFUSED,
        lambda b: _pro_raw_bbox(b, "[1e999, 0, 5, 5]"),
    ),
    "NaN box coordinate": ("screenspot_pro", REFUSED, lambda b: _pro_raw_bbox(b, "[NaN, 0, 5, 5]")),
    "-Infinity box coordinate": ("screenspot_pro", REFUSED, lambda b: _pro_raw_bbox(b, "[-Infinity, 0, 5, 5]")),
    "NaN in a PointerBench point": (
        "pointerbench",
        REFUSED,
        lambda b: _pointerbench_folder(b, [_pointerbench_record(point=[float("nan"), 3])]),
    ),
    "PointerBench point outside the screenshot": (
        "pointerbench",
        REFUSED,
        lambda b: _pointerbench_folder(b, [_pointerbench_record(point=[5000, 3])]),
    ),
    "Infinity as a PointerBench eval.min_coverage": (
        "pointerbench",
        REFUSED,
        lambda b: _pointerbench_folder(
            b, [_pointerbench_record(eval={"type": "iou", "bbox": [700, 250, 750, 280], "min_coverage": float("inf")})]
        ),
    ),
    "integer language in a PointerBench record": (
        "pointerbench",
        REFUSED,
        lambda b: _pointerbench_folder(b, [_pointerbench_record(language=7)]),
    ),
    "list as a PointerBench answer_type": (
        "pointerbench",
        REFUSED,
        lambda b: _pointerbench_folder(b, [_pointerbench_record(answer_type=["point"])]),
    ),
    "JSON nested 100000 levels deep": (
        "screenspot_pro",
        REFUSED,
        lambda b: _pro_folder(b, "[" * 100_000 + "]" * 100_000),
    ),
    "lone surrogate escape in an instruction": (
        "screenspot_pro",
        REFUSED,
        lambda b: _pro_with(b, _pro_record(instruction="click \ud800 here")),
    ),
    "non-UTF-8 annotation file (Latin-1 bytes)": (
        "screenspot_pro",
        REFUSED,
        lambda b: _pro_folder(b, json.dumps([_pro_record(instruction="cafe")]).encode().replace(b"cafe", b"caf\xe9")),
    ),
    "JSONL record with U+2028 inside a string (valid JSON)": (
        "pointerbench",
        "parsed",
        lambda b: _pointerbench_folder(
            b, raw=json.dumps(_pointerbench_record(instruction="two\u2028lines"), ensure_ascii=False) + "\n"
        ),
    ),
    "image path with .. leaving the source folder": ("screenspot_pro", REFUSED, _dotdot_image),
    "PointerBench file_name with .. leaving the source folder": ("pointerbench", REFUSED, _dotdot_pointerbench_image),
    "absolute image path outside the source folder": ("screenspot_pro", REFUSED, _absolute_image),
    "screenshot symlinked outside the source folder": ("screenspot_pro", REFUSED, _symlinked_screenshot),
    "annotation file symlinked outside the source folder": ("screenspot_pro", REFUSED, _symlinked_annotation),
    "PointerBench metadata.jsonl symlinked outside the source folder": ("pointerbench", REFUSED, _symlinked_metadata),
    "image file name of 5000 characters": (
        "screenspot_pro",
        REFUSED,
        lambda b: _pro_with(b, _pro_record(img_filename="a" * 5000 + ".png")),
    ),
    "image file name with a NUL byte": (
        "screenspot_pro",
        REFUSED,
        lambda b: _pro_with(b, _pro_record(img_filename="a\x00b.png")),
    ),
    "img_size of 10^9 x 10^9 against the real screenshot": (
        "screenspot_pro",
        REFUSED,
        lambda b: _pro_with(b, _pro_record(img_size=[10**9, 10**9])),
    ),
    "decompression-bomb screenshot (100000x100000 PNG header)": ("screenspot_pro", REFUSED, _bomb_screenshot),
    "damaged generator.yaml stamp": ("screenspot_pro", REFUSED, _bad_generator_stamp),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_GUI))
def test_hostile_gui_input(case: str, tmp_path: Path) -> None:
    source, expected, build = HOSTILE_GUI[case]
    root = build(tmp_path)
    name = f"hostile: GUI {case}"
    outcome, message = "parsed", ""
    try:
        outcome = convert_gui_folder(root, tmp_path / "out", source)
    except GroundBenchError as exc:
        outcome, message = REFUSED, _scrub(tmp_path)(str(exc))
        assert exc.path and exc.field and exc.reason
    assert outcome == expected, message
    assert not (tmp_path / "out").exists() or outcome != REFUSED  # nothing partial on disk
    CAMPAIGNS[name] = Campaign("hostile", name, Counter({outcome: 1}), message)

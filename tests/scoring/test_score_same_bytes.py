"""``score``'s fast paths give the figures and bytes the plain ones gave (issue 43, target 5).

Each fast path is checked against the plain code it replaced, written out again here: the best constant's
counts (squared distances, hypot only near tau), mask runs read off the counts, finite_json / non_finite, the
predictions file read a line at a time, the report's records kept as JSON text and ``--json`` written by
``groundbench.core.jsonindent``; the groups of one row list sharing their baselines (``RowSetMemo``); and a whole
report on the hand-made folder, its ``--json`` equal to ``json.dumps`` of ``to_dict()``.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from groundbench.core.jsonindent import dumps_indented, write_indented
from groundbench.errors import GroundBenchError
from groundbench.schemas import mask_rle
from groundbench.scoring import baselines, localization, metrics
from groundbench.scoring.api import score_file
from groundbench.scoring.gate import folder_gate
from groundbench.scoring.kept import KeptRecords
from groundbench.scoring.parse import finite_json, non_finite
from groundbench.scoring.predictions import Unreadable, expand, join, not_json_lines, read_prediction_lines, read_rows
from groundbench.scoring.run import ScoreOutputs, write_outputs
from tests.scoring.test_scoring_hand import PREDICTIONS, _write_folder

# --- the plain code, as it was ------------------------------------------------------------------------


def plain_count_best(points: np.ndarray, targets: np.ndarray, tau: float) -> tuple[tuple[int, int], np.ndarray]:
    best: tuple[int, int] = (-1, -1)
    where = points[0]
    for start in range(0, len(points), 2048):
        chunk = points[start : start + 2048]
        gaps = np.hypot(*(chunk[:, None, :] - targets[None, :, :]).transpose(2, 0, 1))
        loose, tight = (gaps <= tau + localization.EPS).sum(axis=1), (gaps <= tau - 1e-9).sum(axis=1)
        k = int((loose * (len(targets) + 1) + tight).argmax())
        if (int(loose[k]), int(tight[k])) > best:
            best, where = (int(loose[k]), int(tight[k])), chunk[k]
    return best, where


def plain_row_runs(counts: list[int], box: list[float]) -> np.ndarray:
    crop = mask_rle.decode(counts, box)
    step = np.diff(np.pad(crop.view(np.int8), ((0, 0), (1, 1))), axis=1)
    starts_r, starts_c = np.nonzero(step == 1)
    _, ends_c = np.nonzero(step == -1)
    x0, y0 = int(box[0]), int(box[1])
    return np.stack([starts_r + y0, starts_c + x0, ends_c + x0], axis=1).astype(np.int64)


def plain_region_rects(rows: list[dict[str, Any]]) -> tuple[np.ndarray, ...] | None:
    """Each row's rectangles one row at a time (``_region_rects``), concatenated."""
    regions = [r for r in (localization._region_rects(row) for row in rows) if r is not None]
    if not regions:
        return None
    arrays = [np.concatenate([np.asarray(r[k], dtype=np.float64) for r in regions]) for k in range(4)]
    return (*arrays, np.concatenate([np.full(len(r[0]), r[4]) for r in regions]))


def plain_non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, Mapping):
        return any(plain_non_finite(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(plain_non_finite(v) for v in value)
    return False


def plain_finite_json(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {k: plain_finite_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_finite_json(v) for v in value]
    return value


def plain_read_lines(path: Path) -> list[tuple[str, Any]]:
    """The whole file read, then split with str.splitlines (errors as the reader raised them)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GroundBenchError(path, "file", f"expected a readable UTF-8 JSONL file ({exc})") from exc
    problem = not_json_lines(text)
    if problem is not None:
        raise GroundBenchError(path, "file", problem)
    out: list[tuple[str, Any]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.strip():
            try:
                out.append((f"{path}: line {number}", json.loads(raw)))
            except ValueError as exc:
                out.append((f"{path}: line {number}", f"expected one JSON object ({exc})"))
    return out


def plain_dumps(value: Any) -> str:
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False, allow_nan=False)


# --- the fast paths against them ------------------------------------------------------------------------


def test_the_best_constant_counts_are_hypots_counts_also_on_the_rim() -> None:
    rng = np.random.default_rng(3)
    for trial in range(12):
        targets = rng.normal(0.0, 0.2, size=(int(rng.integers(1, 300)), 2))
        if trial % 3 == 0:
            targets = np.round(targets * 8) / 8  # coincident targets and exact ties
        tau = float(np.median(np.hypot(*(targets - targets.mean(axis=0)).T))) if trial != 5 else 0.0
        # candidates on the rims (circle intersections), the targets themselves and points around them
        points = np.concatenate(
            [localization._exact_candidates(targets[:40], tau), targets, rng.normal(0, 0.3, (600, 2))]
        )
        assert localization._count_best(points, targets, tau)[0] == plain_count_best(points, targets, tau)[0]
        fast, plain = localization._count_best(points, targets, tau)[1], plain_count_best(points, targets, tau)[1]
        assert fast.tolist() == plain.tolist()


def test_mask_runs_read_off_the_counts_are_the_decoded_masks_runs() -> None:
    rng = random.Random(11)
    for _ in range(3000):
        w, h = rng.randint(1, 9), rng.randint(1, 9)
        counts, left = [], w * h
        while left > 0:
            run = min(left, rng.choice([0, 0, 1, 2, 3, w, w + 1, 2 * w]))
            counts.append(run)
            left -= run
        counts = ([0] if rng.random() < 0.3 else []) + counts + ([0] if rng.random() < 0.3 else [])
        x0, y0 = rng.randint(0, 40), rng.randint(0, 40)
        box = [x0, y0, x0 + w, y0 + h]
        assert mask_rle.row_runs(counts, box).tolist() == plain_row_runs(counts, box).tolist(), (counts, box)
    with pytest.raises(GroundBenchError, match="add up to the box's 2x2 = 4 pixels, got 3"):
        mask_rle.row_runs([1, 2], [0, 0, 2, 2])
    with pytest.raises(GroundBenchError, match="must be >= 0"):
        mask_rle.row_runs([5, -1], [0, 0, 2, 2])


def _region_row(rng: random.Random, index: int) -> dict[str, Any]:
    w, h = rng.randint(1, 7), rng.randint(1, 7)
    x0, y0 = rng.randint(0, 30), rng.randint(0, 30)
    counts, left = [], w * h
    while left > 0:
        run = min(left, rng.choice([0, 1, 2, 3, w, w + 1]))
        counts.append(run)
        left -= run
    part: dict[str, Any] = {"part_id": "t", "bbox_xyxy": [x0 + w, y0 - 1.5, x0, y0 + h]}
    if rng.random() < 0.7:
        part.update(mask_rle=counts, visible_bbox_xyxy=[x0, y0, x0 + w, y0 + h])
    parts = [part] if rng.random() < 0.95 else []
    return {"example_id": f"r{index}", "width": 40 + index % 7, "height": 37, "target_part_id": "t", "parts": parts}


def test_every_rows_region_at_once_is_each_rows_region() -> None:
    rng = random.Random(5)
    for size in (0, 1, 2, 9, 60, 300):
        rows = [_region_row(rng, i) for i in range(size)]
        fast, plain = localization._all_region_rects(rows), plain_region_rects(rows)
        assert (fast is None) == (plain is None)
        if fast is not None and plain is not None:
            order = np.lexsort(fast[::-1])  # the same rectangles (order is free: they are counted, not listed)
            assert [a[order].tolist() for a in fast] == [a[np.lexsort(plain[::-1])].tolist() for a in plain]
    bad = _region_row(random.Random(1), 0)
    bad["parts"][0].update(mask_rle=[1, 2], visible_bbox_xyxy=[0, 0, 2, 2])
    with pytest.raises(GroundBenchError, match="r0: parts.mask_rle"):
        localization._all_region_rects([_region_row(random.Random(2), 1), bad])


class _Proxy(Mapping[str, Any]):
    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __iter__(self) -> Any:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)


VALUES: list[Any] = [
    {"a": [1, 2.5, None, True, "x"], "b": {"c": math.nan, "d": (math.inf, -0.0)}},
    {"p": [1e16, 1e-7, -math.inf], "q": _Proxy({"z": [float("nan")], "y": "é\u2028"})},
    [[], {}, [[[]]], {"k": {}}, "", 0, False],
    {"n": 12345678901234567890, "s": "\ud800 lone", "f": 0.1},
    math.nan,
    "plain",
    {"t": (1, (2, 3)), "nested": [{"a": 1.5}, {"b": [1, {"c": math.inf}]}]},
]


@pytest.mark.parametrize("value", VALUES)
def test_finite_json_and_non_finite_are_the_plain_walks(value: Any) -> None:
    assert non_finite(value) == plain_non_finite(value)
    assert repr(finite_json(value)) == repr(plain_finite_json(value))


@pytest.mark.parametrize("value", VALUES)
def test_indented_json_is_json_dumps(value: Any) -> None:
    assert dumps_indented(value, finite=True) == plain_dumps(plain_finite_json(value))
    try:
        expected = plain_dumps(value)
    except (ValueError, TypeError) as exc:  # a NaN refused, a mapping json cannot write
        with pytest.raises(type(exc)):
            dumps_indented(value)
    else:
        assert dumps_indented(value) == expected


def test_indented_json_hands_what_only_json_knows_to_json() -> None:
    odd = {"x": {1: "a", 3: [1.5]}, "y": [{2.5: "b"}], "z": {None: {}}, "w": {False: 1}}
    assert dumps_indented(odd, indent=2) == json.dumps(odd, indent=2, sort_keys=True, ensure_ascii=False)
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps_indented({"a": [object()]})
    with pytest.raises(ValueError, match="Out of range float"):
        dumps_indented({"a": [math.nan]})
    pieces: list[str] = []
    write_indented({"a": list(range(5))}, pieces.append)
    assert "".join(pieces) == plain_dumps({"a": list(range(5))})


def test_kept_records_read_back_as_written_and_write_as_a_list() -> None:
    records = [{"b": i, "a": [1.5, None], "r": {"s": "é\ud800\n"}, "x": math.nan} for i in range(2500)]
    kept = KeptRecords()
    for record in records:
        kept.append(record)
    expected = [plain_finite_json(r) for r in records]
    assert len(kept) == 2500 and list(kept) == expected and kept == expected
    assert kept[0] == expected[0] and kept[-1] == expected[-1] and kept[10:13] == expected[10:13]
    with pytest.raises(IndexError):
        kept[2500]
    assert dumps_indented({"p": kept, "q": 1}) == plain_dumps({"p": expected, "q": 1})
    assert dumps_indented({"p": kept}, indent=3) == json.dumps(
        {"p": expected}, indent=3, sort_keys=True, ensure_ascii=False
    )
    assert dumps_indented({"p": KeptRecords()}) == plain_dumps({"p": []})


TEXTS = [
    b"",
    b"\n\n",
    b'{"a":1}\n{"b":2}',
    b'{"a":1}\r\n\r\n{"b":\n2}\r',
    b"[1,2]",
    b"[1,\n2]\n",
    b'{"a":\n1}\n',
    b"x,y\n1,2\n",
    b'3\n{"a":1}',
    '{"a":"x\u2028y"}\n{"b":"\x1c"}\x1c\n'.encode(),
    b'\xef\xbb\xbf{"a":1}\n',
    b'{"a":1}\n\xff\n',
    b'{"a":1}\x0b{"c":3}\x0c\n\x85',
    '{"a":1}\u2029{"b":1}\r\r\n'.encode(),
    b'nope\n{"a":1}',
]


@pytest.mark.parametrize("data", TEXTS)
def test_predictions_read_a_line_at_a_time_are_the_lines_of_the_whole_text(data: bytes, tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_bytes(data)

    def streamed() -> Any:
        return [(w, v.reason if isinstance(v, Unreadable) else v) for w, v in read_prediction_lines(path)]

    try:
        expected = plain_read_lines(path)
    except GroundBenchError as exc:
        with pytest.raises(GroundBenchError) as raised:
            streamed()
        assert str(raised.value) == str(exc)
    else:
        assert streamed() == expected


def test_groups_of_the_same_rows_share_their_baselines_and_score_the_same(tmp_path: Path) -> None:
    """Two models, same rows: the memo's figures are the ones each group computes alone."""
    folder = _write_folder(tmp_path)
    lines = [{**p, "model": m} for m in ("m1", "m2") for p in PREDICTIONS]
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = score_file(predictions, folder=folder, resamples=20)
    alone: list[dict[str, Any]] = []
    groups: dict[tuple[str, ...], list[Any]] = {}
    rows = read_rows(folder)
    items, _ = expand(join(read_prediction_lines(predictions), rows, folder_gate(folder)).items, rows)
    for s in items:
        groups.setdefault((s.model, s.config, str(s.row["stratum"]), s.condition), []).append(s)
    for (model, config, stratum, condition), members in sorted(groups.items()):
        head = {"model": model, "config": config, "stratum": stratum, "condition": condition}
        alone += metrics.group_metrics(head, members, 0, 20, False, None)
    figures = [{k: v for k, v in m.items() if k != "answer_format"} for m in report.metrics]
    assert plain_dumps(plain_finite_json(figures[: len(alone)])) == plain_dumps(plain_finite_json(alone))


def test_the_json_report_is_the_plain_dump_of_to_dict(tmp_path: Path) -> None:
    """The whole ``--json`` of a report with every kind of answer (strict, fenced, prose, free form, parsed fields,
    GUI, a NaN, a lone surrogate) is ``json.dumps`` of ``to_dict()``, as it was written before."""
    folder = _write_folder(tmp_path)
    extra = [
        {
            "model": "m2",
            "example_id": "a/r1",
            "condition": "image_only",
            "response": '{"point": [NaN, 2], "p": "\ud800"}',
        },
    ]
    predictions = tmp_path / "p.jsonl"
    lines = [{"model": "m", **p} for p in PREDICTIONS] + extra
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = score_file(predictions, folder=folder, resamples=20)
    write_outputs(report, ScoreOutputs(json=tmp_path / "s.json"))
    expected = plain_dumps(report.to_dict()) + "\n"
    assert (tmp_path / "s.json").read_bytes() == expected.encode("utf-8", "backslashreplace")
    assert len(report.predictions) == len(PREDICTIONS) + 1


# --- branch scorecpu: the fast paths added there, against the plain code -------------------------------


@pytest.mark.parametrize("spread", ["normal", "rounded", "clusters", "far"])
def test_the_bounded_best_constant_is_the_one_every_candidate_counted_finds(
    spread: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Candidates whose binned bound cannot reach the best are left out: the same counts and the same winner
    (ties included: the first candidate of the best counts), as counting every candidate with hypot."""
    monkeypatch.setattr(localization, "PRUNE_PAIRS", 0)
    rng = np.random.default_rng(len(spread))
    for trial in range(6):
        targets = rng.normal(0.0, 0.2, size=(int(rng.integers(80, 400)), 2))
        if spread == "rounded":
            targets = np.round(targets * 16) / 16  # coincident targets: exact ties between candidates
        elif spread == "clusters":
            targets = np.concatenate([targets[:40] * 0.05 + 0.3, targets[40:] * 0.05 - 0.3])
        tau = float(np.median(np.hypot(*(targets - targets.mean(axis=0)).T))) * (0.5 + trial / 4)
        points = np.concatenate([localization._grid_candidates(targets), targets + 1e-12])
        if spread == "far":
            points = np.concatenate([points, rng.normal(0, 5.0, (200, 2)), [[np.nan, 0.0], [np.inf, 1.0]]])
        fast, plain = localization._count_best(points, targets, tau), plain_count_best(points, targets, tau)
        assert fast[0] == plain[0] and fast[1].tolist() == plain[1].tolist(), (spread, trial)
        bounds = localization._cover_bounds(points, targets, tau + localization.EPS)
        assert bounds is not None
        counts = [plain_count_best(p[None, :], targets, tau)[0][0] for p in points[:: max(1, len(points) // 300)]]
        assert all(b >= c for b, c in zip(bounds[:: max(1, len(points) // 300)], counts, strict=True))


FLAT_RECORDS: list[Any] = [
    {"a": 1, "b": [1.5, -0.0, 1e16], "c": {"d": [None, True, False, "x\n\u2028"], "e": {}}, "f": [], "g": math.nan},
    {"record": {"point": [[1, 2], [3, [4.5]]], "box": [{"k": math.inf}]}, "n": 12345678901234567890},
    {"t": (1, 2), "m": _Proxy({"z": 1}), "s": "\ud800"},  # a tuple and a mapping: the general walk
    {1: "a", 2: [2.5]},
    [1, {"a": [math.nan]}],
    {},
    "plain",
]


@pytest.mark.parametrize("value", FLAT_RECORDS)
def test_a_flat_record_is_written_as_the_general_walk_writes_it(value: Any) -> None:
    from groundbench.core.jsonindent import dumps_flat_object

    for indent in (1, 2):
        assert dumps_flat_object(value, indent, finite=True) == dumps_indented(value, indent, finite=True)
    try:
        expected = dumps_indented(value)
    except (ValueError, TypeError) as exc:
        with pytest.raises(type(exc)):
            dumps_flat_object(value)
    else:
        assert dumps_flat_object(value) == expected


def test_the_masks_runs_read_off_arrow_buffers_are_to_numpys() -> None:
    import pyarrow as pa

    from groundbench.loaders import records

    runs = pa.array([[1, 2, 3], None, [], [4], None, [5, 6]], type=pa.list_(pa.int64()))
    for array in (runs, runs.slice(1), runs.slice(3, 2)):
        assert records._null_flags(array).tolist() == array.is_null().to_pylist()
        lengths = np.where(records._null_flags(array), 0, records._int_view(array.value_lengths()))
        assert lengths.tolist() == array.value_lengths().fill_null(0).to_pylist()
        assert records._int_view(array.flatten()).tolist() == array.flatten().to_pylist()
    for kind in (pa.int8(), pa.uint16(), pa.int32(), pa.uint64()):
        values = pa.array([0, 1, 7, 100], type=kind).slice(1)
        assert records._int_view(values).tolist() == [1, 7, 100]
    assert records._int_view(pa.array([], type=pa.int64())).tolist() == []
    view = records._int_view(pa.array([1, 2], type=pa.int64()))
    assert view.dtype == np.int64 and not view.flags.writeable


def test_seen_keys_answer_as_a_set_of_key_tuples() -> None:
    from groundbench.scoring.seen import SeenKeys

    rng = random.Random(4)
    ids = [f"r{i}" for i in range(37)]
    seen, plain = SeenKeys(ids[:20]), set()  # ids beyond the numbered ones are numbered when added
    for _ in range(300):
        key = (rng.choice(["m", "n", "o"]), rng.choice(ids), rng.choice(["a", "b"]))
        assert (key in seen) == (key in plain)
        seen.add(key)
        plain.add(key)
        assert len(seen) == len(plain)
    assert seen == plain and set(seen) == plain and sorted(seen) == sorted(plain)
    assert ("m", "nope", "a") not in seen and ("m", 3, "a") not in seen and "m" not in seen


def _region_point(rng: random.Random) -> Any:
    """None, a point anywhere near the rows' boxes, or one on a pixel's edge."""
    k = rng.random()
    if k < 0.1:
        return None
    if k < 0.5:
        return (rng.randint(-1, 42) + rng.choice([0.0, 0.5, -1e-9]), rng.uniform(-2, 42))
    x = rng.randint(-1, 42) + rng.choice([0.0, 0.999, 0.5])
    return (x, rng.randint(-2, 40) + rng.choice([0.0, 0.25]) if rng.random() < 0.5 else int(x))


@pytest.mark.parametrize("chunk", [7, 4096])
def test_target_regions_answer_as_in_target_region_row_by_row(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Masks, boxes (edges included), rows without a target part, points on pixel edges and outside, None; the
    masks' ends summed a few masks at a time or all at once."""
    from groundbench.scoring import regions as regions_module
    from groundbench.scoring.regions import TargetRegions

    monkeypatch.setattr(regions_module, "CHUNK", chunk)
    rng = random.Random(9)
    rows = [_region_row(rng, i) for i in range(400)]
    regions = TargetRegions(rows)
    assert regions.exact
    for _ in range(20):
        points = [_region_point(rng) for _ in rows]
        expected = [localization.in_target_region(r, p) for r, p in zip(rows, points, strict=True)]
        assert regions.contains(points) == expected
    # what numpy would not read as math does is left to in_target_region, which raises as it did
    masked = next(r for r in rows if r["parts"] and "mask_rle" in r["parts"][0])
    with pytest.raises(ValueError, match="NaN"):
        TargetRegions([masked]).contains([(math.nan, 1.0)])
    bad = _region_row(random.Random(1), 0)
    bad["parts"][0].update(mask_rle=[-1, 5], visible_bbox_xyxy=[0, 0, 2, 2])
    assert not TargetRegions([bad]).exact
    assert TargetRegions([bad]).contains([(0.5, 0.5)]) == [localization.in_target_region(bad, (0.5, 0.5))]


# --- the best constant in the target boxes: a numpy sweep against the plain one it replaced ---------------


def plain_best_stab(intervals: list[tuple[float, float]]) -> tuple[int, float | None]:
    events = sorted([(lo, 0) for lo, _ in intervals] + [(hi, 1) for _, hi in intervals])
    best, where, current = 0, None, 0
    for index, (value, kind) in enumerate(events):
        current += 1 if kind == 0 else -1
        if kind == 0 and current > best:
            following = events[index + 1][0] if index + 1 < len(events) else value
            best, where = current, (value + following) / 2.0 if following > value else value
    return best, where


def plain_best_in_boxes(rows: list[dict[str, Any]]) -> tuple[float, float] | None:
    boxes = [b for b in (localization.target_box_offsets(r) for r in rows) if b is not None]
    best, where = 0, None
    for x in localization._between([v for b in boxes for v in (b[0], b[2])]):
        count, y = plain_best_stab([(b[1], b[3]) for b in boxes if b[0] <= x <= b[2]])
        if count > best and y is not None:
            best, where = count, (x, y)
    return where


@pytest.mark.parametrize("spread", ["normal", "grid", "nested", "thin", "one"])
def test_the_box_sweep_finds_the_plain_sweeps_point(spread: str) -> None:
    """The same winning (x, y) to the bit, ties included: the first x of the most boxes, and at it the first y
    where the count peaks (boxes sharing edges, nested boxes, zero-width and zero-height boxes, rows without a
    target, and more candidate x values than one chunk)."""
    rng = random.Random(spread)
    for trial in range(4):
        rows: list[dict[str, Any]] = []
        for i in range(1 if spread == "one" else rng.randint(20, 260)):
            x, y = rng.uniform(0, 600), rng.uniform(0, 800)
            w, h = rng.uniform(0, 80), rng.uniform(0, 80)
            if spread == "grid":
                x, y, w, h = (round(v / 40) * 40 for v in (x, y, w, h))
            elif spread == "nested":
                x, y, w, h = 300 - i, 400 - i, 2 * i, 2 * i
            elif spread == "thin":
                w, h = (0.0, h) if i % 2 else (w, 0.0)
            box = [x + w, y + h, x, y] if i % 3 == 0 else [x, y, x + w, y + h]  # corners in either order
            parts = [] if i % 17 == 5 else [{"part_id": "t", "point_xy": [x, y], "bbox_xyxy": box}]
            rows.append(
                {"example_id": f"r{i}", "width": 600 + trial, "height": 800, "target_part_id": "t", "parts": parts}
            )
        assert localization._best_in_boxes(rows) == plain_best_in_boxes(rows), (spread, trial)
    assert localization._best_in_boxes([]) is None


# --- branch scorefast: the fast paths added there, against the plain code ------------------------------


def test_recent_values_are_keyed_by_identity_and_extra_and_bounded() -> None:
    from groundbench.scoring.recent import RecentByIdentity

    recent: RecentByIdentity[str] = RecentByIdentity(size=3)
    calls: list[str] = []

    def compute(text: str) -> Any:
        return lambda: calls.append(text) or text

    a, b = [1.0], [1]  # equal, yet written differently: never one entry
    assert a == b
    assert recent.get(a, "x", compute("a")) == "a" and recent.get(b, "x", compute("b")) == "b"
    assert recent.get(a, "x", compute("again")) == "a" and recent.get(a, "y", compute("a-y")) == "a-y"
    assert calls == ["a", "b", "a-y"] and len(recent) == 3
    c = [2]
    recent.get(c, None, compute("c"))  # the oldest (a, "x") is dropped first
    assert len(recent) == 3 and recent.get(a, "x", compute("a2")) == "a2" and calls[-1] == "a2"


def test_recent_values_weighed_stay_within_their_budget() -> None:
    from groundbench.scoring.recent import RecentByIdentity

    recent: RecentByIdentity[str] = RecentByIdentity(size=100, weight=len, budget=10)
    keys = [[i] for i in range(6)]
    for i, key in enumerate(keys):
        assert recent.get(key, None, lambda i=i: "x" * (i + 3)) == "x" * (i + 3)
        assert recent.total == sum(len(v[1]) for v in recent._values.values()) <= max(10, i + 3)
    assert recent.get(keys[5], None, lambda: "other") == "x" * 8  # the newest is kept
    heavy = [9]
    assert recent.get(heavy, None, lambda: "y" * 50) == "y" * 50 and len(recent) == 1 and recent.total == 50


def plain_kept(line: Mapping[str, Any], answer: Any, spec: str) -> dict[str, Any]:
    """The report's record of a line as ``_kept`` made it, before its text was remembered per answer."""
    from groundbench.scoring.parse import FREE_TEXT

    record = answer.record if answer.status != FREE_TEXT else None
    return {
        "model": line["model"],
        "example_id": line["example_id"],
        "condition": line["condition"],
        "response": line.get("response"),
        "parse": answer.status,
        "part": answer.part,
        "action": answer.action,
        "action_raw": answer.action_raw,
        "point": None if answer.point is None else list(answer.point),
        "box": None if answer.box is None else list(answer.box),
        "numbers_from_strings": answer.from_strings,
        "record": None if record is None else plain_finite_json(dict(record)),
        "answer_format": spec,
    }


def test_kept_records_of_answers_repeated_far_apart_are_each_lines_own(tmp_path: Path) -> None:
    """Lines sharing answers (the same response under other rows, models and conditions, free-form texts
    repeated, parsed fields, a NaN), shuffled so repeats are not neighbours, with the runs remembered for one
    answer only or for many: each kept record is the plain dump of the line's own record."""
    from groundbench.scoring import predictions
    from groundbench.scoring.formats import DEFAULT, parse_format
    from groundbench.scoring.parse import FREE_TEXT, Answer

    folder = _write_folder(tmp_path)
    rows = read_rows(folder)
    responses = [p["response"] for p in PREDICTIONS if "response" in p] + ['{"point": [NaN, 2], "action": "pull"}']
    rng = random.Random(5)
    lines = [{**p, "model": m} for m in ("m1", "m2", "m3") for p in PREDICTIONS]
    for m in ("m4", "m5"):  # every row answered with another row's (and condition's) response
        lines += [{**p, "model": m, "response": rng.choice(responses)} for p in PREDICTIONS if "response" in p]
    rng.shuffle(lines)
    fmt = parse_format(DEFAULT)
    expected = []
    for line in lines:
        config, row = rows[line["example_id"]]
        answer = predictions.answer_of(line, line["condition"], row, False, fmt)
        expected.append(plain_dumps(plain_finite_json(plain_kept(line, answer, fmt.spec))))
    for size, budget in ((1, None), (2, None), (1024, None), (1024, 300), (1024, 1)):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(predictions.RecentByIdentity, "__init__", _sized_recent(size, budget))
            joined = join(iter([(f"line {i}", line) for i, line in enumerate(lines)]), rows, folder_gate(folder))
        assert list(joined.kept.texts()) == expected
        by_key = {(line["model"], line["example_id"], line["condition"]): line for line in lines}
        assert len(joined.items) == len(lines)
        for item in joined.items:  # read back group by group
            line = by_key[(item.model, item.row["example_id"], item.condition)]
            config, row = rows[line["example_id"]]
            plain = predictions.answer_of(line, line["condition"], row, False, fmt)
            assert item.answer == plain and item.row is row
            assert item.answer.record is None or predictions.base_condition(item.condition) == "gui"
    free = [s.answer for s in joined.items if s.answer.status == FREE_TEXT]
    assert free and all(a == Answer(status=FREE_TEXT, text=a.text) for a in free)
    by_text = {a.text: a for a in free}
    assert all(a is by_text[a.text] for a in free)  # one object per recent text


def _sized_recent(size: int, budget: int | None = None) -> Any:
    """RecentByIdentity's __init__ with ``size`` (and ``budget``, where the caller weighs its values) forced."""
    from groundbench.scoring.recent import RecentByIdentity

    original = RecentByIdentity.__init__
    forced_size, forced_budget = size, budget

    def init(self: Any, size: int = 1024, weight: Any = None, budget: int = 0) -> None:
        original(self, forced_size, weight, budget if forced_budget is None or weight is None else forced_budget)

    return init


def test_seen_keys_add_new_says_whether_the_key_was_new() -> None:
    from groundbench.scoring.seen import SeenKeys

    rng = random.Random(6)
    ids = [f"r{i}" for i in range(23)]
    seen, plain = SeenKeys(ids[:10]), set()
    for _ in range(200):
        key = (rng.choice(["m", "n"]), rng.choice(ids), rng.choice(["a", "b", "c"]))
        assert seen.add_new(key) == (key not in plain)
        plain.add(key)
        assert len(seen) == len(plain) and key in seen
    assert set(seen) == plain


def plain_loo_blind_estimate(rows: list[dict[str, Any]], keys: tuple[str, ...]) -> tuple[int, int]:
    """The held-out lookup as it was: each row's guess from its own Counter subtraction."""
    from collections import Counter, defaultdict

    levels = baselines.backoff_levels(keys)
    by_key: list[dict[Any, Counter[str]]] = [defaultdict(Counter) for _ in levels]
    by_object: dict[str, list[tuple[list[Any], str]]] = defaultdict(list)
    for row in rows:
        own_keys, action = [baselines.text_key(row, level) for level in levels], row["target_action"]
        for table, key in zip(by_key, own_keys, strict=True):
            table[key][action] += 1
        by_object[str(row["object_id"])].append((own_keys, action))
    overall: Counter[str] = Counter(row["target_action"] for row in rows)
    correct = 0
    for members in by_object.values():
        own = Counter(action for _, action in members)
        own_by_key: list[dict[Any, Counter[str]]] = [defaultdict(Counter) for _ in levels]
        for row_keys, action in members:
            for table, key in zip(own_by_key, row_keys, strict=True):
                table[key][action] += 1
        fallback = baselines._majority_of(overall - own)
        for row_keys, action in members:
            guess = fallback
            for level, key in enumerate(row_keys):
                others = by_key[level][key] - own_by_key[level][key]
                if others:
                    guess = baselines._majority_of(others)
                    break
            correct += guess == action
    return correct, len(rows)


@pytest.mark.parametrize("keys", [(), ("object_category",), ("target_part_id", "target_category")])
def test_the_held_out_lookup_guessing_once_per_object_and_key_is_the_plain_one(keys: tuple[str, ...]) -> None:
    """Objects with few and many rows, keys shared within and across objects, tied majorities."""
    from groundbench.scoring.baselines import loo_blind_estimate

    for seed in range(6):
        rng = random.Random(seed)
        rows = []
        for _ in range(rng.choice([5, 40, 120])):
            category = rng.choice(["door", "knob", "lid"])
            rows.append(
                {
                    "object_id": f"o{rng.randint(0, 6)}",
                    "object_category": rng.choice(["cup", "box"]),
                    "target_part_id": f"{category}{rng.randint(0, 2)}",
                    "target_action": rng.choice(["pull", "push", "rotate"]),
                    "parts": [{"part_id": f"{category}{j}", "category": category} for j in range(3)],
                }
            )
        assert loo_blind_estimate(rows, keys) == plain_loo_blind_estimate(rows, keys)


def test_the_best_region_offset_is_the_best_constant_in_regions() -> None:
    """The offset found without counting is the one the counted search returns (masks, boxes, both)."""
    rng = random.Random(7)
    for n in (1, 9, 60):
        rows = [_region_row(rng, i) for i in range(n)]
        assert localization.best_region_offset(rows) == localization.best_constant_in_region(rows)[1]
    boxes = [r for r in (_region_row(rng, i) for i in range(80)) if r["parts"] and "mask_rle" not in r["parts"][0]]
    assert localization.best_region_offset(boxes) == localization.best_constant_in_region(boxes)[1]


def test_target_regions_read_points_of_every_shape_as_row_by_row() -> None:
    """Pairs of floats, of ints, mixed, longer lists and booleans (the one-by-one check), None: the same answers."""
    from groundbench.scoring.regions import TargetRegions

    rng = random.Random(11)
    rows = [_region_row(rng, i) for i in range(60)]
    regions = TargetRegions(rows)
    shapes = [
        lambda x, y: (float(x), float(y)),
        lambda x, y: (int(x), int(y)),
        lambda x, y: [x, y, 7.0],
        lambda x, y: (True, y),
        lambda x, y: None,
    ]
    for shape in shapes:
        for mixed in (False, True):
            points = [(rng.choice(shapes) if mixed else shape)(rng.uniform(-1, 40), rng.uniform(-1, 40)) for _ in rows]
            expected = [localization.in_target_region(r, p) for r, p in zip(rows, points, strict=True)]
            assert regions.contains(points) == expected


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',
        '{"a": [1, 2.5, "x"], "b": {"c": null}}',
        '{"a": 1} ',
        ' {"a": 1}',
        '{"a": 1}{"b": 2}',
        '{"a": 1} x',
        '{"a": }',
        '{"a": NaN, "b": -Infinity}',
        '{"a": "\\ud800"}',
        "\ufeff{}",
        "[1, 2]",
        '"text"',
        "{",
        "}",
        "",
        "  ",
        '{"a": 1, "a": 2}',
    ],
)
def test_a_line_is_loaded_as_json_loads_loads_it(text: str) -> None:
    from groundbench.scoring.predictions import _loads

    try:
        expected: Any = json.loads(text)
    except ValueError as exc:
        with pytest.raises(type(exc)) as raised:
            _loads(text)
        assert str(raised.value) == str(exc)
    else:
        got = _loads(text)
        assert json.dumps(got) == json.dumps(expected) and type(got) is type(expected)


def test_gate_values_compared_once_say_what_each_line_says(tmp_path: Path) -> None:
    """Lines carrying gate values right, wrong, as strings and not (1 and True, 0.0 and -0.0, a list), each
    mismatch said as the plain comparison says it, whichever line came first."""
    from groundbench.scoring.formats import DEFAULT, parse_format
    from groundbench.scoring.gate import line_gate_fields, mismatches
    from groundbench.scoring.predictions import Context, _gate_mismatches

    folder = _write_folder(tmp_path)
    rows, gate = read_rows(folder), folder_gate(folder)
    version = gate.dataset_version
    values = [version, "9.9", 1, True, 0.0, -0.0, [version], None]
    rng = random.Random(3)
    context = Context(rows, gate, False, True, parse_format(DEFAULT))
    for _ in range(200):
        line = {"dataset_version": rng.choice(values), "template_sha256": rng.choice(["t", "u"])}
        if rng.random() < 0.3:
            line["image_sha256"] = rng.choice(["x", 1])
        config, row = rows[rng.choice(sorted(rows))]
        carried = line_gate_fields(line)
        expected = mismatches(carried, gate, config, "t", str(row["image_sha256"])) if carried else []
        assert _gate_mismatches(carried, context, config, "t", row) == expected
    assert context.compared  # some were remembered


def plain_target_distance(location: Any, row: dict[str, Any]) -> float | None:
    """The distance as it was computed row by row before the targets were read once per row list."""
    target = baselines.target_point(row["parts"], row["target_part_id"])
    if location is None or target is None:
        return None
    return math.hypot(location[0] - target[0], location[1] - target[1]) / math.hypot(row["width"], row["height"])


def test_distances_to_targets_read_once_are_target_distances() -> None:
    from groundbench.scoring.parse import STRICT, Answer

    rng = random.Random(12)
    for i in range(300):
        w, h = rng.randint(1, 4000), rng.randint(1, 4000)
        point = None if rng.random() < 0.1 else [rng.uniform(0, w), rng.randint(0, h)]
        row = {
            "width": w,
            "height": h,
            "target_part_id": "t",
            "parts": [{"part_id": rng.choice(["t", "u"]), "point_xy": point}],
        }
        location = None if rng.random() < 0.1 else (rng.uniform(-10, w + 10), float(rng.randint(0, h)))
        answer = Answer(status=STRICT, point=location)
        plain = plain_target_distance(answer.location, row)
        assert metrics._distance_to(answer.location, metrics._target_of(row)) == plain, i
        assert metrics.target_distance(answer, row) == plain, i


def test_score_collects_rarely_while_scoring_and_as_before_after(tmp_path: Path) -> None:
    """The collector's thresholds are raised while a score runs (also when it fails) and restored after."""
    import gc

    from groundbench.core.collector import THRESHOLDS, rare_collections
    from groundbench.scoring import api

    folder = _write_folder(tmp_path)
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps({"model": "m", **p}) + "\n" for p in PREDICTIONS))
    before = gc.get_threshold()
    seen: list[tuple[int, ...]] = []
    original = api.join

    def noting(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.get_threshold())
        return original(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(api, "join", noting)
        score_file(predictions, folder=folder, resamples=5)
        assert seen == [THRESHOLDS] and gc.get_threshold() == before
        predictions.write_text("not json\n")
        with pytest.raises(GroundBenchError):
            score_file(predictions, folder=folder, resamples=5)
        assert gc.get_threshold() == before
    with rare_collections():
        assert gc.get_threshold() == THRESHOLDS
    assert gc.get_threshold() == before

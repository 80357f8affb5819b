"""Fuzz every UMD and GUI parser and feed them hostile inputs; write the reliability table from this run.

The only outcomes allowed are a parsed value (or a row with a documented exclusion tag) or the
project's one error type naming file, field and reason. Anything else fails the test. The table in
docs/reliability.md is written by the last test of this module from what the campaigns recorded.
"""

from __future__ import annotations

import copy
import importlib
import io
import json
import os
import pickle
import re
import shutil
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import defusedxml.ElementTree as SafeET
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.internal.conjecture import providers
from hypothesis.internal.constants_ast import Constants

from groundbench.converters.gapartnet.annotations import (
    parse_id_list,
    parse_link_annotations,
    parse_meta,
    parse_semantics,
)
from groundbench.converters.gapartnet.layout import LINK_ANNOTATION, META, SEMANTICS, URDF, find_objects, find_views
from groundbench.converters.gapartnet.records import Task, convert_object
from groundbench.converters.gapartnet.render_cli import render_object
from groundbench.converters.gapartnet.safepickle import safe_load
from groundbench.converters.gapartnet.urdf import parse_urdf
from groundbench.converters.gapartnet.views import (
    npz_bytes,
    parse_bbox_pickle,
    parse_depth,
    parse_metafile,
    parse_segmentation,
)
from groundbench.converters.gui.convert import convert_pointerbench, convert_screenspot
from groundbench.converters.umd.audit import read_audit
from groundbench.converters.umd.labels import parse_label, parse_rank
from groundbench.converters.umd.layout import list_frames
from groundbench.converters.umd.splits import parse_fold_file, parse_split_file
from groundbench.core.errors import GroundBenchError
from groundbench.core.images import inspect_image
from groundbench.core.params import load_params
from groundbench.core.shards import read_table
from groundbench.samples.gapartnet import write_sample as write_gapartnet_sample
from groundbench.samples.umd import SAMPLE_TOOLS, draw_labels, mat_bytes
from groundbench.schemas.rules import validate_table
from groundbench.schemas.vocab import EXCLUSION_TAGS
from groundbench.scoring.baselines import bake_row_baselines
from tests.conftest import REPO, SHARED

FUZZ_CAMPAIGNS = 12  # the test_fuzz_* functions below (7 UMD, 5 GUI)
EXAMPLES = 60  # per campaign; derandomized so the table is the same on every run
SHAPE = (480, 640)
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    # Generation only: shrinking, explaining and targeting adapt to timing, which would make the
    # generated table differ between runs.
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(autouse=True, scope="module")
def _no_local_constants() -> Iterator[None]:
    """Generate from Hypothesis' global constant pool only.

    Hypothesis also mixes in literals of every local module imported so far, so the examples (and
    the table) would differ between ``pytest tests/test_hardening.py`` and ``make test``, whose
    workers collect every test file and so import more modules.
    """
    saved = providers._get_local_constants
    providers._get_local_constants = Constants  # an empty pool, whatever was imported
    providers.CONSTANTS_CACHE.cache.clear()
    yield
    providers._get_local_constants = saved
    providers.CONSTANTS_CACHE.cache.clear()


@dataclass
class Campaign:
    source: str
    input_class: str
    outcomes: Counter[str] = field(default_factory=Counter)
    first_error: str = ""


CAMPAIGNS: dict[str, Campaign] = {}


def _record(
    source: str, input_class: str, run: Callable[[], object], portable: Callable[[str], str] | None = None
) -> None:
    """Run one case; a string result names the outcome (e.g. a row kept with an exclusion tag)."""
    campaign = CAMPAIGNS.setdefault(input_class, Campaign(source, input_class))
    try:
        result = run()
    except GroundBenchError as exc:
        campaign.outcomes["refused: GroundBenchError"] += 1
        campaign.first_error = campaign.first_error or (portable or _portable)(str(exc))
        assert exc.path and exc.field and exc.reason
        return
    campaign.outcomes[result if isinstance(result, str) else "parsed"] += 1


def _portable(message: str) -> str:
    """The message without this run's temporary folders, so the generated table is reproducible."""
    return re.sub(r"(/[^\s:/]+)+/(?=[^/\s:]+:)", "", message)


def _mutate(seed: bytes, flips: list[tuple[int, int]], cut: int | None) -> bytes:
    data = bytearray(seed)
    for position, value in flips:
        if data:
            data[position % len(data)] = value
    return bytes(data[:cut] if cut is not None else data)


def mutations(seeds: list[bytes]) -> st.SearchStrategy[bytes]:
    """Real bytes with a few bytes overwritten and/or cut short, plus plain random bytes."""
    flips = st.lists(st.tuples(st.integers(0, 1 << 30), st.integers(0, 255)), max_size=8)
    cut = st.one_of(st.none(), st.integers(0, max(len(s) for s in seeds)))
    mutated = st.builds(_mutate, st.sampled_from(seeds), flips, cut)
    return st.one_of(mutated, st.binary(max_size=2048))


def _labels() -> np.ndarray:
    return draw_labels(SAMPLE_TOOLS[3], 1)  # mug_01 frame 1: grasp, contain, wrap-grasp


LABEL_SEEDS = [mat_bytes({"gt_label": _labels(), "gt_type": "manual"}), mat_bytes({"gt_label": _labels()})]
RANK_SEED = mat_bytes({"gt_label": np.repeat(_labels()[..., None], 7, axis=2)})


@FUZZ
@given(mutations(LABEL_SEEDS))
def test_fuzz_label_mat(data: bytes) -> None:
    _record("umd", "UMD *_label.mat", lambda: parse_label(data, "x_label.mat", SHAPE))


@FUZZ
@given(mutations([RANK_SEED]))
def test_fuzz_label_rank_mat(data: bytes) -> None:
    _record("umd", "UMD *_label_rank.mat", lambda: parse_rank(data, "x_label_rank.mat", SHAPE))


def _jpeg_seeds(umd_sample: Path) -> list[bytes]:
    frames = sorted((umd_sample / "part-affordance-dataset/tools/mug_01").glob("*_rgb.jpg"))[:2]
    depth = sorted((umd_sample / "part-affordance-dataset/tools/mug_01").glob("*_depth.png"))[:1]
    return [p.read_bytes() for p in frames + depth]


def test_fuzz_image_files(umd_sample: Path) -> None:
    seeds = _jpeg_seeds(umd_sample)

    @FUZZ
    @given(mutations(seeds))
    def run(data: bytes) -> None:
        _record("all", "image files (JPEG/PNG)", lambda: inspect_image(data, "x_rgb.jpg"))

    run()


SPLIT_LINES = ["1 bowl_01", "2 mug_12", "17 turner_08", "1 spoon_10"]
FOLD_LINES = ["folds: 0 0 1 0 0 0 0 0 0 0    object: bowl_01", "folds: 1 0 0 0 0 0 0 0 0 1    object: mug_20"]


def _text_files(lines: list[str]) -> st.SearchStrategy[bytes]:
    real = st.lists(st.sampled_from(lines), max_size=6).map(lambda ls: ("\n".join(ls) + "\n").encode())
    return st.one_of(mutations([("\n".join(lines) + "\n").encode()]), real, st.text(max_size=200).map(str.encode))


def test_fuzz_split_files(tmp_path: Path) -> None:
    path = tmp_path / "category_split.txt"

    @FUZZ
    @given(_text_files(SPLIT_LINES))
    def run(data: bytes) -> None:
        path.write_bytes(data)
        _record("umd", "UMD split files (<code> <tool>)", lambda: parse_split_file(path, {"1": "train", "2": "test"}))

    run()


def test_fuzz_fold_file(tmp_path: Path) -> None:
    path = tmp_path / "category_10_fold.txt"

    @FUZZ
    @given(_text_files(FOLD_LINES))
    def run(data: bytes) -> None:
        path.write_bytes(data)
        _record("umd", "UMD category_10_fold.txt", lambda: parse_fold_file(path))

    run()


NAME_PARTS = ["mug_01", "_00000001", "_rgb.jpg", "_label.mat", "_depth.png", "_label_rank.mat", "x", "_", "0", "."]


def test_fuzz_frame_file_names(tmp_path: Path) -> None:
    counter = iter(range(1 << 30))

    @FUZZ
    @given(
        st.lists(
            st.one_of(
                st.lists(st.sampled_from(NAME_PARTS), min_size=1, max_size=5).map("".join),
                st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789.", min_size=1, max_size=30),
            ),
            min_size=1,
            max_size=4,
            unique=True,
        )
    )
    def run(names: list[str]) -> None:
        tool = tmp_path / f"case{next(counter)}" / "mug_01"
        tool.mkdir(parents=True)
        for name in names:
            if name not in (".", ".."):
                (tool / name).write_bytes(b"")
        _record("umd", "UMD frame file names", lambda: list_frames(tool.parent, tool))

    run()


def test_fuzz_audit_file(tmp_path: Path) -> None:
    path = tmp_path / "curated_umd.yaml"
    seed = b"frame_rule: hand_labelled\ntools:\n  - tool: mug_01\n    frame: 4\n  - tool: hammer_01\n"

    @FUZZ
    @given(st.one_of(mutations([seed]), st.text(max_size=120).map(str.encode)))
    def run(data: bytes) -> None:
        path.write_bytes(data)
        _record("umd", "curated_umd audit YAML", lambda: read_audit(path))

    run()


# GAPartNet: every parser of the converter, then whole objects through convert_object. Seeds are the
# real files in ../shared/fixtures/real/gapartnet where present plus the embedded sample (the only
# source of render files: the fixtures hold no renders), so the campaigns also run without ../shared.

FUZZ_CAMPAIGNS += 10  # the test_fuzz_gapartnet_* functions below
GAPARTNET_REAL = SHARED / "fixtures" / "real" / "gapartnet"
GAPARTNET_OBJECT = "900001"  # two doors, two fixed handles, two views: the richest cheap object
GAPARTNET_VIEW = "StorageFurniture_900001_00_000"
GAPARTNET_MAX_BYTES = 64_000_000 * 8  # what convert_object allows a segmentation member


@pytest.fixture(scope="module")
def gapartnet_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded GAPartNet sample at a quarter of its size (seeds only; about a second)."""
    root = tmp_path_factory.mktemp("gapartnet_sample") / "gapartnet"
    write_gapartnet_sample(root, width=160, height=120)
    return root


def _gapartnet_seeds(sample: Path, name: str) -> list[bytes]:
    real = sorted(GAPARTNET_REAL.glob(f"*/{name}")) if GAPARTNET_REAL.is_dir() else []
    own = sorted((sample / "assets").glob(f"*/{name}"))[:2]
    return [p.read_bytes() for p in [*real, *own]]


def _render_seed(sample: Path, kind: str, suffix: str) -> bytes:
    return (sample / "renders" / kind / f"{GAPARTNET_VIEW}{suffix}").read_bytes()


HOSTILE_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 40),
    st.sampled_from([10**400, -(10**400), 2**31 - 1, 2**63, -(2**63) - 1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.lists(st.integers(-2, 2), max_size=9),
    st.lists(st.lists(st.floats(-2, 2), min_size=3, max_size=3), min_size=8, max_size=8),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def _paths(value: object, prefix: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Every place in a JSON-like document (dicts and lists; arrays count as leaves)."""
    found = [prefix]
    if isinstance(value, dict):
        for key in sorted(value, key=repr):
            found += _paths(value[key], (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


@st.composite
def _document_edit(draw: st.DrawFn, document: object, keys: st.SearchStrategy[object]) -> object:
    """``document`` with one value replaced, one key dropped or one key renamed, anywhere in it."""
    document = copy.deepcopy(document)
    path = draw(st.sampled_from(_paths(document)))
    if not path:
        return draw(HOSTILE_VALUES)
    parent: Any = document
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    action = draw(st.sampled_from(["replace", "replace", "drop", "rename"]))
    if action == "replace" or isinstance(parent, list):
        parent[last] = draw(HOSTILE_VALUES)
    elif action == "drop":
        del parent[last]
    else:
        parent[draw(keys)] = parent.pop(last)
    return document


def json_edits(seeds: list[bytes]) -> st.SearchStrategy[bytes]:
    """Real JSON with one value made hostile (10**400, NaN, wrong types, ...), re-serialised as JSON does."""
    documents = [json.loads(seed) for seed in seeds]
    return (
        st.sampled_from(documents)
        .flatmap(lambda d: _document_edit(d, st.text(max_size=4)))
        .map(lambda d: json.dumps(d).encode())
    )


URDF_VALUES = st.one_of(
    st.sampled_from(
        ["nan 0 0", "inf 0 0", "1e999 0 0", "0 0 0", "1e300 1e300 1e300", "1 2", "a b c", "", "base", "link_0"]
    ),
    st.sampled_from(["revolute", "prismatic", "continuous", "fixed", "planar", "-inf", "nan", "1e308"]),
    st.text(max_size=8),
)


@st.composite
def urdf_edits(draw: st.DrawFn, seeds: list[bytes]) -> bytes:
    """A real URDF with one attribute set to a hostile value, one element dropped or one duplicated."""
    robot = SafeET.fromstring(draw(st.sampled_from(seeds)))
    parents = {child: parent for parent in robot.iter() for child in parent}
    element = draw(st.sampled_from(list(robot.iter())))
    action = draw(st.sampled_from(["set", "set", "drop", "duplicate"]))
    if action == "set" or element is robot:
        names = sorted({*element.attrib, "xyz", "rpy", "name", "link", "type", "lower", "upper", "filename"})
        element.set(draw(st.sampled_from(names)), draw(URDF_VALUES))
    elif action == "drop":
        parents[element].remove(element)
    else:
        parents[element].append(copy.deepcopy(element))
    return ElementTree.tostring(robot)


def _fuzz_text(seeds: list[bytes]) -> st.SearchStrategy[bytes]:
    lines = sorted({line for seed in seeds for line in seed.decode().splitlines() if line})
    real = st.lists(st.sampled_from(lines), max_size=6).map(lambda ls: ("\n".join(ls) + "\n").encode())
    words = st.lists(st.text(max_size=6), max_size=4).map(lambda ws: (" ".join(ws) + "\n").encode())
    return st.one_of(mutations(seeds), real, words)


def test_fuzz_gapartnet_link_annotation(gapartnet_sample: Path) -> None:
    seeds = _gapartnet_seeds(gapartnet_sample, LINK_ANNOTATION)

    @FUZZ
    @given(st.one_of(mutations(seeds), json_edits(seeds)))
    def run(data: bytes) -> None:
        _record("gapartnet", f"GAPartNet {LINK_ANNOTATION}", lambda: parse_link_annotations(data, LINK_ANNOTATION))

    run()


def test_fuzz_gapartnet_urdf(gapartnet_sample: Path) -> None:
    seeds = _gapartnet_seeds(gapartnet_sample, URDF)

    @FUZZ
    @given(st.one_of(mutations(seeds), urdf_edits(seeds)))
    def run(data: bytes) -> None:
        _record("gapartnet", f"GAPartNet {URDF}", lambda: parse_urdf(data, URDF))

    run()


def test_fuzz_gapartnet_semantics(gapartnet_sample: Path) -> None:
    seeds = _gapartnet_seeds(gapartnet_sample, SEMANTICS)

    @FUZZ
    @given(_fuzz_text(seeds))
    def run(data: bytes) -> None:
        _record("gapartnet", f"GAPartNet {SEMANTICS}", lambda: parse_semantics(data, SEMANTICS))

    run()


def test_fuzz_gapartnet_meta(gapartnet_sample: Path) -> None:
    seeds = _gapartnet_seeds(gapartnet_sample, META)

    @FUZZ
    @given(st.one_of(mutations(seeds), json_edits(seeds)))
    def run(data: bytes) -> None:
        _record("gapartnet", f"GAPartNet {META}", lambda: parse_meta(data, META))

    run()


def test_fuzz_gapartnet_id_list(gapartnet_sample: Path) -> None:
    real = sorted(GAPARTNET_REAL.glob("meta/*_all_id_list.txt")) if GAPARTNET_REAL.is_dir() else []
    own = gapartnet_sample / "assets" / "meta" / "partnet_all_id_list.txt"
    seeds = [p.read_bytes()[:600] for p in [*real, own]]  # whole lines are resampled; the head is enough

    @FUZZ
    @given(_fuzz_text(seeds))
    def run(data: bytes) -> None:
        _record("gapartnet", "GAPartNet meta/*_all_id_list.txt", lambda: parse_id_list(data, "partnet_all_id_list.txt"))

    run()


def test_fuzz_gapartnet_metafile(gapartnet_sample: Path) -> None:
    seeds = [_render_seed(gapartnet_sample, "metafile", ".json")]

    @FUZZ
    @given(st.one_of(mutations(seeds), json_edits(seeds)))
    def run(data: bytes) -> None:
        _record("gapartnet", "GAPartNet metafile/*.json", lambda: parse_metafile(data, "metafile/x.json"))

    run()


NPZ_IDS = st.sampled_from([-3, -2, -1, 0, 1, 3, 7, 2**31 - 1, 2**32 - 1])
NPZ_DTYPES = st.sampled_from(["int8", "int32", "int64", "uint8", "uint64", "float32", "bool", "complex64"])


@st.composite
def npz_edits(draw: st.DrawFn, seed: bytes) -> bytes:
    """The real arrays with a patch of pixels set to a hostile id, a dtype change, a crop, a key dropped
    or an object array added; written with numpy's own writer (pickling object arrays, as an attacker would)."""
    with np.load(io.BytesIO(seed), allow_pickle=False) as archive:
        arrays: dict[str, np.ndarray] = {key: archive[key] for key in archive.files}
    key = draw(st.sampled_from(sorted(arrays)))
    array = arrays[key]
    action = draw(st.sampled_from(["patch", "patch", "dtype", "crop", "drop", "object"]))
    if action == "patch":
        patched = array.astype(np.int64) if array.dtype.kind in "iu" else array.copy()
        r, c = draw(st.integers(0, array.shape[0] - 1)), draw(st.integers(0, array.shape[1] - 1))
        patched[r : r + draw(st.integers(1, 40)), c : c + draw(st.integers(1, 40))] = draw(NPZ_IDS)
        arrays[key] = patched
    elif action == "dtype":
        arrays[key] = array.astype(draw(NPZ_DTYPES))
    elif action == "crop":
        arrays[key] = array[: draw(st.integers(0, array.shape[0])), : draw(st.integers(0, array.shape[1]))]
    elif action == "drop":
        del arrays[key]
    else:
        arrays[key] = np.array([{"os": "system"}, "x"], dtype=object)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    return buffer.getvalue()


def test_fuzz_gapartnet_segmentation(gapartnet_sample: Path) -> None:
    seed = _render_seed(gapartnet_sample, "segmentation", ".npz")

    @FUZZ
    @given(st.one_of(mutations([seed]), npz_edits(seed)))
    def run(data: bytes) -> None:
        _record(
            "gapartnet",
            "GAPartNet segmentation/*.npz",
            lambda: parse_segmentation(data, "segmentation/x.npz", (120, 160), GAPARTNET_MAX_BYTES),
        )

    run()


def test_fuzz_gapartnet_depth(gapartnet_sample: Path) -> None:
    seed = _render_seed(gapartnet_sample, "depth", ".npz")

    @FUZZ
    @given(st.one_of(mutations([seed]), npz_edits(seed)))
    def run(data: bytes) -> None:
        _record(
            "gapartnet",
            "GAPartNet depth/*.npz",
            lambda: parse_depth(data, "depth/x.npz", (120, 160), GAPARTNET_MAX_BYTES),
        )

    run()


PICKLE_VALUES = st.one_of(
    HOSTILE_VALUES,
    st.sampled_from(
        [np.int64(-5), np.uint64(2**64 - 1), np.float32("nan"), np.zeros((8, 3), np.complex64), np.zeros((8, 3), "U2")]
    ),
    st.just([[b"1"] * 3] * 8),
)


def pickle_edits(seed: bytes) -> st.SearchStrategy[bytes]:
    """The real bbox dict with one value or key made hostile, pickled by us (trusted) at protocol 2, 4 or 5."""
    document = safe_load(seed, "seed")
    keys = st.one_of(st.text(max_size=4), st.integers(-2, 2), st.just((1, 2)), st.none())
    edited = _document_edit(document, keys)
    return st.tuples(edited, st.sampled_from([2, 4, 5])).map(lambda dp: pickle.dumps(dp[0], protocol=dp[1]))


def test_fuzz_gapartnet_bbox_pickle(gapartnet_sample: Path) -> None:
    seed = _render_seed(gapartnet_sample, "bbox", ".pkl")
    seeds = [seed, pickle.dumps(safe_load(seed, "seed"), protocol=2)]

    @FUZZ
    @given(st.one_of(mutations(seeds), pickle_edits(seed)))
    def run(data: bytes) -> None:
        _record(
            "gapartnet", "GAPartNet bbox/*.pkl (restricted unpickler)", lambda: parse_bbox_pickle(data, "bbox/x.pkl")
        )

    run()


def _record_rows(source: str, input_class: str, run: Callable[[], list[dict[str, Any]]]) -> None:
    """``_record`` for a converter: rows carrying an exclusion tag are their own, documented outcome."""
    rows: list[dict[str, Any]] = []
    _record(source, input_class, lambda: rows.extend(run()))
    tags = sorted({tag for row in rows for tag in row["exclusion_tags"]})
    assert set(tags) <= set(EXCLUSION_TAGS), tags
    for row in rows:  # whatever was kept must still be sane: finite boxes inside the image
        for part in row["parts"]:
            x0, y0, x1, y1 = part["bbox_xyxy"]
            assert 0 <= x0 < x1 <= row["width"] and 0 <= y0 < y1 <= row["height"], (row["example_id"], part)
    if tags:
        outcomes = CAMPAIGNS[input_class].outcomes
        outcomes["parsed"] -= 1
        if not outcomes["parsed"]:
            del outcomes["parsed"]
        outcomes[f"rows with exclusion tag {', '.join(tags)}"] += 1


def test_fuzz_gapartnet_object(gapartnet_sample: Path, tmp_path: Path) -> None:
    """One file of one object (annotation, URDF, metafile, segmentation, bbox pickle) made hostile, then
    the whole object converted: rows, rows with a documented exclusion tag, or a GroundBenchError."""
    shutil.copytree(gapartnet_sample, tmp_path / "gapartnet")
    assets, renders = tmp_path / "gapartnet" / "assets", tmp_path / "gapartnet" / "renders"
    obj = next(o for o in find_objects(assets) if o.object_id == GAPARTNET_OBJECT)
    views = tuple(find_views(renders)[GAPARTNET_OBJECT])
    task = Task(assets, renders, obj, views, None, "audit.yaml", load_params(REPO).gapartnet)
    targets = {
        "annotation": assets / GAPARTNET_OBJECT / LINK_ANNOTATION,
        "urdf": assets / GAPARTNET_OBJECT / URDF,
        "metafile": renders / "metafile" / f"{GAPARTNET_VIEW}.json",
        "segmentation": renders / "segmentation" / f"{GAPARTNET_VIEW}.npz",
        "bbox": renders / "bbox" / f"{GAPARTNET_VIEW}.pkl",
    }
    originals = {name: path.read_bytes() for name, path in targets.items()}
    edits = st.one_of(
        st.tuples(st.just("annotation"), json_edits([originals["annotation"]])),
        st.tuples(st.just("urdf"), urdf_edits([originals["urdf"]])),
        st.tuples(st.just("metafile"), json_edits([originals["metafile"]])),
        st.tuples(st.just("segmentation"), npz_edits(originals["segmentation"])),
        st.tuples(st.just("bbox"), pickle_edits(originals["bbox"])),
    )

    @FUZZ
    @given(edits)
    def run(edit: tuple[str, bytes]) -> None:
        name, data = edit
        targets[name].write_bytes(data)
        try:
            _record_rows("gapartnet", "GAPartNet object (one file made hostile)", lambda: convert_object(task).bulk)
        finally:
            targets[name].write_bytes(originals[name])

    run()


# GAPartNet hostile inputs: one explicit case each, with the outcome it must have.

BILLION_LAUGHS = (
    b'<?xml version="1.0"?>\n<!DOCTYPE robot [\n <!ENTITY lol "lol">\n'
    + b"".join(
        f' <!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">\n'.encode() for i in range(1, 10)
    )
    + b']>\n<robot name="&lol9;"><link name="base"/></robot>\n'
)
EXTERNAL_ENTITY = (
    b'<?xml version="1.0"?>\n<!DOCTYPE robot [<!ENTITY secret SYSTEM "file:///etc/passwd">]>\n'
    b'<robot name="&secret;"><link name="base"/></robot>\n'
)


class _Reduce:
    """Pickles as ``call(*args)``: what a hostile ``bbox/*.pkl`` would run on a plain ``pickle.load``."""

    def __init__(self, call: Callable[..., object], *args: object) -> None:
        self.call, self.args = call, args

    def __reduce__(self) -> tuple[Callable[..., object], tuple[object, ...]]:
        return self.call, self.args


def _box_json(value: str) -> bytes:
    corners = ", ".join([f"[{value}, 0, 0]"] + ["[0, 0, 0]"] * 7)
    return f'[{{"link_name": "link_0", "is_gapart": true, "category": "hinge_door", "bbox": [{corners}]}}]'.encode()


def _metafile_with(sample: Path, key: str, number: str) -> bytes:
    """The sample metafile with the first entry of ``key`` written as ``number`` (JSON text, verbatim)."""
    raw = json.loads(_render_seed(sample, "metafile", ".json"))
    count = 3 if key == "camera2world_translation" else 9
    raw[key] = "@"
    return json.dumps(raw).replace('"@"', "[" + ", ".join([number] + ["0"] * (count - 1)) + "]").encode()


def _object_copy(sample: Path, tmp: Path) -> tuple[Path, Path]:
    shutil.copytree(sample, tmp / "gapartnet")
    return tmp / "gapartnet" / "assets", tmp / "gapartnet" / "renders"


def _convert_one(assets: Path, renders: Path, object_id: str = GAPARTNET_OBJECT) -> list[dict[str, Any]]:
    obj = next(o for o in find_objects(assets) if o.object_id == object_id)
    views = tuple(find_views(renders)[object_id])
    task = Task(assets, renders, obj, views, None, "audit.yaml", load_params(REPO).gapartnet)
    return convert_object(task).bulk


def _mesh_path_case(sample: Path, tmp: Path, how: str) -> object:
    """Render an object whose URDF mesh path leaves the object folder (``..``, absolute, or a symlink)."""
    assets, _ = _object_copy(sample, tmp)
    folder = assets / "900004"
    outside = tmp / "outside.obj"
    outside.write_bytes((folder / "textured_objs" / "link_0-0.obj").read_bytes())
    urdf = folder / URDF
    if how == "symlink":
        (folder / "textured_objs" / "link_0-0.obj").unlink()
        (folder / "textured_objs" / "link_0-0.obj").symlink_to(outside)
    else:
        target = "../../../outside.obj" if how == "dotdot" else str(outside)
        urdf.write_bytes(urdf.read_bytes().replace(b"textured_objs/link_0-0.obj", target.encode()))
    return render_object(folder, tmp / "out", [], 30.0, 60.0, 3.0, 32, 24)


def _outside_object_folder(sample: Path, tmp: Path) -> object:
    assets, _ = _object_copy(sample, tmp)
    shutil.move(assets / "900004", tmp / "900004")
    (assets / "900004").symlink_to(tmp / "900004")
    return find_objects(assets)


def _outside_annotation_file(sample: Path, tmp: Path) -> object:
    assets, _ = _object_copy(sample, tmp)
    shutil.move(assets / "900004" / LINK_ANNOTATION, tmp / LINK_ANNOTATION)
    (assets / "900004" / LINK_ANNOTATION).symlink_to(tmp / LINK_ANNOTATION)
    return find_objects(assets)


def _outside_render_file(sample: Path, tmp: Path) -> object:
    _, renders = _object_copy(sample, tmp)
    rgb = renders / "rgb" / f"{GAPARTNET_VIEW}.png"
    shutil.move(rgb, tmp / rgb.name)
    rgb.symlink_to(tmp / rgb.name)
    return find_views(renders)


def _patched_segmentation(sample: Path, tmp: Path, value: int) -> object:
    assets, renders = _object_copy(sample, tmp)
    path = renders / "segmentation" / f"{GAPARTNET_VIEW}.npz"
    with np.load(path, allow_pickle=False) as archive:
        arrays = {key: archive[key] for key in archive.files}
    arrays["instance_segmentation"][:10, :10] = value
    path.write_bytes(npz_bytes(arrays))
    return _convert_one(assets, renders)


def _huge_pickled_instance(sample: Path, tmp: Path) -> object:
    assets, renders = _object_copy(sample, tmp)
    path = renders / "bbox" / f"{GAPARTNET_VIEW}.pkl"
    raw = safe_load(path.read_bytes(), "seed")
    raw["bbox_pose_dict"]["link_2"]["instance_id"] = 10**30
    path.write_bytes(pickle.dumps(raw))
    return _convert_one(assets, renders)


def _object_array_npz() -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, semantic_segmentation=np.array([{"a": 1}], dtype=object), instance_segmentation=np.zeros(1))
    return buffer.getvalue()


def _latin1(text: str) -> bytes:
    return text.encode("latin-1")


REFUSED, PARSED = "refused: GroundBenchError", "parsed"
# name -> (required outcome, the case given the module's sample and a private temporary folder)
GAPARTNET_HOSTILE: dict[str, tuple[str, Callable[[Path, Path], object]]] = {
    "GAPartNet URDF with XML entity expansion (billion laughs)": (
        REFUSED,
        lambda s, t: parse_urdf(BILLION_LAUGHS, URDF),
    ),
    "GAPartNet URDF with an external entity (file:///etc/passwd)": (
        REFUSED,
        lambda s, t: parse_urdf(EXTERNAL_ENTITY, URDF),
    ),
    "GAPartNet URDF joint origin xyz='nan 0 0'": (
        REFUSED,
        lambda s, t: parse_urdf(
            _gapartnet_seeds(s, URDF)[-1].replace(b'<origin xyz="', b'<origin xyz="nan 0 0" a="', 1), URDF
        ),
    ),
    "GAPartNet bbox pickle whose reduce calls os.system": (
        REFUSED,
        lambda s, t: parse_bbox_pickle(pickle.dumps(_Reduce(os.system, f"touch {t}/pwned")), "bbox/x.pkl"),
    ),
    "GAPartNet bbox pickle (protocol 0) that imports an arbitrary module": (
        REFUSED,
        lambda s, t: parse_bbox_pickle(pickle.dumps(_Reduce(importlib.import_module, "this"), 0), "bbox/x.pkl"),
    ),
    "GAPartNet segmentation .npz with an object array": (
        REFUSED,
        lambda s, t: parse_segmentation(_object_array_npz(), "segmentation/x.npz", (1,), GAPARTNET_MAX_BYTES),
    ),
    "GAPartNet link annotation box with 1e999999": (
        REFUSED,
        lambda s, t: parse_link_annotations(_box_json("1e999999"), "a.json"),
    ),
    "GAPartNet link annotation box with 10**10000 as an int": (
        REFUSED,
        lambda s, t: parse_link_annotations(_box_json("1" + "0" * 10000), "a.json"),
    ),
    "GAPartNet link annotation box with 10**400 as an int": (
        REFUSED,
        lambda s, t: parse_link_annotations(_box_json("1" + "0" * 400), "a.json"),
    ),
    "GAPartNet link annotation box with NaN": (
        REFUSED,
        lambda s, t: parse_link_annotations(_box_json("NaN"), "a.json"),
    ),
    "GAPartNet link annotation box with Infinity": (
        REFUSED,
        lambda s, t: parse_link_annotations(_box_json("-Infinity"), "a.json"),
    ),
    "GAPartNet metafile camera with 1e999999": (
        REFUSED,
        lambda s, t: parse_metafile(_metafile_with(s, "camera_intrinsic", "1e999999"), "metafile/x.json"),
    ),
    "GAPartNet metafile camera with 10**10000 as an int": (
        REFUSED,
        lambda s, t: parse_metafile(_metafile_with(s, "camera_intrinsic", "1" + "0" * 10000), "metafile/x.json"),
    ),
    "GAPartNet metafile camera with 10**400 as an int": (
        REFUSED,
        lambda s, t: parse_metafile(_metafile_with(s, "world2camera_rotation", "1" + "0" * 400), "metafile/x.json"),
    ),
    "GAPartNet metafile camera with NaN": (
        REFUSED,
        lambda s, t: parse_metafile(_metafile_with(s, "camera2world_translation", "NaN"), "metafile/x.json"),
    ),
    "GAPartNet metafile camera with Infinity": (
        REFUSED,
        lambda s, t: parse_metafile(_metafile_with(s, "camera_intrinsic", "Infinity"), "metafile/x.json"),
    ),
    "GAPartNet link annotation JSON in Latin-1 (not UTF-8)": (
        REFUSED,
        lambda s, t: parse_link_annotations(_latin1('[{"link_name": "t\u00fcr"}]'), "a.json"),
    ),
    "GAPartNet metafile JSON in Latin-1 (not UTF-8)": (
        REFUSED,
        lambda s, t: parse_metafile(_latin1('{"category": "K\u00fchlschrank"}'), "metafile/x.json"),
    ),
    "GAPartNet semantics_gapartnet.txt in Latin-1 (not UTF-8)": (
        REFUSED,
        lambda s, t: parse_semantics(_latin1("link_0 hinge t\u00fcr\n"), SEMANTICS),
    ),
    "GAPartNet URDF mesh path with '..' (render)": (REFUSED, lambda s, t: _mesh_path_case(s, t, "dotdot")),
    "GAPartNet URDF mesh path absolute (render)": (REFUSED, lambda s, t: _mesh_path_case(s, t, "absolute")),
    "GAPartNet mesh file symlinked out of the object folder (render)": (
        REFUSED,
        lambda s, t: _mesh_path_case(s, t, "symlink"),
    ),
    "GAPartNet object folder symlinked from outside the assets root": (REFUSED, _outside_object_folder),
    "GAPartNet annotation file symlinked from outside the assets root": (REFUSED, _outside_annotation_file),
    "GAPartNet render file symlinked from outside the renders root": (REFUSED, _outside_render_file),
    "GAPartNet segmentation instance id 2**31-1 (no id-sized allocation)": (
        PARSED,
        lambda s, t: _patched_segmentation(s, t, 2**31 - 1),
    ),
    "GAPartNet bbox pickle instance_id 10**30 (no id-sized allocation)": (PARSED, _huge_pickled_instance),
}


@pytest.mark.parametrize("case", sorted(GAPARTNET_HOSTILE))
def test_gapartnet_hostile_input(case: str, gapartnet_sample: Path, tmp_path: Path) -> None:
    required, run = GAPARTNET_HOSTILE[case]
    modules = set(sys.modules)
    message = ""
    try:
        run(gapartnet_sample, tmp_path)
        outcome = PARSED
    except GroundBenchError as exc:
        assert exc.path and exc.field and exc.reason
        outcome, message = REFUSED, str(exc)
    assert outcome == required, (case, message)
    assert not (tmp_path / "pwned").exists() and "this" not in set(sys.modules) - modules  # nothing was run
    for prefix in sorted({str(tmp_path), os.path.realpath(tmp_path)}, key=len, reverse=True):
        message = message.replace(prefix, "<tmp>")
    CAMPAIGNS[f"hostile: {case}"] = Campaign("hostile", f"hostile: {case}", Counter({outcome: 1}), message)


# Hostile inputs: each is one explicit case with the outcome it must have.


def _bomb_png() -> bytes:
    import struct
    import zlib

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("L", (8, 8)).save(buffer, format="PNG")
    data = bytearray(buffer.getvalue())
    ihdr = data.index(b"IHDR")
    data[ihdr + 4 : ihdr + 12] = struct.pack(">II", 100_000, 100_000)
    data[ihdr + 17 : ihdr + 21] = struct.pack(">I", zlib.crc32(bytes(data[ihdr : ihdr + 17])))
    return bytes(data)


HOSTILE: dict[str, Callable[[], object]] = {
    "PNG decompression bomb (100000x100000 header)": lambda: inspect_image(_bomb_png(), "bomb.png"),
    "label map with NaN": lambda: parse_label(mat_bytes({"gt_label": np.full(SHAPE, np.nan)}), "nan_label.mat", SHAPE),
    "label map with inf": lambda: parse_label(mat_bytes({"gt_label": np.full(SHAPE, np.inf)}), "inf_label.mat", SHAPE),
    "label map of MATLAB cell/object type": lambda: parse_label(
        mat_bytes({"gt_label": np.array([["a", "b"]], dtype=object)}), "cell_label.mat", SHAPE
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_input_is_refused(case: str) -> None:
    with pytest.raises(GroundBenchError) as caught:
        HOSTILE[case]()
    campaign = CAMPAIGNS.setdefault(f"hostile: {case}", Campaign("hostile", f"hostile: {case}"))
    campaign.outcomes["refused: GroundBenchError"] += 1
    campaign.first_error = str(caught.value)


def test_split_file_in_non_utf8_text_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "novel_split.txt"
    path.write_bytes("1 bowl_01\n2 caf\u00e9_01\n".encode("latin-1"))
    with pytest.raises(GroundBenchError, match="expected ASCII"):
        parse_split_file(path)
    CAMPAIGNS["hostile: non-UTF-8 split file"] = Campaign(
        "hostile",
        "hostile: non-UTF-8 split file",
        Counter({"refused: GroundBenchError": 1}),
        "novel_split.txt: byte 16: expected ASCII text",
    )


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
    excluded = 0
    for config in counts:
        table = read_table(out / config)
        try:
            baked = [bake_row_baselines(b) for b in table.to_batches()]
            validate_table(table.from_batches(baked, schema=baked[0].schema if baked else table.schema), config)
        except GroundBenchError as exc:  # the converter wrote a row that bake would refuse: a bug
            raise AssertionError(f"converter wrote an invalid row: {exc}") from exc
        excluded += sum(table.column("excluded").to_pylist())
    return "parsed, rows kept excluded" if excluded else "parsed"


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


def test_zz_write_reliability_table() -> None:
    """Runs last in this module: writes docs/reliability.md from what the campaigns above recorded."""
    fuzz = [c for c in CAMPAIGNS.values() if not c.input_class.startswith("hostile")]
    if len(fuzz) < FUZZ_CAMPAIGNS:
        pytest.fail(f"only {len(fuzz)} of {FUZZ_CAMPAIGNS} campaigns ran; run the whole module to regenerate the table")
    lines = [
        "# Reliability: what the parsers were fed and what they did",
        "",
        "Generated by `tests/test_hardening.py` (`make reliability`); do not edit by hand. Each fuzz campaign",
        f"runs {EXAMPLES} derandomized hypothesis examples: mutations of real or sample bytes and random input.",
        "Allowed outcomes: parsed, a row with a documented exclusion tag, or `GroundBenchError` naming file,",
        "field and reason. Any other exception fails the suite. Build-fault and tamper tests: `tests/test_faults.py`,",
        "`tests/test_pipeline.py` (verify), `tests/test_dvc.py` (`dvc status`), `tests/test_umd_bad_input.py`,",
        "`tests/test_gui_real.py`. A GUI case converts a small source folder (mutated real fixture records from",
        "`tests/fixtures/gui`, blank screenshots of the recorded sizes) and validates every row it wrote as `bake`",
        "does; an invalid row written fails the suite like a crash.",
        "",
        "| source | input class | cases | outcomes | first error shown to the user |",
        "| --- | --- | ---: | --- | --- |",
    ]
    for campaign in sorted(CAMPAIGNS.values(), key=lambda c: (c.source, c.input_class)):
        outcomes = ", ".join(f"{name}: {count}" for name, count in sorted(campaign.outcomes.items()))
        message = campaign.first_error.replace("|", "\\|").replace("\n", " ")
        if len(message) > 160:
            message = message[:157] + "..."
        total = sum(campaign.outcomes.values())
        lines.append(f"| {campaign.source} | {campaign.input_class} | {total} | {outcomes} | `{message}` |")
    # `make reliability` refreshes the committed table; an ordinary test run writes beside it under
    # build/ so that `make test` leaves the work tree clean.
    target = REPO / ("docs" if os.environ.get("GROUNDBENCH_WRITE_RELIABILITY") else "build") / "reliability.md"
    target.parent.mkdir(exist_ok=True)
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")

"""Fuzz every GAPartNet parser and whole objects through convert_object; hostile GAPartNet inputs.

The only outcomes allowed are a parsed value (or a row with a documented exclusion tag) or the
project's one error type naming file, field and reason. Anything else fails the test. What the
campaigns record goes into docs/reliability.md (tests/support/reliability.py).
"""

from __future__ import annotations

import copy
import importlib
import io
import json
import os
import pickle
import shutil
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import defusedxml.ElementTree as SafeET
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

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
from groundbench.converters.gapartnet.sample import write_sample as write_gapartnet_sample
from groundbench.converters.gapartnet.urdf import parse_urdf
from groundbench.converters.gapartnet.views import (
    npz_bytes,
    parse_bbox_pickle,
    parse_depth,
    parse_metafile,
    parse_segmentation,
)
from groundbench.core.params import load_params
from groundbench.errors import GroundBenchError
from groundbench.schemas.vocab import EXCLUSION_TAGS
from tests.conftest import REPO, SHARED
from tests.support.reliability import CAMPAIGNS, FUZZ, Campaign, _record, mutations, same_constant_pool

same_constant_pool()  # before any campaign generates (tests/support/reliability.py)


# GAPartNet: every parser of the converter, then whole objects through convert_object. Seeds are the
# real files in ../shared/fixtures/real/gapartnet where present plus the embedded sample (the only
# source of render files: the fixtures hold no renders), so the campaigns also run without ../shared.

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

"""Instance ids without bbox pickles, on the real GAPartNet objects 45780 and 102442.

The real annotation files and URDFs (../shared/fixtures/real/gapartnet) come without their meshes,
so each link is given a box mesh: a GAPart its own annotated rest box, the body a box behind the
parts (from the object's bounding_box.json, cut back so the parts are not buried in it). The views
are rendered by our CPU renderer (``groundbench render``); the ground truth of which instance id is
which link is the renderer's own bbox pickle, written from its per-triangle segmentation. The
pickles are then removed and the converter must find every id by evidence alone.
"""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml

from groundbench.converters.gapartnet.annotations import parse_link_annotations
from groundbench.converters.gapartnet.convert import convert_gapartnet
from groundbench.converters.gapartnet.geometry import apply, link_transforms, rpy_matrix, transform
from groundbench.converters.gapartnet.instances import MASK_OVERLAP, assign_by_overlap
from groundbench.converters.gapartnet.layout import find_objects, find_views
from groundbench.converters.gapartnet.records import Task, analyse_view
from groundbench.converters.gapartnet.render_cli import render_object
from groundbench.converters.gapartnet.urdf import parse_urdf
from groundbench.core.params import load_params
from groundbench.core.shards import read_table
from groundbench.errors import GroundBenchError
from tests.conftest import REPO, SHARED, needs, shared_or_skip

PARAMS = load_params(REPO)
ONE_WORKER = PARAMS.gapartnet.model_copy(update={"workers": 1})

REAL = SHARED / "fixtures" / "real" / "gapartnet"
needs_real = needs(REAL)
FILES = ("link_annotation_gapartnet.json", "mobility_annotation_gapartnet.urdf", "semantics_gapartnet.txt", "meta.json")
# (theta, phi, distance, qpos) per view. 102442's cameras stay on the front side (GAPartNet's camera
# range for most categories, phi 120..240): its seven back-face buttons are never visible.
VIEWS = {
    "45780": [(60, 180, 3.2, ["joint_0=1.2"]), (50, 210, 3.6, []), (70, 150, 3.2, ["joint_1=0.9"])],
    "102442": [(45, 180, 3.0, []), (35, 220, 3.4, ["joint_9=0.01"]), (55, 150, 3.0, [])],
}
WIDTH, HEIGHT = 160, 120
QUADS = ((0, 1, 2, 3), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7))


def _box_corners(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """An axis-aligned box in GAPartNet's corner order (research notes 2.2)."""
    x0, y0, z0 = lo
    x1, y1, z1 = hi
    return np.array(
        [[x0, y1, z1], [x1, y1, z1], [x1, y0, z1], [x0, y0, z1], [x0, y1, z0], [x1, y1, z0], [x1, y0, z0], [x0, y0, z0]]
    )


def _obj(corners: np.ndarray) -> bytes:
    faces = [(a, b, c) for a, b, c, d in QUADS] + [(a, c, d) for a, b, c, d in QUADS]
    text = "".join(f"v {float(x)!r} {float(y)!r} {float(z)!r}\n" for x, y, z in corners)
    return (text + "".join(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in faces)).encode()


def _body_box(object_id: str, annotations: tuple) -> np.ndarray:
    """The body: the object's bounding box (world frame), cut back so the parts lie on its faces."""
    raw = json.loads((REAL / object_id / "bounding_box.json").read_text())
    mesh_lo, mesh_hi = np.array(raw["min"]), np.array(raw["max"])
    # world = (-z, -x, y) of the y-up mesh frame (PartNet's root joint)
    lo = np.array([-mesh_hi[2], -mesh_hi[0], mesh_lo[1]])
    hi = np.array([-mesh_lo[2], -mesh_lo[0], mesh_hi[1]])
    boxes = [a.bbox for a in annotations if a.is_gapart]
    if object_id == "45780":  # two doors on the front (-x): the body starts behind them
        lo[0] = max(
            b[:, 0].max()
            for a, b in zip([a for a in annotations if a.is_gapart], boxes, strict=True)
            if a.category == "hinge_door"
        )
    else:  # 102442: buttons on the back (+x) and on the top (+z)
        hi[0] = min(b[:, 0].min() for b in boxes if b[:, 0].min() > 0.1)
        hi[2] = min(b[:, 2].min() for b in boxes if b[:, 2].min() > 0.4)
    return _box_corners(lo, hi)


def _object_folder(object_id: str, assets: Path) -> None:
    """The real annotation files, with a box mesh at every visual the real URDF names."""
    folder = assets / object_id
    folder.mkdir(parents=True)
    for name in FILES:
        shutil.copy(REAL / object_id / name, folder / name)
    annotations = parse_link_annotations((folder / FILES[0]).read_bytes(), object_id)
    urdf = parse_urdf((folder / FILES[1]).read_bytes(), object_id)
    rest = link_transforms(urdf, {})
    world = {a.link_name: a.bbox for a in annotations if a.is_gapart}
    for a in annotations:
        if not a.is_gapart:
            world[a.link_name] = _body_box(object_id, annotations)
    for link, visuals in urdf.links.items():
        for visual in visuals:
            pose = rest[link] @ transform(rpy_matrix(visual.rpy), np.asarray(visual.xyz))
            local = apply(np.linalg.inv(pose), world[link]) / np.asarray(visual.scale)
            path = folder / visual.mesh
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(_obj(local))


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, dict[int, str]]]:
    """(assets, renders without pickles, the renderer's own instance id -> link per view)."""
    shared_or_skip(REAL)
    root = tmp_path_factory.mktemp("real_gapartnet")
    assets, renders = root / "assets", root / "renders"
    for object_id, views in VIEWS.items():
        _object_folder(object_id, assets)
        for index, (theta, phi, distance, qpos) in enumerate(views):
            render_object(assets / object_id, renders, qpos, theta, phi, distance, WIDTH, HEIGHT, render_idx=index)
    truth = {
        path.stem: {
            int(v["instance_id"]): link for link, v in pickle.loads(path.read_bytes())["bbox_pose_dict"].items()
        }
        for path in sorted((renders / "bbox").glob("*.pkl"))
    }
    shutil.rmtree(renders / "bbox")
    return assets, renders, truth


def _audit(tmp_path: Path, camera_target: str) -> Path:
    path = tmp_path / "audit.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "objects": [
                    {"object": "45780", "view": "StorageFurniture_45780_00_000", "target": "link_0"},
                    {"object": "102442", "view": "Camera_102442_00_000", "target": camera_target},
                ]
            }
        )
    )
    return path


@needs_real
def test_the_renders_hold_the_case_that_broke_order_based_ids(tree: tuple) -> None:
    """Visible camera buttons are only the top ones (link_7..link_11): id k is not the k-th GAPart."""
    _, _, truth = tree
    camera = {v: links for v, links in truth.items() if "102442" in v}
    assert len(camera) == 3
    for links in camera.values():
        assert set(links.values()) <= {f"link_{i}" for i in range(7, 12)} and len(links) >= 3
        assert any(link != f"link_{i}" for i, link in links.items())
    furniture = [links for v, links in truth.items() if "45780" in v]
    assert any(len(links) == 4 for links in furniture)  # doors and handles


@needs_real
def test_every_instance_id_is_assigned_to_the_right_link_without_pickles(tree: tuple) -> None:
    assets, renders, truth = tree
    views = find_views(renders)
    checked = 0
    for obj in find_objects(assets):
        urdf = parse_urdf((obj.path / FILES[1]).read_bytes(), obj.object_id)
        annotations = parse_link_annotations((obj.path / FILES[0]).read_bytes(), obj.object_id)
        task = Task(assets, renders, obj, tuple(views[obj.object_id]), None, "audit.yaml", PARAMS.gapartnet)
        for view in views[obj.object_id]:
            assert "bbox" not in view.files
            analysed = analyse_view(task, urdf, annotations, view)
            found = {p.instance_id: p.link for p in analysed.parts}
            assert found == truth[view.name], view.name
            assert analysed.unassigned == ()
            assert all(p.assignment == MASK_OVERLAP and not p.ambiguous for p in analysed.parts)
            checked += len(found)
    assert checked >= 20


@needs_real
def test_the_converter_and_its_audit_check_use_the_assignment(tree: tuple, tmp_path: Path) -> None:
    assets, renders, truth = tree
    out = tmp_path / "out"
    convert_gapartnet(assets, renders, out, _audit(tmp_path, "link_9"), ONE_WORKER, PARAMS.shards, progress=False)
    curated = {r["object_id"]: r for r in read_table(out / "curated_gapartnet").to_pylist()}
    assert set(curated) == {"45780", "102442"}
    camera = curated["102442"]
    assert camera["target_part_id"] == "link_9" and not camera["excluded"]
    for config in ("curated_gapartnet", "bulk_gapartnet"):
        for row in read_table(out / config).to_pylist():
            extras = row["extras"]["gapartnet"]
            for part in extras["parts"]:
                assert truth[extras["view_id"]][part["instance_id"]] == part["part_id"]
                assert part["instance_assignment"] == MASK_OVERLAP
    bulk = read_table(out / "bulk_gapartnet").to_pylist()
    assert {r["target_part_id"] for r in bulk if r["object_id"] == "102442"} == {f"link_{i}" for i in range(7, 12)}
    # the seven back buttons are counted as never visible, on every row of the object
    left = {p["part_id"]: p["reason"] for p in camera["extras"]["gapartnet"]["left_out"]}
    assert left == {f"link_{i}": "never_visible" for i in range(7)}
    # a never-visible part is refused as the curated target, naming the entry
    with pytest.raises(GroundBenchError, match=r"objects\[102442\].target: part link_0 not visible in Camera_102442"):
        convert_gapartnet(
            assets, renders, tmp_path / "o2", _audit(tmp_path, "link_0"), ONE_WORKER, PARAMS.shards, False
        )


def test_assignment_keeps_the_numbering_order_and_maximizes_overlap() -> None:
    """Two masks, three parts in annotation order; hand-placed boxes (pixel centres inside count)."""
    shape = (10, 20)

    def mask(c0: int, c1: int) -> tuple[np.ndarray, np.ndarray]:
        rows, cols = np.mgrid[2:6, c0:c1]
        return rows.ravel(), cols.ravel()

    masks = {0: mask(0, 4), 1: mask(12, 16)}  # 16 pixels each
    boxes = {"a": (0.0, 2.0, 4.0, 6.0), "b": (6.0, 2.0, 10.0, 6.0), "c": (12.0, 2.0, 16.0, 6.0)}
    result = assign_by_overlap(masks, boxes, shape, coverage_min=0.5, ambiguity_margin=0.05)
    assert {i: t.link for i, t in result.links.items()} == {0: "a", 1: "c"}  # not the 2nd part, b
    assert result.links[1].overlap == 1.0 and not result.links[1].ambiguous
    # a box that holds none of the mask leaves the mask unassigned when another part was possible
    far = {"a": (0.0, 2.0, 4.0, 6.0), "b": (6.0, 2.0, 10.0, 6.0), "c": (18.0, 2.0, 20.0, 6.0)}
    result = assign_by_overlap(masks, far, shape, coverage_min=0.5, ambiguity_margin=0.05)
    assert {i: t.link for i, t in result.links.items()} == {0: "a"} and result.unassigned == (1,)
    # two equally good parts for one mask: ambiguous
    twin = {"a": (0.0, 2.0, 4.0, 6.0), "b": (12.0, 2.0, 16.0, 6.0), "c": (12.0, 2.0, 16.0, 6.0)}
    result = assign_by_overlap(masks, twin, shape, coverage_min=0.5, ambiguity_margin=0.05)
    assert result.links[1].ambiguous and not result.links[0].ambiguous
    # every part visible: the ids are forced, whatever the boxes say (the wrong-frame case)
    nowhere = {"a": None, "b": None}
    result = assign_by_overlap(masks, nowhere, shape, coverage_min=0.5, ambiguity_margin=0.05)
    assert {i: t.link for i, t in result.links.items()} == {0: "a", 1: "b"}
    assert not any(t.ambiguous for t in result.links.values())

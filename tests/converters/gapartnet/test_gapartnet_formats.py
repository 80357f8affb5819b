"""GAPartNet parsers on the real fixtures (45780, 102442), hand-worked geometry, hostile inputs."""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from groundbench.converters.gapartnet.annotations import (
    parse_id_list,
    parse_link_annotations,
    parse_meta,
    parse_semantics,
)
from groundbench.converters.gapartnet.geometry import (
    Camera,
    axis_angle,
    link_transforms,
    mask_coverage,
    pose_corners,
    project,
    projected_box,
    to_camera,
)
from groundbench.converters.gapartnet.layout import find_objects
from groundbench.converters.gapartnet.mechanics import mechanics_of
from groundbench.converters.gapartnet.safepickle import safe_load
from groundbench.converters.gapartnet.urdf import parse_urdf
from groundbench.converters.gapartnet.views import load_npz, npz_bytes, parse_bbox_pickle, parse_metafile
from groundbench.core.geometry import mask_box
from groundbench.errors import GroundBenchError
from tests.conftest import SHARED, needs

REAL = SHARED / "fixtures" / "real" / "gapartnet"
needs_real = needs(REAL)


def _read(object_id: str, name: str) -> bytes:
    return (REAL / object_id / name).read_bytes()


@needs_real
def test_real_link_annotations_parse() -> None:
    links = parse_link_annotations(_read("45780", "link_annotation_gapartnet.json"), "45780")
    assert [(a.link_name, a.category) for a in links] == [
        ("link_0", "hinge_door"),
        ("link_1", "hinge_door"),
        ("link_2", ""),
        ("link_3", "line_fixed_handle"),
        ("link_4", "line_fixed_handle"),
    ]
    assert links[2].bbox is None and links[0].bbox is not None and links[0].bbox.shape == (8, 3)
    buttons = parse_link_annotations(_read("102442", "link_annotation_gapartnet.json"), "102442")
    assert sum(a.category == "slider_button" for a in buttons) == 12 and not buttons[12].is_gapart


@needs_real
def test_real_urdf_semantics_and_meta_parse() -> None:
    urdf = parse_urdf(_read("45780", "mobility_annotation_gapartnet.urdf"), "45780")
    assert urdf.root == "base"
    assert {j.name: (j.type, j.parent, j.child) for j in urdf.joints.values()} == {
        "joint_0": ("revolute", "link_2", "link_0"),
        "joint_1": ("revolute", "link_2", "link_1"),
        "joint_2": ("fixed", "base", "link_2"),
        "joint_3": ("fixed", "link_0", "link_3"),
        "joint_4": ("fixed", "link_1", "link_4"),
    }
    assert urdf.joints["joint_0"].limit == (0.0, pytest.approx(1.6399113651738721))
    assert urdf.links["link_3"][0].mesh == "textured_objs/original-48.obj"
    camera = parse_urdf(_read("102442", "mobility_annotation_gapartnet.urdf"), "102442")
    assert sum(j.type == "prismatic" for j in camera.joints.values()) == 12
    semantics = parse_semantics(_read("45780", "semantics_gapartnet.txt"), "45780")
    assert [(s.joint_word, s.label) for s in semantics][3] == ("fixed", "handle")
    assert parse_meta(_read("45780", "meta.json"), "meta") == "StorageFurniture"
    assert parse_meta(_read("102442", "meta.json"), "meta") == "Camera"
    ids = parse_id_list((REAL / "meta" / "partnet_all_id_list.txt").read_bytes(), "ids")
    assert ids["45780"] == "StorageFurniture" and ids["102442"] == "Camera" and len(ids) == 1045
    assert len(parse_id_list((REAL / "meta" / "akb48_all_id_list.txt").read_bytes(), "ids")) == 121


@needs_real
def test_real_layout_finds_both_objects_with_categories(tmp_path: Path) -> None:
    for object_id in ("45780", "102442"):
        shutil.copytree(REAL / object_id, tmp_path / object_id)
    found = find_objects(tmp_path)
    assert [(o.object_id, o.category, o.dataset) for o in found] == [
        ("102442", "Camera", "partnet"),
        ("45780", "StorageFurniture", "partnet"),
    ]


@needs_real
def test_real_door_poses_about_its_hinge_and_the_handle_follows() -> None:
    urdf = parse_urdf(_read("45780", "mobility_annotation_gapartnet.urdf"), "45780")
    links = {a.link_name: a for a in parse_link_annotations(_read("45780", "link_annotation_gapartnet.json"), "x")}
    rest, posed = link_transforms(urdf, {}), link_transforms(urdf, {"joint_0": 0.7})
    # Hand-worked: base->link_2 has rpy (pi/2, 0, -pi/2), i.e. world = (-z, -x, y) of the mesh frame;
    # joint_0's origin (-0.68494, -0.49714, 0.34570) in link_2 is world (-0.34570, 0.68494, -0.49714)
    # and its axis (0, -1, 0) is world (0, 0, -1): the door's own x edge (research section 2.3).
    mech = mechanics_of(urdf, "link_3", {"joint_0": 0.7}, posed)
    assert mech.joint == "joint_0" and mech.joint_type == "revolute" and mech.own_joint_type == "fixed"
    assert mech.moving_link == "link_0" and mech.qpos == 0.7
    np.testing.assert_allclose(mech.origin_world, (-0.3456953636447484, 0.6849369945283518, -0.4971410036087036))
    np.testing.assert_allclose(mech.axis_world, (0, 0, -1), atol=1e-12)
    door = links["link_0"].bbox
    assert door is not None
    np.testing.assert_allclose((door[1] - door[0]) / np.linalg.norm(door[1] - door[0]), (0, 0, -1), atol=1e-6)
    origin, axis = np.array(mech.origin_world), np.array(mech.axis_world)
    # GAPartNet's own rule: bbox = (bbox - origin) @ axangle(axis, q).T + origin
    expected = (door - origin) @ axis_angle(axis, 0.7).T + origin
    np.testing.assert_allclose(pose_corners(door, rest["link_0"], posed["link_0"]), expected, atol=1e-12)
    handle = links["link_3"].bbox
    assert handle is not None
    expected_handle = (handle - origin) @ axis_angle(axis, 0.7).T + origin
    np.testing.assert_allclose(pose_corners(handle, rest["link_3"], posed["link_3"]), expected_handle, atol=1e-12)
    # The other door and its handle stay put.
    np.testing.assert_allclose(
        pose_corners(links["link_1"].bbox, rest["link_1"], posed["link_1"]), links["link_1"].bbox
    )


@needs_real
def test_real_button_presses_along_its_world_axis() -> None:
    urdf = parse_urdf(_read("102442", "mobility_annotation_gapartnet.urdf"), "102442")
    links = {a.link_name: a for a in parse_link_annotations(_read("102442", "link_annotation_gapartnet.json"), "x")}
    posed = link_transforms(urdf, {"joint_0": 0.01})
    mech = mechanics_of(urdf, "link_0", {"joint_0": 0.01}, posed)
    assert mech.joint_type == "prismatic" and mech.own_joint_type == "prismatic"
    # axis (0, 0, 1) of link_12's frame is world (-1, 0, 0) (mesh z -> world -x); the bbox's +z
    # points out of the surface, against the press direction (research section 6)
    np.testing.assert_allclose(mech.axis_world, (-1, 0, 0), atol=1e-12)
    box = links["link_0"].bbox
    assert box is not None
    moved = pose_corners(box, link_transforms(urdf, {})["link_0"], posed["link_0"])
    np.testing.assert_allclose(moved - box, np.tile([-0.01, 0, 0], (8, 1)), atol=1e-12)
    z_hat = (box[0] - box[4]) / np.linalg.norm(box[0] - box[4])
    np.testing.assert_allclose(z_hat, -np.array(mech.axis_world), atol=1e-6)


def _camera() -> Camera:
    # Looking along world +x from (-2, 0, 0); image x = world -y, image y = world -z.
    rotation = np.array([[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]])
    return Camera(np.array([[100.0, 0, 50], [0, 100.0, 40], [0, 0, 1]]), rotation, np.array([-2.0, 0, 0]), 100, 80)


def test_projection_hand_worked_numbers() -> None:
    camera = _camera()
    cam = to_camera(camera, np.array([[0.0, 0.5, 0.2]]))
    np.testing.assert_allclose(cam, [[-0.5, -0.2, 2.0]])
    np.testing.assert_allclose(project(camera, cam), [[100 * -0.5 / 2 + 50, 100 * -0.2 / 2 + 40]])  # (25, 30)
    corners = np.array([[x, y, z] for x in (-0.1, 0.1) for y in (-0.2, 0.2) for z in (-0.1, 0.1)])
    # nearest face at depth 1.9: y +-0.2 -> u = 50 -+ 10.526..., z +-0.1 -> v = 40 -+ 5.263...
    box = projected_box(camera, corners)
    assert box is not None
    np.testing.assert_allclose(box, (50 - 20 / 1.9, 40 - 10 / 1.9, 50 + 20 / 1.9, 40 + 10 / 1.9))
    assert projected_box(camera, corners + [10, 0, 0]) is not None
    assert projected_box(camera, corners - [5, 0, 0]) is None  # behind the camera


def test_mask_box_and_coverage() -> None:
    mask = np.zeros((10, 10), bool)
    mask[2:5, 3:7] = True
    assert mask_box(mask) == (3.0, 2.0, 7.0, 5.0)
    assert mask_coverage(mask, (3.0, 2.0, 7.0, 5.0)) == 1.0
    assert mask_coverage(mask, (5.0, 2.0, 7.0, 5.0)) == 0.5
    assert mask_coverage(mask, (8.0, 8.0, 9.0, 9.0)) == 0.0


def test_metafile_camera_and_missing_keys() -> None:
    meta = {
        "model_id": 7,
        "category": "Box",
        "width": 100,
        "height": 80,
        "joint_qpos": {"joint_0": 0.5},
        "camera_intrinsic": [100.0, 0, 50, 0, 100.0, 40, 0, 0, 1],
        "world2camera_rotation": [0.0, 0, 1, -1, 0, 0, 0, -1, 0],
        "camera2world_translation": [-2.0, 0, 0],
        "unknown_key": "ignored",
    }
    view = parse_metafile(json.dumps(meta).encode(), "m.json")
    assert view.joint_qpos == {"joint_0": 0.5} and view.camera.fx == 100.0
    r_wc, t_wc = view.camera.world_to_camera()
    np.testing.assert_allclose(r_wc @ np.array([0.0, 0.5, 0.2]) + t_wc, [-0.5, -0.2, 2.0])
    del meta["camera2world_translation"]
    with pytest.raises(GroundBenchError, match="m.json: camera2world_translation: missing"):
        parse_metafile(json.dumps(meta).encode(), "m.json")


def test_link_annotation_errors_name_file_and_key() -> None:
    with pytest.raises(GroundBenchError, match=r"a.json: \[0\].bbox: missing required key"):
        parse_link_annotations(b'[{"link_name": "link_0", "is_gapart": true, "category": "hinge_door"}]', "a.json")
    with pytest.raises(GroundBenchError, match="unknown part class"):
        parse_link_annotations(b'[{"link_name": "l", "is_gapart": true, "category": "wing", "bbox": []}]', "a.json")
    extra = b'[{"link_name": "l", "is_gapart": false, "category": "", "bbox": [], "children": ["x"]}]'
    assert parse_link_annotations(extra, "a.json")[0].bbox is None


def test_urdf_refuses_entities_and_dangling_links() -> None:
    bomb = b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa">]><robot>&a;</robot>'
    with pytest.raises(GroundBenchError, match="u.urdf: file: expected safe"):
        parse_urdf(bomb, "u.urdf")
    dangling = (
        b'<robot><link name="a"/><joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint></robot>'
    )
    with pytest.raises(GroundBenchError, match="joint j: names unknown link 'b'"):
        parse_urdf(dangling, "u.urdf")


class _Evil:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, ("echo pwned",))


def test_a_malicious_pickle_is_refused() -> None:
    data = pickle.dumps({"bbox_pose_dict": {"link_0": _Evil()}})
    with pytest.raises(GroundBenchError, match=r"b.pkl: pickle: refused.*posix.system|b.pkl: pickle: refused.*system"):
        parse_bbox_pickle(data, "b.pkl")
    with pytest.raises(GroundBenchError, match="refused"):
        safe_load(pickle.dumps(np.array([{"a": 1}], dtype=object)), "b.pkl")


def test_a_real_shaped_bbox_pickle_loads() -> None:
    for dtype in (np.float32, np.float64):
        payload = {
            "bbox_pose_dict": {
                "link_0": {
                    "bbox": np.arange(24, dtype=dtype).reshape(8, 3),
                    "category_id": 3,
                    "instance_id": np.int64(0),
                    "pose_RTS_param": {"R": np.eye(3), "T": np.zeros(3), "S": np.ones(3), "scaler": 1.7},
                }
            }
        }
        for protocol in (2, 4, 5):
            parts = parse_bbox_pickle(pickle.dumps(payload, protocol=protocol), "b.pkl")
            assert parts["link_0"].instance_id == 0 and parts["link_0"].category_id == 3
            assert parts["link_0"].bbox[7, 2] == 23.0


def test_npz_round_trip_is_deterministic_and_refuses_pickles_and_bombs() -> None:
    arrays = {
        "semantic_segmentation": np.full((4, 5), -2, np.int32),
        "instance_segmentation": np.eye(4, 5, dtype=np.int32),
    }
    data = npz_bytes(arrays)
    assert data == npz_bytes(arrays)
    loaded = load_npz(data, "s.npz", ("semantic_segmentation", "instance_segmentation"), 10_000)
    np.testing.assert_array_equal(loaded["instance_segmentation"], arrays["instance_segmentation"])
    with pytest.raises(GroundBenchError, match="s.npz: depth_map: missing required array"):
        load_npz(data, "s.npz", ("depth_map",), 10_000)
    with pytest.raises(GroundBenchError, match="exceeds 10 "):
        load_npz(data, "s.npz", ("semantic_segmentation",), 10)
    buffer = io.BytesIO()
    np.savez(buffer, depth_map=np.array([{"x": 1}], dtype=object))
    with pytest.raises(GroundBenchError, match="without pickles"):
        load_npz(buffer.getvalue(), "d.npz", ("depth_map",), 10_000)
    with pytest.raises(GroundBenchError, match="without pickles"):
        load_npz(b"not a zip", "d.npz", ("depth_map",), 10_000)
    assert zipfile.ZipFile(io.BytesIO(data)).infolist()[0].date_time == (1980, 1, 1, 0, 0, 0)
    assert math.isfinite(1.0)

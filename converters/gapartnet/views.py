"""GAPartNet's render format, read and written.

``metafile/<name>.json`` (camera + ``joint_qpos``), ``segmentation/<name>.npz``
(``semantic_segmentation`` / ``instance_segmentation``, int32, -2 background, -1 object but not a
GAPart), ``depth/<name>.npz`` (``depth_map``), ``bbox/<name>.pkl`` (``bbox_pose_dict``, read only
through the restricted unpickler), ``rgb/<name>.png``.

``.npz`` files are opened with ``allow_pickle=False`` after checking each member's uncompressed
size (a zip bomb is refused before it is inflated). The writer fixes every zip timestamp so the
same arrays always give the same bytes (``np.savez_compressed`` stamps the current time).
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from typing import Any

import numpy as np

from groundbench.converters.gapartnet.geometry import Camera
from groundbench.converters.gapartnet.numbers import real_array, real_number
from groundbench.converters.gapartnet.safepickle import safe_load
from groundbench.core import exact
from groundbench.errors import GroundBenchError

ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
BACKGROUND = -2
NOT_A_PART = -1
INT32_MAX = int(np.iinfo(np.int32).max)


@dataclass(frozen=True)
class ViewMeta:
    width: int
    height: int
    joint_qpos: dict[str, float]
    camera: Camera
    model_id: str | None
    category: str | None
    camera_idx: int | None
    render_idx: int | None


def _number_list(raw: dict[str, Any], key: str, length: int, where: str) -> np.ndarray:
    if key not in raw:
        raise GroundBenchError(where, key, "missing required key")
    array = real_array(raw[key], where, key, f"{length} finite numbers").reshape(-1)
    if array.size != length:
        raise GroundBenchError(where, key, f"expected {length} finite numbers, got {array.size}")
    return array


def _int(raw: dict[str, Any], key: str, where: str, required: bool) -> int | None:
    value = raw.get(key)
    if value is None:
        if required:
            raise GroundBenchError(where, key, "missing required key")
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise GroundBenchError(where, key, f"expected a non-negative integer, got {value!r}")
    return value


def parse_metafile(data: bytes, where: str) -> ViewMeta:
    try:
        raw = json.loads(data.decode("utf-8"))
    # RecursionError: arrays nested deeper than Python's recursion limit.
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise GroundBenchError(where, "file", f"expected UTF-8 JSON ({exc})") from exc
    if not isinstance(raw, dict):
        raise GroundBenchError(where, "file", "expected a JSON object")
    width, height = _int(raw, "width", where, True), _int(raw, "height", where, True)
    assert width is not None and height is not None
    if width == 0 or height == 0:
        raise GroundBenchError(where, "width/height", "expected a non-empty image")
    qpos_raw = raw.get("joint_qpos")
    if not isinstance(qpos_raw, dict):
        raise GroundBenchError(where, "joint_qpos", "missing or not an object {joint_name: position}")
    qpos: dict[str, float] = {}
    for name, value in qpos_raw.items():
        qpos[str(name)] = real_number(value, where, f"joint_qpos.{name}")
    intrinsic = _number_list(raw, "camera_intrinsic", 9, where).reshape(3, 3)
    if intrinsic[0, 0] <= 0 or intrinsic[1, 1] <= 0:
        raise GroundBenchError(where, "camera_intrinsic", "expected positive focal lengths")
    rotation = _number_list(raw, "world2camera_rotation", 9, where).reshape(3, 3)
    if not np.allclose(exact.matmul(rotation, np.ascontiguousarray(rotation.T)), np.eye(3), atol=1e-4):
        raise GroundBenchError(where, "world2camera_rotation", "expected a rotation matrix (orthonormal rows)")
    position = _number_list(raw, "camera2world_translation", 3, where)
    model_id = raw.get("model_id")
    category = raw.get("category")
    return ViewMeta(
        width=width,
        height=height,
        joint_qpos=qpos,
        camera=Camera(intrinsic, rotation, position, width, height),
        model_id=None if model_id is None else str(model_id),
        category=category if isinstance(category, str) else None,
        camera_idx=_int(raw, "camera_idx", where, False),
        render_idx=_int(raw, "render_idx", where, False),
    )


def metafile_json(meta: dict[str, Any]) -> bytes:
    """The metafile as GAPartNet writes it (plain ``json.dump``), keys in a fixed order."""
    return json.dumps(meta).encode("utf-8")


def load_npz(data: bytes, where: str, keys: tuple[str, ...], max_bytes: int) -> dict[str, np.ndarray]:
    """The named arrays of an ``.npz``; no pickles, no member above ``max_bytes`` uncompressed."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                if info.file_size > max_bytes:
                    raise GroundBenchError(
                        where, info.filename, f"{info.file_size} bytes uncompressed exceeds {max_bytes} (refused)"
                    )
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            missing = [k for k in keys if k not in archive.files]
            if missing:
                raise GroundBenchError(where, missing[0], f"missing required array (file has {sorted(archive.files)})")
            return {key: archive[key] for key in keys}
    except GroundBenchError:
        raise
    except Exception as exc:  # BadZipFile, ValueError (pickled object arrays), OSError, ...
        raise GroundBenchError(where, "file", f"expected a .npz archive without pickles ({exc})") from exc


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """A compressed ``.npz`` whose bytes depend only on the arrays (fixed timestamps and order)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for key in sorted(arrays):
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(arrays[key]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=ZIP_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, member.getvalue(), compress_type=zipfile.ZIP_DEFLATED, compresslevel=6)
    return buffer.getvalue()


def parse_segmentation(
    data: bytes, where: str, shape: tuple[int, int], max_bytes: int
) -> tuple[np.ndarray, np.ndarray]:
    arrays = load_npz(data, where, ("semantic_segmentation", "instance_segmentation"), max_bytes)
    out = []
    for key in ("semantic_segmentation", "instance_segmentation"):
        array = arrays[key]
        if array.dtype.kind not in "iu":
            raise GroundBenchError(where, key, f"expected integer ids, got dtype {array.dtype}")
        if array.shape != shape:
            raise GroundBenchError(
                where, key, f"expected shape {shape} (the metafile's height x width), got {array.shape}"
            )
        if array.size and int(array.min()) < BACKGROUND:
            raise GroundBenchError(where, key, f"expected ids >= {BACKGROUND}, found {int(array.min())}")
        if array.size and int(array.max()) > INT32_MAX:  # would wrap around in the int32 cast below
            raise GroundBenchError(where, key, f"expected ids <= {INT32_MAX}, found {int(array.max())}")
        out.append(array.astype(np.int32, copy=False))
    return out[0], out[1]


def parse_depth(data: bytes, where: str, shape: tuple[int, int], max_bytes: int) -> np.ndarray:
    depth = load_npz(data, where, ("depth_map",), max_bytes)["depth_map"]
    if depth.dtype.kind != "f" or depth.shape != shape:
        raise GroundBenchError(where, "depth_map", f"expected float {shape}, got {depth.dtype} {depth.shape}")
    return depth


@dataclass(frozen=True)
class PosedPart:
    link_name: str
    instance_id: int
    category_id: int
    bbox: np.ndarray  # (8, 3) world corners at the rendered pose


def parse_bbox_pickle(data: bytes, where: str) -> dict[str, PosedPart]:
    """``{'bbox_pose_dict': {link: {'bbox', 'category_id', 'instance_id', ...}}}`` -> by link."""
    raw = safe_load(data, where)
    if not isinstance(raw, dict) or not isinstance(raw.get("bbox_pose_dict"), dict):
        raise GroundBenchError(where, "bbox_pose_dict", "missing required key (expected a dict by link name)")
    entries = raw["bbox_pose_dict"]
    for link in entries:  # checked before sorting: mixed key types cannot be sorted
        if not isinstance(link, str):
            raise GroundBenchError(where, "bbox_pose_dict", f"expected link names as keys, got {link!r:.40}")
    parts: dict[str, PosedPart] = {}
    for link, entry in sorted(entries.items()):
        field = f"bbox_pose_dict.{link}"
        if not isinstance(entry, dict):
            raise GroundBenchError(where, field, "expected a dict")
        for key in ("bbox", "category_id", "instance_id"):
            if key not in entry:
                raise GroundBenchError(where, f"{field}.{key}", "missing required key")
        bbox = real_array(entry["bbox"], where, f"{field}.bbox", "8 finite corners")
        if bbox.shape != (8, 3):
            raise GroundBenchError(where, f"{field}.bbox", f"expected 8 finite corners, got shape {bbox.shape}")
        ids = []
        for key in ("category_id", "instance_id"):
            value = entry[key]
            if isinstance(value, np.integer):
                value = int(value)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise GroundBenchError(where, f"{field}.{key}", f"expected a non-negative integer, got {value!r}")
            ids.append(value)
        parts[str(link)] = PosedPart(str(link), ids[1], ids[0], bbox)
    return parts

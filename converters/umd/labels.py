"""Read UMD ``*_label.mat`` / ``*_label_rank.mat`` (MATLAB v5, variable ``gt_label``)."""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
import scipy.io

from groundbench.errors import GroundBenchError

MAX_LABEL = 7
RANK_CHANNELS = 7


@dataclass(frozen=True)
class LabelMap:
    labels: np.ndarray  # (H, W) uint8, 0 background, 1..7 affordance ids
    gt_type: str | None  # "manual" / "automatic" when the file says so


def _loadmat(data: bytes, where: str, names: list[str]) -> dict[str, object]:
    try:
        return scipy.io.loadmat(io.BytesIO(data), variable_names=names)  # type: ignore[no-any-return]
    except Exception as exc:  # scipy raises many types on a corrupt or non-MAT file
        raise GroundBenchError(where, "file", f"expected a MATLAB v5 .mat file ({type(exc).__name__}: {exc})") from exc


def _integer_array(value: object, where: str) -> np.ndarray:
    array = np.asarray(value)
    if array.dtype.kind not in "uib" and not (
        array.dtype.kind == "f" and np.all(np.isfinite(array)) and np.all(array == np.round(array))
    ):
        raise GroundBenchError(where, "gt_label", f"expected integer values, got dtype {array.dtype}")
    return array


def parse_label(data: bytes, where: str, shape: tuple[int, int]) -> LabelMap:
    """``gt_label`` as uint8 (H, W) with values 0..7, plus ``gt_type`` when present."""
    variables = _loadmat(data, where, ["gt_label", "gt_type"])
    if "gt_label" not in variables:
        raise GroundBenchError(where, "gt_label", "variable missing; expected a (H, W) label map")
    labels = _integer_array(variables["gt_label"], where)
    if labels.ndim == 3 and labels.shape[2] == 1:
        labels = labels[:, :, 0]
    if labels.shape != shape:
        raise GroundBenchError(where, "gt_label", f"expected shape {shape} (the RGB frame's), got {labels.shape}")
    if labels.size and (labels.min() < 0 or labels.max() > MAX_LABEL):
        raise GroundBenchError(
            where, "gt_label", f"expected values 0..{MAX_LABEL}, found {int(labels.min())}..{int(labels.max())}"
        )
    gt_type = None
    if "gt_type" in variables:
        raw = np.asarray(variables["gt_type"]).ravel()
        text = "".join(str(x) for x in raw).strip().lower()
        if text not in ("manual", "automatic"):
            raise GroundBenchError(where, "gt_type", f"expected 'manual' or 'automatic', got {text!r}")
        gt_type = text
    return LabelMap(labels=labels.astype(np.uint8, copy=False), gt_type=gt_type)


def parse_rank(data: bytes, where: str, shape: tuple[int, int]) -> np.ndarray:
    """``gt_label`` of a rank file: (H, W, 7) uint8, channel k-1 = rank of affordance k (1 best, 9 n/a)."""
    variables = _loadmat(data, where, ["gt_label"])
    if "gt_label" not in variables:
        raise GroundBenchError(where, "gt_label", "variable missing; expected a (H, W, 7) rank map")
    ranks = _integer_array(variables["gt_label"], where)
    if ranks.shape != (*shape, RANK_CHANNELS):
        raise GroundBenchError(where, "gt_label", f"expected shape {(*shape, RANK_CHANNELS)}, got {ranks.shape}")
    if ranks.size and (ranks.min() < 0 or ranks.max() > 9):
        raise GroundBenchError(where, "gt_label", "expected ranks 0..9")
    return ranks.astype(np.uint8, copy=False)

"""groundbench.masks: a part's mask in the image frame from the row's own run-length fields, and COCO RLE.

On every row of the default build the decoder's mask has exactly ``mask_area`` pixels and ``visible_bbox_xyxy``
as its tight box; the card's four-line numpy snippet gives the same pixels; COCO RLE round-trips through
pycocotools (a development dependency, used only here) and through our own decoder.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from pycocotools import mask as coco

from groundbench import masks
from groundbench.errors import GroundBenchError
from groundbench.loaders.published import published_configs, read_config, row_columns
from groundbench.schemas.baselines_features import BASELINES_CONFIG


def _tight_box(mask: np.ndarray) -> list[float] | None:
    rows, cols = np.nonzero(mask)
    if not rows.size:
        return None
    return [float(cols.min()), float(rows.min()), float(cols.max() + 1), float(rows.max() + 1)]


@pytest.mark.parametrize("seed", range(12))
def test_coco_rle_round_trips_through_pycocotools(seed: int) -> None:
    rng = np.random.default_rng(seed)
    height, width = (int(v) for v in rng.integers(1, 80, 2))
    frame = rng.random((height, width)) < rng.random()
    if seed == 0:
        frame[:] = False  # an empty mask
    if seed == 1:
        frame[:] = True  # the first pixel inside: a 0-run of length 0 opens the counts
    ours = masks.encode_coco(frame)
    reference = coco.encode(np.asfortranarray(frame.astype(np.uint8)))
    assert ours == {"size": [height, width], "counts": reference["counts"].decode("ascii")}
    assert np.array_equal(coco.decode(ours).astype(bool), frame)
    assert int(coco.area(ours)) == int(frame.sum())
    assert np.array_equal(masks.decode_coco(ours), frame)
    assert np.array_equal(masks.decode_coco(masks.encode_coco(frame, compressed=False)), frame)
    assert np.array_equal(masks.decode_coco(reference), frame)


def test_a_part_without_a_mask_or_outside_its_frame() -> None:
    assert masks.decode({"part_id": "p", "mask_rle": None, "visible_bbox_xyxy": None}, 4, 4) is None
    part = {"part_id": "p", "mask_rle": [0, 4], "visible_bbox_xyxy": [3.0, 3.0, 5.0, 5.0]}
    with pytest.raises(GroundBenchError, match=r"part p: parts.visible_bbox_xyxy: expected a box inside 4x4"):
        masks.decode(part, 4, 4)
    with pytest.raises(GroundBenchError, match="expected runs adding up to 2x2, got 3"):
        masks.decode_coco({"size": [2, 2], "counts": [1, 2]})


def _card_snippet(folder: Path) -> str:
    card = (folder / "README.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"```python\n(import numpy as np\n.*?)```", card, re.S)
    assert len(code.strip().splitlines()) == 4  # the card promises four lines
    return code


@pytest.mark.slow  # the whole default build (tests/support/dvcrepo.py)
def test_decoder_equals_mask_area_and_visible_box_on_every_row_of_the_default_build() -> None:
    from tests.support.dvcrepo import default_repo

    folder = default_repo() / "data/groundbench"
    snippet = _card_snippet(folder)
    parts_checked = configs_with_masks = 0
    for config in published_configs(folder):
        if config == BASELINES_CONFIG:
            continue
        rows = read_config(folder, config, row_columns(folder, config)).to_pylist()
        before = parts_checked
        for row in rows:
            for index, part in enumerate(row["parts"]):
                frame = masks.decode(part, row["height"], row["width"])
                if part["mask_rle"] is None:
                    assert frame is None and part["mask_area"] in (None, 0)
                    continue
                assert frame is not None and frame.shape == (row["height"], row["width"])
                assert int(frame.sum()) == part["mask_area"], (row["example_id"], part["part_id"])
                assert _tight_box(frame) == part["visible_bbox_xyxy"], (row["example_id"], part["part_id"])
                rle = masks.coco_rle(part, row["height"], row["width"])
                assert rle is not None and np.array_equal(coco.decode(rle).astype(bool), frame)
                if index == 0:  # the card's numpy lines, run on this row's first part
                    scope: dict = {"row": row}
                    exec(snippet, scope)  # noqa: S102 - our own card's code block
                    assert np.array_equal(scope["mask"], frame)
                parts_checked += 1
            if row["target_part_id"] is not None:
                target = masks.row_mask(row)
                part = next(p for p in row["parts"] if p["part_id"] == row["target_part_id"])
                assert (target is None) == (part["mask_rle"] is None)
        configs_with_masks += parts_checked > before
    # UMD (curated, bulk) and GAPartNet (curated, bulk, counterfactual, contrast) rows carry masks; GUI rows none.
    assert configs_with_masks == 6 and parts_checked > 500

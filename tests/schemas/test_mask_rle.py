"""parts.mask_rle (schemas/mask_rle.py): run lengths over the visible box, round trip and point membership."""

from __future__ import annotations

import numpy as np
import pytest

from groundbench.errors import GroundBenchError
from groundbench.schemas import mask_rle


def test_l_shape_by_hand() -> None:
    # Rows of the 4 x 4 crop: 1000 / 1000 / 1000 / 1111 -> runs 0, 1, 3, 1, 3, 1, 3, 4 (a 0-run first).
    crop = np.zeros((4, 4), dtype=bool)
    crop[:, 0] = True
    crop[3, :] = True
    assert mask_rle.encode(crop) == [0, 1, 3, 1, 3, 1, 3, 4]
    box = [10.0, 20.0, 14.0, 24.0]
    assert mask_rle.area(mask_rle.encode(crop)) == 7
    assert mask_rle.tight_box(mask_rle.encode(crop), box) == (10.0, 20.0, 14.0, 24.0)
    assert mask_rle.contains(mask_rle.encode(crop), box, (10.9, 20.0))  # pixel (10, 20)
    assert not mask_rle.contains(mask_rle.encode(crop), box, (11.0, 20.5))  # pixel (11, 20): outside the L
    assert mask_rle.contains(mask_rle.encode(crop), box, (13.99, 23.5))  # pixel (13, 23)
    assert not mask_rle.contains(mask_rle.encode(crop), box, (14.0, 23.5))  # pixel (14, 23): right of the box
    # Runs per image row: (row, first col, last col + 1).
    assert mask_rle.row_runs(mask_rle.encode(crop), box).tolist() == [
        [20, 10, 11],
        [21, 10, 11],
        [22, 10, 11],
        [23, 10, 14],
    ]


def test_a_crop_starting_outside_begins_with_its_zero_run() -> None:
    crop = np.array([[0, 0, 1], [1, 1, 0]], dtype=np.uint8)
    assert mask_rle.encode(crop) == [2, 3, 1]


@pytest.mark.parametrize("seed", range(20))
def test_round_trip_and_membership_on_random_masks(seed: int) -> None:
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(1, 30)), int(rng.integers(1, 30))
    crop = rng.random((h, w)) < rng.random()
    box = [5.0, 7.0, 5.0 + w, 7.0 + h]
    counts = mask_rle.encode(crop)
    assert sum(counts) == w * h and mask_rle.area(counts) == int(crop.sum())
    assert np.array_equal(mask_rle.decode(counts, box), crop)
    stored = np.asarray(counts, dtype=np.int64)  # the runs as score's rows hold them (loaders.records.read_scored)
    assert np.array_equal(mask_rle.decode(stored, box), crop)
    assert np.array_equal(mask_rle.row_runs(stored, box), mask_rle.row_runs(counts, box))
    for row in range(h):
        for col in range(w):
            inside = bool(crop[row, col])
            assert mask_rle.contains(counts, box, (5 + col + 0.5, 7 + row + 0.5)) == inside
            assert mask_rle.contains(stored, box, (5 + col + 0.5, 7 + row + 0.5)) == inside


def test_counts_that_do_not_cover_the_box_are_refused() -> None:
    with pytest.raises(GroundBenchError, match="add up to the box's 4x4 = 16 pixels, got 15"):
        mask_rle.decode([0, 1, 3, 1, 3, 1, 3, 3], [0, 0, 4, 4])
    with pytest.raises(GroundBenchError, match="integer visible box"):
        mask_rle.decode([4], [0, 0, 2.5, 2])

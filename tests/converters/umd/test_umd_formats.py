"""Unit tests of the UMD parsers: split files, file names, label/rank maps, region geometry, frames.

Tests marked ``needs_shared`` read the real fixtures in ../shared/fixtures/real/umd/ (SOURCES.md
there states the expected values used below; research/umd.md section 3 the split facts).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from groundbench.converters.umd.labels import parse_label, parse_rank
from groundbench.converters.umd.layout import FRAME_FILE, Frame, find_tools_root, list_frames
from groundbench.converters.umd.records import ParsedFrame, parse_frame
from groundbench.converters.umd.regions import principal_axis, regions_of, secondary_actions
from groundbench.converters.umd.sample import HEIGHT, WIDTH, mat_bytes
from groundbench.converters.umd.splits import (
    ToolSplits,
    parse_fold_file,
    parse_split_file,
    read_splits,
)
from groundbench.converters.umd.vocab import UMD_CATEGORIES, UMD_LABELS
from groundbench.core.geometry import interior_point
from groundbench.core.geometry import mask_box as tight_box
from groundbench.core.images import DEFAULT_MAX_PIXELS, inspect_image
from groundbench.errors import GroundBenchError
from tests.conftest import UMD_FIXTURES, needs_shared

SPLITS_DIR = UMD_FIXTURES / "yiskw713-ClassActivationMapping" / "part-affordance-dataset"
FRAMES_DIR = UMD_FIXTURES / "AffKpNet" / "img" / "dataset" / "umd"
UMD_I_DIR = UMD_FIXTURES / "UCL-AffCorrs" / "UMD_i_zip" / "UMD_i" / "dataset"
SHAPE = (HEIGHT, WIDTH)
TRAIN_TEST = {"1": "train", "2": "test"}
REAL_FRAMES = ("bowl_01_00000001", "hammer_01_00000002", "knife_01_00000001", "mug_01_00000001")


def category_of(tool: str) -> str:
    return tool.rsplit("_", 1)[0]


def write_lines(path: Path, *lines: str) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines))
    return path


# ================================================================ splits.py, real files


@needs_shared
@pytest.mark.parametrize("name", ["category_split.txt", "novel_split.txt", "tool_categories.txt"])
def test_real_split_file_lists_105_tools(name: str) -> None:
    parsed = parse_split_file(SPLITS_DIR / name)
    assert len(parsed) == 105
    assert {category_of(tool) for tool in parsed} == set(UMD_CATEGORIES)


@needs_shared
def test_real_fold_file_lists_105_tools() -> None:
    folds = parse_fold_file(SPLITS_DIR / "category_10_fold.txt")
    assert len(folds) == 105
    assert set(folds) == set(parse_split_file(SPLITS_DIR / "tool_categories.txt"))


@needs_shared
def test_real_category_split_is_54_train_51_test() -> None:
    split = parse_split_file(SPLITS_DIR / "category_split.txt", TRAIN_TEST)
    assert Counter(split.values()) == {"train": 54, "test": 51}
    # A novel-instance split: every category on both sides.
    for side in ("train", "test"):
        assert {category_of(t) for t, s in split.items() if s == side} == set(UMD_CATEGORIES)


@needs_shared
def test_real_novel_split_test_categories() -> None:
    split = parse_split_file(SPLITS_DIR / "novel_split.txt", TRAIN_TEST)
    test_categories = {category_of(t) for t, s in split.items() if s == "test"}
    train_categories = {category_of(t) for t, s in split.items() if s == "train"}
    assert test_categories == {"cup", "ladle", "pot", "saw", "scoop", "shears", "shovel", "tenderizer", "trowel"}
    assert test_categories.isdisjoint(train_categories)  # a novel-category split
    assert Counter(split.values()) == {"train": 76, "test": 29}


@needs_shared
def test_real_folds_hold_out_one_tool_per_category() -> None:
    folds = parse_fold_file(SPLITS_DIR / "category_10_fold.txt")
    for fold in range(1, 11):  # numbered as the file's columns are counted: 1..10
        held_out = [tool for tool, heldout in folds.items() if fold in heldout]
        assert len(held_out) == 17, fold
        assert sorted(category_of(t) for t in held_out) == sorted(UMD_CATEGORIES), fold
    assert folds["knife_01"] == ()  # held out in no fold (research/umd.md section 3)
    assert folds["bowl_01"] == (3,)  # "folds: 0 0 1 0 0 0 0 0 0 0    object: bowl_01": the third column


@needs_shared
def test_real_tool_categories_match_the_vocabulary() -> None:
    ids = parse_split_file(SPLITS_DIR / "tool_categories.txt")
    for tool, code in ids.items():
        assert int(code) == UMD_CATEGORIES[category_of(tool)], tool


@needs_shared
def test_read_splits_on_the_real_folder() -> None:
    splits = read_splits(SPLITS_DIR, SPLITS_DIR)
    assert sorted(splits.files) == sorted(
        ["category_split.txt", "novel_split.txt", "tool_categories.txt", "category_10_fold.txt"]
    )
    assert len(splits.by_tool) == 105
    assert splits.of("knife_01") == ToolSplits(category_split="test", novel_split="train", category_id=4)
    assert splits.of("bowl_01") == ToolSplits(
        category_split="train", novel_split="train", category_id=1, heldout_folds=(3,)
    )
    assert splits.of("cup_01") == ToolSplits(
        category_split="train", novel_split="test", category_id=2, heldout_folds=(5,)
    )
    assert splits.of("mug_01").category_id == 7
    assert splits.of("spatula_01") == ToolSplits()


# ================================================================ splits.py, synthetic files


def test_read_splits_on_the_sample(umd_sample: Path) -> None:
    splits = read_splits(umd_sample / "part-affordance-dataset", umd_sample)
    assert len(splits.files) == 4
    assert sorted(splits.by_tool) == ["bowl_01", "hammer_01", "knife_01", "mug_01", "spoon_01", "turner_01"]
    assert splits.of("knife_01") == ToolSplits(
        category_split="test", novel_split="train", category_id=4, heldout_folds=(2, 5)
    )
    assert splits.of("turner_01") == ToolSplits(
        category_split="test", novel_split="test", category_id=17, heldout_folds=(6,)
    )


def test_read_splits_tolerates_missing_files(tmp_path: Path) -> None:
    write_lines(tmp_path / "category_split.txt", "1 bowl_01", "2 mug_01")
    splits = read_splits(tmp_path, tmp_path)
    assert list(splits.files) == ["category_split.txt"]
    assert splits.of("mug_01") == ToolSplits(category_split="test")


def test_split_file_accepts_crlf(tmp_path: Path) -> None:
    path = tmp_path / "category_split.txt"
    path.write_bytes(b"1 bowl_01\r\n2 mug_01\r\n")
    assert parse_split_file(path, TRAIN_TEST) == {"bowl_01": "train", "mug_01": "test"}


def test_split_file_line_number_counts_blank_lines(tmp_path: Path) -> None:
    """The reported line must be the file's line. Fails today: ``_lines`` drops blank lines before
    numbering, so the error says ``line 2`` for the malformed third line (see the report)."""
    path = write_lines(tmp_path / "novel_split.txt", "1 bowl_01", "", "x hammer_01")
    with pytest.raises(GroundBenchError) as caught:
        parse_split_file(path, TRAIN_TEST)
    assert caught.value.field == "line 3"


def test_split_file_tool_listed_twice(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "category_split.txt", "1 bowl_01", "2 mug_01", "2 bowl_01")
    with pytest.raises(GroundBenchError) as caught:
        parse_split_file(path, TRAIN_TEST)
    assert caught.value.field == "line 3"
    assert "bowl_01 listed twice" in caught.value.reason


def test_split_file_must_be_ascii(tmp_path: Path) -> None:
    path = tmp_path / "tool_categories.txt"
    data = "1 bowl_01\n7 mug_01 \u00e9\n".encode()
    path.write_bytes(data)
    with pytest.raises(GroundBenchError) as caught:
        parse_split_file(path)
    assert caught.value.field == f"byte {data.index(0xC3)}"
    assert "ASCII" in caught.value.reason


# ================================================================ layout.py


@needs_shared
@pytest.mark.parametrize(
    ("name", "tool", "category", "instance", "frame"),
    [
        ("bowl_01_00000001_rgb.jpg", "bowl_01", "bowl", "01", 1),
        ("hammer_01_00000002_rgb.jpg", "hammer_01", "hammer", "01", 2),
        ("knife_01_00000001_rgb.jpg", "knife_01", "knife", "01", 1),
        ("mug_01_00000001_rgb.jpg", "mug_01", "mug", "01", 1),
    ],
)
def test_frame_file_regex_on_real_names(name: str, tool: str, category: str, instance: str, frame: int) -> None:
    assert (FRAMES_DIR / name).is_file()
    match = FRAME_FILE.match(name)
    assert match is not None
    assert match["tool"] == tool
    assert match["category"] == category
    assert match["instance"] == instance
    assert int(match["frame"]) == frame
    assert match["kind"] == "rgb.jpg"


@pytest.mark.parametrize("kind", ["rgb.jpg", "depth.png", "label.mat", "label_rank.mat"])
def test_frame_file_regex_kinds(kind: str) -> None:
    match = FRAME_FILE.match(f"tenderizer_02_00000310_{kind}")
    assert match is not None
    assert (match["tool"], int(match["frame"]), match["kind"]) == ("tenderizer_02", 310, kind)


@pytest.mark.parametrize(
    "name",
    [
        "mug_01_00000253_label_rank.npy",  # UMD_i derivative, not the release
        "mug_01_00000253_mask.jpg",
        "mug_01_0000253_rgb.jpg",  # 7-digit frame
        "mug_1_00000253_rgb.jpg",  # 1-digit instance
        "Mug_01_00000253_rgb.jpg",
        "mug_01_00000253_rgb.jpg.bak",
    ],
)
def test_frame_file_regex_rejects(name: str) -> None:
    assert FRAME_FILE.match(name) is None


@needs_shared
@pytest.mark.parametrize("name", [f"{stem}_rgb.jpg" for stem in REAL_FRAMES])
def test_inspect_real_jpeg(name: str) -> None:
    info = inspect_image((FRAMES_DIR / name).read_bytes(), name, DEFAULT_MAX_PIXELS)
    assert (info.format, info.width, info.height) == ("JPEG", 640, 480)
    assert info.mode == "RGB"
    assert info.extension == "jpg"


def test_find_tools_root_without_top_folder(tmp_path: Path) -> None:
    (tmp_path / "tools" / "mug_01").mkdir(parents=True)
    assert find_tools_root(tmp_path) == tmp_path / "tools"


def test_find_tools_root_refuses_two(tmp_path: Path) -> None:
    (tmp_path / "a" / "tools").mkdir(parents=True)
    (tmp_path / "b" / "tools").mkdir(parents=True)
    with pytest.raises(GroundBenchError) as caught:
        find_tools_root(tmp_path)
    assert caught.value.field == "tools/"
    assert "found 2" in caught.value.reason


def test_list_frames_of_the_sample(umd_sample: Path) -> None:
    tools = find_tools_root(umd_sample)
    frames = list_frames(umd_sample, tools / "mug_01")
    assert [f.index for f in frames] == [1, 2, 3, 4, 5, 6]
    first = frames[0]
    assert (first.tool, first.category, first.stem) == ("mug_01", "mug", "mug_01_00000001")
    assert first.rgb.name == "mug_01_00000001_rgb.jpg"
    assert first.depth is not None and first.depth.name == "mug_01_00000001_depth.png"
    assert first.label.name == "mug_01_00000001_label.mat"
    assert first.rank is not None and first.rank.name == "mug_01_00000001_label_rank.mat"


# ================================================================ labels.py


def synthetic_labels() -> np.ndarray:
    """Every id 0..7 present, one vertical band each."""
    return np.repeat(np.arange(8, dtype=np.uint8), WIDTH // 8)[None, :].repeat(HEIGHT, axis=0)


@pytest.mark.parametrize("gt_type", [None, "manual", "automatic"])
def test_parse_label_uint8(gt_type: str | None) -> None:
    labels = synthetic_labels()
    variables: dict[str, object] = {"gt_label": labels}
    if gt_type is not None:
        variables["gt_type"] = gt_type
    parsed = parse_label(mat_bytes(variables), "x_label.mat", SHAPE)
    assert parsed.labels.dtype == np.uint8
    assert parsed.labels.shape == SHAPE
    np.testing.assert_array_equal(parsed.labels, labels)
    assert parsed.gt_type == gt_type


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.uint16])
def test_parse_label_other_integral_types(dtype: type) -> None:
    labels = synthetic_labels()
    parsed = parse_label(mat_bytes({"gt_label": labels.astype(dtype)}), "x_label.mat", SHAPE)
    assert parsed.labels.dtype == np.uint8
    np.testing.assert_array_equal(parsed.labels, labels)


def test_parse_label_squeezes_a_trailing_singleton_axis() -> None:
    labels = synthetic_labels()
    parsed = parse_label(mat_bytes({"gt_label": labels[:, :, None]}), "x_label.mat", SHAPE)
    assert parsed.labels.shape == SHAPE
    np.testing.assert_array_equal(parsed.labels, labels)


@pytest.mark.parametrize(
    ("variables", "field", "reason_part"),
    [
        ({"gt_label": np.full(SHAPE, 1.5)}, "gt_label", "expected integer values"),
        ({"gt_label": np.full(SHAPE, np.nan)}, "gt_label", "expected integer values"),
        ({"gt_label": np.full(SHAPE, -1, np.int16)}, "gt_label", "expected values 0..7"),
        ({"gt_label": np.zeros((HEIGHT, WIDTH, 3), np.uint8)}, "gt_label", "expected shape"),
        ({"gt_label": np.zeros((WIDTH, HEIGHT), np.uint8)}, "gt_label", "expected shape"),
        ({"gt_label": np.zeros(SHAPE, np.uint8), "gt_type": "guessed"}, "gt_type", "'guessed'"),
    ],
    ids=["fractional", "nan", "negative", "three-channels", "transposed", "bad-gt_type"],
)
def test_parse_label_refuses(variables: dict[str, object], field: str, reason_part: str) -> None:
    with pytest.raises(GroundBenchError) as caught:
        parse_label(mat_bytes(variables), "tools/x/x_label.mat", SHAPE)
    assert caught.value.path == "tools/x/x_label.mat"
    assert caught.value.field == field
    assert reason_part in caught.value.reason


def test_parse_label_refuses_a_non_mat_file() -> None:
    with pytest.raises(GroundBenchError) as caught:
        parse_label(b"\x89PNG\r\n\x1a\n not a mat file", "x_label.mat", SHAPE)
    assert caught.value.field == "file"
    assert "MATLAB" in caught.value.reason


def embed_rank(name: str, tool: str, top: int = 150, left: int = 250) -> tuple[np.ndarray, np.ndarray]:
    """A UMD_i rank crop placed on a zero (480, 640, 7) canvas, with its most-likely label map."""
    crop = np.load(UMD_I_DIR / tool / name, allow_pickle=False)
    assert crop.dtype == np.uint8 and crop.ndim == 3 and crop.shape[2] == 7
    ranks = np.zeros((*SHAPE, 7), np.uint8)
    ranks[top : top + crop.shape[0], left : left + crop.shape[1]] = crop
    is_first = ranks == 1
    labels = np.where(is_first.any(axis=2), is_first.argmax(axis=2) + 1, 0).astype(np.uint8)
    return ranks, labels


@needs_shared
@pytest.mark.parametrize(
    ("tool", "name", "foreground", "rank_one", "secondary"),
    [
        (
            "mug_01",
            "mug_01_00000253_label_rank.npy",
            5860,
            {4: 3368, 7: 2492},
            {"contain": ("scoop",), "wrap-grasp": ("grasp",)},
        ),
        (
            "hammer_01",
            "hammer_01_00000106_label_rank.npy",
            5492,
            {1: 1992, 5: 3500},
            {"grasp": ("pound",), "pound": ("grasp",)},
        ),
    ],
    ids=["mug", "hammer"],
)
def test_parse_rank_round_trip_of_real_ranks(
    tool: str, name: str, foreground: int, rank_one: dict[int, int], secondary: dict[str, tuple[str, ...]]
) -> None:
    ranks, labels = embed_rank(name, tool)
    parsed = parse_rank(mat_bytes({"gt_label": ranks}), f"{tool}_label_rank.mat", SHAPE)
    assert parsed.dtype == np.uint8
    assert parsed.shape == (*SHAPE, 7)
    np.testing.assert_array_equal(parsed, ranks)
    assert int((parsed > 0).all(axis=2).sum()) == foreground
    counts = {k: int((parsed[..., k - 1] == 1).sum()) for k in UMD_LABELS if (parsed[..., k - 1] == 1).any()}
    assert counts == rank_one
    found = {UMD_LABELS[k]: secondary_actions(labels, parsed, k) for k in rank_one}
    assert found == secondary


def test_secondary_actions_equal_the_rule_computed_with_np_median() -> None:
    """Counted medians (the converter) against np.median of the 2s and 3s (the rank file's rule, spelled out)."""
    rng = np.random.default_rng(9)
    checked = 0
    for _ in range(300):
        shape = (int(rng.integers(1, 12)), int(rng.integers(1, 12)))
        labels = rng.integers(0, 8, shape).astype(np.uint8)
        ranks = rng.choice(np.array([0, 1, 2, 3, 9], np.uint8), (*shape, 7), p=[0.1, 0.1, 0.35, 0.35, 0.1])
        for label_id in UMD_LABELS:
            mask = labels == label_id
            expected = []
            for other in UMD_LABELS:
                values = ranks[..., other - 1][mask]
                second = values[(values == 2) | (values == 3)]
                if other != label_id and mask.any() and 2 * second.size >= mask.sum():
                    expected.append((float(np.median(second)), other))  # ties: the lower label id first
            assert secondary_actions(labels, ranks, label_id) == tuple(UMD_LABELS[k] for _, k in sorted(expected))
            checked += bool(expected)
    assert checked > 100  # most draws have secondaries: the ties and the half-way rule are exercised


def test_parse_rank_refuses_a_label_map() -> None:
    with pytest.raises(GroundBenchError) as caught:
        parse_rank(mat_bytes({"gt_label": synthetic_labels()}), "x_label_rank.mat", SHAPE)
    assert caught.value.field == "gt_label"
    assert "(480, 640, 7)" in caught.value.reason


def test_parse_rank_refuses_rank_ten() -> None:
    ranks = np.zeros((*SHAPE, 7), np.uint8)
    ranks[5, 5] = 10
    with pytest.raises(GroundBenchError) as caught:
        parse_rank(mat_bytes({"gt_label": ranks}), "x_label_rank.mat", SHAPE)
    assert caught.value.field == "gt_label"
    assert "0..9" in caught.value.reason


# ================================================================ regions.py


def test_tight_box_is_exclusive_on_the_pixel_edge_plane() -> None:
    mask = np.zeros((20, 30), bool)
    mask[4:9, 6:11] = True  # rows 4..8, cols 6..10
    mask[15, 2] = True  # a stray pixel extends the box down and left
    assert tight_box(mask) == (2.0, 4.0, 11.0, 16.0)


def test_tight_box_of_one_pixel_and_of_nothing() -> None:
    mask = np.zeros((10, 10), bool)
    assert tight_box(mask) is None
    mask[3, 7] = True
    assert tight_box(mask) == (7.0, 3.0, 8.0, 4.0)


def u_shape() -> np.ndarray:
    mask = np.zeros((40, 40), bool)
    mask[5:35, 5:12] = True  # left arm
    mask[5:35, 28:35] = True  # right arm
    mask[28:35, 5:35] = True  # bottom
    return mask


def ring() -> np.ndarray:
    rows, cols = np.mgrid[0:61, 0:61]
    radius = np.hypot(rows - 30, cols - 30)
    return (radius >= 18) & (radius <= 26)


@pytest.mark.parametrize("make_mask", [u_shape, ring], ids=["u-shape", "ring"])
def test_interior_point_of_a_concave_region(make_mask: Callable[[], np.ndarray]) -> None:
    mask = make_mask()
    rows, cols = np.nonzero(mask)
    centroid = (int(cols.mean()), int(rows.mean()))
    assert not mask[centroid[1], centroid[0]]  # the naive answer would be wrong
    x, y = interior_point(mask)
    assert x % 1 == 0.5 and y % 1 == 0.5  # a pixel centre
    assert mask[int(y), int(x)]


def test_interior_point_of_a_bar_is_on_its_centre_line() -> None:
    mask = np.zeros((20, 40), bool)
    mask[8:13, 5:36] = True  # rows 8..12: centre row 10
    x, y = interior_point(mask)
    assert y == 10.5
    assert x == 20.5  # nearest the centroid among the tied centre-line pixels


def test_interior_point_treats_the_image_border_as_boundary() -> None:
    mask = np.zeros((20, 20), bool)
    mask[:, :9] = True  # touches the top, bottom and left borders: column 4 is deepest
    x, _y = interior_point(mask)
    assert x == 4.5


def test_principal_axis_of_bars_and_a_pixel() -> None:
    horizontal = np.zeros((20, 30), bool)
    horizontal[9:12, 3:27] = True
    vertical = np.zeros((20, 30), bool)
    vertical[2:18, 4:6] = True
    pixel = np.zeros((5, 5), bool)
    pixel[2, 3] = True
    assert principal_axis(horizontal) == (1.0, 0.0)
    assert principal_axis(vertical) == (0.0, 1.0)
    assert principal_axis(pixel) == ()


def test_principal_axis_of_diagonals_and_a_square() -> None:
    diagonal = np.eye(12, dtype=bool)  # down-right in image coordinates (y grows downwards)
    anti = diagonal[::-1].copy()
    square = np.zeros((10, 10), bool)
    square[2:8, 2:8] = True
    half = pytest.approx(2**-0.5, abs=1e-9)
    assert principal_axis(diagonal) == (half, half)
    assert principal_axis(anti) == (half, pytest.approx(-(2**-0.5), abs=1e-9))  # sign fixed: x > 0
    assert principal_axis(square) == ()  # isotropic


def test_regions_of_a_hand_made_map() -> None:
    labels = np.zeros((30, 40), np.uint8)
    labels[10:14, 2:20] = 1  # grasp: 4 x 18
    labels[5:25, 20:30] = 5  # pound: 20 x 10
    regions = regions_of(labels)
    assert [r.action for r in regions] == ["grasp", "pound"]
    grasp, pound = regions
    assert (grasp.label_id, grasp.area, grasp.bbox_xyxy) == (1, 72, (2.0, 10.0, 20.0, 14.0))
    assert (pound.label_id, pound.area, pound.bbox_xyxy) == (5, 200, (20.0, 5.0, 30.0, 25.0))
    assert grasp.axis_xy == (1.0, 0.0)
    assert pound.axis_xy == (0.0, 1.0)
    assert grasp.point_in_mask and pound.point_in_mask


def test_secondary_actions_need_half_the_region() -> None:
    labels = np.zeros((4, 4), np.uint8)
    labels[:, :2] = 4  # 8 contain pixels
    ranks = np.zeros((4, 4, 7), np.uint8)
    ranks[labels > 0] = 9
    ranks[..., 3][labels == 4] = 1
    ranks[:2, :2, 2] = 2  # scoop rank 2 on 4 of 8 pixels: exactly half, kept
    ranks[:2, :2, 5] = 3  # support rank 3 on 4 of 8 pixels: kept, after scoop
    ranks[0, 0, 0] = 2  # grasp rank 2 on 1 pixel: dropped
    assert secondary_actions(labels, ranks, 4) == ("scoop", "support")
    assert secondary_actions(labels, ranks, 6) == ()  # no such region


# ================================================================ records.py via the sample


def sample_frame(root: Path, tool: str, index: int) -> Frame:
    frames = list_frames(root, find_tools_root(root) / tool)
    return next(f for f in frames if f.index == index)


def parsed(root: Path, tool: str, index: int, with_ranks: bool = False) -> ParsedFrame:
    return parse_frame(root, sample_frame(root, tool, index), DEFAULT_MAX_PIXELS, with_ranks=with_ranks)


@pytest.mark.parametrize("index", [5, 6])
def test_mug_with_hidden_handle_has_no_grasp(umd_sample: Path, index: int) -> None:
    frame = parsed(umd_sample, "mug_01", index)
    assert {r.action for r in frame.regions} == {"contain", "wrap-grasp"}
    assert frame.area_of("grasp") == 0


def test_mug_with_visible_handle(umd_sample: Path) -> None:
    frame = parsed(umd_sample, "mug_01", 1, with_ranks=True)
    assert [r.action for r in frame.regions] == ["contain", "grasp", "wrap-grasp"]
    assert frame.area_of("grasp") > 0
    assert frame.secondary == {"contain": ("scoop",), "grasp": ("pound",), "wrap-grasp": ("grasp",)}
    assert frame.source_paths == tuple(
        f"part-affordance-dataset/tools/mug_01/mug_01_00000001_{kind}"
        for kind in ("rgb.jpg", "depth.png", "label.mat", "label_rank.mat")
    )
    assert (frame.image.format, frame.image.width, frame.image.height) == ("JPEG", WIDTH, HEIGHT)


@pytest.mark.parametrize(
    ("tool", "index", "gt_type", "hand"),
    [
        ("hammer_01", 4, "manual", True),  # gt_type present
        ("hammer_01", 2, "automatic", False),
        ("spoon_01", 4, None, True),  # no gt_type: every third frame from frame 1
        ("spoon_01", 1, None, True),
        ("spoon_01", 2, None, False),
        ("spoon_01", 3, None, False),
    ],
)
def test_hand_labelled_flag(umd_sample: Path, tool: str, index: int, gt_type: str | None, hand: bool) -> None:
    frame = parsed(umd_sample, tool, index)
    assert frame.gt_type == gt_type
    assert frame.hand_labelled is hand


@pytest.mark.parametrize(("index", "gt_type", "hand"), [(4, "automatic", False), (2, "manual", True)])
def test_gt_type_overrides_the_frame_rule(umd_tree: Path, index: int, gt_type: str, hand: bool) -> None:
    """Frame 4 is hand-labelled by the rule and frame 2 is not; gt_type says the opposite and wins."""
    label = sample_frame(umd_tree, "spoon_01", index).label
    labels = parse_label(label.read_bytes(), label.name, SHAPE).labels
    label.write_bytes(mat_bytes({"gt_label": labels, "gt_type": gt_type}))
    frame = parsed(umd_tree, "spoon_01", index)
    assert frame.gt_type == gt_type
    assert frame.hand_labelled is hand

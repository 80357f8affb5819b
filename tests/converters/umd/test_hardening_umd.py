"""Fuzz the UMD parsers (and the image check every source uses) and feed them hostile inputs.

The only outcomes allowed are a parsed value or the project's one error type naming file, field and
reason. Anything else fails the test. What the campaigns record goes into docs/reliability.md
(tests/support/reliability.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from groundbench.converters.umd.audit import read_audit
from groundbench.converters.umd.labels import parse_label, parse_rank
from groundbench.converters.umd.layout import list_frames
from groundbench.converters.umd.sample import SAMPLE_TOOLS, draw_labels, mat_bytes
from groundbench.converters.umd.splits import parse_fold_file, parse_split_file
from groundbench.core.images import inspect_image
from groundbench.errors import GroundBenchError
from tests.support.reliability import CAMPAIGNS, FUZZ, Campaign, _bomb_png, _record, mutations, same_constant_pool

same_constant_pool()  # before any campaign generates (tests/support/reliability.py)


SHAPE = (480, 640)


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


# Hostile inputs: each is one explicit case with the outcome it must have.


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

"""UMD rows against the source files themselves: secondary affordances from every rank file, folds as
the split file numbers them, split and tiny regions flagged (rows kept), OS clutter skipped."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
import scipy.io

from groundbench.converters.umd.sample import HEIGHT, WIDTH, mat_bytes
from groundbench.converters.umd.vocab import UMD_LABELS
from groundbench.core.shards import read_table
from tests.conftest import run_cli

TOOLS = "part-affordance-dataset/tools"
INTERIM = Path("data") / "interim" / "umd"


def _rows(project: Path, config: str) -> list[dict]:
    return read_table(project / INTERIM / config).to_pylist()


def _mat(path: Path) -> np.ndarray:
    return np.asarray(scipy.io.loadmat(io.BytesIO(path.read_bytes()))["gt_label"])


def test_secondary_affordances_on_every_row_that_has_a_rank_file(project: Path, umd_tree: Path) -> None:
    assert run_cli(project, "convert", "umd", "--quiet") == 0
    rows = _rows(project, "bulk_umd") + _rows(project, "curated_umd")
    with_secondary = 0
    for row in rows:
        umd = row["extras"]["umd"]
        stem = umd_tree / TOOLS / umd["tool_id"] / f"{umd['tool_id']}_{umd['frame_index']:08d}"
        assert umd["has_label_rank"]
        labels, ranks = _mat(Path(f"{stem}_label.mat")), _mat(Path(f"{stem}_label_rank.mat"))
        for part in row["parts"]:
            label_id = next(k for k, name in UMD_LABELS.items() if name == part["part_id"])
            mask = labels == label_id
            # the rank file's rule: another affordance ranked 2 or 3 on at least half the region's pixels
            expected = []
            for other in UMD_LABELS:
                if other == label_id:
                    continue
                values = ranks[..., other - 1][mask]
                second = values[(values == 2) | (values == 3)]
                if 2 * second.size >= mask.sum():
                    expected.append((float(np.median(second)), UMD_LABELS[other]))
            assert part["secondary_actions"] == [name for _, name in sorted(expected)], row["example_id"]
            with_secondary += bool(part["secondary_actions"])
    bulk = _rows(project, "bulk_umd")
    assert with_secondary > len(bulk)  # bulk rows carry them too, not only the curated frames
    assert sum(1 for r in bulk if any(p["secondary_actions"] for p in r["parts"])) == len(bulk)


def test_heldout_folds_are_numbered_as_the_split_file_numbers_its_columns(project: Path, umd_tree: Path) -> None:
    assert run_cli(project, "convert", "umd", "--quiet") == 0
    lines = (umd_tree / "part-affordance-dataset" / "category_10_fold.txt").read_text().splitlines()
    columns = {}
    for line in lines:
        bits, tool = line.split("object:")
        columns[tool.strip()] = [number for number, bit in enumerate(bits.split()[1:], start=1) if bit == "1"]
    seen = set()
    for row in _rows(project, "bulk_umd"):
        umd = row["extras"]["umd"]
        assert umd["heldout_folds"] == columns[umd["tool_id"]]
        seen.update(umd["heldout_folds"])
    assert 1 in seen and max(seen) <= 10  # the sample holds a tool out in the first column


def test_a_split_region_and_a_one_pixel_region_are_flagged_and_kept(project: Path, umd_tree: Path) -> None:
    stem = umd_tree / TOOLS / "hammer_01" / "hammer_01_00000002"
    labels = np.zeros((HEIGHT, WIDTH), np.uint8)
    labels[200:230, 100:200] = 1  # grasp: two pieces, 60 columns apart (an occluder between them)
    labels[200:230, 260:300] = 1
    labels[100, 100] = 5  # pound: one pixel
    ranks = np.zeros((HEIGHT, WIDTH, 7), np.uint8)
    Path(f"{stem}_label.mat").write_bytes(mat_bytes({"gt_label": labels}))
    Path(f"{stem}_label_rank.mat").write_bytes(mat_bytes({"gt_label": ranks}))
    assert run_cli(project, "convert", "umd", "--quiet") == 0
    rows = {r["example_id"]: r for r in _rows(project, "bulk_umd")}
    grasp = rows["umd/bulk/hammer_01/00000002/grasp"]
    pound = rows["umd/bulk/hammer_01/00000002/pound"]
    assert grasp["flags"] == ["region_split"] and not grasp["excluded"]
    assert pound["flags"] == ["below_pixel_floor"] and not pound["excluded"]
    part = next(p for p in grasp["parts"] if p["part_id"] == "grasp")
    assert part["mask_pieces"] == 2 and part["bbox_xyxy"] == [100.0, 200.0, 300.0, 230.0]  # spans the gap
    assert part["visible_bbox_xyxy"] == part["bbox_xyxy"] and part["projected_bbox_xyxy"] is None
    assert next(p for p in pound["parts"] if p["part_id"] == "pound")["mask_pieces"] == 1
    summary = json.loads((project / INTERIM / "summary.json").read_text())
    assert summary["flags"]["bulk_umd"] == {"below_pixel_floor": 1, "region_split": 1}
    assert summary["min_region_pixels"] == 16


def test_os_clutter_is_skipped_and_counted(project: Path, umd_tree: Path) -> None:
    tools = umd_tree / TOOLS
    clutter = ["Thumbs.db", ".DS_Store", "._mug_01_00000001_rgb.jpg", "desktop.ini"]
    for name in clutter:
        (tools / "mug_01" / name).write_bytes(b"\0clutter")
    (tools / "THUMBS.DB").write_bytes(b"\0")  # any letter case, beside the tool folders too
    assert run_cli(project, "convert", "umd", "--quiet") == 0
    for row in _rows(project, "bulk_umd"):
        expected = sorted(clutter) if row["object_id"] == "mug_01" else []
        assert row["extras"]["umd"]["skipped_files"] == expected
    summary = json.loads((project / INTERIM / "summary.json").read_text())
    assert summary["skipped_os_clutter"] == sorted([f"{TOOLS}/THUMBS.DB", *(f"{TOOLS}/mug_01/{n}" for n in clutter)])


@pytest.mark.parametrize("name", ["notes.txt", ".hidden", "Thumbs.db.bak"])
def test_any_other_unexpected_file_still_stops_the_build_naming_it(
    project: Path, umd_tree: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    (umd_tree / TOOLS / "mug_01" / name).write_bytes(b"x")
    (umd_tree / TOOLS / "mug_01" / "Thumbs.db").write_bytes(b"x")
    assert run_cli(project, "convert", "umd", "--quiet") == 2
    err = capsys.readouterr().err
    assert f"error: {TOOLS}/mug_01/{name}: file name: expected <category>_<NN>_<8-digit frame>" in err

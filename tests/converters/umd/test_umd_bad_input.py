"""`groundbench convert umd` on damaged sources: exit 2, one `error:` line naming file, field and
expectation, and nothing partial left in ``data/interim/``."""

from __future__ import annotations

import hashlib
import io
import shutil
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image

from groundbench.converters.umd.sample import HEIGHT, WIDTH, mat_bytes
from tests.conftest import run_cli

INTERIM = Path("data") / "interim"
BASE = "part-affordance-dataset"
TOOLS = f"{BASE}/tools"


# ---------------------------------------------------------------- helpers


def tools_dir(tree: Path) -> Path:
    return tree / TOOLS


def frame_path(tree: Path, tool: str, frame: int, kind: str) -> Path:
    """``kind`` is one of rgb.jpg, depth.png, label.mat, label_rank.mat."""
    return tools_dir(tree) / tool / f"{tool}_{frame:08d}_{kind}"


def frame_rel(tool: str, frame: int, kind: str) -> str:
    return f"{TOOLS}/{tool}/{tool}_{frame:08d}_{kind}"


def label_map(tool_value: int = 1) -> np.ndarray:
    labels = np.zeros((HEIGHT, WIDTH), np.uint8)
    labels[200:260, 250:400] = tool_value
    return labels


def edit_audit(project: Path, edit: Callable[[dict], None]) -> Path:
    path = project / "data" / "audits" / "curated_umd.yaml"
    audit = yaml.safe_load(path.read_text())
    edit(audit)
    path.write_text(yaml.safe_dump(audit, sort_keys=False))
    return path


def edit_params(project: Path, edit: Callable[[dict], None]) -> None:
    path = project / "params.yaml"
    params = yaml.safe_load(path.read_text())
    edit(params)
    path.write_text(yaml.safe_dump(params, sort_keys=False))


def assert_nothing_partial(project: Path) -> None:
    interim = project / INTERIM
    assert not (interim / "umd").exists()
    leftovers = sorted(p.name for p in interim.glob(".umd.*")) if interim.is_dir() else []
    assert leftovers == []


def refused(project: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, str, str]:
    """Run the conversion, check it failed cleanly; return the error's (path, field, reason)."""
    code = run_cli(project, "convert", "umd", "--quiet")
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, f"expected one stderr line, got {captured.err!r}"
    assert captured.err.endswith("\n")
    assert lines[0].startswith("error: ")
    parts = lines[0].removeprefix("error: ").split(": ", 2)
    assert len(parts) == 3, f"expected 'error: <path>: <field>: <reason>', got {lines[0]!r}"
    assert_nothing_partial(project)
    path, field, reason = parts
    return path, field, reason


def hash_tree(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def jpeg_declaring(width: int, height: int) -> bytes:
    """A complete 16x16 baseline JPEG whose SOF0 header claims ``width`` x ``height``."""
    buffer = io.BytesIO()
    Image.new("RGB", (16, 16), (120, 60, 30)).save(buffer, "JPEG")
    data = bytearray(buffer.getvalue())
    sof = data.index(b"\xff\xc0")  # marker, length(2), precision(1), height(2), width(2)
    data[sof + 5 : sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def png_declaring(width: int, height: int) -> bytes:
    """A complete 16x16 16-bit PNG whose IHDR claims ``width`` x ``height`` (CRC recomputed)."""
    buffer = io.BytesIO()
    Image.new("I;16", (16, 16)).save(buffer, "PNG")
    data = bytearray(buffer.getvalue())
    ihdr = data.index(b"IHDR")  # type(4), width(4), height(4), ... 13 data bytes, then CRC(4)
    data[ihdr + 4 : ihdr + 12] = struct.pack(">II", width, height)
    data[ihdr + 17 : ihdr + 21] = struct.pack(">I", zlib.crc32(bytes(data[ihdr : ihdr + 17])))
    return bytes(data)


def test_undamaged_sample_converts(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The baseline every damaged case departs from."""
    assert run_cli(project, "convert", "umd", "--quiet") == 0
    assert "error" not in capsys.readouterr().err
    assert (project / INTERIM / "umd" / "bulk_umd" / "manifest.jsonl").is_file()
    assert (project / INTERIM / "umd" / "curated_umd" / "manifest.jsonl").is_file()
    assert list((project / INTERIM).glob(".umd.*")) == []


# ---------------------------------------------------------------- 1. frame without its label file


def test_rgb_frame_without_label_file(project: Path, umd_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame_path(umd_tree, "mug_01", 3, "label.mat").unlink()
    path, field, reason = refused(project, capsys)
    # The error points into the frame (the label itself is gone) and names the missing file.
    assert path.startswith(f"{TOOLS}/mug_01/mug_01_00000003_")
    assert field == "label.mat"
    assert "mug_01_00000003_label.mat" in reason


# ---------------------------------------------------------------- 2. truncated JPEG


def test_truncated_jpeg(project: Path, umd_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rgb = frame_path(umd_tree, "knife_01", 2, "rgb.jpg")
    data = rgb.read_bytes()
    rgb.write_bytes(data[: len(data) // 2])
    path, field, reason = refused(project, capsys)
    assert path == frame_rel("knife_01", 2, "rgb.jpg")
    assert field == "image"
    assert "truncated JPEG" in reason


# ---------------------------------------------------------------- 3.-5. bad label maps


def test_mat_without_gt_label(project: Path, umd_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame_path(umd_tree, "knife_01", 2, "label.mat").write_bytes(mat_bytes({"something_else": label_map()}))
    path, field, reason = refused(project, capsys)
    assert path == frame_rel("knife_01", 2, "label.mat")
    assert field == "gt_label"
    assert "missing" in reason and "expected" in reason


def test_label_map_of_wrong_shape(project: Path, umd_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame_path(umd_tree, "knife_01", 2, "label.mat").write_bytes(mat_bytes({"gt_label": np.ones((240, 320), np.uint8)}))
    path, field, reason = refused(project, capsys)
    assert path == frame_rel("knife_01", 2, "label.mat")
    assert field == "gt_label"
    assert "expected shape (480, 640)" in reason
    assert "(240, 320)" in reason


def label_eight(umd_tree: Path) -> None:
    """spoon_01 frame 5's label map with one pixel labelled 8 (UMD's labels are 0..7)."""
    labels = label_map()
    labels[10, 10] = 8
    frame_path(umd_tree, "spoon_01", 5, "label.mat").write_bytes(mat_bytes({"gt_label": labels}))


def test_label_values_above_seven(project: Path, umd_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    label_eight(umd_tree)
    path, field, reason = refused(project, capsys)
    assert path == frame_rel("spoon_01", 5, "label.mat")
    assert field == "gt_label"
    assert "expected values 0..7" in reason
    assert "0..8" in reason


def test_label_error_raised_in_a_worker_process(
    project: Path, umd_tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With several workers the error crosses a process boundary and must arrive unchanged."""
    edit_params(project, lambda params: params["umd"].update(workers=2))
    label_eight(umd_tree)
    path, field, reason = refused(project, capsys)
    assert path == frame_rel("spoon_01", 5, "label.mat")
    assert field == "gt_label"
    assert "expected values 0..7" in reason


# ---------------------------------------------------------------- 6.-7. tools/ layout


def test_unknown_category_folder(project: Path, umd_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spatula = tools_dir(umd_tree) / "spatula_01"
    spatula.mkdir()
    for kind in ("rgb.jpg", "label.mat"):
        shutil.copy(frame_path(umd_tree, "turner_01", 1, kind), spatula / f"spatula_01_00000001_{kind}")
    path, field, reason = refused(project, capsys)
    assert path == f"{TOOLS}/spatula_01"
    assert field == "category"
    assert "'spatula'" in reason and "expected one of" in reason


def test_empty_tools_folder(project: Path, umd_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for folder in tools_dir(umd_tree).iterdir():
        shutil.rmtree(folder)
    path, field, reason = refused(project, capsys)
    assert path == TOOLS
    assert field == "tools/"
    assert "empty" in reason and "expected" in reason


@pytest.mark.parametrize(
    ("damage", "expected_path", "expected_field", "reason_part"),
    [
        (lambda tools: (tools / "notes.txt").write_text("x"), f"{TOOLS}/notes.txt", "tool folder", "expected only"),
        (lambda tools: (tools / "mug1").mkdir(), f"{TOOLS}/mug1", "tool folder", "expected a name"),
        (
            lambda tools: shutil.copy(tools / "mug_01" / "mug_01_00000001_rgb.jpg", tools / "knife_01"),
            f"{TOOLS}/knife_01/mug_01_00000001_rgb.jpg",
            "file name",
            "belongs to mug_01",
        ),
        (
            lambda tools: (tools / "knife_01" / "knife_01_1_rgb.jpg").write_bytes(b""),
            f"{TOOLS}/knife_01/knife_01_1_rgb.jpg",
            "file name",
            "expected <category>_<NN>_<8-digit frame>",
        ),
    ],
    ids=["stray-file", "bad-folder-name", "foreign-frame", "short-frame-number"],
)
def test_unexpected_entries_in_tools(
    project: Path,
    umd_tree: Path,
    capsys: pytest.CaptureFixture[str],
    damage: Callable[[Path], object],
    expected_path: str,
    expected_field: str,
    reason_part: str,
) -> None:
    damage(tools_dir(umd_tree))
    path, field, reason = refused(project, capsys)
    assert path == expected_path
    assert field == expected_field
    assert reason_part in reason


# ---------------------------------------------------------------- 8. symlinks leaving the source root


def _link_label_file(tree: Path, outside: Path) -> tuple[str, str]:
    label = frame_path(tree, "knife_01", 2, "label.mat")
    target = outside / "stolen_label.mat"
    shutil.copy(label, target)  # a perfectly valid file: only its location is wrong
    label.unlink()
    label.symlink_to(target)
    return frame_rel("knife_01", 2, "label.mat"), "file"


def _link_tool_folder(tree: Path, outside: Path) -> tuple[str, str]:
    folder = tools_dir(tree) / "knife_01"
    shutil.copytree(folder, outside / "knife_01")
    shutil.rmtree(folder)
    folder.symlink_to(outside / "knife_01", target_is_directory=True)
    return f"{TOOLS}/knife_01", "tool folder"


def _link_tools_root(tree: Path, outside: Path) -> tuple[str, str]:
    folder = tools_dir(tree)
    shutil.copytree(folder, outside / "tools")
    shutil.rmtree(folder)
    folder.symlink_to(outside / "tools", target_is_directory=True)
    return TOOLS, "tools/"


@pytest.mark.parametrize(
    "make_link",
    [_link_label_file, _link_tool_folder, _link_tools_root],
    ids=["label-file", "tool-folder", "tools-folder"],
)
def test_symlink_leaving_the_source_root(
    project: Path,
    umd_tree: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    make_link: Callable[[Path, Path], tuple[str, str]],
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    expected_path, expected_field = make_link(umd_tree, outside)
    path, field, reason = refused(project, capsys)
    assert path == expected_path
    assert field == expected_field
    assert "outside the source root" in reason
    assert str(outside.resolve()) in reason


def test_split_file_symlink_leaving_the_source_root(
    project: Path, umd_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Split files are annotations too: read through a symlink out of the root they must be refused.

    Fails today: ``read_splits`` never calls ``inside_root`` (see the report)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    split = umd_tree / BASE / "category_split.txt"
    shutil.copy(split, outside / "category_split.txt")
    split.unlink()
    split.symlink_to(outside / "category_split.txt")
    path, _field, reason = refused(project, capsys)
    assert path.endswith("category_split.txt")
    assert "outside the source root" in reason


# ---------------------------------------------------------------- 9.-10. the audit file


@pytest.mark.parametrize(
    ("entry", "reason_part"),
    [
        ({"tool": "bowl_01"}, "no hand-labelled frame has a grasp region"),
        ({"tool": "bowl_01", "frame": 3}, "frame 3 missing or without a grasp region"),
    ],
    ids=["frame-rule", "pinned-frame"],
)
def test_audited_tool_without_grasp_region(
    project: Path, capsys: pytest.CaptureFixture[str], entry: dict[str, object], reason_part: str
) -> None:
    edit_audit(project, lambda audit: audit["tools"].append(entry))
    path, field, reason = refused(project, capsys)
    assert Path(path).name == "curated_umd.yaml"
    assert field == "tool bowl_01"
    assert reason_part in reason


def test_audited_tool_absent_from_source(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_audit(project, lambda audit: audit["tools"].append({"tool": "ladle_01"}))
    path, field, reason = refused(project, capsys)
    assert Path(path).name == "curated_umd.yaml"
    assert field == "tool ladle_01"
    assert "not found in the source" in reason


def test_audited_tool_removed_from_source(project: Path, umd_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.rmtree(tools_dir(umd_tree) / "spoon_01")
    path, field, reason = refused(project, capsys)
    assert Path(path).name == "curated_umd.yaml"
    assert field == "tool spoon_01"
    assert "not found in the source" in reason


# ---------------------------------------------------------------- 11. split files


@pytest.mark.parametrize(
    ("name", "line", "replacement", "found"),
    [
        ("category_split.txt", 3, "2  knife_01", "'2  knife_01'"),  # two spaces
        ("novel_split.txt", 1, "train bowl_01", "'train bowl_01'"),  # a word instead of the code
        ("novel_split.txt", 4, "3 mug_01", "got '3'"),  # a code other than 1/2
        ("tool_categories.txt", 6, "17 turner_1", "'17 turner_1'"),  # one-digit instance number
        ("category_10_fold.txt", 2, "folds: 1 0 0 0 0 0 0 0 0    object: hammer_01", "object: hammer_01'"),  # 9 bits
    ],
)
def test_split_file_with_malformed_line(
    project: Path,
    umd_tree: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    line: int,
    replacement: str,
    found: str,
) -> None:
    split = umd_tree / BASE / name
    lines = split.read_text().splitlines()
    lines[line - 1] = replacement
    split.write_text("\n".join(lines) + "\n")
    path, field, reason = refused(project, capsys)
    assert Path(path).name == name
    assert field == f"line {line}"
    assert "expected" in reason
    assert found in reason


# ---------------------------------------------------------------- 12. decompression bombs


@pytest.mark.parametrize("size", [(20000, 20000), (10000, 10000)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize(
    ("kind", "craft"), [("rgb.jpg", jpeg_declaring), ("depth.png", png_declaring)], ids=["jpeg", "png"]
)
def test_decompression_bomb_header(
    project: Path,
    umd_tree: Path,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    craft: Callable[[int, int], bytes],
    size: tuple[int, int],
) -> None:
    bomb = craft(*size)
    assert len(bomb) < 2000  # a small file: only the header is big
    frame_path(umd_tree, "hammer_01", 3, kind).write_bytes(bomb)
    path, field, reason = refused(project, capsys)
    assert path == frame_rel("hammer_01", 3, kind)
    assert field == "image size"
    assert "decompression bomb" in reason


@pytest.mark.parametrize(
    ("kind", "craft"), [("rgb.jpg", jpeg_declaring), ("depth.png", png_declaring)], ids=["jpeg", "png"]
)
def test_image_header_above_the_pixel_limit(
    project: Path, umd_tree: Path, capsys: pytest.CaptureFixture[str], kind: str, craft: Callable[[int, int], bytes]
) -> None:
    """9000x8000 = 72 Mpx: under Pillow's own bomb threshold, over params' 64 Mpx limit."""
    frame_path(umd_tree, "hammer_01", 3, kind).write_bytes(craft(9000, 8000))
    path, field, reason = refused(project, capsys)
    assert path == frame_rel("hammer_01", 3, kind)
    assert field == "image size"
    assert "9000x8000" in reason
    assert "64000000-pixel limit" in reason


def test_pixel_limit_lowered_in_params(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_params(project, lambda params: params["umd"].update(max_image_pixels=640 * 480 - 1))
    path, field, reason = refused(project, capsys)
    assert path == frame_rel("bowl_01", 1, "rgb.jpg")  # the first frame read
    assert field == "image size"
    assert f"exceeds the {640 * 480 - 1}-pixel limit" in reason


# ---------------------------------------------------------------- a failed run keeps the previous output


def test_failed_run_keeps_previous_output(project: Path, umd_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = project / INTERIM / "umd"
    assert run_cli(project, "convert", "umd", "--quiet") == 0
    before = hash_tree(out)
    assert any(name.startswith("bulk_umd/") for name in before)
    assert any(name.startswith("curated_umd/") for name in before)
    capsys.readouterr()

    labels = label_map()
    labels[0, 0] = 9
    frame_path(umd_tree, "turner_01", 6, "label.mat").write_bytes(mat_bytes({"gt_label": labels}))
    code = run_cli(project, "convert", "umd", "--quiet")
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"error: {frame_rel('turner_01', 6, 'label.mat')}: gt_label: ")
    assert err.count("\n") == 1

    assert hash_tree(out) == before
    assert sorted(p.name for p in (project / INTERIM).iterdir()) == ["umd"]

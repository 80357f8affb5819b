"""ScreenSpot-Pro in Chinese (gui_screenspot_pro_cn): every row asked with its instruction_cn, as the official
script's --language cn asks it, scored against the same box; absent, with the reason, when a row has none."""

from __future__ import annotations

import io
import json
from pathlib import Path

from PIL import Image

from groundbench.converters.gui.convert import screenspot_source
from groundbench.core.params import load_params
from groundbench.core.runner import run
from groundbench.core.shards import read_table
from tests.conftest import REPO

PARAMS = load_params(REPO)
GUI, SHARDS = PARAMS.gui.model_copy(update={"workers": 1}), PARAMS.shards

RECORDS = [
    {
        "img_filename": "android_studio_mac/screenshot_2024-11-28_15-16-55.png",
        "bbox": [1774, 1586, 2113, 1618],
        "instruction": "modify the highlights of the photo with in the virtual android machine in android studio",
        "instruction_cn": "在 Android Studio 的安卓虚拟机中修改照片高光。",
        "id": "android_studio_macos_0",
        "application": "android_studio",
        "platform": "macos",
        "img_size": [3840, 2160],
        "ui_type": "icon",
        "group": "Dev",
    },
    {
        "img_filename": "android_studio_mac/screenshot_2024-11-28_14-56-16.png",
        "bbox": [2054, 1675, 2141, 1739],
        "instruction": "open contacts of the android machine",
        "instruction_cn": "在安卓设备里打开联系人。",
        "id": "android_studio_macos_1",
        "application": "android_studio",
        "platform": "macos",
        "img_size": [3840, 2160],
        "ui_type": "text",
        "group": "Dev",
    },
]


def _tree(root: Path, records: list[dict]) -> Path:
    (root / "annotations").mkdir(parents=True)
    (root / "annotations" / "android_studio_macos.json").write_text(json.dumps(records, ensure_ascii=False))
    for record in records:
        path = root / "images" / record["img_filename"]
        path.parent.mkdir(parents=True, exist_ok=True)
        buffer = io.BytesIO()
        Image.new("L", tuple(record["img_size"]), 255).save(buffer, "PNG")
        path.write_bytes(buffer.getvalue())
    return root


def _convert(root: Path, out: Path) -> dict[str, int]:
    return run(screenspot_source(root, "screenspot_pro", "gui_screenspot_pro", GUI), out, SHARDS, False)


def test_every_row_is_asked_in_chinese_against_the_same_box(tmp_path: Path) -> None:
    assert _convert(_tree(tmp_path / "src", RECORDS), tmp_path / "out") == {
        "gui_screenspot_pro": 2,
        "gui_screenspot_pro_cn": 2,
    }
    english = read_table(tmp_path / "out" / "gui_screenspot_pro").to_pylist()
    chinese = read_table(tmp_path / "out" / "gui_screenspot_pro_cn").to_pylist()
    assert [r["instruction"] for r in chinese] == [r["instruction_cn"] for r in RECORDS]
    assert [r["example_id"] for r in chinese] == [f"gui_screenspot_pro_cn/{r['id']}" for r in RECORDS]
    for en, cn in zip(english, chinese, strict=True):
        assert cn["extras"]["gui"]["language"] == "zh" and en["extras"]["gui"]["language"] == "en"
        assert cn["extras"]["gui"]["eval_bbox"] == en["extras"]["gui"]["eval_bbox"]
        assert cn["image_sha256"] == en["image_sha256"] and cn["success_rule"] == en["success_rule"]


def test_without_instruction_cn_the_chinese_config_is_absent_with_the_reason(tmp_path: Path) -> None:
    records = [RECORDS[0], {**RECORDS[1], "instruction_cn": None}]
    assert _convert(_tree(tmp_path / "src", records), tmp_path / "out") == {"gui_screenspot_pro": 2}
    reason = (tmp_path / "out" / "gui_screenspot_pro_cn" / "ABSENT").read_text(encoding="utf-8")
    assert "1 of 2" in reason and "row 1" in reason and "instruction_cn" in reason

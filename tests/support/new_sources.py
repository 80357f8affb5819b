"""A small build of the newer GUI sources, made once per run: OSWorld-G and UI-Vision element grounding read from
trees in their releases' layouts written here from the releases' fields (tests/support/osworld_g_release.py,
tests/converters/gui/test_ui_vision.py), every other source off, then the CLI stages ``convert``, ``bake``,
``store`` and ``assemble`` as ``make build`` runs them. Read only: copy it before changing anything."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from tests.conftest import REPO, run_cli
from tests.converters.gui.test_ui_vision import release_tree as ui_vision_tree
from tests.support.builds import once
from tests.support.osworld_g_release import hub_files

STAGES = (
    ("convert", "osworld_g", "--quiet"),
    ("convert", "ui_vision", "--quiet"),
    ("bake", "gui_osworld_g", "gui_ui_vision"),
    ("store",),
    ("assemble",),
)


def _project(root: Path) -> Path:
    for name, data in hub_files().items():  # OSWorld-G.json, classification_result.json, images/ at the root
        path = root / "sources" / "osworld_g" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    ui_vision_tree(root / "sources" / "ui_vision")
    (root / "data" / "audits").mkdir(parents=True)
    for name in ("dvc.yaml", "requirements.lock", "requirements-build.lock", "data/audits/curated_umd.yaml"):
        shutil.copy(REPO / name, root / name)
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sources"].update(umd=None, gapartnet=None)
    params["sources"]["gui"] = dict.fromkeys(params["sources"]["gui"])
    params["sources"]["gui"].update(
        osworld_g=str(root / "sources" / "osworld_g"), ui_vision=str(root / "sources" / "ui_vision")
    )
    params["gui"]["workers"] = 1
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root


def _build(folder: Path) -> None:
    root = _project(folder / "project")
    for command in STAGES:
        assert run_cli(root, *command) == 0, command


def published_new_sources() -> Path:
    """The published folder (``data/groundbench``) holding gui_osworld_g (4 rows) and gui_ui_vision (4 rows)."""
    return once("new_gui_sources", _build) / "project" / "data" / "groundbench"

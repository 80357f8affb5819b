"""Find the UMD files: the ``tools/`` tree under any root, its tool folders and frame quadruples.

Operating-system clutter (``Thumbs.db``, ``.DS_Store``, ``._*`` AppleDouble files, ``desktop.ini``;
any letter case) in ``tools/`` or a tool folder is skipped and recorded (``Frame.skipped``, the
convert summary); any other file or folder that is not part of the layout stops the build, named.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from groundbench.converters.umd.vocab import UMD_CATEGORIES
from groundbench.core.paths import inside_root, relative_to
from groundbench.errors import GroundBenchError

TOOL_DIR = re.compile(r"^(?P<category>[a-z]+)_(?P<instance>\d{2})$")
FRAME_FILE = re.compile(
    r"^(?P<tool>(?P<category>[a-z]+)_(?P<instance>\d{2}))_(?P<frame>\d{8})"
    r"_(?P<kind>rgb\.jpg|depth\.png|label\.mat|label_rank\.mat)$"
)
SEARCH_DEPTH = 3  # the tarball's top folder varies between copies of the release
CLUTTER_NAMES = frozenset({"thumbs.db", ".ds_store", "desktop.ini"})  # compared in lower case


def is_os_clutter(name: str) -> bool:
    """A file an operating system leaves in folders it shows (Windows, macOS): never data."""
    return name.lower() in CLUTTER_NAMES or name.startswith("._")


@dataclass(frozen=True)
class Frame:
    """One frame of one tool: its four files (``rank`` may be absent)."""

    tool: str
    category: str
    index: int
    rgb: Path
    depth: Path | None
    label: Path
    rank: Path | None
    skipped: tuple[str, ...] = ()  # OS clutter skipped in the tool's folder (its file names)

    @property
    def stem(self) -> str:
        return f"{self.tool}_{self.index:08d}"


def find_tools_root(root: Path) -> Path:
    """The single ``tools/`` folder at most ``SEARCH_DEPTH`` levels below ``root``."""
    if not root.is_dir():
        raise GroundBenchError(root, "sources.umd", "expected a folder containing a UMD tools/ tree")
    found: list[Path] = []
    frontier = [root]
    for _ in range(SEARCH_DEPTH + 1):
        following: list[Path] = []
        for folder in frontier:
            for child in sorted(folder.iterdir()):
                if child.is_dir():
                    (found if child.name == "tools" else following).append(child)
        if found:
            break
        frontier = following
    if not found:
        raise GroundBenchError(root, "tools/", "no tools/ folder found (expected <root>/.../tools/<category>_<NN>/)")
    if len(found) > 1:
        names = ", ".join(relative_to(root, p) for p in found)
        raise GroundBenchError(root, "tools/", f"expected one tools/ folder, found {len(found)}: {names}")
    inside_root(root, found[0], "tools/")
    return found[0]


def list_tools(root: Path, tools_root: Path, skipped: list[str] | None = None) -> list[Path]:
    """The tool folders; OS clutter beside them is skipped (its paths appended to ``skipped``)."""
    tools = []
    for child in sorted(tools_root.iterdir()):
        if is_os_clutter(child.name) and not child.is_dir():
            if skipped is not None:
                skipped.append(relative_to(root, child))
            continue
        rel = relative_to(root, child)
        if not child.is_dir():
            raise GroundBenchError(rel, "tool folder", "expected only <category>_<NN>/ folders in tools/")
        match = TOOL_DIR.match(child.name)
        if not match:
            raise GroundBenchError(rel, "tool folder", "expected a name <category>_<NN>, e.g. mug_01")
        if match["category"] not in UMD_CATEGORIES:
            raise GroundBenchError(
                rel, "category", f"unknown category {match['category']!r}; expected one of {sorted(UMD_CATEGORIES)}"
            )
        inside_root(root, child, "tool folder")
        tools.append(child)
    if not tools:
        raise GroundBenchError(relative_to(root, tools_root), "tools/", "is empty; expected <category>_<NN>/ folders")
    return tools


def list_frames(root: Path, tool_dir: Path) -> list[Frame]:
    """Group a tool folder's files by frame; every frame needs its RGB and label files."""
    by_frame: dict[int, dict[str, Path]] = {}
    tool_rel = relative_to(root, tool_dir)
    with os.scandir(tool_dir) as scan:
        entries = sorted(scan, key=lambda entry: entry.name)
    skipped: list[str] = []
    for entry in entries:
        if is_os_clutter(entry.name) and not entry.is_dir():
            skipped.append(entry.name)
            continue
        path = tool_dir / entry.name
        match = FRAME_FILE.match(entry.name)
        rel = f"{tool_rel}/{entry.name}"
        if not match:
            raise GroundBenchError(
                rel,
                "file name",
                "expected <category>_<NN>_<8-digit frame>_{rgb.jpg,depth.png,label.mat,label_rank.mat}",
            )
        if match["tool"] != tool_dir.name:
            raise GroundBenchError(rel, "file name", f"belongs to {match['tool']}, found in {tool_dir.name}/")
        # The tool folder itself was checked to lie inside the root, so only a symlink can leave it;
        # resolving every plain file would cost two realpath walks per file (115k files at full scale).
        if entry.is_symlink():
            inside_root(root, path, "file")
        if not entry.is_file():
            raise GroundBenchError(rel, "file", "expected a regular file")
        by_frame.setdefault(int(match["frame"]), {})[match["kind"]] = path
    frames = []
    for index in sorted(by_frame):
        files = by_frame[index]
        stem = f"{tool_dir.name}_{index:08d}"
        for kind, partner in (("label.mat", "rgb.jpg"), ("rgb.jpg", "label.mat")):
            if kind not in files:
                present = files.get(partner) or next(iter(files.values()))
                raise GroundBenchError(
                    relative_to(root, present), kind, f"expected {stem}_{kind} beside it; the frame has none"
                )
        frames.append(
            Frame(
                tool=tool_dir.name,
                category=TOOL_DIR.match(tool_dir.name)["category"],  # type: ignore[index]
                index=index,
                rgb=files["rgb.jpg"],
                depth=files.get("depth.png"),
                label=files["label.mat"],
                rank=files.get("label_rank.mat"),
                skipped=tuple(skipped),
            )
        )
    if not frames:
        raise GroundBenchError(relative_to(root, tool_dir), "frames", "tool folder holds no frames")
    return frames

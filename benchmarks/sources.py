"""Full-scale synthetic sources in the real on-disk formats, for ``run.py``.

* UMD: ``umd_bench.write_tree`` (105 tools, 28,843 frames of 480x640, the release's per-tool counts).
* GAPartNet: the embedded sample's ten objects are rendered once (at GAPartNet's 800x800 by default)
  and then copied under ``n`` new object ids: every asset file, and every view's five files renamed
  to the new id (metafile ``model_id`` rewritten, a PNG text chunk naming the copy so each RGB is a
  distinct image). Rendering 1,046 objects would take an hour and measure the renderer, not the
  converter; the copies have the real formats, sizes and per-object work.
* GUI: ``groundbench generate-gui`` with 500 examples per suite in every frame size (when the GUI
  converters are present in this checkout).
"""

from __future__ import annotations

import json
import os
import shutil
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import umd_bench

from groundbench.converters.gapartnet.layout import VIEW_KINDS, VIEW_NAME
from groundbench.converters.gapartnet.sample import SAMPLE_OBJECTS, write_sample

REPO = Path(__file__).resolve().parent.parent  # params.yaml: the sample knobs
FULL_GAPARTNET_OBJECTS = 1_046
FULL_GUI_PER_SUITE = 500


@dataclass(frozen=True)
class Built:
    """One generated source: where it is and what it holds (picklable, sent to measuring children)."""

    name: str
    roots: dict[str, str]  # role -> folder (umd: tree; gapartnet: assets, renders; gui: pointerbench, ...)
    audit: str | None
    items: int
    item_unit: str
    files: int
    bytes: int
    generate_s: float
    note: str


def folder_files(*folders: Path) -> list[Path]:
    return sorted(path for folder in folders for path in folder.rglob("*") if path.is_file())


def build_umd(work: Path, scale: float) -> Built:
    tools = max(1, round(umd_bench.FULL_TOOLS * scale))
    counts = umd_bench.select_tools(tools)
    tree = umd_bench.write_tree(work / "umd", counts)
    audit = work / "umd_audit.yaml"
    umd_bench.write_audit(audit, counts)
    return Built(
        name="umd",
        roots={"tree": str(work / "umd")},
        audit=str(audit),
        items=tree.frames,
        item_unit="frame",
        files=tree.files,
        bytes=tree.source_bytes,
        generate_s=tree.generate_s,
        note=f"{tree.tools} tools, {tree.frames:,} frames of 480x640 (JPEG, depth PNG, label and rank .mat)",
    )


def _png_with_text(data: bytes, text: str) -> bytes:
    """Insert a tEXt chunk after IHDR: a distinct file (and sha256), the same pixels."""
    at = 8 + 4 + 4 + int.from_bytes(data[8:12], "big") + 4  # signature, IHDR length/type/data/crc
    body = b"Comment\x00" + text.encode("ascii")
    chunk = len(body).to_bytes(4, "big") + b"tEXt" + body + zlib.crc32(b"tEXt" + body).to_bytes(4, "big")
    return data[:at] + chunk + data[at:]


def build_gapartnet(work: Path, scale: float, size: tuple[int, int]) -> Built:
    started = time.perf_counter()
    template = work / "gapartnet_template"
    write_sample(template, size[0], size[1])
    assets, renders = work / "gapartnet" / "assets", work / "gapartnet" / "renders"
    (assets / "meta").mkdir(parents=True)
    views: dict[str, list[Path]] = {}
    for path in sorted((template / "renders" / "rgb").iterdir()):
        match = VIEW_NAME.match(path.stem)
        assert match is not None
        views.setdefault(match["id"], []).append(path)
    # Only the sample objects with rendered views (some exist raw, for the re-ask constructions).
    templates = [obj for obj in SAMPLE_OBJECTS if obj.object_id in views]
    objects = max(len(templates), round(FULL_GAPARTNET_OBJECTS * scale))
    id_lines, audit_entries = [], []
    audit_template = _audit_entries()
    for number in range(objects):
        source = templates[number % len(templates)]
        new_id = str(100_000 + number)
        shutil.copytree(template / "assets" / source.object_id, assets / new_id)
        meta = json.loads((assets / new_id / "meta.json").read_text())
        meta.update(model_id=new_id, anno_id=new_id)
        (assets / new_id / "meta.json").write_text(json.dumps(meta))
        id_lines.append(f"{source.category} {new_id}\n")
        for rgb in views[source.object_id]:
            stem = rgb.stem
            new_stem = stem.replace(f"_{source.object_id}_", f"_{new_id}_", 1)
            for kind, suffix in VIEW_KINDS.items():
                old = template / "renders" / kind / f"{stem}{suffix}"
                if not old.is_file():
                    continue
                target = renders / kind / f"{new_stem}{suffix}"
                target.parent.mkdir(parents=True, exist_ok=True)
                data = old.read_bytes()
                if kind == "rgb":
                    data = _png_with_text(data, f"groundbench benchmark copy {new_id}")
                elif kind == "metafile":
                    raw = json.loads(data)
                    raw["model_id"] = int(new_id)
                    data = json.dumps(raw).encode()
                target.write_bytes(data)
        if number < len(templates) and source.object_id in audit_template:
            entry = audit_template[source.object_id]
            audit_entries.append(
                f'  - object: "{new_id}"\n    view: {entry["view"].replace(source.object_id, new_id)}\n'
                f"    target: {entry['target']}\n" + (f"    action: {entry['action']}\n" if "action" in entry else "")
            )
    (assets / "meta" / "partnet_all_id_list.txt").write_text("".join(id_lines))
    audit = work / "gapartnet_audit.yaml"
    audit.write_text("objects:\n" + "".join(audit_entries))
    shutil.rmtree(template)
    files = folder_files(assets, renders)
    view_count = len(list((renders / "rgb").iterdir()))
    return Built(
        name="gapartnet",
        roots={"assets": str(assets), "renders": str(renders)},
        audit=str(audit),
        items=objects,
        item_unit="object",
        files=len(files),
        bytes=sum(path.stat().st_size for path in files),
        generate_s=time.perf_counter() - started,
        note=f"{objects:,} objects, {view_count:,} views of {size[0]}x{size[1]} (copies of the sample's "
        f"{len(templates)} rendered objects under new ids)",
    )


def _audit_entries() -> dict[str, dict[str, str]]:
    import yaml

    path = Path(__file__).resolve().parent.parent / "data" / "audits" / "curated_gapartnet.yaml"
    raw = yaml.safe_load(path.read_text())
    return {str(e["object"]): {k: str(v) for k, v in e.items()} for e in raw["objects"]}


def gui_available() -> bool:
    try:
        import groundbench.converters.gui.sample.write  # noqa: F401
    except ImportError:
        return False
    return True


def build_gui(work: Path, scale: float) -> Built:
    from groundbench.converters.gui.sample.write import generate
    from groundbench.core.params import load_params

    started = time.perf_counter()
    per_suite = max(2, round(FULL_GUI_PER_SUITE * scale))
    params = load_params(REPO).sample.gui.model_copy(update={"examples_per_suite": per_suite})
    generate(work / "gui", params, progress=False)
    files = folder_files(work / "gui")
    return Built(
        name="gui",
        # one folder per GUI source (sources.gui.<name> in params.yaml)
        roots={child.name: str(child) for child in sorted((work / "gui").iterdir()) if child.is_dir()},
        audit=None,
        items=sum(1 for path in files if path.suffix == ".png"),
        item_unit="screenshot",
        files=len(files),
        bytes=sum(path.stat().st_size for path in files),
        generate_s=time.perf_counter() - started,
        note=f"{per_suite} examples per suite in every frame size {', '.join(params.frames)}",
    )


def disk_bytes(folder: Path) -> int:
    return sum(os.path.getsize(path) for path in folder.rglob("*") if path.is_file())

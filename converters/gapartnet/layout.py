"""Find the GAPartNet files: object folders under the assets root, rendered views under the renders root.

Assets: PartNet-Mobility objects are flat ``<id>/`` folders,
AKB-48 objects are ``<Category>/<id>/`` (root link ``root``); either may sit directly under the
assets root or under ``partnet_all_annotated_new/`` / ``akb48_all_annotated_new/``. The object
category comes from ``meta/*_all_id_list.txt`` (beside the objects) when listed, else ``meta.json``
``model_cat``, else the AKB-48 category folder.

Renders (section 7.1): ``rgb/<name>.png``, ``segmentation/<name>.npz``, ``metafile/<name>.json``
and, when present, ``depth/<name>.npz`` and ``bbox/<name>.pkl``; ``<name>`` is
``<Category>_<id>_<camera>_<render>`` (unpadded, or padded 2/3 digits) with an optional ``_<extra>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from groundbench.converters.gapartnet.annotations import parse_id_list, parse_meta
from groundbench.core.paths import inside_root, relative_to
from groundbench.errors import GroundBenchError

LINK_ANNOTATION = "link_annotation_gapartnet.json"
URDF = "mobility_annotation_gapartnet.urdf"
SEMANTICS = "semantics_gapartnet.txt"
META = "meta.json"
REQUIRED_FILES = (LINK_ANNOTATION, URDF, SEMANTICS)
RELEASE_FOLDERS = {"partnet_all_annotated_new": "partnet", "akb48_all_annotated_new": "akb48"}
ID_LISTS = ("partnet_all_id_list.txt", "akb48_all_id_list.txt")
VIEW_NAME = re.compile(r"^(?P<category>[A-Za-z0-9]+)_(?P<id>\d+)_(?P<camera>\d+)_(?P<render>\d+)(?:_(?P<extra>\d+))?$")
VIEW_KINDS = {"rgb": ".png", "segmentation": ".npz", "metafile": ".json", "depth": ".npz", "bbox": ".pkl"}
REQUIRED_KINDS = ("rgb", "segmentation", "metafile")


@dataclass(frozen=True)
class ObjectFolder:
    object_id: str
    category: str
    dataset: str  # "partnet" or "akb48"
    path: Path


@dataclass(frozen=True)
class View:
    name: str
    object_id: str
    category: str
    camera_idx: int
    render_idx: int
    files: dict[str, Path] = field(hash=False, compare=False)


def _is_object(folder: Path) -> bool:
    return folder.name.isdigit() and (folder / LINK_ANNOTATION).is_file()


def _id_lists(assets: Path) -> dict[str, str]:
    categories: dict[str, str] = {}
    for folder in (assets, assets / "meta"):
        for name in ID_LISTS:
            path = folder / name
            if path.is_file():
                inside_root(assets, path, "id list")
                categories.update(parse_id_list(path.read_bytes(), relative_to(assets, path)))
    return categories


def _scan(assets: Path, base: Path, dataset: str | None, found: list[tuple[Path, str, str | None]]) -> None:
    for child in sorted(base.iterdir()):
        if child.name.startswith(".") or not child.is_dir() or child.name == "meta":
            continue
        if _is_object(child):
            found.append((child, dataset or "partnet", None))
        elif base == assets and child.name in RELEASE_FOLDERS:
            _scan(assets, child, RELEASE_FOLDERS[child.name], found)
        else:
            objects = [g for g in sorted(child.iterdir()) if g.is_dir() and _is_object(g)]
            if objects:  # AKB-48: <Category>/<id>/
                found.extend((g, dataset or "akb48", child.name) for g in objects)


def find_objects(assets: Path) -> list[ObjectFolder]:
    """Every object folder (sorted by id as text, the example-id order); ids must be unique."""
    if not assets.is_dir():
        raise GroundBenchError(assets, "sources.gapartnet.assets", "expected a folder of GAPartNet object folders")
    listed = _id_lists(assets)
    found: list[tuple[Path, str, str | None]] = []
    _scan(assets, assets, None, found)
    objects: dict[str, ObjectFolder] = {}
    for path, dataset, folder_category in found:
        rel = relative_to(assets, path)
        inside_root(assets, path, "object folder")
        for name in REQUIRED_FILES:
            if not (path / name).is_file():
                raise GroundBenchError(f"{rel}/{name}", "file", "missing; every GAPartNet object folder needs it")
        for name in (*REQUIRED_FILES, META):  # a symlinked annotation file must not lead outside either
            if (path / name).exists():
                inside_root(assets, path / name, name)
        category = listed.get(path.name)
        meta = path / META
        if category is None and meta.is_file():
            category = parse_meta(meta.read_bytes(), f"{rel}/{META}")
        category = category or folder_category
        if category is None:
            raise GroundBenchError(
                rel, "category", "not in meta/*_all_id_list.txt, no meta.json model_cat, no category folder"
            )
        if path.name in objects:
            raise GroundBenchError(
                rel, "object id", f"{path.name} also at {relative_to(assets, objects[path.name].path)}"
            )
        objects[path.name] = ObjectFolder(path.name, category, dataset, path)
    if not objects:
        raise GroundBenchError(assets, "sources.gapartnet.assets", f"no object folder with {LINK_ANNOTATION} found")
    return [objects[k] for k in sorted(objects)]


def find_views(renders: Path) -> dict[str, list[View]]:
    """Rendered views by object id, each view's files by kind; views sorted by name."""
    if not renders.is_dir():
        raise GroundBenchError(
            renders, "sources.gapartnet.renders", "expected a folder with rgb/ segmentation/ metafile/"
        )
    files: dict[str, dict[str, Path]] = {}
    for kind, suffix in VIEW_KINDS.items():
        folder = renders / kind
        if not folder.is_dir():
            if kind in REQUIRED_KINDS:
                raise GroundBenchError(
                    renders, f"{kind}/", "missing; GAPartNet renders need rgb/, segmentation/, metafile/"
                )
            continue
        for path in sorted(folder.iterdir()):
            if path.name.startswith("."):
                continue
            rel = relative_to(renders, path)
            if path.suffix != suffix or not VIEW_NAME.match(path.stem):
                raise GroundBenchError(rel, "file name", f"expected <Category>_<id>_<camera>_<render>{suffix}")
            inside_root(renders, path, "render file")
            files.setdefault(path.stem, {})[kind] = path
    views: dict[str, list[View]] = {}
    for name in sorted(files):
        kinds = files[name]
        for kind in REQUIRED_KINDS:
            if kind not in kinds:
                present = next(iter(kinds.values()))
                raise GroundBenchError(
                    relative_to(renders, present), kind, f"expected {kind}/{name}{VIEW_KINDS[kind]} beside it"
                )
        match = VIEW_NAME.match(name)
        assert match is not None
        view = View(name, match["id"], match["category"], int(match["camera"]), int(match["render"]), kinds)
        views.setdefault(view.object_id, []).append(view)
    return views

"""Where a fetched GAPartNet download keeps its objects and renders (the fetch's layout hook, named in spec.py)."""

from __future__ import annotations

from pathlib import Path

from groundbench.errors import GroundBenchError

GAPARTNET_ANNOTATION = "link_annotation_gapartnet.json"
RENDER_KINDS = ("rgb", "segmentation", "metafile")


def check_layout(tree: Path) -> dict[str, str | None]:
    """``assets`` (the folder holding the object folders) and ``renders`` (a folder with rgb/ segmentation/
    metafile/, or None: the release ships none), relative to ``tree``."""
    objects = sorted(p.parent for p in tree.rglob(GAPARTNET_ANNOTATION) if p.parent.name.isdigit())
    if not objects:
        raise GroundBenchError(
            tree.name, "layout", f"no GAPartNet object folder (<id>/{GAPARTNET_ANNOTATION}) in the download"
        )
    parents = sorted({o.parent for o in objects})
    # PartNet-Mobility objects sit in one folder; AKB-48 ones in <Category>/<id>/: the converter scans
    # two levels, so the assets root is the deepest folder above every object's parent.
    common = parents[0] if len(parents) == 1 else Path(*_common_parts([p.parts for p in parents]))
    renders = sorted(p for p in tree.rglob("*") if p.is_dir() and all((p / k).is_dir() for k in RENDER_KINDS))
    return {
        "assets": common.relative_to(tree).as_posix(),
        "renders": renders[0].relative_to(tree).as_posix() if renders else None,
    }


def _common_parts(parts: list[tuple[str, ...]]) -> tuple[str, ...]:
    common: list[str] = []
    for items in zip(*parts, strict=False):
        if len(set(items)) != 1:
            break
        common.append(items[0])
    return tuple(common)

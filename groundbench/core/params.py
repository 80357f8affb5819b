"""``params.yaml``: every knob of the pipeline. Relative paths resolve against the repository root."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from groundbench.core.errors import GroundBenchError

PARAMS_FILE = "params.yaml"
SAMPLE = "sample"

# Sources whose key under `sources:` is nested (sources.gui.<name>); their embedded
# sample lives in the matching nested folder (<sample.root>/gui/<name>).
NESTED_SOURCES = {
    "pointerbench": "gui.pointerbench",
    "screenspot": "gui.screenspot",
    "screenspot_v2": "gui.screenspot_v2",
    "screenspot_pro": "gui.screenspot_pro",
}


def load_params(root: Path) -> dict[str, Any]:
    path = root / PARAMS_FILE
    try:
        params = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise GroundBenchError(path, "file", f"expected a readable YAML file ({exc})") from exc
    if not isinstance(params, dict):
        raise GroundBenchError(path, "file", "expected a mapping at the top level")
    return params


def get(params: dict[str, Any], dotted: str) -> Any:
    node: Any = params
    for key in dotted.split("."):
        if not isinstance(node, dict) or key not in node:
            raise GroundBenchError(PARAMS_FILE, dotted, "missing; see the README for every parameter")
        node = node[key]
    return node


def source_root(root: Path, params: dict[str, Any], source: str) -> Path | None:
    """The folder a source reads from: the embedded sample, a configured folder, or None (left out)."""
    key = NESTED_SOURCES.get(source, source)
    value = get(params, f"sources.{key}")
    if value is None:
        return None
    if isinstance(value, dict):
        # A source made of several folders (GAPartNet: assets + renders): its converter resolves each
        # part as "<source>.<part>"; the source is left out when any part is null.
        parts = [source_root(root, params, f"{source}.{part}") for part in value]
        return None if any(part is None for part in parts) else root
    if value == SAMPLE:
        return root / get(params, "sample.root") / key.replace(".", "/")
    path = Path(value)
    return path if path.is_absolute() else root / path

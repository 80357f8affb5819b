"""Typed parameters, loaded once: ``params.yaml`` and the human-written audit files.

One pydantic definition per file is the only place a knob is named: every stage reads the validated
model (``load_params``), nothing restates a default. A bad file fails with one
:class:`GroundBenchError` naming the file, the dotted key and what was expected (unknown keys
included, so a typo cannot silently fall back to a default). Relative paths resolve against the
repository root.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from groundbench.errors import GroundBenchError

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


class Section(BaseModel):
    """A mapping of the file: every key required unless given a default here, no unknown key, read-only.

    Strict: a YAML string is never read as a number (``workers: "2"`` is an error, not 2).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


# params.yaml ------------------------------------------------------------------------------------------

# Every numeric knob has a range; a value outside it is one error naming params.yaml and the key.
Count = Annotated[int, Field(ge=1)]  # sizes, windows, batches, pixels, bytes: at least one
Workers = Annotated[int, Field(ge=0)]  # processes; 0 = every core
Floor = Annotated[int, Field(ge=0)]  # a pixel floor; 0 = none
Seed = Annotated[int, Field(ge=0)]
Share = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]  # a fraction of pixels or an IoU
Margin = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Degrees = Annotated[int | float, Field(allow_inf_nan=False)]


class DatasetParams(Section):
    version: str
    date_published: str
    url: str


class GuiSources(Section):
    pointerbench: str | None
    screenspot: str | None
    screenspot_v2: str | None
    screenspot_pro: str | None


class GapartnetSources(Section):
    assets: str | None
    renders: str | None


class SourcesParams(Section):
    """Where each source is read from: ``sample``, a folder (relative or absolute), or null (left out)."""

    umd: str | None
    gui: GuiSources
    gapartnet: GapartnetSources | None


class UmdSampleParams(Section):
    frames_per_tool: Count
    seed: Seed


class GuiSampleParams(Section):
    examples_per_suite: Count
    frames: tuple[str, ...]
    screenspot_rows: Count
    seed: Seed
    workers: Workers

    @field_validator("frames", mode="before")
    @classmethod
    def _frames_list(cls, value: Any) -> Any:
        return tuple(value) if isinstance(value, list) else value  # YAML has lists, not tuples


RenderEngine = Literal["raster", "embree", "triangle"]  # the GAPartNet renderer's (converters/gapartnet/renderer.py)


class GapartnetSampleParams(Section):
    width: Count
    height: Count
    engine: RenderEngine


class SampleParams(Section):
    root: str
    umd: UmdSampleParams
    gui: GuiSampleParams
    gapartnet: GapartnetSampleParams


class UmdParams(Section):
    audit: str
    workers: Workers
    window: Count
    frames_per_task: Count
    max_image_pixels: Count
    min_region_pixels: Floor


class GuiParams(Section):
    max_image_pixels: Count
    workers: Workers
    window: Count
    max_held_bytes: Annotated[int, Field(ge=0)]  # 0: hold no image bytes back (drop them, read again)


class GapartnetParams(Section):
    audit: str
    workers: Workers
    window: Count
    iou_min: Share
    coverage_min: Share
    instance_coverage_min: Share
    instance_ambiguity_margin: Margin
    min_mask_pixels: Floor
    max_image_pixels: Count


class RenderParams(Section):
    width: Count
    height: Count
    # Kept as written (60 stays 60, not 60.0): the values are printed into the manifests' render call.
    theta: Annotated[int | float, Field(ge=0, le=180, allow_inf_nan=False)]  # polar angle from +z
    phi: Degrees
    margin: Annotated[int | float, Field(gt=0, allow_inf_nan=False)]
    engine: RenderEngine


class ContrastParams(Section):
    pool: str
    closed_pose_min_mask_share: Share
    render: RenderParams


class EngineParams(Section):
    """Where the per-item work of convert/derive (and the GAPartNet sample's views) runs; changes no byte."""

    name: Literal["local", "dask"]  # local: our process pool; dask: a Dask distributed cluster
    address: str | None  # dask only: a running scheduler (tcp://HOST:8786); None starts a local cluster

    @field_validator("address")
    @classmethod
    def _address(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and info.data.get("name") == "local":
            raise ValueError("an address needs name: dask")
        return value


class ShardParams(Section):
    max_bytes: Count
    rows_per_batch: Count


class ReportParams(Section):
    thumb_side: Count
    detail_side: Count
    jpeg_quality: Annotated[int, Field(ge=1, le=100)]


class Params(Section):
    """The whole of ``params.yaml``."""

    dataset: DatasetParams
    sources: SourcesParams
    sample: SampleParams
    umd: UmdParams
    gui: GuiParams
    gapartnet: GapartnetParams
    contrast: ContrastParams
    engine: EngineParams
    shards: ShardParams
    report: ReportParams


# The audit files (human-written, git-tracked) ------------------------------------------------------------


class ListFile(Section):
    """A YAML file holding one list under ``list_key`` (what its readers check beyond types stays there)."""

    list_key: ClassVar[str] = ""
    shape: ClassVar[str] = ""  # the message when the file is not a mapping holding that list


class UmdAuditTool(Section):
    tool: str
    frame: int | None = None  # an explicit frame overrides the rule
    note: str = ""

    @field_validator("frame")
    @classmethod
    def _frame_number(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError(f"expected a frame number >= 1, got {value!r}")
        return value


class UmdAuditFile(ListFile):
    """``data/audits/curated_umd.yaml``."""

    list_key: ClassVar[str] = "tools"
    shape: ClassVar[str] = "expected a mapping with a 'tools' list"
    frame_rule: Literal["hand_labelled", "any"] = "hand_labelled"
    tools: list[UmdAuditTool]


class GapartnetAuditObject(Section):
    object: str
    view: str
    target: str
    action: str | None = None  # overrides the part-class table for the target
    note: str = ""
    exclude: str | None = None  # the auditor's reason for excluding the target

    @field_validator("object", "view", "target", mode="before")
    @classmethod
    def _name(cls, value: Any) -> Any:
        # Unquoted object ids are YAML integers; they name the same folder.
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("action")
    @classmethod
    def _action(cls, value: str | None) -> str | None:
        from groundbench.schemas.vocab import ACTIONS

        if value is not None and value not in ACTIONS:
            raise ValueError(f"expected one of {ACTIONS}, got {value!r}")
        return value

    @field_validator("exclude")
    @classmethod
    def _reason(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("expected the reason for excluding, as text")
        return value


class GapartnetAuditFile(ListFile):
    """``data/audits/curated_gapartnet.yaml``."""

    list_key: ClassVar[str] = "objects"
    shape: ClassVar[str] = "expected a mapping with an 'objects' list"
    objects: list[GapartnetAuditObject]


class PoolPair(Section):
    pair: str  # "<object>/<original part>-><requested part>" (extras.reask.pair_id)
    # Required: a missing reason is reported by the validator below, saying what a reason is.
    reason: str = Field(default=None, validate_default=True)

    @field_validator("pair", mode="before")
    @classmethod
    def _pair(cls, value: Any) -> Any:
        if not isinstance(value, str) or "/" not in value or "->" not in value:
            raise ValueError("expected '<object>/<original>-><requested>'")
        return value

    @field_validator("reason", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        # An empty string is a draft's unreviewed pair: it loads, and check_pool refuses it, naming every such pair.
        if not isinstance(value, str):
            raise ValueError("expected the reviewer's reason, as text")
        return value.strip()


class ContrastPoolFile(ListFile):
    """``data/audits/contrast_pool.yaml``."""

    list_key: ClassVar[str] = "pairs"
    shape: ClassVar[str] = "expected a mapping with a 'pairs' list"
    pairs: list[PoolPair]


# Loading -----------------------------------------------------------------------------------------------

M = TypeVar("M", bound=Section)


def _dotted(loc: tuple[int | str, ...]) -> str:
    """Pydantic's error location as the file's key: ``umd.workers``, ``tools[2].frame``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


# pydantic's range error kinds -> (the comparison said, the limit's key in the error's ctx)
RANGES = {
    "greater_than_equal": (">=", "ge"),
    "greater_than": (">", "gt"),
    "less_than_equal": ("<=", "le"),
    "less_than": ("<", "lt"),
}


def _reason(error: Any) -> str:
    kind, message = error["type"], str(error["msg"])
    if kind == "missing":
        return "missing required key; see params.yaml and docs/pipeline.md for every parameter"
    if kind == "extra_forbidden":
        return "unknown key (a misspelt key would otherwise fall back silently)"
    if kind == "value_error":
        return message.removeprefix("Value error, ")
    bound = RANGES.get(kind)
    if bound is not None:
        return f"expected a number {bound[0]} {error['ctx'][bound[1]]}, got {error.get('input')!r}"
    if kind == "finite_number":
        return f"expected a finite number, got {error.get('input')!r}"
    return f"{message}, got {error.get('input')!r}"


def validate(model: type[M], raw: Any, path: str | Path) -> M:
    """``raw`` (parsed YAML) as ``model``; the first problem as one error naming the file and key."""
    if issubclass(model, ListFile):
        key = model.list_key
        if not isinstance(raw, dict) or not isinstance(raw.get(key), list):
            raise GroundBenchError(path, key, model.shape)
    elif not isinstance(raw, dict):
        raise GroundBenchError(path, "file", "expected a mapping at the top level")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise GroundBenchError(path, _dotted(first["loc"]) or "file", _reason(first)) from None


def read_yaml(path: Path, what: str) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise GroundBenchError(path, "file", f"expected a readable YAML {what} ({exc})") from exc


def load_file(model: type[M], path: Path, what: str) -> M:
    return validate(model, read_yaml(path, what), path)


def load_params(root: Path) -> Params:
    # Named relative to the root: the message is the same wherever the repository lives.
    path = root / PARAMS_FILE
    return validate(Params, read_yaml(path, "file"), PARAMS_FILE)


def source_value(params: Params, source: str) -> Any:
    """The ``sources:`` value of a source (``umd``, ``pointerbench``, ``gapartnet.assets``, ...)."""
    node: Any = params.sources
    for key in NESTED_SOURCES.get(source, source).split("."):
        node = None if node is None else getattr(node, key)
    return node


def source_root(root: Path, params: Params, source: str) -> Path | None:
    """The folder a source reads from: the embedded sample, a configured folder, or None (left out)."""
    key = NESTED_SOURCES.get(source, source)
    value = source_value(params, source)
    if value is None:
        return None
    if isinstance(value, BaseModel):
        # A source made of several folders (GAPartNet: assets + renders): its converter resolves each
        # part as "<source>.<part>"; the source is left out when any part is null.
        parts = [source_root(root, params, f"{source}.{part}") for part in type(value).model_fields]
        return None if any(part is None for part in parts) else root
    if value == SAMPLE:
        return root / params.sample.root / key.replace(".", "/")
    path = Path(value)
    return path if path.is_absolute() else root / path

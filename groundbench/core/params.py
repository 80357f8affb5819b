"""Typed parameters, loaded once: ``params.yaml`` and the human-written audit files.

One pydantic definition per file is the only place a knob is named: every stage reads the validated
model (``load_params``), nothing restates a default. A bad file fails with one
:class:`GroundBenchError` naming the file, the dotted key and what was expected (unknown keys
included, so a typo cannot silently fall back to a default). Relative paths resolve against the
repository root.

The sources' own models live in their folders (``converters/<name>/params.py``) and are composed here
from the specs: ``sources:``, ``sample:`` and one top-level section per source folder. A section (or
``sources:`` entry) whose every key has a default may be left out of the file.

A process limited to some source folders (``groundbench.core.registry.limited``: a stage of one source)
validates the shared sections and those folders' entries only, and passes over the other folders' keys
unread: its model never imports another folder's params, so editing them changes nothing it runs. Every
other process (the user commands, the stages that serve every source) validates the whole file.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, create_model, field_validator

from groundbench.core import registry
from groundbench.core.sections import (  # noqa: F401  (the building blocks, importable from here as before)
    Count,
    Degrees,
    Floor,
    ListFile,
    Margin,
    RenderEngine,
    Section,
    Seed,
    Share,
    Workers,
)
from groundbench.errors import GroundBenchError

PARAMS_FILE = "params.yaml"
SAMPLE = "sample"


class DatasetParams(Section):
    version: str
    date_published: str
    url: str


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
    rows_per_page: Count
    rows_per_file: Count


def _defaulted(model: Any) -> Any:
    """A field for ``model``: optional (its defaults) when every key of it has a default, else required."""
    fields = getattr(model, "model_fields", None)
    if fields is not None and not any(f.is_required() for f in fields.values()):
        return (model, Field(default_factory=model))
    return (model, ...)


class PartSection(Section):
    """A mapping read in part: the keys of folders the process does not load pass unread."""

    model_config = ConfigDict(extra="ignore")


@functools.cache
def _composed(view: registry.View) -> tuple[Any, Any, Any]:
    """``sources:``, ``sample:`` and the whole file, each a model made from the view's folders' specs."""
    base = Section if view.complete else PartSection
    folders = view.folders
    sources = create_model(  # type: ignore[call-overload]
        "SourcesParams",
        __base__=base,
        __doc__="Where each source is read from: ``sample``, a folder (relative or absolute), or null (left out).",
        **{key: entry for folder in folders for key, entry in folder.sources_params.items()},
    )
    sample = create_model(  # type: ignore[call-overload]
        "SampleParams",
        __base__=base,
        root=(str, ...),
        **{s.name: _defaulted(s.params) for folder in folders for s in folder.samples if s.params is not None},
    )
    sections = {key: _defaulted(model) for folder in folders for key, model in folder.sections.items()}
    params = create_model(  # type: ignore[call-overload]
        "Params",
        __base__=base,
        __doc__="The whole of ``params.yaml``.",
        dataset=(DatasetParams, ...),
        sources=(sources, ...),
        sample=(sample, ...),
        **sections,
        engine=(EngineParams, ...),
        shards=(ShardParams, ...),
        report=(ReportParams, ...),
    )
    return sources, sample, params


if TYPE_CHECKING:
    # What mypy sees of the composed models: the folders' sections, typed. A new folder runs without an entry
    # here (the runtime model is composed from its spec); add one for mypy to check its code's attribute reads.
    from groundbench.converters.gapartnet.params import (
        ContrastParams,
        GapartnetParams,
        GapartnetSampleParams,
        GapartnetSources,
    )
    from groundbench.converters.gui.params import GuiParams, GuiSampleParams, GuiSources
    from groundbench.converters.umd.params import UmdParams, UmdSampleParams

    class SourcesParams(Section):
        umd: str | None
        gui: GuiSources
        gapartnet: GapartnetSources | None

    class SampleParams(Section):
        root: str
        umd: UmdSampleParams
        gui: GuiSampleParams
        gapartnet: GapartnetSampleParams

    class Params(Section):
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

else:
    COMPOSED = ("SourcesParams", "SampleParams", "Params")

    def __getattr__(name: str) -> Any:
        # PEP 562: composed from the process's folders when first used, not when this module is imported
        # (a stage limits itself to its folders first).
        if name in COMPOSED:
            return dict(zip(COMPOSED, _composed(registry.view()), strict=True))[name]
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    return validate(_composed(registry.view())[2], read_yaml(path, "file"), PARAMS_FILE)


def source_value(params: Params, source: str) -> Any:
    """The ``sources:`` value of a source (``umd``, ``pointerbench``, ``gapartnet.assets``, ...)."""
    node: Any = params.sources
    for key in registry.NESTED_SOURCES.get(source, source).split("."):
        node = None if node is None else getattr(node, key)
    return node


def source_root(root: Path, params: Params, source: str) -> Path | None:
    """The folder a source reads from: the embedded sample, a configured folder, or None (left out)."""
    key = registry.NESTED_SOURCES.get(source, source)
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

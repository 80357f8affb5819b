"""params.yaml's GAPartNet knobs (sources.gapartnet, sample.gapartnet, gapartnet:, contrast:) and the audit
and pool files' models."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import Field, field_validator

from groundbench.core.sections import Count, Degrees, Floor, ListFile, Margin, RenderEngine, Section, Share, Workers


class GapartnetSources(Section):
    assets: str | None
    renders: str | None


class GapartnetSampleParams(Section):
    width: Count
    height: Count
    engine: RenderEngine


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

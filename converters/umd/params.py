"""params.yaml's UMD knobs (sources.umd, sample.umd, umd:) and the curated audit file's model."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import field_validator

from groundbench.core.sections import Count, Floor, ListFile, Section, Seed, Workers


class UmdSampleParams(Section):
    frames_per_tool: Count
    seed: Seed


class UmdParams(Section):
    audit: str
    workers: Workers
    window: Count
    frames_per_task: Count
    max_image_pixels: Count
    min_region_pixels: Floor


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

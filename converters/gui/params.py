"""params.yaml's GUI knobs: sources.gui.<name> of the GUI sources, sample.gui (the generator), gui:."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, field_validator

from groundbench.core.sections import Count, Section, Seed, Workers


class GuiSources(Section):
    pointerbench: str | None
    screenspot: str | None
    screenspot_v2: str | None
    screenspot_pro: str | None
    osworld_g: str | None = "sample"  # a folder holding OSWorld-G.json (or benchmark/OSWorld-G.json) and images/
    ui_vision: str | None = "sample"  # a folder holding element_grounding_*.json and the screenshots


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


class GuiParams(Section):
    max_image_pixels: Count
    workers: Workers
    window: Count
    max_held_bytes: Annotated[int, Field(ge=0)]  # 0: hold no image bytes back (drop them, read again)

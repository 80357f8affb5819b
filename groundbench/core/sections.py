"""The building blocks of ``params.yaml``'s model: a strict read-only mapping and the ranged numbers.

Here, not in ``params.py``, so a source's own params model (``converters/<name>/params.py``) can use them
while ``params.py`` composes those models from the specs.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field


class Section(BaseModel):
    """A mapping of the file: every key required unless given a default here, no unknown key, read-only.

    Strict: a YAML string is never read as a number (``workers: "2"`` is an error, not 2).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


# Every numeric knob has a range; a value outside it is one error naming params.yaml and the key.
Count = Annotated[int, Field(ge=1)]  # sizes, windows, batches, pixels, bytes: at least one
Workers = Annotated[int, Field(ge=0)]  # processes; 0 = every core
Floor = Annotated[int, Field(ge=0)]  # a pixel floor; 0 = none
Seed = Annotated[int, Field(ge=0)]
Share = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]  # a fraction of pixels or an IoU
Margin = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Degrees = Annotated[int | float, Field(allow_inf_nan=False)]

RenderEngine = Literal["raster", "embree", "triangle"]  # the GAPartNet renderer's (converters/gapartnet/renderer.py)


class ListFile(Section):
    """A YAML file holding one list under ``list_key`` (what its readers check beyond types stays there)."""

    list_key: ClassVar[str] = ""
    shape: ClassVar[str] = ""  # the message when the file is not a mapping holding that list

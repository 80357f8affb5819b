"""An embedded sample nobody reads is not built: when params.yaml points a source at a real folder (or
leaves it out), its sample stage writes one small marker file instead of the sample (UMD's 36 frames, the
320 GUI screenshots, the GAPartNet renders). The marker keeps the stage's DVC output valid and is the same
bytes on every run; pointing the source back at ``sample`` re-runs the stage (``sources.*`` is one of its
params) and the marker is replaced by the sample."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from groundbench.core import registry
from groundbench.core.atomic import atomic_dir
from groundbench.core.params import SAMPLE

if TYPE_CHECKING:
    from groundbench.core.params import Params

MARKER = "SAMPLE_NOT_USED"


def unused_reason(params: Params, source: str) -> str | None:
    """Why the embedded sample of ``source`` (umd, gui, gapartnet) is not needed, or None when a part of
    the source reads it (any GUI source, either GAPartNet folder)."""
    value = getattr(params.sources, source)
    values = list(value.model_dump().values()) if isinstance(value, BaseModel) else [value]
    if any(item == SAMPLE for item in values):
        return None
    return (
        f"The embedded {source} sample is not built: params.yaml sources.{source} reads no part of it "
        f"(every part is a folder or null). Set it to `{SAMPLE}` to build the sample.\n"
    )


def marker_parts(source: str) -> tuple[str, ...]:
    """The sub-folders a sample's readers depend on one by one (dvc.yaml's ``convert_gui`` stage declares each
    ``<sample root>/gui/<name>``; DVC refuses a missing dependency), which get a marker too."""
    sample = registry.SAMPLES.get(source)
    return () if sample is None else sample.parts


def write_marker(folder: Path, reason: str, parts: tuple[str, ...] = ()) -> None:
    """Replace ``folder`` (a sample's output) with the marker alone (and one in each of ``parts``), atomically."""
    with atomic_dir(folder) as tmp:
        (tmp / MARKER).write_text(reason)
        for part in parts:
            (tmp / part).mkdir()
            (tmp / part / MARKER).write_text(reason)

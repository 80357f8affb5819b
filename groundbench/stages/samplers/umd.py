"""UMD's embedded sample, written where params.yaml ``sample.root`` says."""

from __future__ import annotations

from pathlib import Path

from groundbench.core.params import Params


def write(root: Path, params: Params, progress: bool = False) -> int:
    from groundbench.samples.umd import write_sample

    knobs = params.sample.umd
    return write_sample(root / params.sample.root / "umd", knobs.frames_per_tool, knobs.seed)

"""GAPartNet's embedded sample (objects and their renders), written where params.yaml ``sample.root`` says."""

from __future__ import annotations

from pathlib import Path

from groundbench.core.params import Params


def write(root: Path, params: Params, progress: bool = False) -> int:
    from groundbench.samples.gapartnet import write_sample
    from groundbench.stages.engine import map_engine

    knobs = params.sample.gapartnet
    return write_sample(
        root / params.sample.root / "gapartnet", knobs.width, knobs.height, knobs.engine, map_engine(params)
    )

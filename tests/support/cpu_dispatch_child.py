"""Child of ``test_cpu_independence.py``: the GAPartNet path under whatever CPU dispatch its environment sets.

``python tests/support/cpu_dispatch_child.py OUT`` writes the embedded GAPartNet sample, converts it and mines the
contrast set under ``OUT``, writes and converts the UMD sample in a project under ``OUT/umd``, then prints
one JSON line: the sha256 of every file written and what the CPU dispatch actually was (numpy's dispatch
targets, OpenBLAS's core, a libm probe, OpenCV's features), so the parent can tell that a setting took
effect.
"""

from __future__ import annotations

import ctypes
import glob
import hashlib
import json
import math
import os
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# An argument whose glibc sin differs in the last bit between the FMA and the SSE2 variant (found by search).
LIBM_PROBE = float.fromhex("0x1.50df99f7d5920p-3")


def openblas_core() -> str:
    import numpy

    libraries = glob.glob(os.path.join(os.path.dirname(numpy.__file__) + ".libs", "libscipy_openblas*.so"))
    if not libraries:
        return "(no bundled OpenBLAS)"
    library = ctypes.CDLL(libraries[0])
    for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename"):
        if hasattr(library, name):
            corename = getattr(library, name)
            corename.restype = ctypes.c_char_p
            return str(corename().decode())
    return "(unknown)"


def dispatch_state() -> dict[str, object]:
    import cv2
    from numpy._core import _multiarray_umath as umath

    return {
        "numpy": {name: bool(umath.__cpu_features__.get(name)) for name in umath.__cpu_dispatch__},
        "openblas": openblas_core(),
        "libm_sin": math.sin(LIBM_PROBE).hex(),
        "opencv": cv2.getCPUFeaturesLine(),
    }


def build(out: Path) -> dict[str, str]:
    from groundbench.converters.gapartnet.contrast import mine_contrast
    from groundbench.converters.gapartnet.convert import convert_gapartnet
    from groundbench.converters.gapartnet.sample import write_sample
    from groundbench.core.params import load_params

    params = load_params(REPO)
    one_worker = params.gapartnet.model_copy(update={"workers": 1})
    audit = REPO / params.gapartnet.audit
    sample = out / "sample"
    write_sample(sample, params.sample.gapartnet.width, params.sample.gapartnet.height, params.sample.gapartnet.engine)
    interim = out / "interim"
    convert_gapartnet(sample / "assets", sample / "renders", interim, audit, one_worker, params.shards, False)
    pool = REPO / params.contrast.pool
    mine_contrast(
        sample / "assets",
        sample / "renders",
        interim / "bulk_gapartnet",
        out / "contrast",
        audit,
        pool,
        one_worker,
        params.contrast,
        params.shards,
        False,
    )
    _umd(out / "umd")
    return {
        str(path.relative_to(out)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(out.rglob("*"))
        if path.is_file() and "audits" not in path.parts
    }


def _umd(project: Path) -> None:
    """The UMD sample and its conversion, as ``dvc repro`` runs them (a project of params.yaml and the audits)."""
    from groundbench.cli import main

    (project / "data").mkdir(parents=True)
    shutil.copy(REPO / "params.yaml", project / "params.yaml")
    shutil.copytree(REPO / "data" / "audits", project / "data" / "audits")
    for command in (["sample", "umd"], ["convert", "umd", "--quiet"]):
        assert main(["--root", str(project), *command]) == 0, command


if __name__ == "__main__":
    digests = build(Path(sys.argv[1]))
    print(json.dumps({"digests": digests, "dispatch": dispatch_state()}))

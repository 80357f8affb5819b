"""The GAPartNet path gives the same bytes whatever CPU runs it (docs/determinism.md).

One machine cannot be another, but it can stop using what its CPU adds: numpy's run-time dispatch
(``NPY_DISABLE_CPU_FEATURES``), OpenBLAS's kernel choice (``OPENBLAS_CORETYPE``), glibc's FMA variants
of ``sin``/``cos``/``exp`` (``GLIBC_TUNABLES``) and OpenCV's dispatch (``OPENCV_CPU_DISABLE``). The GAPartNet
sample writer, conversion and contrast mining, and the UMD sample writer and conversion, run in a fresh
process per setting (``tests/support/cpu_dispatch_child.py``) and must write identical bytes. Only features the
running CPU has are named, and each child reports what its dispatch actually was, so a setting that
changed nothing cannot pass for one that did.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHILD = REPO / "tests" / "support" / "cpu_dispatch_child.py"
DISPATCH_VARIABLES = ("NPY_DISABLE_CPU_FEATURES", "NPY_ENABLE_CPU_FEATURES", "OPENBLAS_CORETYPE", "GLIBC_TUNABLES")
AVX512_TARGETS = ("X86_V4", "AVX512_ICL", "AVX512_SPR")  # numpy's dispatch targets above AVX2


def _numpy_targets() -> list[str]:
    """numpy's run-time dispatch targets that this CPU has (naming others is an error or a no-op)."""
    from numpy._core import _multiarray_umath as umath

    return [name for name in umath.__cpu_dispatch__ if umath.__cpu_features__.get(name)]


def _opencv_targets() -> list[str]:
    """OpenCV's dispatched features that this CPU has: ``*NAME`` (not ``*NAME?``) in its features line."""
    import cv2

    return [word[1:] for word in cv2.getCPUFeaturesLine().split() if word.startswith("*") and not word.endswith("?")]


def _settings() -> dict[str, dict[str, str]]:
    numpy_targets, opencv_targets = _numpy_targets(), _opencv_targets()
    baseline = {  # x86-64 without AVX2/FMA: what an old CPU, or a cloud VM that masks them, would run
        "OPENBLAS_CORETYPE": "Prescott",
        "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4",
    }
    if numpy_targets:
        baseline["NPY_DISABLE_CPU_FEATURES"] = " ".join(numpy_targets)
    if opencv_targets:
        baseline["OPENCV_CPU_DISABLE"] = ",".join(opencv_targets)
    avx2 = {"OPENBLAS_CORETYPE": "Haswell"}  # an AVX2 machine: the previous session's, say
    if [t for t in numpy_targets if t in AVX512_TARGETS]:
        avx2["NPY_DISABLE_CPU_FEATURES"] = " ".join(t for t in numpy_targets if t in AVX512_TARGETS)
    if "AVX512-SKX" in opencv_targets:
        avx2["OPENCV_CPU_DISABLE"] = "AVX512-SKX"
    return {"default": {}, "baseline": baseline, "avx2": avx2}


def _run(out: Path, setting: dict[str, str]) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in DISPATCH_VARIABLES and k != "OPENCV_CPU_DISABLE"}
    env.update(setting)
    done = subprocess.run(
        [sys.executable, str(CHILD), str(out)], env=env, cwd=REPO, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _effects(default: dict, other: dict, setting: dict[str, str]) -> list[str]:
    """The components whose dispatch the setting changed (as its child reported them)."""
    effects = []
    if other["numpy"] != default["numpy"]:
        effects.append("numpy")
    if other["openblas"] != default["openblas"]:
        effects.append("openblas")
    if other["libm_sin"] != default["libm_sin"]:
        effects.append("libm")
    if other["opencv"] != default["opencv"]:
        effects.append("opencv")
    for name in setting.get("NPY_DISABLE_CPU_FEATURES", "").split():
        assert other["numpy"][name] is False, f"{name} still dispatched: the variable did not reach numpy"
    return effects


@pytest.mark.slow
def test_the_gapartnet_and_umd_paths_write_the_same_bytes_under_every_cpu_dispatch(tmp_path: Path) -> None:
    settings = _settings()
    results = {name: _run(tmp_path / name, setting) for name, setting in settings.items()}
    default = results["default"]
    assert len(default["digests"]) > 250  # sample (244 files), interim configs, contrast set
    assert any(path.startswith("contrast/") for path in default["digests"])
    assert any(path.startswith("umd/data/interim/umd/") for path in default["digests"])
    effective = {}
    for name, setting in settings.items():
        if name == "default":
            continue
        effective[name] = _effects(default["dispatch"], results[name]["dispatch"], setting)
        differing = sorted(p for p in default["digests"] if results[name]["digests"].get(p) != default["digests"][p])
        assert results[name]["digests"].keys() == default["digests"].keys()
        assert not differing, f"{name} ({setting}) changed {len(differing)} files, e.g. {differing[:5]}"
    assert any(effective.values()), f"no setting changed the dispatch on this CPU: {results['default']['dispatch']}"
    if _numpy_targets():  # on an x86-64 CPU with AVX2 or better every one of these must have switched
        assert {"numpy", "openblas"} <= set(effective["baseline"]), effective

"""The GAPartNet renderer's engines, timed: ``python benchmarks/render_bench.py`` (docs/determinism.md).

Cases: ``sample`` (the 21 views of the embedded sample at 320x240, as ``make build`` renders them),
``sample800`` (the same views at 800x800, GAPartNet's size), ``dense800`` (a 327,680-triangle sphere in
front of a 2-triangle wall at 800x800: tens of thousands of triangles, as real GAPartNet meshes have,
most of them a few pixels wide). Each (case, engine) runs in a fresh process; the figures are the time
spent in ``cast`` (embree's includes building its BVH) and the process's peak RSS, beside its RSS
before the first ``cast`` (the scene built, modules imported).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import trimesh

from groundbench.converters.gapartnet.geometry import Camera
from groundbench.converters.gapartnet.renderer import Scene, cast, look_at_camera, spherical_position
from groundbench.converters.gapartnet.sample import view_scenes

CASES = ("sample", "sample800", "dense800")
ENGINES = ("raster", "embree")


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _sample_scenes(width: int, height: int) -> list[tuple[Scene, Camera]]:
    return view_scenes(Path(tempfile.mkdtemp()), width, height)


def _dense_scene() -> list[tuple[Scene, Camera]]:
    sphere = trimesh.creation.icosphere(subdivisions=7, radius=0.5)
    wall = np.array([[0.6, -2.0, -2.0], [0.6, 2.0, -2.0], [0.6, 2.0, 2.0], [0.6, -2.0, 2.0]])
    vertices = np.concatenate([np.asarray(sphere.vertices), wall])
    base = len(sphere.vertices)
    faces = np.concatenate([np.asarray(sphere.faces), [[base, base + 1, base + 2], [base, base + 2, base + 3]]])
    face_link = np.concatenate([np.zeros(len(sphere.faces), dtype=np.int64), [1, 1]])
    scene = Scene(vertices, faces.astype(np.int64), face_link, ("sphere", "wall"))
    camera = look_at_camera(spherical_position(90, 180, 1.6), np.zeros(3), 800, 800)
    return [(scene, camera)]


def child(case: str, engine: str) -> dict[str, float]:
    scenes = {"sample": lambda: _sample_scenes(320, 240), "sample800": lambda: _sample_scenes(800, 800)}.get(
        case, _dense_scene
    )()
    before = _rss_mb()
    spent = 0.0
    for scene, camera in scenes:
        start = time.perf_counter()
        cast(scene, camera, engine)
        spent += time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    triangles = max(len(scene.faces) for scene, _ in scenes)
    return {"views": len(scenes), "triangles": triangles, "seconds": spent, "rss_before_mb": before, "peak_mb": peak}


def main() -> None:
    if len(sys.argv) == 3:
        print(json.dumps(child(sys.argv[1], sys.argv[2])))
        return
    for case in CASES:
        for engine in ENGINES:
            out = subprocess.run([sys.executable, __file__, case, engine], check=True, capture_output=True, text=True)
            got = json.loads(out.stdout)
            print(
                f"{case:9s} {engine:6s} views {got['views']:2d}  triangles/view <= {got['triangles']:6d}  "
                f"cast {got['seconds']:6.2f} s ({got['seconds'] / got['views']:.3f} s/view)  "
                f"RSS {got['rss_before_mb']:.0f} MB before, peak {got['peak_mb']:.0f} MB"
            )


if __name__ == "__main__":
    main()

"""The renderer's default engine: a float64 z-buffer rasterizer whose every output bit is the same on every CPU.

Why not embree: embree picks SSE4.2, AVX2 or AVX-512 kernels at run time (BVH width, traversal
order and float32 intersection arithmetic differ per instruction set), which changes which
triangle a ray grazing an edge hits, so its renders differ from machine to machine. Here every
value is an elementwise IEEE-754 ``+ - * /`` in float64, correctly rounded on every CPU (numpy never
fuses two ufunc calls; no BLAS, no float sums but the written-out ones), and every choice is made
by exact comparisons (min included).

The pixel (c, r) is the ray through its centre, d = (a_c, b_r, 1) in the camera frame with
a_c = (c + 0.5 - cx) / fx and b_r = (r + 0.5 - cy) / fy, exactly the rays the ray caster casts.
In camera coordinates (the camera at the origin) the ray hits triangle (v0, v1, v2) when the
three edge values e_ij = (v_i x v_j) . d have one sign (zero counts as either: both faces count,
and a ray through an edge or a vertex hits), and the hit is in front of the camera: depth
t = (n . v0) / (n . d) > 0 with n = (v1 - v0) x (v2 - v0); t is the hit point's camera z, since
d_z = 1. Edge values are homogeneous (no division by z), so triangles that cross the camera plane
need no clipping. Two triangles sharing an edge compute its value with opposite signs exactly
(``cross(b, a) == -cross(a, b)`` bit for bit), so no ray passes between them. Each pixel keeps
the hit with the smallest depth; equal depths go to the lowest triangle index.

Candidate (triangle, pixel) pairs are the pixels of each triangle's projected bounding box grown
by one pixel (the whole image for a triangle that crosses the camera plane); the inside test
alone decides. They are processed ``PAIRS_PER_CHUNK`` at a time, so memory stays bounded whatever
the mesh and image size, and the per-pixel minimum is the same whatever the chunking.
"""

from __future__ import annotations

import numpy as np

from groundbench.converters.gapartnet.geometry import Camera, to_camera
from groundbench.core import exact

PAIRS_PER_CHUNK = 1 << 19  # bounds the temporaries to ~0.1 GB (measured: docs/determinism.md)
NO_HIT = -1


def pixel_grid(camera: Camera) -> tuple[np.ndarray, np.ndarray]:
    """(a_c per column, b_r per row): the camera-frame ray through pixel (c, r) is (a_c, b_r, 1)."""
    cols = (np.arange(camera.width, dtype=np.float64) + 0.5 - camera.cx) / camera.fx
    rows = (np.arange(camera.height, dtype=np.float64) + 0.5 - camera.cy) / camera.fy
    return cols, rows


def _edge_value(x: np.ndarray, y: np.ndarray, z: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(x, y, z) . (a, b, 1)`` per pair, in the one order that keeps a shared edge's two values exact negatives."""
    return x * a + y * b + z


def _pixel_ranges(v0: np.ndarray, v1: np.ndarray, v2: np.ndarray, camera: Camera) -> tuple[np.ndarray, ...]:
    """Per triangle: first and last candidate column and row (inclusive); empty ranges have last < first."""
    finite = np.all(np.isfinite(np.concatenate([v0, v1, v2], axis=1)), axis=1)  # others are never hit
    z = np.stack([v0[:, 2], v1[:, 2], v2[:, 2]], axis=1)
    in_front = finite & np.all(z > 0, axis=1)
    crossing = finite & np.any(z > 0, axis=1) & ~in_front  # a vertex on or behind the camera plane: any pixel
    ranges = []
    axes = ((0, camera.fx, camera.cx, camera.width), (1, camera.fy, camera.cy, camera.height))
    for axis, focal, centre, size in axes:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            image = np.stack([v[:, axis] / v[:, 2] * focal + centre for v in (v0, v1, v2)], axis=1)
        image = np.where(in_front[:, None], image, 0.0)  # (huge or infinite for z near 0: clipped below)
        # Pixel i's centre is i + 0.5: those within [min, max] grown by a pixel (rounding of the test).
        low = np.clip(np.floor(image.min(axis=1) - 0.5) - 1, 0, size)
        high = np.clip(np.ceil(image.max(axis=1) - 0.5) + 1, -1, size - 1)
        low = np.where(crossing, 0, np.where(in_front, low, size)).astype(np.int64)
        high = np.where(crossing, size - 1, np.where(in_front, high, -1)).astype(np.int64)
        ranges += [low, high]
    return tuple(ranges)


def rasterize(vertices_world: np.ndarray, faces: np.ndarray, camera: Camera) -> tuple[np.ndarray, np.ndarray]:
    """(H, W) index of the visible triangle (-1 for none) and (H, W) float64 camera-z depth (0 for none)."""
    width, height = camera.width, camera.height
    vertices = to_camera(camera, vertices_world)
    v0, v1, v2 = (vertices[faces[:, k]] for k in range(3))
    normal = exact.cross(v1 - v0, v2 - v0)
    c0, c1, r0, r1 = _pixel_ranges(v0, v1, v2, camera)
    span = np.maximum(c1 - c0 + 1, 0)
    counts = span * np.maximum(r1 - r0 + 1, 0)
    ends = np.cumsum(counts)
    # One row per per-face quantity, repeated per pair below (faces are contiguous runs of pairs).
    table = np.concatenate(
        [
            exact.cross(v0, v1).T,
            exact.cross(v1, v2).T,
            exact.cross(v2, v0).T,
            normal.T,
            exact.dot(normal, v0)[None],
        ]
    )
    cols, rows = pixel_grid(camera)
    best_depth = np.full(height * width, np.inf)
    best_face = np.full(height * width, np.iinfo(np.int64).max)
    total = int(ends[-1]) if len(ends) else 0
    for start in range(0, total, PAIRS_PER_CHUNK):
        stop = min(start + PAIRS_PER_CHUNK, total)
        first, last = (int(f) for f in np.searchsorted(ends, [start, stop - 1], side="right"))
        run = slice(first, last + 1)  # the chunk's faces: each a run of consecutive pairs
        repeats = counts[run].copy()
        repeats[0] -= start - (ends[first] - counts[first])
        repeats[-1] -= ends[last] - stop

        def per_pair(values: np.ndarray, run: slice = run, repeats: np.ndarray = repeats) -> np.ndarray:
            return np.repeat(values[run], repeats)

        row, col = np.divmod(np.arange(start, stop, dtype=np.int64) - per_pair(ends - counts), per_pair(span))
        row += per_pair(r0)
        col += per_pair(c0)
        a, b = cols[col], rows[row]
        inside_pos = np.ones(stop - start, dtype=bool)
        inside_neg = np.ones(stop - start, dtype=bool)
        for k in (0, 3, 6):
            value = _edge_value(per_pair(table[k]), per_pair(table[k + 1]), per_pair(table[k + 2]), a, b)
            inside_pos &= value >= 0
            inside_neg &= value <= 0
        keep = np.flatnonzero(inside_pos | inside_neg)
        face = per_pair(np.arange(len(faces)))[keep]
        a, b = a[keep], b[keep]
        facing = _edge_value(table[9][face], table[10][face], table[11][face], a, b)
        with np.errstate(divide="ignore", invalid="ignore"):
            depth = table[12][face] / facing
        hit = (facing != 0) & np.isfinite(depth) & (depth > 0)
        _merge(best_depth, best_face, (row * width + col)[keep][hit], depth[hit], face[hit])
    found = np.isfinite(best_depth)
    hits = np.where(found, best_face, NO_HIT).reshape(height, width)
    return hits, np.where(found, best_depth, 0.0).reshape(height, width)


def _merge(
    best_depth: np.ndarray, best_face: np.ndarray, pixel: np.ndarray, depth: np.ndarray, face: np.ndarray
) -> None:
    """Fold hits into the per-pixel best (smallest depth, then lowest face): exact min, so order-free."""
    chunk_depth = np.full_like(best_depth, np.inf)
    np.minimum.at(chunk_depth, pixel, depth)
    nearest = depth == chunk_depth[pixel]
    chunk_face = np.full_like(best_face, np.iinfo(np.int64).max)
    np.minimum.at(chunk_face, pixel[nearest], face[nearest])
    better = (chunk_depth < best_depth) | ((chunk_depth == best_depth) & (chunk_face < best_face))
    best_depth[better] = chunk_depth[better]
    best_face[better] = chunk_face[better]

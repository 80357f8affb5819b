"""The default renderer engine (converters/gapartnet/raster.py) on hand-worked cases, and against embree.

The hand-worked camera sits at the origin looking down +z (rotation = identity) with fx = fy = 2 and
cx = cy = 2 on a 4x4 image, so pixel (c, r)'s ray is (a_c, b_r, 1) with a, b in {-0.75, -0.25, 0.25, 0.75}:
a triangle drawn in the plane z = 1 covers exactly the pixel centres (a, b) it contains.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from groundbench.converters.gapartnet import raster
from groundbench.converters.gapartnet.geometry import Camera
from groundbench.converters.gapartnet.renderer import Scene, cast
from groundbench.converters.gapartnet.sample import view_scenes

CAMERA = Camera(np.array([[2.0, 0.0, 2.0], [0.0, 2.0, 2.0], [0.0, 0.0, 1.0]]), np.eye(3), np.zeros(3), 4, 4)
# Edge-pixel share where the two engines may pick different triangles (measured: 156 of 1,612,800 pixels).
EMBREE_TRIANGLE_SHARE = 0.0005


def _render(*triangles: list[list[float]]) -> tuple[np.ndarray, np.ndarray]:
    vertices = np.array([corner for triangle in triangles for corner in triangle], dtype=np.float64)
    faces = np.arange(len(vertices), dtype=np.int64).reshape(-1, 3)
    return raster.rasterize(vertices, faces, CAMERA)


def test_the_pixel_rays_are_the_hand_worked_ones() -> None:
    cols, rows = raster.pixel_grid(CAMERA)
    assert cols.tolist() == rows.tolist() == [-0.75, -0.25, 0.25, 0.75]


def test_a_triangle_covers_exactly_the_pixel_centres_inside_it() -> None:
    # a >= -0.5, b >= -0.5, a + b <= 0.6: centres (-0.25 | 0.25 | 0.75) with a + b <= 0.5 are in, the rest out.
    hits, depth = _render([[-0.5, -0.5, 1.0], [1.1, -0.5, 1.0], [-0.5, 1.1, 1.0]])
    expected = np.full((4, 4), -1)
    for row, col in ((1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (3, 1)):
        expected[row, col] = 0
    assert hits.tolist() == expected.tolist()
    assert depth[hits == 0].tolist() == [1.0] * 6 and depth[hits == -1].tolist() == [0.0] * 10


def test_both_faces_count_and_depth_is_the_camera_z() -> None:
    scaled = [[-1.0, -1.0, 2.0], [2.2, -1.0, 2.0], [-1.0, 2.2, 2.0]]  # the same triangle twice as far
    for triangle in (scaled, scaled[::-1]):  # either winding: seen from the front or the back
        hits, depth = _render(triangle)
        assert int((hits == 0).sum()) == 6 and set(depth[hits == 0].tolist()) == {2.0}


def test_the_nearer_of_two_overlapping_triangles_wins_whatever_their_order() -> None:
    # Far, at z = 2, seen as (-0.9, -0.9), (0.9, -0.9), (0, 0.9): row 0 whole, rows 1-2 columns 1-2.
    far = [[-1.8, -1.8, 2.0], [1.8, -1.8, 2.0], [0.0, 1.8, 2.0]]
    # Near, at z = 1: 0 <= a <= 0.5, -0.4 <= b <= -0.4 + 1.6 a holds the centre (0.25, -0.25) only.
    near = [[0.0, -0.4, 1.0], [0.5, -0.4, 1.0], [0.5, 0.4, 1.0]]
    for order, (far_id, near_id) in (((far, near), (0, 1)), ((near, far), (1, 0))):
        hits, depth = _render(*order)
        assert hits[1, 2] == near_id and depth[1, 2] == 1.0  # in both: the nearer one
        assert int((hits == near_id).sum()) == 1 and int((hits == far_id).sum()) == 7
        assert hits[2, 2] == hits[0, 0] == far_id and depth[2, 2] == depth[0, 0] == 2.0
        assert hits[3, 0] == -1 and depth[3, 0] == 0.0


def test_a_tilted_plane_gives_the_ray_parameter_as_depth() -> None:
    # z = 2 + x: the ray (a, b, 1) t meets it at t = 2 / (1 - a)
    hits, depth = _render([[-1.0, -1.0, 1.0], [0.5, -1.0, 2.5], [-1.0, 1.0, 1.0]])
    cols, _ = raster.pixel_grid(CAMERA)
    for row, col in zip(*np.nonzero(hits == 0), strict=True):
        assert depth[row, col] == pytest.approx(2.0 / (1.0 - cols[col]), rel=1e-15)
    assert int((hits == 0).sum()) > 0


def test_a_shared_edge_leaves_no_gap_and_its_pixels_go_to_the_lower_index() -> None:
    below = [[-1.0, -1.0, 1.0], [1.0, -1.0, 1.0], [1.0, 1.0, 1.0]]  # b <= a
    above = [[-1.0, -1.0, 1.0], [1.0, 1.0, 1.0], [-1.0, 1.0, 1.0]]  # b >= a; the diagonal a = b is shared
    rows, cols = np.indices((4, 4))  # pixel (r, c) has b < a exactly when r < c
    for (first, second), (below_id, above_id) in (((below, above), (0, 1)), ((above, below), (1, 0))):
        hits, depth = _render(first, second)
        assert (hits >= 0).all() and (depth == 1.0).all()  # every centre is covered: no crack on the diagonal
        assert np.diag(hits).tolist() == [0, 0, 0, 0]  # on the edge both hit at equal depth: the lower index
        assert (hits[rows < cols] == below_id).all() and (hits[rows > cols] == above_id).all()


def test_a_triangle_crossing_the_camera_plane_shows_its_front_part() -> None:
    # a floor y = 0.5 from behind the camera (z = -1) to z = 10: rows looking down (b > 0) see it at t = 0.5 / b
    hits, depth = _render([[-10.0, 0.5, -1.0], [10.0, 0.5, -1.0], [0.0, 0.5, 10.0]])
    assert (hits[:2] == -1).all() and (hits[2:] == 0).all()
    assert depth[2].tolist() == [2.0] * 4 and depth[3].tolist() == [0.5 / 0.75] * 4


def test_a_triangle_behind_the_camera_is_not_seen() -> None:
    hits, _ = _render([[-1.0, -1.0, -1.0], [1.0, -1.0, -1.0], [0.0, 1.0, -1.0]])
    assert (hits == -1).all()


def _sample_views(tmp_path: Path, width: int = 320, height: int = 240) -> list[tuple[Scene, Camera]]:
    return view_scenes(tmp_path, width, height)


def test_the_result_does_not_depend_on_the_chunk_size(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    scene, camera = _sample_views(tmp_path, 160, 120)[4]  # the keyboard: 372 triangles
    whole = cast(scene, camera, "raster")
    monkeypatch.setattr(raster, "PAIRS_PER_CHUNK", 997)  # chunks that cut through triangles
    pieces = cast(scene, camera, "raster")
    assert np.array_equal(whole[0], pieces[0]) and np.array_equal(whole[1], pieces[1])
    assert int((whole[0] >= 0).sum()) > 1000


def test_it_agrees_with_the_embree_ray_caster_on_the_sample_but_for_edge_pixels(tmp_path: Path) -> None:
    pixels = differing = 0
    for scene, camera in _sample_views(tmp_path):
        ours, our_depth = cast(scene, camera, "raster")
        theirs, their_depth = cast(scene, camera, "embree")
        pixels += ours.size
        assert np.array_equal(ours >= 0, theirs >= 0)  # the same silhouette
        link = scene.face_link
        assert np.array_equal(link[ours[ours >= 0]], link[theirs[theirs >= 0]])  # the same part at every pixel
        other = ours != theirs
        differing += int(other.sum())
        # Where they pick different triangles the ray grazes an edge the two share (a box's corner, a quad's
        # diagonal): both see the same point, to embree's float32 precision.
        assert np.allclose(our_depth[other], their_depth[other], rtol=1e-6, atol=0)
        same = ~other & (ours >= 0)
        assert np.array_equal(our_depth[same], their_depth[same])  # one depth formula for both engines
    assert differing <= EMBREE_TRIANGLE_SHARE * pixels, (differing, pixels)

"""``groundbench render``: one view of a GAPartNet object, rendered on the CPU
(``groundbench.converters.gapartnet.render_cli``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from groundbench.stages.options import console

NAME = "render"
HELP = """Render one clean view of a GAPartNet object folder (URDF + OBJ meshes) on the CPU, in GAPartNet's render
format (rgb/ segmentation/ depth/ metafile/ bbox/), the camera persisted in the metafile."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("object", help="GAPartNet object folder (annotation URDF, link annotations, meshes)")
    parser.add_argument("--out", required=True, help="renders folder to add the view to")
    parser.add_argument(
        "--qpos", action="append", default=[], metavar="JOINT=VALUE", help="joint position (repeatable)"
    )
    parser.add_argument("--theta", type=float, default=60.0, help="camera polar angle from +z, degrees (default 60)")
    parser.add_argument(
        "--phi", type=float, default=180.0, help="camera azimuth, degrees; fronts face -x (default 180)"
    )
    parser.add_argument("--distance", type=float, default=3.0, help="camera distance from the origin (default 3)")
    parser.add_argument("--width", type=int, default=320, help="image width in pixels (default 320)")
    parser.add_argument("--height", type=int, default=240, help="image height in pixels (default 240)")
    parser.add_argument("--camera-idx", type=int, default=0, help="camera index in the view name (default 0)")
    parser.add_argument("--render-idx", type=int, default=0, help="render index in the view name (default 0)")
    parser.add_argument("--category", help="object category (default: meta.json model_cat)")
    parser.add_argument(
        "--engine",
        choices=["raster", "embree", "triangle"],
        default="raster",
        help="raster (default: the same bytes on every CPU), embree (its edge pixels vary by CPU), triangle",
    )


def run(args: argparse.Namespace) -> int:
    from groundbench.converters.gapartnet.render_cli import render_object

    name = render_object(
        Path(args.object).resolve(),
        Path(args.out).resolve(),
        qpos=args.qpos,
        theta=args.theta,
        phi=args.phi,
        distance=args.distance,
        width=args.width,
        height=args.height,
        camera_idx=args.camera_idx,
        render_idx=args.render_idx,
        category=args.category,
        engine=args.engine,
    )
    console.print(f"rendered {name} into {args.out}")
    return 0

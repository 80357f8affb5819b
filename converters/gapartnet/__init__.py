"""GAPartNet (Geng et al., CVPR 2023) -> ``curated_gapartnet`` and ``bulk_gapartnet``.

Reads the real release layout: per-object asset folders (annotation URDF, link annotations,
semantics, meta) and rendered views (rgb / segmentation / depth / metafile / bbox). Our own CPU
renderer (``renderer.py``; ``render_cli.py`` is ``groundbench render``, ``sample.py`` the
embedded sample) writes that same render format, so one reader serves both the release and the sample.
"""

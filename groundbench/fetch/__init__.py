"""``groundbench fetch``: the real sources from their official locations into ``data/sources/<source>/``.

One module per job: :mod:`catalog` (where each source lives, its licence, what the build makes of it),
:mod:`http` (resumable, checksummed downloads), :mod:`unpack` (archive extraction that never leaves
its folder), :mod:`hub` (Hugging Face snapshots pinned to a commit), :mod:`provenance` (the record
written beside each fetched tree, read by the card), :mod:`select` (pointing ``params.yaml`` at the
fetched trees) and :mod:`run` (the command itself).
"""

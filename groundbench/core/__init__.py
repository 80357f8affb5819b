"""Primitives every stage builds on: errors, atomic output, parameters, Arrow shards, image manifests and
embedding, the ordered process pool, and the published folder's one reader and writer."""

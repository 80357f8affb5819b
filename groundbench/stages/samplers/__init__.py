"""The sample writers behind the registry's ``SourceInfo.sample`` references, one signature for all:
``write(root, params, progress=False) -> int`` (root = the project root; the items written)."""

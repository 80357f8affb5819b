"""The maintainers' tools: check, publish, version and repair a build (``dvc.yaml`` runs none of them)."""

"""The pipeline's stages, each a `groundbench` command that `dvc.yaml` runs: convert (dispatch), bake,
store, assemble (Hugging Face folder, card, Croissant), verify, publish and versioning."""

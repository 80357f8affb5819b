"""Embedded samples: synthetic files written in each source's real on-disk format (UMD, GAPartNet,
PointerBench/ScreenSpot) so the whole pipeline runs without downloading anything. No source material."""

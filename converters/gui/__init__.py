"""GUI-grounding sources: PointerBench, ScreenSpot v1/v2 and ScreenSpot-Pro converters, and our
deterministic generator of PointerBench-format suites (``generate``)."""

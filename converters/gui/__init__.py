"""GUI-grounding sources: PointerBench, ScreenSpot v1/v2 and ScreenSpot-Pro converters, and our
deterministic generator of PointerBench-format suites (``generate``)."""

CONVERTER = "groundbench.converters.gui"
CONVERTER_VERSION = "2"  # 2: the annotated box in extras.gui.eval_bbox; box_clamped a flag

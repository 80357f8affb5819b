"""The converter's name and revision, written into every row's provenance (``provenance.converter``,
``provenance.converter_version``) and every image's manifest producer.

A revision is a whole number, bumped by one whenever the converter writes other rows from the same
source files (docs/adding-a-source.md); the comment beside it says what the last bump changed."""

CONVERTER = "groundbench.converters.gui"
CONVERTER_VERSION = "2"  # 2: the annotated box in extras.gui.eval_bbox; box_clamped a flag

"""The converter's name and revision, written into every row's provenance (``provenance.converter``,
``provenance.converter_version``) and every image's manifest producer.

A revision is a whole number, bumped by one whenever the converter writes other rows from the same
source files (docs/adding-a-source.md); the comment beside it says what the last bump changed."""

CONVERTER = "groundbench.converters.gui"
CONVERTER_VERSION = "3"  # 3: extras.gui.region_kind on every row (polygons, refusal rows: OSWorld-G)

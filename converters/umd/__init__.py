"""UMD Part Affordance dataset (Myers et al., ICRA 2015) -> ``bulk_umd`` and ``curated_umd``."""

CONVERTER = "groundbench.converters.umd"
CONVERTER_VERSION = "1.0.0"

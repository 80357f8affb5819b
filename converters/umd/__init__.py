"""UMD Part Affordance dataset (Myers et al., ICRA 2015) -> ``bulk_umd`` and ``curated_umd``."""

"""GroundBench: a versioned dataset package for locating VLM grounding failures."""

__version__ = "0.1.0"

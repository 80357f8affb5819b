"""Deterministic GUI suites in PointerBench's own format (``groundbench generate-gui``).

Sheets (spreadsheet geometry) and Text (glyph-level targets) screenshots rendered with Pillow and a
DejaVu font shipped inside the pinned matplotlib wheel; every target box is taken from the grid
geometry or the font's own glyph metrics, so it is pixel-exact and reproducible.
"""

GENERATOR = "groundbench generate-gui"
GENERATOR_VERSION = "1"

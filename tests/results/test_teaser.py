"""The card's teaser (assets/teaser.png) on the default build: one tile per config, no two tiles of one image,
every caption whole, and every character of every caption drawn by a glyph the font has (no empty box)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fontTools.ttLib import TTFont
from PIL import ImageFont

from groundbench.core.fonts import font_path
from groundbench.core.registry import BY_NAME
from groundbench.loaders.published import published_configs
from groundbench.review.sheet import caption, caption_font, caption_lines, drawable, wrap
from groundbench.schemas.baselines_features import BASELINES_CONFIG
from groundbench.stages.hffolder import TEASER, teaser_png, teaser_rows

NOTDEF_PROBE = "\U0010fffd"  # a private-use code point no font maps: Pillow draws the .notdef glyph for it


def missing_glyphs(font: ImageFont.FreeTypeFont, text: str) -> set[str]:
    """Characters Pillow draws as the font's .notdef box (whitespace draws nothing and is never missing)."""
    notdef = font.getmask(NOTDEF_PROBE)
    box = (notdef.size, bytes(notdef))
    return {c for c in set(text) if not c.isspace() and (font.getmask(c).size, bytes(font.getmask(c))) == box}


def test_a_caption_in_a_script_the_font_lacks_draws_no_notdef_box() -> None:
    """ScreenSpot-Pro's Chinese instructions (gui_screenspot_pro_cn): DejaVu has no CJK glyphs, so each run of
    them is drawn as one "[?]"; what the face has (accents, arrows) stays as written."""
    text = drawable("请点击：Click the cell → K15, é")
    assert text == "[?]Click the cell → K15, é"
    assert missing_glyphs(caption_font(), text) == set()
    assert missing_glyphs(caption_font(), "请点击") == {"请", "点", "击"}  # the check itself sees them


def test_the_glyph_check_catches_pillows_builtin_font() -> None:
    """What the teaser drew before: Pillow's built-in font has no arrow ("re-ask lift-vertical□pull")."""
    builtin = ImageFont.load_default(size=12)
    assert isinstance(builtin, ImageFont.FreeTypeFont)
    assert missing_glyphs(builtin, "re-ask lift-vertical→pull") == {"→"}
    assert missing_glyphs(ImageFont.truetype(str(font_path("sans")), 12), "re-ask lift-vertical→pull") == set()


@pytest.mark.slow  # the whole default build (tests/support/dvcrepo.py)
def test_teaser_tiles_are_distinct_whole_and_every_glyph_exists() -> None:
    from tests.support.dvcrepo import default_repo

    folder = default_repo() / "data/groundbench"
    configs = [BY_NAME[name] for name in published_configs(folder) if name != BASELINES_CONFIG]
    rows = teaser_rows(folder, configs)
    assert len(rows) == len(configs)  # one tile per config: the sample's configs all have an unshown image
    assert len({r["image_sha256"] for r in rows}) == len(rows)  # no picture twice
    screenspot = [r for r in rows if r["example_id"].startswith("gui_screenspot")]
    assert len(screenspot) == sum(c.name.startswith("gui_screenspot") for c in configs) == 4  # v1, v2, pro, pro_cn

    cmap = TTFont(str(font_path("sans")))["cmap"].getBestCmap()
    face = caption_font()
    assert Path(face.path) == font_path("sans")  # the captions are drawn in this very file
    texts = [line for row in rows for line in caption_lines(row, 256, wrapped=True)]
    assert any("→" in t for t in texts)  # the re-ask captions draw the arrow
    for text in texts:
        assert {c for c in text if ord(c) not in cmap} == set(), text
        assert missing_glyphs(face, text) == set(), text
        assert face.getlength(text) <= 256 - 6 and "…" not in text
    for row in rows:  # wrapped whole: the lines hold every character of the caption
        whole = "".join(caption(row)).replace(" ", "")
        assert "".join(caption_lines(row, 256, wrapped=True)).replace(" ", "") == whole
    assert (folder / TEASER).read_bytes() == teaser_png(folder, configs)


def test_wrap_breaks_long_ids_without_dropping_a_character() -> None:
    text = "gapartnet/counterfactual/900001/link_1->link_0 re-ask lift-vertical→pull · hinge_door"
    lines = wrap(text, 120)
    assert len(lines) > 2 and all(caption_font().getlength(x) <= 120 for x in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")

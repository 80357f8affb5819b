"""The Text suite: long documents with word, character, punctuation, caret, span and field targets.

Content (language, words, fields) is drawn once per example; each frame re-lays it out (wider
frames wrap differently; larger frames use a larger UI scale). Every character is drawn on its own
integer origin, its ink box taken from the font (``fonts.ink_box``), so every target box is exact.
An example is kept only when its target word / phrase / field is unique on the page, its glyphs are
laid out in every frame, and no other glyph's ink box shares a pixel with the target box.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from groundbench.converters.gui.sample.common import Box, Example, Frame, Placed, rng_for, scaled
from groundbench.converters.gui.sample.words import FIELDS, LANGUAGES, LINE_ITEMS, WORDS
from groundbench.core import fonts

SUITE = "text"
PAGE_BG = (255, 255, 255)
INK = (25, 25, 25)
CHROME_BG = (226, 228, 232)
PUNCT_NAMES = {
    ",": "comma",
    ".": "period",
    ";": "semicolon",
    ":": "colon",
    "?": "question mark",
    "!": "exclamation mark",
}
SURFACES = ("document", "email", "article", "invoice")


@dataclass(frozen=True)
class Token:
    text: str
    block: int  # paragraph / field / row number; tokens of one block wrap together
    kind: str  # "word", "title", "label", "value", "item"
    newline: bool = False  # starts a new line (fields, table rows)

    @property
    def core(self) -> str:
        return self.text.rstrip(",.;:?!")


@dataclass(frozen=True)
class Glyph:
    char: str
    x: int  # origin (anchor left / ascender)
    y: int
    token: int
    index: int  # position in the token
    line: int

    def ink(self, family: str, size: int) -> Box:
        b = fonts.ink_box(family, size, self.char)
        return (self.x + b[0], self.y + b[1], self.x + b[2], self.y + b[3])


@dataclass(frozen=True)
class Content:
    language: str
    family: str
    size: int
    surface: str
    chrome: bool
    margin: int
    tokens: tuple[Token, ...]


def _sentence(rng: random.Random, words: tuple[str, ...]) -> list[str]:
    chosen = [rng.choice(words) for _ in range(rng.randint(6, 14))]
    chosen[0] = chosen[0][:1].upper() + chosen[0][1:]
    if len(chosen) > 7 and rng.random() < 0.6:
        chosen[rng.randint(2, len(chosen) - 3)] += rng.choice([",", ",", ";", ":"])
    chosen[-1] += rng.choice([".", ".", ".", "?", "!"])
    return chosen


def make_content(rng: random.Random, wanted: str) -> Content:
    language = rng.choice(LANGUAGES)
    words = WORDS[language]
    surface = "invoice" if wanted == "invoice" else rng.choice(SURFACES)
    tokens: list[Token] = []
    block = 0
    for word in _sentence(rng, words)[:6]:
        tokens.append(Token(word.rstrip(",.;:?!"), block, "title"))
    block += 1
    if surface == "invoice":
        for label, pattern in rng.sample(FIELDS, 5):
            value = pattern.format(
                n2=rng.randint(10, 99),
                n3=rng.randint(100, 999),
                n4=rng.randint(1000, 9999),
                n5=rng.randint(10000, 99999),
                c2=f"{rng.randint(0, 99):02d}",
                d2=f"{rng.randint(1, 28):02d}",
                m2=f"{rng.randint(1, 12):02d}",
                y2=rng.randint(24, 27),
            )
            parts = f"{label}:".split()
            for i, part in enumerate(parts):
                tokens.append(Token(part, block, "label", newline=i == 0))
            for part in value.split():
                tokens.append(Token(part, block, "value"))
            block += 1
        for name in rng.sample(LINE_ITEMS, 4):
            amount = f"{rng.randint(100, 4999)},{rng.randint(0, 99):02d}"
            for i, part in enumerate([*name.split(), str(rng.randint(1, 9)), amount]):
                tokens.append(Token(part, block, "item", newline=i == 0))
            block += 1
    for _ in range(rng.randint(5, 8)):
        first = True
        for _ in range(rng.randint(2, 5)):
            for word in _sentence(rng, words):
                tokens.append(Token(word, block, "word", newline=first))
                first = False
        block += 1
    return Content(
        language=language,
        family=rng.choice(["sans", "sans", "serif"]),
        size=rng.randint(13, 16),
        surface=surface,
        chrome=rng.random() < 0.7,
        margin=rng.randint(30, 80),
        tokens=tuple(tokens),
    )


@dataclass
class Layout:
    frame: Frame
    size: int
    line_height: int
    ascent: int
    descent: int
    top: int  # first document pixel row (below the chrome)
    glyphs: list[Glyph]
    by_token: dict[int, list[Glyph]]


def layout(content: Content, frame: Frame) -> Layout:
    size = scaled(content.size, frame.scale)
    ascent, descent = fonts.line_metrics(content.family, size)
    line_height = ascent + descent + scaled(6, frame.scale)
    chrome = scaled(64, frame.scale) if content.chrome else 0
    margin = scaled(content.margin, frame.scale)
    left, right, bottom = margin, frame.width - margin, frame.height - scaled(16, frame.scale)
    space = fonts.advance(content.family, size, " ")
    x, y, line = left, chrome + scaled(20, frame.scale), 0
    glyphs: list[Glyph] = []
    by_token: dict[int, list[Glyph]] = {}
    previous_block = None
    for number, token in enumerate(content.tokens):
        width = sum(fonts.advance(content.family, size, c) for c in token.text)
        if previous_block is not None and token.block != previous_block and token.kind == "word" and token.newline:
            y += line_height // 2  # paragraph gap
        if x > left and (token.newline or x + width > right):
            x, y, line = left, y + line_height, line + 1
        if y + line_height > bottom:
            break  # the rest does not fit this frame; targets there are rejected for every frame
        placed = []
        for index, char in enumerate(token.text):
            placed.append(Glyph(char, x, y, number, index, line))
            x += fonts.advance(content.family, size, char)
        glyphs += placed
        by_token[number] = placed
        x += space
        if token.kind == "label" and token.text.endswith(":"):
            x = max(x, left + scaled(150, frame.scale))  # field values start in one column
        previous_block = token.block
    return Layout(frame, size, line_height, ascent, descent, chrome, glyphs, by_token)


def render(content: Content, lay: Layout) -> Image.Image:
    frame = lay.frame
    image = Image.new("RGB", (frame.width, frame.height), PAGE_BG)
    draw = ImageDraw.Draw(image)
    if content.chrome:
        draw.rectangle([0, 0, frame.width - 1, lay.top - 1], fill=CHROME_BG)
        bar = scaled(28, frame.scale)
        draw.line([0, bar, frame.width, bar], fill=(200, 202, 206))
        for i in range(6):
            x0 = scaled(12 + 34 * i, frame.scale)
            draw.rectangle(
                [x0, bar + scaled(6, frame.scale), x0 + scaled(24, frame.scale), lay.top - scaled(8, frame.scale)],
                outline=(150, 152, 158),
            )
        draw.line([0, lay.top - 1, frame.width, lay.top - 1], fill=(190, 192, 196))
    font = fonts.font(content.family, lay.size)
    for glyph in lay.glyphs:
        draw.text((glyph.x, glyph.y), glyph.char, font=font, fill=INK, anchor="la")
    return image


def _union(boxes: list[Box]) -> Box:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _touches(a: Box, b: Box) -> bool:
    """Do the boxes share any pixel? (then the target's ink could not be told from its neighbour's)"""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@dataclass(frozen=True)
class Spec:
    """A target choice, independent of the frame."""

    data_type: str
    category: str
    answer_type: str
    instruction: str
    difficulty: str
    tokens: tuple[int, ...]
    char: int | None = None  # char index (char / punctuation); boundary index (caret)


def _ink_glyphs(glyphs: list[Glyph]) -> list[Glyph]:
    return [g for g in glyphs if not g.char.isspace()]


def _has_ink(glyph: Glyph, family: str, size: int) -> bool:
    box = glyph.ink(family, size)
    return box[2] > box[0]


def place(spec: Spec, content: Content, lay: Layout) -> Placed | None:
    """The target's box in this frame, or None when it is not laid out, wraps, or touches other ink."""
    family, size = content.family, lay.size
    if any(t not in lay.by_token for t in spec.tokens):
        return None
    glyphs = [g for t in spec.tokens for g in lay.by_token[t]]
    if len({g.line for g in glyphs}) != 1:
        return None
    line_top = glyphs[0].y
    line_box = (line_top, line_top + lay.ascent + lay.descent)
    if spec.data_type == "caret":
        word = lay.by_token[spec.tokens[0]]
        assert spec.char is not None
        x = word[spec.char].x
        box: Box = (x - 2, line_box[0], x + 2, line_box[1])
        own = {(word[spec.char - 1].token, spec.char - 1), (word[spec.char].token, spec.char)}
        chosen = [g for g in word if (g.token, g.index) in own]
    else:
        if spec.char is not None:
            chosen = [lay.by_token[spec.tokens[0]][spec.char]]
        elif spec.data_type in ("word", "punctuation_word"):
            token = content.tokens[spec.tokens[0]]
            chosen = lay.by_token[spec.tokens[0]][: len(token.core)]
        else:
            chosen = glyphs
        chosen = _ink_glyphs(chosen)
        if not chosen:
            return None
        box = _union([g.ink(family, size) for g in chosen])
    if box[0] < 0 or box[1] < 0 or box[2] > lay.frame.width or box[3] > lay.frame.height or box[2] <= box[0]:
        return None
    mine = {(g.token, g.index) for g in chosen}
    if spec.data_type != "caret":
        for other in lay.glyphs:
            mine_or_space = (other.token, other.index) in mine or other.char.isspace()
            if not mine_or_space and _touches(box, other.ink(family, size)):
                return None
    render = {
        "font": fonts.FAMILIES[family],
        "size": size,
        "glyphs": [[g.char, g.x, g.y] for g in chosen],
        "line": list(line_box),
        # The words laid out in this frame, so a test can check the target's uniqueness from the output alone.
        "page_tokens": [content.tokens[t].core for t in sorted(lay.by_token)],
    }
    return Placed(box=box, candidates=_candidates(spec, content, lay), render=render)


def _candidates(spec: Spec, content: Content, lay: Layout) -> list[dict[str, Any]]:
    family, size = content.family, lay.size
    out: list[dict[str, Any]] = []

    def add(part_id: str, category: str, glyphs: list[Glyph]) -> None:
        ink = _ink_glyphs(glyphs)
        if ink:
            out.append({"id": part_id, "category": category, "bbox": list(_union([g.ink(family, size) for g in ink]))})

    first, last = spec.tokens[0], spec.tokens[-1]
    if spec.data_type in ("char", "punctuation") and spec.char is not None:
        word = lay.by_token[first]
        for i in (spec.char - 1, spec.char + 1):
            if 0 <= i < len(word):
                add(f"char:{first}:{i}", "char", [word[i]])
    if spec.data_type == "caret" and spec.char is not None:
        word = lay.by_token[first]
        line = (word[0].y, word[0].y + lay.ascent + lay.descent)
        for i in (spec.char - 1, spec.char + 1):
            if 0 < i < len(word):
                out.append(
                    {
                        "id": f"caret:{first}:{i}",
                        "category": "caret",
                        "bbox": [word[i].x - 2, line[0], word[i].x + 2, line[1]],
                    }
                )
    for t in (first - 1, last + 1):  # the words around the target
        if t in lay.by_token and t not in spec.tokens:
            add(f"word:{t}", "word", lay.by_token[t])
    return out


def _unique_cores(content: Content) -> dict[str, int]:
    counts: dict[str, int] = {}
    for token in content.tokens:
        counts[token.core.lower()] = counts.get(token.core.lower(), 0) + 1
    return counts


def specs(content: Content, rng: random.Random) -> list[Spec]:
    """Every target the content offers, shuffled (deterministically); placement picks the first that fits."""
    counts = _unique_cores(content)
    tokens = content.tokens
    out: list[Spec] = []
    for n, token in enumerate(tokens):
        core = token.core
        unique = counts[core.lower()] == 1 and len(core) >= 3 and core.isalpha()
        if token.kind == "word" and unique:
            out.append(Spec("word", "word_click", "point", f"Click the word '{core}'.", "easy", (n,)))
            letters = [i for i, c in enumerate(core) if core.count(c) == 1]
            if letters:
                i = rng.choice(letters)
                out.append(
                    Spec(
                        "char",
                        "char_click",
                        "point",
                        f"Click the letter '{core[i]}' in the word '{core}'.",
                        "medium",
                        (n,),
                        i,
                    )
                )
            pairs = [i for i in range(1, len(core)) if core.count(core[i - 1 : i + 1]) == 1]
            if pairs:
                i = rng.choice(pairs)
                out.append(
                    Spec(
                        "caret",
                        "caret_between",
                        "point",
                        f"Place the text cursor between '{core[i - 1]}' and '{core[i]}' in the word '{core}'.",
                        "hard",
                        (n,),
                        i,
                    )
                )
            if token.text[-1] in PUNCT_NAMES:
                name = PUNCT_NAMES[token.text[-1]]
                out.append(
                    Spec(
                        "punctuation",
                        "punctuation_after",
                        "point",
                        f"Click the {name} right after '{core}'.",
                        "medium",
                        (n,),
                        len(token.text) - 1,
                    )
                )
        if token.kind == "word" and n >= 1:
            for k in (2, 3):
                span = tuple(range(n, n + k))
                if span[-1] >= len(tokens) or any(
                    tokens[t].kind != "word" or tokens[t].block != token.block for t in span
                ):
                    continue
                if any(tokens[t].text != tokens[t].core for t in span[:-1]):
                    continue
                phrase = " ".join([*(tokens[t].text for t in span[:-1]), tokens[span[-1]].core])
                if any(counts[tokens[t].core.lower()] != 1 for t in span[:1]):
                    continue
                out.append(
                    Spec("bbox", "phrase_box", "bbox", f"Draw a box around the phrase '{phrase}'.", "hard", span)
                )
    blocks: dict[int, list[int]] = {}
    for n, token in enumerate(tokens):
        if token.kind in ("label", "value", "item"):
            blocks.setdefault(token.block, []).append(n)
    for members in blocks.values():
        kinds = [tokens[n].kind for n in members]
        if "label" in kinds:
            label = " ".join(tokens[n].text for n in members if tokens[n].kind == "label").rstrip(":")
            values = tuple(n for n in members if tokens[n].kind == "value")
            out.append(
                Spec("invoice", "field_value", "point", f"Click the value of the '{label}' field.", "medium", values)
            )
            out.append(
                Spec(
                    "invoice",
                    "field_value_box",
                    "bbox",
                    f"Draw a box around the value of the '{label}' field.",
                    "hard",
                    values,
                )
            )
        else:
            name = " ".join(tokens[n].text for n in members[:-2])
            out.append(
                Spec(
                    "invoice",
                    "invoice_line_item",
                    "bbox",
                    f"Draw a box around the line item row for '{name}'.",
                    "hard",
                    tuple(members),
                )
            )
    rng.shuffle(out)
    return out


def pick_kind(rng: random.Random) -> str:
    """PointerBench-Text's mix: about 27% box targets, carets the largest point group."""
    return rng.choices(["caret", "word", "char", "punctuation", "bbox", "invoice"], [30, 20, 10, 6, 20, 14])[0]


def make_example(index: int, seed: int, frames: list[Frame]) -> Example:
    rng = rng_for(SUITE, index, seed)
    for _attempt in range(50):
        wanted = pick_kind(rng)
        content = make_content(rng, wanted)
        layouts = {f.name: layout(content, f) for f in frames}
        candidates = specs(content, rng)
        candidates.sort(key=lambda s: s.data_type != wanted)  # stable: the wanted kind first, shuffled order kept
        for spec in candidates:
            placed = {name: place(spec, content, lay) for name, lay in layouts.items()}
            if all(p is not None for p in placed.values()):
                return Example(
                    instruction=spec.instruction,
                    answer_type=spec.answer_type,
                    data_type=spec.data_type,
                    category=spec.category,
                    meta={"surface": content.surface, "language": content.language, "difficulty": spec.difficulty},
                    images={name: render(content, lay) for name, lay in layouts.items()},
                    placed={name: p for name, p in placed.items() if p is not None},
                )
    raise RuntimeError(f"text example {index}: no unique, separable target in 50 documents")

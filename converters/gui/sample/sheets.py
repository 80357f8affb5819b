"""The Sheets suite: spreadsheet screenshots with cell, header, colour, relative-reference, handle,
edge and corner targets (the thin ones).

Geometry: column boundary k sits on pixel column ``gx + k * cw`` (a 1-pixel grid line) and row
boundary r on pixel row ``gy + r * rh``. Cell (c, r) is the box [x_c, y_r, x_{c+1}, y_{r+1}]: its
left / top grid line and its interior. An edge is the 5-pixel band centred on its grid line, a corner
the 5x5 square centred on the crossing, a resize handle the band on a header boundary, the fill
handle the exact square drawn at the selection's corner. Frames re-lay the same sheet at their UI
scale; targets are chosen among cells visible in every frame.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from groundbench.converters.gui.sample.common import Box, Example, Frame, Placed, rng_for, scaled
from groundbench.converters.gui.sample.words import LANGUAGES, WORDS
from groundbench.core import fonts

SUITE = "sheets"
STYLES: dict[str, dict[str, Any]] = {
    "excel_white": {
        "header": (248, 248, 248),
        "grid": (218, 220, 224),
        "hline": (200, 200, 200),
        "sel": (33, 115, 70),
        "chrome": (255, 255, 255),
    },
    "excel": {
        "header": (230, 230, 230),
        "grid": (212, 212, 212),
        "hline": (180, 180, 180),
        "sel": (16, 124, 65),
        "chrome": (33, 115, 70),
    },
    "libreoffice": {
        "header": (238, 238, 236),
        "grid": (204, 204, 204),
        "hline": (170, 170, 170),
        "sel": (0, 90, 200),
        "chrome": (240, 240, 240),
    },
    "google_sheets": {
        "header": (248, 249, 250),
        "grid": (226, 227, 227),
        "hline": (192, 192, 192),
        "sel": (26, 115, 232),
        "chrome": (249, 251, 253),
    },
    "bare": {
        "header": (235, 235, 235),
        "grid": (190, 190, 190),
        "hline": (150, 150, 150),
        "sel": (0, 0, 0),
        "chrome": None,
    },
}
COLOURS = {
    "red": (244, 67, 54),
    "green": (76, 175, 80),
    "blue": (33, 150, 243),
    "yellow": (255, 235, 59),
    "orange": (255, 152, 0),
    "purple": (156, 39, 176),
    "pink": (233, 30, 99),
    "teal": (0, 150, 136),
}
ORDINAL = {1: "one", 2: "two", 3: "three", 4: "four"}
BG = (255, 255, 255)
TEXT = (30, 30, 30)
EDGE_HALF = 2  # edge / corner / resize bands: the grid line pixel and 2 pixels on each side


def col_name(c: int) -> str:
    name = ""
    c += 1
    while c:
        c, rem = divmod(c - 1, 26)
        name = chr(65 + rem) + name
    return name


@dataclass(frozen=True)
class Sheet:
    style: str
    language: str
    cw: int
    rh: int
    header_w: int
    chrome: bool
    offset_x: int
    offset_y: int
    cells: dict[tuple[int, int], str]  # (col, row) -> text
    colours: dict[tuple[int, int], str]
    selected: tuple[int, int]


@dataclass
class Grid:
    frame: Frame
    gx: int  # x of column boundary 0 (left of column A)
    gy: int  # y of row boundary 0 (top of row 1)
    cw: int
    rh: int
    header_w: int
    header_top: int
    cols: int  # fully visible columns
    rows: int
    font_size: int

    def x(self, k: int) -> int:
        return self.gx + k * self.cw

    def y(self, r: int) -> int:
        return self.gy + r * self.rh

    def cell(self, c: int, r: int) -> Box:
        return (self.x(c), self.y(r), self.x(c + 1), self.y(r + 1))


def make_sheet(rng: random.Random) -> Sheet:
    style = rng.choice(list(STYLES))
    language = rng.choice(LANGUAGES)
    cells: dict[tuple[int, int], str] = {}
    for c in range(8):
        for r in range(20):
            if rng.random() < 0.35:
                cells[(c, r)] = str(rng.randint(1, 9999)) if rng.random() < 0.6 else rng.choice(WORDS[language])
    spots = rng.sample([(c, r) for c in range(9) for r in range(22)], 5)
    colours = dict(zip(spots, rng.sample(list(COLOURS), 5), strict=True))
    free = [(c, r) for c in range(2, 8) for r in range(2, 18) if (c, r) not in colours]
    return Sheet(
        style=style,
        language=language,
        cw=rng.randint(64, 100),
        rh=rng.randint(18, 26),
        header_w=rng.randint(32, 46),
        chrome=STYLES[style]["chrome"] is not None and rng.random() < 0.8,
        offset_x=rng.randint(0, 40),
        offset_y=rng.randint(0, 30),
        cells=cells,
        colours=colours,
        selected=rng.choice(free),
    )


def grid_for(sheet: Sheet, frame: Frame) -> Grid:
    s = frame.scale
    top = scaled(sheet.offset_y + (96 if sheet.chrome else 0), s)
    bottom_bar = scaled(28 if sheet.chrome else 0, s)
    cw, rh, hw = scaled(sheet.cw, s), scaled(sheet.rh, s), scaled(sheet.header_w, s)
    gx, gy = scaled(sheet.offset_x, s) + hw, top + rh
    cols = (frame.width - 1 - gx) // cw
    rows = (frame.height - bottom_bar - 1 - gy) // rh
    return Grid(frame, gx, gy, cw, rh, hw, top, cols, rows, scaled(13, s))


def render(sheet: Sheet, grid: Grid) -> Image.Image:
    style = STYLES[sheet.style]
    frame = grid.frame
    image = Image.new("RGB", (frame.width, frame.height), BG)
    draw = ImageDraw.Draw(image)
    font = fonts.font("sans", grid.font_size)
    if sheet.chrome:
        draw.rectangle([0, 0, frame.width - 1, grid.header_top - 1], fill=style["chrome"])
        draw.rectangle(
            [0, frame.height - scaled(28, frame.scale), frame.width - 1, frame.height - 1], fill=(240, 240, 240)
        )
    right, bottom = grid.x(grid.cols), grid.y(grid.rows)
    # headers
    draw.rectangle([grid.x(0) - grid.header_w, grid.header_top, right, grid.gy - 1], fill=style["header"])
    draw.rectangle([grid.x(0) - grid.header_w, grid.gy, grid.x(0) - 1, bottom], fill=style["header"])
    for (c, r), name in sheet.colours.items():
        if c < grid.cols and r < grid.rows:
            x0, y0, x1, y1 = grid.cell(c, r)
            draw.rectangle([x0 + 1, y0 + 1, x1 - 1, y1 - 1], fill=COLOURS[name])
    for (c, r), value in sheet.cells.items():
        if c < grid.cols and r < grid.rows and (c, r) not in sheet.colours:
            _cell_text(draw, font, grid, c, r, value)
    for k in range(grid.cols + 1):
        draw.line([grid.x(k), grid.gy, grid.x(k), bottom], fill=style["grid"])
        draw.line([grid.x(k), grid.header_top, grid.x(k), grid.gy - 1], fill=style["hline"])
    for r in range(grid.rows + 1):
        draw.line([grid.x(0), grid.y(r), right, grid.y(r)], fill=style["grid"])
        draw.line([grid.x(0) - grid.header_w, grid.y(r), grid.x(0) - 1, grid.y(r)], fill=style["hline"])
    for k in range(grid.cols):
        _centred(draw, font, (grid.x(k), grid.header_top, grid.x(k + 1), grid.gy), col_name(k))
    for r in range(grid.rows):
        _centred(draw, font, (grid.x(0) - grid.header_w, grid.y(r), grid.x(0), grid.y(r + 1)), str(r + 1))
    x0, y0, x1, y1 = grid.cell(*sheet.selected)
    draw.rectangle([x0, y0, x1, y1], outline=style["sel"], width=2)
    hx0, hy0, hx1, hy1 = fill_handle(grid, sheet)
    draw.rectangle([hx0, hy0, hx1 - 1, hy1 - 1], fill=style["sel"])
    return image


def _cell_text(draw: ImageDraw.ImageDraw, font: Any, grid: Grid, c: int, r: int, value: str) -> None:
    x0, y0, x1, y1 = grid.cell(c, r)
    while value and font.getlength(value) > x1 - x0 - 6:
        value = value[:-1]  # clip inside the cell: text never reaches a grid line
    if value:
        draw.text((x0 + 3, (y0 + y1) // 2), value, font=font, fill=TEXT, anchor="lm")


def _centred(draw: ImageDraw.ImageDraw, font: Any, box: Box, label: str) -> None:
    draw.text(((box[0] + box[2]) // 2, (box[1] + box[3]) // 2), label, font=font, fill=(60, 60, 60), anchor="mm")


def fill_handle(grid: Grid, sheet: Sheet) -> Box:
    half = max(3, scaled(3, grid.frame.scale))
    x, y = grid.x(sheet.selected[0] + 1), grid.y(sheet.selected[1] + 1)
    return (x - half + 1, y - half + 1, x + half + 1, y + half + 1)


def _vband(x: int, y0: int, y1: int) -> Box:
    return (x - EDGE_HALF, y0, x + EDGE_HALF + 1, y1)


def _hband(y: int, x0: int, x1: int) -> Box:
    return (x0, y - EDGE_HALF, x1, y + EDGE_HALF + 1)


def _corner(x: int, y: int) -> Box:
    return (x - EDGE_HALF, y - EDGE_HALF, x + EDGE_HALF + 1, y + EDGE_HALF + 1)


@dataclass(frozen=True)
class Spec:
    data_type: str
    category: str
    instruction: str
    kind: str  # geometry kind
    a: int = 0
    b: int = 0
    side: str = ""


def choose_spec(sheet: Sheet, rng: random.Random, cols: int, rows: int) -> Spec:
    """A target inside the columns / rows every frame shows (one margin cell for neighbours)."""
    c, r = rng.randint(1, cols - 3), rng.randint(1, rows - 3)
    ref = f"{col_name(c)}{r + 1}"
    kind = rng.choices(
        [
            "cell",
            "row_header",
            "col_header",
            "color",
            "relative",
            "fill_handle",
            "col_resize",
            "row_resize",
            "edge",
            "corner",
        ],
        [17, 6, 6, 11, 12, 4, 5, 5, 23, 11],
    )[0]
    if kind == "cell":
        return Spec("cell", "cell", f"Click cell {ref}.", "cell", c, r)
    if kind == "row_header":
        return Spec("header", "row_header", f"Use the left header to select row {r + 1}.", "row_header", 0, r)
    if kind == "col_header":
        return Spec("header", "column_header", f"Click the header of column {col_name(c)}.", "col_header", c, 0)
    if kind == "color":
        visible = sorted((p, n) for p, n in sheet.colours.items() if 0 < p[0] < cols - 1 and 0 < p[1] < rows - 1)
        if visible:
            (cc, cr), name = rng.choice(visible)
            return Spec("color", "colored_cell", f"Click the {name} cell.", "cell", cc, cr)
        return Spec("cell", "cell", f"Click cell {ref}.", "cell", c, r)
    if kind == "relative":
        steps = rng.randint(1, 3)
        direction, dc, dr = rng.choice([("right of", 1, 0), ("left of", -1, 0), ("below", 0, 1), ("above", 0, -1)])
        bc, br = c - dc * steps, r - dr * steps
        if 0 <= bc < cols and 0 <= br < rows:
            base = f"{col_name(bc)}{br + 1}"
            return Spec(
                "relative", "relative_reference", f"Click the cell {ORDINAL[steps]} {direction} {base}.", "cell", c, r
            )
        return Spec("cell", "cell", f"Click cell {ref}.", "cell", c, r)
    if kind == "fill_handle":
        sel = f"{col_name(sheet.selected[0])}{sheet.selected[1] + 1}"
        return Spec("handle", "fill_handle", f"Grab the fill handle of the selected cell {sel}.", "fill_handle")
    if kind == "col_resize":
        return Spec(
            "handle",
            "column_resize",
            f"Drag the boundary between the headers of columns {col_name(c)} and {col_name(c + 1)} "
            f"to resize column {col_name(c)}.",
            "col_resize",
            c + 1,
        )
    if kind == "row_resize":
        return Spec(
            "handle",
            "row_resize",
            f"Drag the boundary between the headers of rows {r + 1} and {r + 2} to resize row {r + 1}.",
            "row_resize",
            0,
            r + 1,
        )
    if kind == "edge":
        side = rng.choice(["left", "right", "top", "bottom"])
        return Spec("edge", f"{side}_edge", f"Click the {side} edge of cell {ref}.", "edge", c, r, side)
    vertical, horizontal = rng.choice(["top", "bottom"]), rng.choice(["left", "right"])
    return Spec(
        "corner",
        "cell_corner",
        f"Click the {vertical}-{horizontal} corner of cell {ref}.",
        "corner",
        c,
        r,
        f"{vertical}-{horizontal}",
    )


def geometry(spec: Spec, sheet: Sheet, grid: Grid) -> Placed:
    c, r = spec.a, spec.b
    cands: list[tuple[str, str, Box]] = []
    if spec.kind == "cell":
        box = grid.cell(c, r)
        for dc, dr in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            cands.append((f"cell:{col_name(c + dc)}{r + dr + 1}", "cell", grid.cell(c + dc, r + dr)))
    elif spec.kind == "row_header":
        box = (grid.x(0) - grid.header_w, grid.y(r), grid.x(0), grid.y(r + 1))
        for d in (-1, 1):
            cands.append((f"row_header:{r + d + 1}", "row_header", (box[0], grid.y(r + d), box[2], grid.y(r + d + 1))))
    elif spec.kind == "col_header":
        box = (grid.x(c), grid.header_top, grid.x(c + 1), grid.gy)
        for d in (-1, 1):
            cands.append(
                (f"col_header:{col_name(c + d)}", "column_header", (grid.x(c + d), box[1], grid.x(c + d + 1), box[3]))
            )
    elif spec.kind == "fill_handle":
        box = fill_handle(grid, sheet)
        sc, sr = sheet.selected
        cands.append((f"cell:{col_name(sc)}{sr + 1}", "cell", grid.cell(sc, sr)))
        cands.append((f"cell:{col_name(sc + 1)}{sr + 2}", "cell", grid.cell(sc + 1, sr + 1)))
    elif spec.kind == "col_resize":
        box = _vband(grid.x(c), grid.header_top, grid.gy)
        for d in (-1, 1):
            cands.append(
                (f"col_resize:{col_name(c + d - 1)}", "column_resize", _vband(grid.x(c + d), grid.header_top, grid.gy))
            )
    elif spec.kind == "row_resize":
        left = grid.x(0) - grid.header_w
        box = _hband(grid.y(r), left, grid.x(0))
        for d in (-1, 1):
            cands.append((f"row_resize:{r + d}", "row_resize", _hband(grid.y(r + d), left, grid.x(0))))
    elif spec.kind == "edge":
        x0, y0, x1, y1 = grid.cell(c, r)
        bands = {
            "left": _vband(x0, y0, y1),
            "right": _vband(x1, y0, y1),
            "top": _hband(y0, x0, x1),
            "bottom": _hband(y1, x0, x1),
        }
        box = bands[spec.side]
        for side, band in sorted(bands.items()):
            if side != spec.side:
                cands.append((f"edge:{col_name(c)}{r + 1}:{side}", f"{side}_edge", band))
        cands.append((f"cell:{col_name(c)}{r + 1}", "cell", grid.cell(c, r)))
    else:
        x0, y0, x1, y1 = grid.cell(c, r)
        corners = {
            "top-left": _corner(x0, y0),
            "top-right": _corner(x1, y0),
            "bottom-left": _corner(x0, y1),
            "bottom-right": _corner(x1, y1),
        }
        box = corners[spec.side]
        for name, square in sorted(corners.items()):
            if name != spec.side:
                cands.append((f"corner:{col_name(c)}{r + 1}:{name}", "cell_corner", square))
    return Placed(
        box=box,
        candidates=[{"id": i, "category": k, "bbox": list(b)} for i, k, b in cands],
        render={
            "grid": {
                "gx": grid.gx,
                "gy": grid.gy,
                "cw": grid.cw,
                "rh": grid.rh,
                "header_w": grid.header_w,
                "header_top": grid.header_top,
                "cols": grid.cols,
                "rows": grid.rows,
            },
            "cell": [c, r],
            "selected": list(sheet.selected),
            "coloured": sorted([list(p) for p in sheet.colours]),
        },
    )


def make_example(index: int, seed: int, frames: list[Frame]) -> Example:
    rng = rng_for(SUITE, index, seed)
    sheet = make_sheet(rng)
    grids = {f.name: grid_for(sheet, f) for f in frames}
    cols = min(g.cols for g in grids.values())
    rows = min(g.rows for g in grids.values())
    spec = choose_spec(sheet, rng, cols, rows)
    return Example(
        instruction=spec.instruction,
        answer_type="point",
        data_type=spec.data_type,
        category=spec.category,
        meta={"ui_style": sheet.style, "language": sheet.language},
        images={name: render(sheet, grid) for name, grid in grids.items()},
        placed={name: geometry(spec, sheet, grid) for name, grid in grids.items()},
    )

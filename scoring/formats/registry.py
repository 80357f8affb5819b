"""The declared answer formats: a syntax (how the answer is read) and a frame (what its numbers measure).

A spec is ``NAME[:key=value,...]`` (``qwen2.5-vl:min_pixels=200704``); :func:`parse_format` checks it and
gives the :class:`AnswerFormat`, whose ``spec`` is the canonical spelling recorded with every score.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from groundbench.errors import GroundBenchError, unknown_name
from groundbench.scoring.formats import pointing, providers, resize, syntax, uitars
from groundbench.scoring.formats.syntax import Found

DEFAULT = "groundbench"
Size = tuple[int, int]


@dataclass(frozen=True)
class Param:
    name: str
    default: Any
    choices: tuple[str, ...] = ()  # a string parameter's valid values; empty = a positive integer
    help: str = ""

    def read(self, text: str, where: str, option: str) -> Any:
        if self.choices:
            if text not in self.choices:
                raise GroundBenchError(
                    where, option, f"{self.name} must be one of {', '.join(self.choices)}, found {text!r}"
                )
            return text
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1:
            raise GroundBenchError(where, option, f"{self.name} must be a positive integer, found {text!r}")
        return value


def _seen(seen: Size, params: Mapping[str, Any]) -> tuple[float, float]:
    return float(seen[0]), float(seen[1])


def _provider(seen: Size, params: Mapping[str, Any]) -> tuple[float, float]:
    width, height = providers.FIT[params["provider"]](int(seen[0]), int(seen[1]))
    return float(width), float(height)


def _grid(side: float) -> Callable[[Size, Mapping[str, Any]], tuple[float, float]]:
    return lambda seen, params: (side, side)


def _smart(seen: Size, params: Mapping[str, Any]) -> tuple[float, float]:
    height, width = resize.smart_resize(
        seen[1], seen[0], factor=params["factor"], min_pixels=params["min_pixels"], max_pixels=params["max_pixels"]
    )
    return float(width), float(height)


def _uitars(seen: Size, params: Mapping[str, Any]) -> tuple[float, float]:
    return _smart(seen, params) if params["version"] == "1.5" else (1000.0, 1000.0)


SMART_PARAMS = (
    Param("min_pixels", resize.MIN_PIXELS, help="the processor's min_pixels"),
    Param("max_pixels", resize.MAX_PIXELS, help="the processor's max_pixels"),
    Param("factor", resize.FACTOR, help="patch size x merge size"),
)
PIXELS_PARAMS = (
    Param(
        "provider",
        providers.NONE,
        tuple(providers.FIT),
        "a hosted API whose documented limits the image is sent within (so it reaches the model as sent)",
    ),
)
# ui_tars.action_parser's own defaults (MIN_PIXELS = 100 * 28 * 28, MAX_PIXELS = 16384 * 28 * 28).
UITARS_PARAMS = (
    Param("version", "1.5", ("1.5", "1.0"), "1.5: pixels of the smart_resize frame; 1.0: a 0-1000 grid"),
    Param("min_pixels", 100 * 28 * 28, help="smart_resize min_pixels (version 1.5)"),
    Param("max_pixels", 16384 * 28 * 28, help="smart_resize max_pixels (version 1.5)"),
    Param("factor", resize.FACTOR, help="smart_resize factor (version 1.5)"),
)


@dataclass(frozen=True)
class Family:
    name: str
    syntax: str  # what the answer looks like
    frame: str  # what its numbers measure
    source: str  # where the family documents (or officially reads) it
    reader: Callable[[str, str], Found | None] | None  # None: GroundBench's own JSON, read as before
    frame_size: Callable[[Size, Mapping[str, Any]], tuple[float, float]]
    params: tuple[Param, ...] = ()
    truncate: bool = False  # the adapter truncates the mapped pixel (int())
    # What a tolerant reader finds where the official one found nothing; None: ``syntax.recover`` (x before y).
    lenient: Callable[[str], Found | None] | None = None
    # A pointing family: its answer is points only, so on object-part rows it names no part and no action
    # (``parse.POINT_ONLY``), and every point it gives is kept (``pointing.Pointed``).
    points_only: bool = False


def _fixed(reader: Callable[[str], Found | None]) -> Callable[[str, str], Found | None]:
    return lambda text, answer_type: reader(text)


QWEN_COOKBOOK = "https://github.com/QwenLM/Qwen2.5-VL/blob/main/cookbooks/computer_use.ipynb"
SSPRO = "https://github.com/likaixin2000/ScreenSpot-Pro-GUI-Grounding/blob/main/models"
FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family(
            "groundbench",
            'one bare JSON object, e.g. {"point": [x, y]} (GroundBench\'s own prompt)',
            "pixels of the row's image",
            "docs/scoring.md",
            None,
            _seen,
        ),
        Family(
            "pixels",
            'a bare JSON object ({"point": [x, y]}, eval.py\'s keys) or list [x, y] / [x0, y0, x1, y1]',
            "pixels of the image the model was sent (provider=...: sent within that API's documented limits)",
            "docs/scoring.md; https://docs.anthropic.com/en/docs/build-with-claude/vision; "
            "https://platform.openai.com/docs/guides/images-vision",
            lambda text, answer_type: syntax.plain_answer(answer_type)(text),
            _provider,
            PIXELS_PARAMS,
        ),
        Family(
            "norm1",
            "as pixels",
            "fractions 0-1 of the image",
            "docs/scoring.md",
            lambda text, answer_type: syntax.plain_answer(answer_type)(text),
            _grid(1.0),
        ),
        Family(
            "norm1000",
            "as pixels",
            "a 0-1000 grid over the image",
            "docs/scoring.md",
            lambda text, answer_type: syntax.plain_answer(answer_type)(text),
            _grid(1000.0),
        ),
        Family(
            "qwen2.5-vl",
            '<tool_call>{"name": ..., "arguments": {"coordinate": [x, y]}}</tool_call>, a bare [x, y] or (x, y), or '
            '{"point_2d": [x, y]} / {"bbox_2d": [...]}',
            "pixels of the smart_resize frame",
            f"{QWEN_COOKBOOK}; {SSPRO}/qwen2_5vl.py; "
            "https://github.com/Han1018/ScreenSpot-Pro-GUI-Grounding/blob/main/models/zonui.py",
            _fixed(syntax.qwen_answer),
            _smart,
            SMART_PARAMS,
        ),
        Family(
            "qwen3-vl",
            "as qwen2.5-vl",
            "a 0-1000 grid over the image",
            "https://github.com/QwenLM/Qwen3-VL/blob/main/cookbooks/computer_use.ipynb",
            _fixed(syntax.qwen_answer),
            _grid(1000.0),
        ),
        Family(
            "qwen2-vl",
            "<|box_start|>(x1,y1),(x2,y2)<|box_end|> (the last one); without the tokens, two or four bare numbers",
            "a 0-1000 grid over the image",
            f"{SSPRO}/qwen2vl.py",
            _fixed(syntax.qwen2vl_answer),
            _grid(1000.0),
        ),
        Family(
            "os-atlas",
            "<|box_start|>(x1,y1),(x2,y2)<|box_end|> (the first one, every coordinate inside (0, 1000))",
            "a 0-1000 grid over the image",
            f"{SSPRO}/osatlas7b.py",
            _fixed(syntax.osatlas_answer),
            _grid(1000.0),
        ),
        Family(
            "ui-tars",
            "Action: click(start_box='(x,y)') (or point='<point>x y</point>')",
            "1.5: pixels of the smart_resize frame; 1.0: a 0-1000 grid",
            "https://github.com/bytedance/UI-TARS/blob/main/codes/ui_tars/action_parser.py; "
            "https://github.com/bytedance/UI-TARS/blob/main/README_coordinates.md",
            _fixed(uitars.uitars_answer),
            _uitars,
            UITARS_PARAMS,
        ),
        Family(
            "uground",
            "(x, y), the whole answer",
            "a 0-1000 grid over the image (the pixel is truncated, as its script does)",
            "https://github.com/OSU-NLP-Group/UGround/blob/main/grounding/uground_qwen2vl_serve.py",
            _fixed(syntax.uground_answer),
            _grid(1000.0),
            truncate=True,
        ),
        Family(
            "aguvis",
            "pyautogui.click(x=0.1175, y=0.0725)",
            "fractions 0-1 of the image",
            "https://github.com/xlang-ai/aguvis/blob/main/src/aguvis/constants.py; "
            "https://github.com/ZeonLap/ScreenSpot-Pro-GUI-Grounding/blob/main/models/aguvis.py",
            _fixed(syntax.aguvis_answer),
            _grid(1.0),
        ),
        Family(
            "showui",
            "[x, y] (the first two numbers)",
            "fractions 0-1 of the image",
            f"https://github.com/showlab/ShowUI; {SSPRO}/showui.py",
            _fixed(syntax.showui_answer),
            _grid(1.0),
        ),
        Family(
            "seeclick",
            "[x, y] or (x, y) (two or four numbers); <box>(x1,y1),(x2,y2)</box> on 0-1000",
            "fractions 0-1 of the image",
            "https://github.com/njucckevin/SeeClick/blob/main/pretrain/screenspot_test.py",
            _fixed(syntax.seeclick_answer),
            _grid(1.0),
        ),
        Family(
            "molmo",
            '<point x="61.5" y="40.6" alt="...">...</point> or <points x1=".." y1=".." x2=".." ...>, the whole answer '
            "(the first point)",
            "percent (0-100) of the image",
            "https://github.com/allenai/molmo/blob/main/olmo/eval/evaluators.py (PointingEval, is_valid_format); "
            "https://github.com/allenai/molmo/blob/main/olmo/util.py (extract_points); "
            "https://github.com/allenai/olmo-ui/blob/main/src/components/thread/points/molmo1/extractPointData.ts",
            _fixed(pointing.molmo_answer),
            _grid(100.0),
            lenient=pointing.molmo_embedded,
            points_only=True,
        ),
        Family(
            "robopoint",
            "[(0.56, 0.43), (x2, y2), ...] (the first tuple; 4-tuples are boxes)",
            "fractions 0-1 of the image where a number has a decimal point, else pixels (truncated, as its scorer)",
            "https://github.com/wentaoyuan/RoboPoint/blob/master/robopoint/eval/summarize_vqa.py",
            _fixed(pointing.robopoint_answer),
            _grid(1.0),
            truncate=True,
            points_only=True,
        ),
        Family(
            "gemini",
            '[{"point": [y, x], "label": ...}] or [{"box_2d": [ymin, xmin, ymax, xmax], ...}] after a ```json fence '
            "(the first entry)",
            "a 0-1000 grid over the image, y first",
            "https://github.com/google-gemini/cookbook/blob/main/examples/Spatial_understanding_3d.ipynb; "
            "https://github.com/google-gemini/cookbook/blob/main/quickstarts/Spatial_understanding.ipynb; "
            "https://ai.google.dev/gemini-api/docs/robotics-overview",
            _fixed(pointing.gemini_answer),
            _grid(1000.0),
            lenient=pointing.gemini_embedded,
            points_only=True,
        ),
    )
}


def names() -> list[str]:
    """Every format name, in the order the docs list them."""
    return list(FAMILIES)


@dataclass(frozen=True)
class AnswerFormat:
    family: Family
    given: dict[str, Any] = field(default_factory=dict)  # the parameters the spec set

    @property
    def name(self) -> str:
        return self.family.name

    @property
    def params(self) -> dict[str, Any]:
        """Every parameter, the defaults included."""
        return {p.name: self.given.get(p.name, p.default) for p in self.family.params}

    @property
    def spec(self) -> str:
        """The canonical spelling: the name, then the parameters the spec set, sorted."""
        given = ",".join(f"{k}={self.given[k]}" for k in sorted(self.given))
        return f"{self.name}:{given}" if given else self.name

    @property
    def is_default(self) -> bool:
        return self.family.reader is None

    def frame(self, seen: Size) -> tuple[float, float]:
        """The size of the frame the answer's numbers measure, for an image of ``seen`` (width, height)."""
        return self.family.frame_size(seen, self.params)

    def to_row(self, coords: tuple[float, ...], row: Size, seen: Size) -> tuple[float, ...]:
        """Coordinates of the answer's frame in pixels of the row's own frame. Multiplied before dividing, so
        integer answers land exactly where the adapters' normalised comparison puts them."""
        fw, fh = self.frame(seen)
        sides = [(row[0], fw), (row[1], fh)]
        out = []
        for index, value in enumerate(coords):
            side, frame = sides[index % 2]
            out.append(float(math.trunc(value / frame * side)) if self.family.truncate else value * side / frame)
        return tuple(out)

    def describe(self) -> dict[str, Any]:
        return {"spec": self.spec, "name": self.name, "params": self.params}


def parse_format(text: str, where: str = "command line", option: str = "--answer-format") -> AnswerFormat:
    """``NAME[:key=value,...]`` -> the format; one error line naming the valid names or parameters otherwise."""
    if not isinstance(text, str):
        raise GroundBenchError(where, option, f"expected a format name (one of {', '.join(names())}), found {text!r}")
    name, _, rest = text.strip().partition(":")
    family = FAMILIES.get(name)
    if family is None:
        raise unknown_name(where, "profile" if option == "--profile" else "answer format", name, names())
    known = {p.name: p for p in family.params}
    given: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep or key not in known:
            valid = ", ".join(known) or "none"
            raise GroundBenchError(
                where,
                option,
                f"{name} has no parameter {item!r} (its parameters: {valid}; formats: {', '.join(names())})",
            )
        given[key] = known[key].read(value.strip(), where, option)
    # A parameter set to its default says nothing: one meaning, one spelling.
    return AnswerFormat(family, {k: v for k, v in given.items() if v != known[k].default})

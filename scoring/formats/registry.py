"""The declared answer formats: a syntax (how the answer is read) and a frame (what its numbers measure).

A spec is ``NAME[:key=value,...]`` (``qwen2.5-vl:min_pixels=200704``); :func:`parse_format` checks it and
gives the :class:`AnswerFormat`, whose ``spec`` is the canonical spelling recorded with every score.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from groundbench.errors import GroundBenchError, unknown_name
from groundbench.scoring.formats import computer_use, pointing, providers, resize, specialists, syntax, uitars
from groundbench.scoring.formats.syntax import Found, Read

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


def _claude(seen: Size, params: Mapping[str, Any]) -> tuple[float, float]:
    width, height = computer_use.claude_frame(int(seen[0]), int(seen[1]), params["scaling"] == "on")
    return float(width), float(height)


def _openai_display(seen: Size, params: Mapping[str, Any]) -> tuple[float, float]:
    """The declared display; undeclared, the screenshot as sent within OpenAI's documented image limits."""
    if params["display_width"] and params["display_height"]:
        return float(params["display_width"]), float(params["display_height"])
    width, height = providers.openai(int(seen[0]), int(seen[1]))
    return float(width), float(height)


def _infigui(seen: Size, params: Mapping[str, Any]) -> tuple[float, float]:
    """InfiGUI-G1's ``eval/eval.py``: the image shrunk to at most ``max_image_tokens * 28 * 28`` pixels (``data.py``
    ``resize_image``: both sides scaled by sqrt(max / (w * h)) and rounded), then ``smart_resize`` (max 12845056)."""
    width, height = int(seen[0]), int(seen[1])
    most = params["max_image_tokens"] * 28 * 28
    if width * height > most:
        scale = math.sqrt(most / (width * height))
        width, height = round(width * scale), round(height * scale)
    h_bar, w_bar = resize.smart_resize(height, width)
    return float(w_bar), float(h_bar)


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
def _smart_params(min_pixels: int, max_pixels: int, source: str) -> tuple[Param, ...]:
    return (
        Param("min_pixels", min_pixels, help=f"smart_resize min_pixels ({source})"),
        Param("max_pixels", max_pixels, help=f"smart_resize max_pixels ({source})"),
        Param("factor", resize.FACTOR, help="smart_resize factor (patch size x merge size)"),
    )


CLAUDE_PARAMS = (
    Param("scaling", "on", ("on", "off"), "on: computer.py's scaling to XGA / WXGA / FWXGA; off: the screen as it is"),
)
OPENAI_PARAMS = (
    Param("display_width", 0, help="the display width declared with the tool (unset: the screenshot as sent)"),
    Param("display_height", 0, help="the display height declared with the tool (unset: the screenshot as sent)"),
)
INFIGUI_PARAMS = (
    Param("max_image_tokens", 5600, help="eval.py's --max-image-tokens (the image at most this * 28 * 28 pixels)"),
    Param("think", "on", ("on", "off"), "eval.py's --think-mode: on reads after the last </think>"),
)
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
    reader: Callable[[str, str], Read] | None  # None: GroundBench's own JSON, read as before
    frame_size: Callable[[Size, Mapping[str, Any]], tuple[float, float]]
    params: tuple[Param, ...] = ()
    truncate: bool = False  # the adapter truncates the mapped pixel (int())
    rounds: bool = False  # the adapter rounds the mapped pixel (Claude's computer.py: round(x / (target / screen)))
    # What a tolerant reader finds where the official one found nothing; None: ``syntax.recover`` (x before y).
    lenient: Callable[[str], Found | None] | None = None
    # A pointing family: its answer is points only, so on object-part rows it names no part and no action
    # (``parse.POINT_ONLY``), and every point it gives is kept (``pointing.Pointed``).
    points_only: bool = False
    refusal: str = ""  # the family's documented "no target" answer, read as a refusal ("" where it has none)
    configured: Callable[[Mapping[str, Any]], Callable[[str, str], Read]] | None = None  # a reader set by parameters
    check: Callable[[Mapping[str, Any]], str | None] | None = None  # what is wrong with a spec's parameters, or None


def _fixed(reader: Callable[[str], Read]) -> Callable[[str, str], Read]:
    return lambda text, answer_type: reader(text)


def _display_declared(params: Mapping[str, Any]) -> str | None:
    if bool(params["display_width"]) != bool(params["display_height"]):
        return "declare both display_width and display_height, or neither"
    return None


QWEN_COOKBOOK = "https://github.com/QwenLM/Qwen2.5-VL/blob/main/cookbooks/computer_use.ipynb"
SSPRO = "https://github.com/likaixin2000/ScreenSpot-Pro-GUI-Grounding/blob/main/models"
QUICKSTART = "https://github.com/anthropics/anthropic-quickstarts/blob/main/computer-use-demo/computer_use_demo/tools/computer.py"
GLMV = "https://github.com/zai-org/GLM-V/blob/main"
AGENTCPM = "https://github.com/OpenBMB/AgentCPM-GUI/blob/main"
VENUS = "https://github.com/inclusionAI/UI-Venus/blob/main"
INFIGUI = "https://github.com/InfiXAI/InfiGUI-G1/blob/main"
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
        Family(
            "claude-computer-use",
            'the computer tool\'s input {"action": "left_click", "coordinate": [x, y]} (alone, in its tool_use block '
            "or in the message's content list; the first click action), two non-negative integers",
            "pixels of the screenshot scaled to XGA 1024x768 / WXGA 1280x800 / FWXGA 1366x768 (the first whose aspect "
            "is within 0.02 of the screen's, only when smaller), else within Anthropic's image limits; mapped back "
            "with round()",
            f"{QUICKSTART}; https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/computer-use-tool",
            _fixed(computer_use.claude_answer),
            _claude,
            CLAUDE_PARAMS,
            rounds=True,
        ),
        Family(
            "openai-computer-use",
            'a computer_call whose action is {"type": "click", "x": .., "y": ..} (alone, in a list of output items or '
            "a response's output; or the action alone; the first click)",
            "pixels of the declared display (display_width x display_height; undeclared: the screenshot sent within "
            "OpenAI's image limits)",
            "https://platform.openai.com/docs/guides/tools-computer-use; "
            "https://platform.openai.com/docs/api-reference/responses/object",
            _fixed(computer_use.openai_answer),
            _openai_display,
            OPENAI_PARAMS,
            check=_display_declared,
        ),
        Family(
            "glm-v",
            "<|begin_of_box|>[x1,y1,x2,y2]<|end_of_box|> (the first span; any brackets; four numbers a box, two a "
            "point)",
            "a 0-1000 grid over the image",
            f"{GLMV}/README.md (Grounding); {GLMV}/examples/gui-agent/glm-45v/gui_agent_45v.py",
            _fixed(specialists.glmv_answer),
            _grid(1000.0),
        ),
        Family(
            "internvl",
            "[[x,y]] (the first), else [[x1,y1,x2,y2]] (the last, its centre); integers without spaces",
            "a 0-1000 grid over the image",
            f"{SSPRO}/internvl.py",
            _fixed(specialists.internvl_answer),
            _grid(1000.0),
        ),
        Family(
            "cogagent",
            "box=[[x1,y1,x2,y2]] (the first; inner brackets optional), its centre",
            "a 0-1000 grid over the image",
            f"{SSPRO}/cogagent24.py",
            _fixed(specialists.cogagent_answer),
            _grid(1000.0),
        ),
        Family(
            "minicpm-v",
            "<box>x1 y1 x2 y2</box> (the first, its centre), else the first two integers 'x y'",
            "a 0-1000 grid over the image",
            f"{SSPRO}/minicpmv.py",
            _fixed(specialists.minicpmv_answer),
            _grid(1000.0),
        ),
        Family(
            "kimi-vl",
            "after ◁/think▷ (an unclosed ◁think▷: no answer), the first x=.., y=.. in 0-1, as in "
            "pyautogui.click(x=0.204, y=0.149)",
            "fractions 0-1 of the image",
            f"{SSPRO}/kimivl.py",
            _fixed(specialists.kimivl_answer),
            _grid(1.0),
        ),
        Family(
            "agentcpm-gui",
            '{"POINT": [x, y]} (spaces removed, the whole answer one JSON object; a "thought" beside it)',
            "a 0-1000 grid over the image",
            f"{AGENTCPM}/README.md; {AGENTCPM}/eval/grounding_eval/code/minicpm/fun2bbox_eval_minicpm.py",
            _fixed(specialists.agentcpm_answer),
            _grid(1000.0),
        ),
        Family(
            "ui-venus",
            "[x1,y1,x2,y2], the whole answer (its centre)",
            "pixels of the smart_resize frame (min_pixels 2000000, max_pixels 4800000)",
            f"{VENUS}/models/grounding/ui_venus_ground_7b.py; {VENUS}/models/ui_venus_ground_72b.py",
            _fixed(specialists.uivenus_answer),
            _smart,
            _smart_params(2_000_000, 4_800_000, "ui_venus_ground_7b.py; the 72B adapter's: 3110400 / 48000000"),
            refusal="[-1,-1,-1,-1]",
        ),
        Family(
            "ui-venus-2",
            "[x,y] (or [x1,y1,x2,y2], [x1,y1],[x2,y2], bare numbers: its extract_coordinates_qwen35 order)",
            "a 0-1000 grid over the image",
            f"{VENUS}/models/grounding/ui_venus2_gd.py",
            _fixed(specialists.uivenus2_answer),
            _grid(1000.0),
            refusal="[-1,-1]",
        ),
        Family(
            "gta1",
            "(x,y), the first, integers",
            "pixels of the smart_resize frame (max_pixels 4096x2160), stated in the prompt",
            "https://github.com/Yan98/GTA1/blob/main/README.md (Inference)",
            _fixed(specialists.gta1_answer),
            _smart,
            _smart_params(resize.MIN_PIXELS, 4096 * 2160, "GTA1's README"),
        ),
        Family(
            "holo1.5",
            '{"action": "click_absolute", "x": .., "y": ..}, the whole answer, integers',
            "pixels of the smart_resize frame (max_pixels 2560x1440)",
            f"{SSPRO}/holo1_5.py",
            _fixed(specialists.holo_answer),
            _smart,
            _smart_params(resize.MIN_PIXELS, 2560 * 1440, "holo1_5.py"),
        ),
        Family(
            "infigui-g1",
            '[{"point_2d": [x, y]}, ...] after the last </think> (first [ to last ]; the first point scored)',
            "pixels of the frame stated in the prompt (at most max_image_tokens*28*28 pixels, then smart_resize)",
            f"{INFIGUI}/eval/prompts.py; {INFIGUI}/eval/eval.py",
            lambda text, answer_type: specialists.infigui_answer(text),
            _infigui,
            INFIGUI_PARAMS,
            refusal="[]",
            configured=lambda params: (
                lambda text, answer_type: specialists.infigui_answer(text, params["think"] == "on")
            ),
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

    @cached_property  # read for every prediction line; ``given`` is never changed after parsing
    def spec(self) -> str:
        """The canonical spelling: the name, then the parameters the spec set, sorted."""
        given = ",".join(f"{k}={self.given[k]}" for k in sorted(self.given))
        return f"{self.name}:{given}" if given else self.name

    @property
    def is_default(self) -> bool:
        return self.family.reader is None

    def read(self, text: str, answer_type: str) -> Read:
        """The answer in the family's syntax (its parameters applied), as its official adapter reads it."""
        family = self.family
        reader = family.configured(self.params) if family.configured is not None else family.reader
        assert reader is not None  # the default format is read by scoring.parse
        return reader(text, answer_type)

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
            if self.family.truncate:
                out.append(float(math.trunc(value / frame * side)))
            elif self.family.rounds:  # computer.py: round(x / (target_width / width))
                out.append(float(round(value / (frame / side))))
            else:
                out.append(value * side / frame)
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
    fmt = AnswerFormat(family, {k: v for k, v in given.items() if v != known[k].default})
    problem = family.check(fmt.params) if family.check is not None else None
    if problem is not None:
        raise GroundBenchError(where, option, f"{name}: {problem}")
    return fmt

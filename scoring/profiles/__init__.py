"""Model profiles: how a family is asked, in which frame it sees the image, and how its answer is read.

A profile is named like its answer format and takes the same spec (``qwen2.5-vl:max_pixels=99999999``):

- the GUI condition is asked with the family's documented grounding prompt (``templates/``, each restated
  from the source its format cites), the frame stated in it being the one the model is sent;
- the other conditions keep GroundBench's prompts, their supplied geometry and answer block stated in the
  family's frame (pixels of the image sent, a 0-1000 grid, or 0-1 fractions);
- the image is resized on our side where the family's processor would (Qwen's ``smart_resize``), so the
  frame the model answers in is known and recorded;
- the answer format is set (``scoring.formats``);
- a request option the family's adapter relies on is sent with every request (``request_body``): Qwen2-VL,
  OS-Atlas and GLM-4.xV answer in special tokens (``<|box_start|>...``, ``<|begin_of_box|>...``), which
  OpenAI-compatible servers such as vLLM drop from the text by default, so their profiles ask for
  ``skip_special_tokens: false``, as ScreenSpot-Pro's OS-Atlas vLLM adapter does; Holo1.5's adapter decodes under
  its click schema (``guided_json``), UI-Venus-2's turns thinking off (``chat_template_kwargs``);
- the computer-use APIs are sent the screenshot at the size their coordinates are in (Claude: the reference
  tool's scaling target; OpenAI: the declared display), so the frame is known and recorded.

Prompts of a profile carry their own ``template_sha256`` (``template_hash``), so ``score`` gates them too.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from string import Template
from typing import Any

from groundbench.loaders.prompts import TEMPLATE_VERSION, fields, template_names
from groundbench.loaders.prompts import build_prompt as base_prompt
from groundbench.loaders.prompts import template_hash as base_hash
from groundbench.loaders.prompts import template_text as base_text
from groundbench.schemas.request_conditions import GUI, base_condition
from groundbench.schemas.rows import target_part
from groundbench.scoring.formats import DEFAULT, AnswerFormat, names, parse_format
from groundbench.scoring.formats.providers import NONE as NO_PROVIDER
from groundbench.scoring.formats.registry import Size

PIXELS, GRID_1000, GRID_1 = "pixels", "0-1000", "0-1"
PERCENT, GRID_1000_YX = "0-100", "0-1000, y first"  # Molmo's percent; Gemini's [y, x] / [ymin, xmin, ymax, xmax]
QWEN_SYSTEM = "qwen_computer_use_system"


@dataclass(frozen=True)
class Style:
    """The templates of one family: the GUI user text, its system text (or none), and the frame it states."""

    gui: str | None  # None: GroundBench's own gui.txt
    system: str | None
    frame: str
    resized: bool = False  # the image is sent in the format's (smart_resize) frame
    stated_size: Size | None = None  # the resolution the system text states, when fixed (Qwen3-VL: 1000x1000)
    keeps_special_tokens: bool = False  # the answer's syntax is special tokens the server must not strip
    body: Mapping[str, Any] = field(default_factory=dict)  # request options the family's own adapter sends
    drops_final_period: bool = False  # the adapter strips one trailing "." from the instruction
    answer: str | None = None  # the object-part rows' answer block (a pointing family's own); None: by frame


# ScreenSpot-Pro's holo1_5.py decodes under its ClickAbsoluteAction JSON schema (vLLM guided decoding).
HOLO_SCHEMA = {
    "description": "Click at absolute coordinates.",
    "properties": {
        "action": {"const": "click_absolute", "default": "click_absolute", "title": "Action", "type": "string"},
        "x": {"description": "The x coordinate, number of pixels from the left edge.", "title": "X", "type": "integer"},
        "y": {"description": "The y coordinate, number of pixels from the top edge.", "title": "Y", "type": "integer"},
    },
    "required": ["x", "y"],
    "title": "ClickAbsoluteAction",
    "type": "object",
}


STYLES: dict[str, Style] = {
    "groundbench": Style(None, None, PIXELS),
    "pixels": Style(None, None, PIXELS),
    "norm1": Style("norm1_gui", None, GRID_1),
    "norm1000": Style("norm1000_gui", None, GRID_1000),
    "qwen2.5-vl": Style("instruction", QWEN_SYSTEM, PIXELS, resized=True),
    "qwen3-vl": Style("instruction", QWEN_SYSTEM, GRID_1000, stated_size=(1000, 1000)),
    "qwen2-vl": Style("qwen2-vl_gui", None, GRID_1000, keeps_special_tokens=True),
    "os-atlas": Style("os-atlas_gui", None, GRID_1000, keeps_special_tokens=True),
    "ui-tars": Style("ui-tars_gui", None, PIXELS, resized=True),
    "uground": Style("uground_gui", None, GRID_1000),
    "aguvis": Style("aguvis_gui", "aguvis_system", GRID_1),
    "showui": Style("showui_gui", None, GRID_1),
    "seeclick": Style("seeclick_gui", None, GRID_1),
    # The pointing families: their documented pointing prompt on GUI rows, and on object-part rows the condition's
    # words with that prompt as the answer block (they answer a point: no part, no action).
    "molmo": Style("molmo_gui", None, PERCENT, answer="molmo_answer"),
    "robopoint": Style("robopoint_gui", None, GRID_1, answer="robopoint_answer"),
    "gemini": Style("gemini_gui", None, GRID_1000_YX, answer="gemini_answer"),
    "claude-computer-use": Style("claude_computer_use_gui", None, PIXELS, resized=True),
    "openai-computer-use": Style("openai_computer_use_gui", None, PIXELS, resized=True),
    "glm-v": Style("glm-v_gui", None, GRID_1000, keeps_special_tokens=True),
    "internvl": Style("internvl_gui", None, GRID_1000),
    "cogagent": Style("cogagent_gui", None, GRID_1000),
    "minicpm-v": Style("minicpm-v_gui", None, GRID_1000),
    "kimi-vl": Style("kimi-vl_gui", "kimi-vl_system", GRID_1),
    "agentcpm-gui": Style("agentcpm-gui_gui", "agentcpm-gui_system", GRID_1000),
    "ui-venus": Style("ui-venus_gui", None, PIXELS, resized=True),
    # ui_venus2_gd.py sends every request with thinking off.
    "ui-venus-2": Style(
        "ui-venus-2_gui",
        None,
        GRID_1000,
        body={"chat_template_kwargs": {"enable_thinking": False}},
        drops_final_period=True,
    ),
    "gta1": Style("instruction", "gta1_system", PIXELS, resized=True),
    "holo1.5": Style("holo1.5_gui", None, PIXELS, resized=True, body={"guided_json": HOLO_SCHEMA}),
    "infigui-g1": Style("infigui-g1_gui", "infigui-g1_system", PIXELS, resized=True),
}
ANSWER_BLOCKS = {GRID_1000: "answer_norm1000", GRID_1: "answer_norm1"}


@cache
def profile_text(name: str) -> str:
    return resources.files("groundbench.scoring.profiles").joinpath("templates", f"{name}.txt").read_text("utf-8")


@dataclass(frozen=True)
class Profile:
    format: AnswerFormat

    @property
    def name(self) -> str:
        return self.format.name

    @property
    def spec(self) -> str:
        return self.format.spec

    @property
    def style(self) -> Style:
        style = STYLES[self.name]
        if self.name == "ui-tars" and self.format.params["version"] == "1.0":
            return Style(style.gui, style.system, GRID_1000)  # UI-TARS 1.0 answers on 0-1000
        if self.name == "pixels" and self.format.params.get("provider", NO_PROVIDER) != NO_PROVIDER:
            return replace(style, resized=True)  # sent within the hosted API's limits, so it arrives as sent
        if self.name == "infigui-g1" and self.format.params["think"] == "off":
            return replace(style, system="infigui-g1_system_no_think")  # eval.py's --think-mode 0
        return style

    @property
    def is_default(self) -> bool:
        return self.name == DEFAULT

    @property
    def request_body(self) -> dict[str, Any]:
        """Extra fields of every chat-completions request (an OpenAI-compatible server's own options)."""
        body = dict(self.style.body)
        if self.style.keeps_special_tokens:
            body["skip_special_tokens"] = False
        return body

    def sent_size(self, width: int, height: int) -> Size:
        """The size the image is sent at: the format's frame where the family's processor resizes."""
        if not self.style.resized:
            return width, height
        fw, fh = self.format.frame((width, height))
        return int(fw), int(fh)

    def templates(self, condition: str) -> list[tuple[str, str]]:
        """(name, text) of every template the condition's prompt uses under this profile, in order."""
        style = self.style
        if base_condition(condition) == GUI:
            names_ = [("system", style.system)] if style.system else []
            if style.gui is None:
                return [(n, base_text(n)) for n in template_names(condition)]
            return [(f"{role}/{t}", profile_text(t)) for role, t in [*names_, ("user", style.gui)] if t]
        base = [(n, base_text(n)) for n in template_names(condition)]
        block = style.answer or ANSWER_BLOCKS.get(style.frame)
        return [(n, profile_text(block)) if block and n == "answer" else (n, t) for n, t in base]

    def template_hash(self, condition: str) -> str:
        """GroundBench's own hash where the profile asks GroundBench's own prompt; otherwise sha256 over the
        profile's name and every template it uses."""
        if self.style.gui is None and self.style.frame == PIXELS:
            return base_hash(condition)
        digest = hashlib.sha256(f"{TEMPLATE_VERSION}\0profile\0{self.name}".encode())
        for name, text in self.templates(condition):
            digest.update(b"\0" + name.encode() + b"\0" + text.encode())
        return digest.hexdigest()

    def prompt(self, row: Mapping[str, Any], condition: str) -> tuple[str | None, str]:
        """(system text or None, user text) for a row already stated in the sent frame (pixels)."""
        style = self.style
        if style.gui is None and style.frame == PIXELS:
            return None, base_prompt(row, condition)
        stated = in_frame(row, style.frame)
        values = fields(stated)
        if style.drops_final_period:
            values["instruction"] = values["instruction"].removesuffix(".")
        if style.frame == GRID_1:  # fractions need more than the two decimals pixels are printed with
            values.update(_fractions(stated))
        system = None
        texts = []
        for name, text in self.templates(condition):
            if name.startswith("system/"):
                width, height = style.stated_size or (row["width"], row["height"])
                system = Template(text).substitute({**values, "width": width, "height": height}).strip()
            else:
                texts.append(Template(text).substitute(values).strip())
        return system, "\n\n".join(texts)

    def describe(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "answer_format": self.format.spec,
            "frame": self.style.frame,
            "resized": self.style.resized,
            "request_body": self.request_body,
        }


def in_frame(row: Mapping[str, Any], frame: str) -> dict[str, Any]:
    """A copy of the row whose part geometry is stated on the grid of ``frame`` (pixels: unchanged)."""
    if frame == PIXELS:
        return dict(row)
    side, digits = FRAME_GRIDS[frame]
    sx, sy = side / float(row["width"]), side / float(row["height"])
    stated = copy.deepcopy(dict(row))
    for part in stated.get("parts") or []:
        if part.get("point_xy"):
            x, y = part["point_xy"]
            part["point_xy"] = [round(x * sx, digits), round(y * sy, digits)]
        if part.get("bbox_xyxy"):
            x0, y0, x1, y1 = part["bbox_xyxy"]
            part["bbox_xyxy"] = [round(v, digits) for v in (x0 * sx, y0 * sy, x1 * sx, y1 * sy)]
        if frame == GRID_1000_YX:  # Gemini's order: [y, x] and [ymin, xmin, ymax, xmax]
            if part.get("point_xy"):
                part["point_xy"] = part["point_xy"][::-1]
            if part.get("bbox_xyxy"):
                x0, y0, x1, y1 = part["bbox_xyxy"]
                part["bbox_xyxy"] = [y0, x0, y1, x1]
    return stated


# frame -> (grid side, decimals the geometry is stated with)
FRAME_GRIDS = {GRID_1000: (1000.0, 1), GRID_1: (1.0, 4), PERCENT: (100.0, 1), GRID_1000_YX: (1000.0, 0)}


def _fractions(row: Mapping[str, Any]) -> dict[str, str]:
    part = target_part(row) or {}

    def vector(values: list[float]) -> str:
        return "[" + ", ".join(f"{v:.4f}" for v in values) + "]"

    return {
        "point": vector(part["point_xy"]) if part.get("point_xy") else "unknown",
        "box": vector(part["bbox_xyxy"]) if part.get("bbox_xyxy") else "unknown",
    }


def parse_profile(text: str, where: str = "command line", option: str = "--profile") -> Profile:
    return Profile(parse_format(text, where, option))


def listing() -> list[dict[str, Any]]:
    """Every profile: name, answer format, frame, whether the image is resized, and its GUI prompt."""
    out = []
    for name in names():
        profile = parse_profile(name)
        example = {"instruction": "<instruction>", "width": "<width>", "height": "<height>"}
        texts = [Template(text).safe_substitute(example) for _, text in profile.templates(GUI)]
        out.append({**profile.describe(), "name": name, "gui_prompt": "\n\n".join(t.strip() for t in texts)})
    return out

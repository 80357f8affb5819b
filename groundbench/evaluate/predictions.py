"""One predictions line per answered sample, in the format ``groundbench score`` reads.

The line keeps the raw response and copies the gate fields from the sample's metadata. When the
image was resized, the line also records the resize and carries the answer's ``parsed`` fields with
every coordinate mapped back to the row's frame (the scorer then uses those fields; the raw text,
in the sent frame, is kept as ``raw_response`` with its parse status as ``raw_parse``). The scorer
counts such lines as parsed fields, so a fenced (lenient) answer is not counted as recovered there;
``raw_parse`` keeps that count. An answer without any JSON stays a raw ``response`` (malformed).
Under a profile the line names it and its ``answer_format``; unless that is ``groundbench`` the raw answer
stays the ``response`` (with the ``resize``), read by the scorer in that format from the frame sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from groundbench.core.jsontext import dumps_utf8
from groundbench.evaluate.images import Frame
from groundbench.schemas.request_conditions import FREE_FORM, base_condition
from groundbench.scoring.formats import DEFAULT
from groundbench.scoring.parse import MALFORMED, parse_response

GATE_FIELDS = ("dataset_version", "manifest_sha256", "template_sha256")
Line = dict[str, Any]


def frame_of(resize: Mapping[str, Any]) -> Frame:
    (width, height), (sent_width, sent_height) = resize["row_size"], resize["sent_size"]
    return Frame(int(width), int(height), int(sent_width), int(sent_height))


def in_row_frame(response: str, frame: Frame) -> dict[str, Any]:
    """The answer's fields parsed from the raw response, its point and box mapped to the row's frame."""
    answer = parse_response(response)
    point = None if answer.point is None else list(frame.to_row(*answer.point))
    box = None
    if answer.box is not None:
        x0, y0, x1, y1 = answer.box
        box = [*frame.to_row(x0, y0), *frame.to_row(x1, y1)]
    return {"part": answer.part, "action": answer.action_raw, "point": point, "box": box}


def prediction_line(metadata: Mapping[str, Any], model: str, response: str) -> Line:
    """The predictions line of one answered sample (its metadata as built by ``samples.to_sample``)."""
    line: Line = {
        "example_id": metadata["example_id"],
        "config": metadata["config"],
        "condition": metadata["condition"],
        "model": model,
        **{k: metadata[k] for k in GATE_FIELDS},
    }
    resize = metadata.get("resize")
    if resize is not None:
        line["resize"] = dict(resize)
    if metadata.get("profile") is not None:
        line["profile"] = metadata["profile"]
        line["answer_format"] = metadata["answer_format"]
        if metadata["answer_format"] != DEFAULT:  # the scorer reads it in its format, from the frame sent
            line["response"] = response
            return line
    status = parse_response(response).status
    # Prose (free form) and answers holding no JSON at all have no coordinates: the scorer reads them raw.
    if resize is None or base_condition(metadata["condition"]) == FREE_FORM or status == MALFORMED:
        line["response"] = response
        return line
    line["raw_response"] = response
    line["raw_parse"] = status
    line["parsed"] = in_row_frame(response, frame_of(resize))
    return line


def key(line: Mapping[str, Any]) -> tuple[str, str, str]:
    return (str(line["config"]), str(line["condition"]), str(line["example_id"]))


def json_line(line: Mapping[str, Any]) -> str:
    """One line of UTF-8 text; a reply holding a lone surrogate is written escaped (``core.jsontext``)."""
    return dumps_utf8(line, sort_keys=True) + "\n"


def jsonl(lines: Iterable[Mapping[str, Any]]) -> str:
    """Sorted by (config, condition, example id), one canonical JSON object per line: same answers, same bytes."""
    return "".join(json_line(line) for line in sorted(lines, key=key))

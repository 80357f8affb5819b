"""A sample asked under a model profile (``--profile``, ``groundbench.scoring.profiles``).

The image is sent in the profile's frame (Qwen's ``smart_resize`` for the Qwen2.5-VL and UI-TARS-1.5
families, else as ``--max-side`` leaves it), the prompt is the family's, built from the row's geometry in
the frame sent, and the metadata names the profile and the answer format, so the predictions line keeps
the raw answer for ``groundbench score`` to read in that format and frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, Content, ContentImage, ContentText

from groundbench.errors import GroundBenchError
from groundbench.evaluate.images import Frame
from groundbench.evaluate.sent_images import RowImages
from groundbench.schemas.request_conditions import is_text_only
from groundbench.scoring.profiles import Profile

Row = Mapping[str, Any]


def check_resize(profile: Profile | None, max_side: int | None) -> None:
    """A profile that resizes on its own (smart_resize) leaves no room for --max-side."""
    if profile is not None and profile.style.resized and max_side is not None:
        raise GroundBenchError(
            "command line", "--max-side", f"profile {profile.spec} sends the image in its own frame; drop --max-side"
        )


def profiled_input(
    row: Row, condition: str, profile: Profile, images: RowImages, index: int, in_sent_frame: Any
) -> tuple[list[ChatMessage], dict[str, Any]]:
    """The messages of one sample (row ``index``, its image by reference) and what its metadata adds (profile,
    answer format, resize)."""
    metadata: dict[str, Any] = {"profile": profile.spec, "answer_format": profile.format.spec}
    content: list[Content] = []
    prompt_row: Row = row
    if not is_text_only(condition):
        width, height = int(row["width"]), int(row["height"])
        metadata["image"] = images.add(str(row["example_id"]), index, width, height)  # what inspect's log shows
        content.append(ContentImage(image=metadata["image"]))
        frame = images.frame(width, height)
        if frame.resized:
            metadata["resize"] = frame.record()
            prompt_row = in_sent_frame(row, frame)
    elif profile.style.resized:  # no image, but the words state the frame the model would have seen
        width, height = profile.sent_size(int(row["width"]), int(row["height"]))
        prompt_row = in_sent_frame(row, Frame(int(row["width"]), int(row["height"]), width, height))
    system, text = profile.prompt(prompt_row, condition)
    content.append(ContentText(text=text))
    messages: list[ChatMessage] = [] if system is None else [ChatMessageSystem(content=system)]
    messages.append(ChatMessageUser(content=content))
    metadata["template_sha256"] = profile.template_hash(condition)
    return messages, metadata

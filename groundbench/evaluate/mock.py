"""The offline mock model: inspect's ``mockllm/model`` answering GroundBench's fixed JSON, token counts given.

inspect's mock counts the tokens of an answer that carries no usage with tiktoken, whose encoding is
downloaded on first use, so a bare ``mockllm/model`` needs the network. Each mock answer here carries
its usage; :func:`offline_mock` puts this model in place of a bare ``mockllm/model`` for both routes
(``groundbench eval`` and ``inspect eval groundbench/groundbench``). A mock given its own outputs (a
test's script) is left as it is.
"""

from __future__ import annotations

from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model

MOCK = "mockllm/model"
# What the offline mock model answers to every prompt: it exercises the plumbing, not a model.
MOCK_ANSWER = '{"part": "mock", "action": "none", "point": [0, 0]}'


def mock_reply(text: str) -> ModelOutput:
    output = ModelOutput.from_content(model="mockllm", content=text)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # else mockllm counts with tiktoken
    return output


def is_bare_mock(model: str | Model | None) -> bool:
    """``mockllm/model`` by name, or as inspect builds it from ``--model`` (no outputs of its own)."""
    if model is None:
        return False
    if isinstance(model, str):
        return model == MOCK
    return str(model) == MOCK and "custom_outputs" not in model.model_args


def offline_mock() -> Model:
    return get_model(MOCK, custom_outputs=lambda *_: mock_reply(MOCK_ANSWER))

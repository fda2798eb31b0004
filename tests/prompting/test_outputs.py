"""Cell outputs and kernel candidates in prompts: cleaning, limits, placement, budget rank."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from jupyter_codecomplete.prompting import BUILTIN_STYLES, Budget, PromptRequest, build_prompt
from jupyter_codecomplete.prompting.outputs import (
    MAX_OUTPUT_LINES,
    MAX_SHOWN_CANDIDATES,
    clean_output_text,
    output_lines,
)
from jupyter_codecomplete.protocol import (
    MAX_CANDIDATES,
    MAX_CELL_OUTPUTS,
    MAX_OUTPUT_TEXT,
    CellOutput,
    InlineCompletionRequest,
)

HEAD = "   price  qty\n0    1.0    2"
CELL = {
    "cell_type": "code",
    "source": "df.head()",
    "outputs": [{"output_type": "execute_result", "text": HEAD}],
}
CANDIDATES = {"expression": "df[", "items": [{"text": "'price'"}, {"text": "'qty'"}]}


def _request(**kw: object) -> PromptRequest:
    data: dict[str, object] = {"language": "python", "file_path": "a.ipynb", "prefix": "df[", **kw}
    return PromptRequest.model_validate(data)


def _prompt(style: str = "qwen2.5-coder", budget: Budget | None = None, **kw: object) -> str:
    return build_prompt(_request(**kw), BUILTIN_STYLES[style], budget).prompt


# -- cleaning --------------------------------------------------------------------------------------


def test_ansi_escapes_are_removed() -> None:
    text = "\x1b[0;31mValueError\x1b[0m: \x1b]8;;http://x\x07bad\x1b]8;;\x07 value"
    assert clean_output_text(text) == "ValueError: bad value"


def test_progress_bar_keeps_its_last_state() -> None:
    assert clean_output_text("10%\r50%\r100%\ndone\r\n") == "100%\ndone\n"


@pytest.mark.parametrize(
    "text",
    ["\x00\x01\x02binary\x00\x00\x00\x00\x03\x04\x05", "\ufffd" * 50 + "PNG", "   \n\t\n"],
    ids=["control-bytes", "replacement-chars", "blank"],
)
def test_binary_looking_or_empty_text_is_dropped(text: str) -> None:
    assert clean_output_text(text) is None
    assert output_lines(CellOutput(output_type="stream", text=text)) == []


def test_megabytes_of_output_become_a_few_short_lines() -> None:
    huge = "\n".join(f"row {i} " + "x" * 500 for i in range(20_000))  # about 10 MB
    lines = output_lines(CellOutput.model_construct(output_type="stream", text=huge))
    assert 1 < len(lines) <= MAX_OUTPUT_LINES + 1
    assert lines[-1] == "…"
    assert all(len(line) <= 160 for line in lines)


def test_error_shows_the_tracebacks_last_line() -> None:
    trace = "Traceback (most recent call last):\n  File \"x\", line 1\n\x1b[31mKeyError\x1b[0m: 'prize'\n"
    assert output_lines(CellOutput(output_type="error", text=trace)) == ["KeyError: 'prize'"]


# -- rendering and placement -----------------------------------------------------------------------


def test_outputs_follow_their_cell_as_comments() -> None:
    prompt = _prompt(cells_above=[CELL], prefix="x = 1")
    assert prompt == "df.head()\n# Out:\n#    price  qty\n# 0    1.0    2\n\nx = 1"


def test_outputs_use_the_cells_language_comment() -> None:
    cell = {**CELL, "source": "head(df)"}
    prompt = _prompt(language="r", cells_above=[cell], prefix="x <- 1")
    assert "\n# Out:\n#    price" in prompt
    sql = {"cell_type": "code", "source": "SELECT 1", "outputs": [{"output_type": "stream", "text": "1"}]}
    assert "SELECT 1\n-- Out:\n-- 1\n\n" in _prompt(language="sql", cells_above=[sql], prefix="SELECT ")


def test_candidates_go_right_above_the_cursor_line_with_its_indent() -> None:
    prompt = _prompt(prefix="def f(df):\n    total = 0\n    return df[", kernel_candidates=CANDIDATES)
    assert prompt.endswith(
        "    total = 0\n    # The kernel completes df[ with:\n    # 'price', 'qty'\n    return df["
    )


def test_the_prompt_start_is_stable_while_candidates_change() -> None:
    one = _prompt(cells_above=[CELL], prefix="df[", kernel_candidates=CANDIDATES)
    other = _prompt(
        cells_above=[CELL],
        prefix="df.",
        kernel_candidates={"expression": "df.", "items": [{"text": "price"}, {"text": "groupby"}]},
    )
    plain = _prompt(cells_above=[CELL], prefix="df")
    common = plain[: plain.rindex("df")]
    assert one.startswith(common) and other.startswith(common)


def test_long_candidate_lists_are_wrapped_and_capped() -> None:
    items = [{"text": f"column_number_{i}"} for i in range(MAX_CANDIDATES)]
    prompt = _prompt(kernel_candidates={"expression": "df.", "items": items}, prefix="df.")
    shown = [line for line in prompt.splitlines() if line.startswith("# column")]
    assert len(shown) > 1
    assert all(len(line) <= 104 for line in shown)
    assert f"column_number_{MAX_SHOWN_CANDIDATES - 1}" in prompt
    assert f"column_number_{MAX_SHOWN_CANDIDATES}" not in prompt


def test_a_style_can_switch_notebook_context_off() -> None:
    style = BUILTIN_STYLES["raw"].model_copy(
        update={
            "notebook": BUILTIN_STYLES["raw"].notebook.model_copy(
                update={"outputs": False, "candidates": False}
            )
        }
    )
    built = build_prompt(_request(cells_above=[CELL], kernel_candidates=CANDIDATES), style)
    assert built.prompt == "df.head()\n\ndf["


def test_outputs_of_markdown_cells_and_cells_below_are_not_used() -> None:
    below = {**CELL, "source": "print(1)"}
    built = build_prompt(
        _request(mode="infill", prefix="x = ", suffix="\n", cells_below=[below]),
        BUILTIN_STYLES["qwen2.5-coder"],
    )
    assert "Out:" not in built.prompt


# -- the token budget ------------------------------------------------------------------------------


def test_budget_drops_outputs_before_code() -> None:
    cells = [{**CELL, "source": f"step_{i} = {i}\ndf.head()"} for i in range(6)]
    roomy = _prompt(budget=Budget(context_window=4096, max_new_tokens=64), cells_above=cells)
    assert roomy.count("# Out:") == 6
    # room for all the code but only some of the outputs: the nearest cells keep theirs
    code_only = _prompt(cells_above=[{k: v for k, v in c.items() if k != "outputs"} for c in cells])
    built = build_prompt(
        _request(cells_above=cells),
        BUILTIN_STYLES["qwen2.5-coder"],
        Budget(context_window=len(code_only) // 3 + 60 + 64, max_new_tokens=64, safety_tokens=0),
    )
    assert all(f"step_{i} = {i}" in built.prompt for i in range(6))
    assert 0 < built.prompt.count("# Out:") < 6
    assert built.prompt.rindex("# Out:") > built.prompt.index("step_5")
    assert "cell outputs left out to fit the token budget" in built.notes


def test_budget_without_room_for_all_code_sends_no_outputs() -> None:
    cells = [{**CELL, "source": f"step_{i} = {i}\n" * 20} for i in range(6)]
    built = build_prompt(
        _request(cells_above=cells),
        BUILTIN_STYLES["qwen2.5-coder"],
        Budget(context_window=400, max_new_tokens=64),
    )
    assert "step_5" in built.prompt and "step_0" not in built.prompt
    assert "# Out:" not in built.prompt


# -- the wire ---------------------------------------------------------------------------------------


def test_old_requests_stay_valid_and_render_the_same() -> None:
    request = InlineCompletionRequest.model_validate(
        {"number": 1, "prefix": "x", "cells_above": [{"cell_type": "code", "source": "a = 1"}]}
    )
    assert request.kernel_candidates is None and request.cells_above[0].outputs == []


@pytest.mark.parametrize(
    "field",
    [
        {
            "cells_above": [
                {"source": "a", "outputs": [{"output_type": "stream", "text": "x" * (MAX_OUTPUT_TEXT + 1)}]}
            ]
        },
        {
            "cells_above": [
                {"source": "a", "outputs": [{"output_type": "stream", "text": "x"}] * (MAX_CELL_OUTPUTS + 1)}
            ]
        },
        {"cells_above": [{"source": "a", "outputs": [{"output_type": "image/png", "text": "x"}]}]},
        {"kernel_candidates": {"expression": "df.", "items": [{"text": "a"}] * (MAX_CANDIDATES + 1)}},
        {"kernel_candidates": {"expression": "", "items": []}},
        {"kernel_candidates": {"expression": "df.", "items": [{"text": ""}]}},
    ],
    ids=[
        "huge-output",
        "too-many-outputs",
        "unknown-output-type",
        "too-many-candidates",
        "no-expression",
        "empty",
    ],
)
def test_oversized_or_malformed_fields_are_refused(field: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        InlineCompletionRequest.model_validate({"number": 1, "prefix": "x", **field})

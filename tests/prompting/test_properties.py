"""Property tests for the builder: only PromptError escapes; the cursor's surroundings are kept."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_codecomplete.prompting import (
    BUILTIN_STYLES,
    MODES,
    Budget,
    CallableCounter,
    EstimateCounter,
    PromptError,
    PromptRequest,
    build_prompt,
)
from jupyter_codecomplete.prompting.healing import split_heal
from jupyter_codecomplete.protocol import ContextCell

_WORDS = re.compile(r"\w+|[^\w\s]|\s+")
COUNTERS = [CallableCounter(_WORDS.findall, name="words"), EstimateCounter()]

text = st.text(alphabet=st.sampled_from(list("ab {}()\n\n    \t=:#数é<|>_")), max_size=300)
cell = st.builds(
    ContextCell,
    cell_type=st.sampled_from(["code", "markdown", "raw"]),
    language=st.sampled_from([None, "python", "sql", "javascript"]),
    source=text,
)
requests = st.builds(
    PromptRequest,
    mode=st.sampled_from(MODES),
    prefix=text,
    suffix=text,
    files=st.dictionaries(st.sampled_from(["a.py", "lib/b.js", "c.sql", "d"]), text, max_size=3),
    repo_name=st.one_of(st.none(), st.sampled_from(["repo", "{x}"])),
    file_path=st.one_of(st.none(), st.sampled_from(["m.py", "n.ipynb", "q.sql", "{p}.py"])),
    language=st.one_of(st.none(), st.sampled_from(["python", "sql", "r", "klingon"])),
    cells_above=st.lists(cell, max_size=4),
    cells_below=st.lists(cell, max_size=4),
    native_suffix=st.one_of(st.none(), st.booleans()),
)
budgets = st.one_of(
    st.none(),
    st.builds(
        Budget,
        context_window=st.integers(1, 600),
        max_new_tokens=st.integers(0, 200),
        prefix_share=st.floats(0, 1),
        min_file_tokens=st.integers(1, 50),
    ),
)
style_names = st.sampled_from(sorted(BUILTIN_STYLES))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(request=requests, style=style_names, budget=budgets, counter_i=st.integers(0, 1))
def test_only_prompt_errors_escape(
    request: PromptRequest, style: str, budget: Budget | None, counter_i: int
) -> None:
    try:
        built = build_prompt(request, BUILTIN_STYLES[style], budget, COUNTERS[counter_i])
    except PromptError as e:
        assert e.type in {"no_infill", "missing_suffix", "prompt_too_long", "bad_budget"}
        return
    assert isinstance(built.prompt, str)
    if budget is not None and COUNTERS[counter_i].exact:
        assert built.prompt_tokens is not None
        assert built.prompt_tokens + budget.max_new_tokens <= budget.context_window


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    style=style_names,
    window=st.integers(60, 400),
    above=st.lists(st.text(alphabet="xyz =\n", max_size=80), max_size=6),
)
def test_text_nearest_the_cursor_is_always_kept(data: Any, style: str, window: int, above: list[str]) -> None:
    prefix = data.draw(
        st.text(alphabet="abc =()\n    ", min_size=1, max_size=400).filter(lambda s: s.strip())
    )
    suffix = data.draw(st.text(alphabet="def =()\n    ", max_size=400))
    request = PromptRequest(prefix=prefix, suffix=suffix, cells_above=[ContextCell(source=s) for s in above])
    counter = COUNTERS[0]
    budget = Budget(context_window=window, max_new_tokens=20)
    try:
        built = build_prompt(request, BUILTIN_STYLES[style], budget, counter)
    except PromptError as e:
        assert e.type == "prompt_too_long"
        return
    kept, heal = split_heal(prefix)
    assert built.heal == (heal if BUILTIN_STYLES[style].heal else "")
    body = built.prompt + (built.suffix or "")
    cursor_line = (kept if BUILTIN_STYLES[style].heal else prefix).rsplit("\n", 1)[-1]
    assert cursor_line in body
    if built.mode in ("infill", "repository_infill") or (built.mode == "chat" and suffix.strip()):
        first_line = suffix.split("\n", 1)[0] if not suffix.startswith("\n") else suffix.split("\n", 2)[1]
        assert first_line in body

from __future__ import annotations

from jupyter_codecomplete.postprocess import PostprocessContext, build_filters, make_pipeline, postprocess


def test_done_as_soon_as_a_stop_arrives() -> None:
    p = make_pipeline(PostprocessContext(language="python", prefix="def f():\n    ", stop=["<EOT>"]))
    assert p.feed("return 1<EO") == "return 1"
    assert not p.done
    assert p.feed("T>more") == ""
    assert p.done
    assert p.feed("x") == "" and p.finish() == ""


def test_single_line_done_at_newline() -> None:
    p = make_pipeline(PostprocessContext(language="python", prefix="x = ", suffix=""))
    assert p.feed("compute(a)") == "compute(a)"
    p.feed("\n")
    assert p.done


def test_text_streams_before_the_end() -> None:
    p = make_pipeline(PostprocessContext(language="python", prefix="def f(xs):\n    "))
    shown = p.feed("total = 0\n    for x in xs:\n        total += x\n")
    assert shown.startswith("total = 0\n    for x in xs:")
    assert not p.done


def test_scope_end_stops_the_stream() -> None:
    p = make_pipeline(PostprocessContext(language="python", prefix="def f():"))
    p.feed("\n    return 1\nprint")
    assert p.done
    assert p.finish() == ""


def test_filters_are_composed_per_request() -> None:
    names = [type(f).__name__ for f in build_filters(PostprocessContext(language="markdown", prefix="a "))]
    assert "Sentence" in names and "Brackets" not in names and "Fences" not in names
    ctx = PostprocessContext(language="python", prefix="def f():")
    names = [type(f).__name__ for f in build_filters(ctx)]
    assert {"Scope", "SuffixLines", "Repetition", "Brackets"} <= set(names)
    assert "LineLimit" not in names


def test_crlf_from_context() -> None:
    ctx = PostprocessContext(language="python", prefix="import os\r\n")
    assert postprocess(ctx, ["a = 1\nb = 2\n"]) == "a = 1\r\nb = 2"

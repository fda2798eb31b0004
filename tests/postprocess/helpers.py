from __future__ import annotations

from jupyter_codecomplete.postprocess import Filter


def run(f: Filter, chunks: list[str]) -> tuple[str, list[str]]:
    """Drive one filter like the pipeline does: feed until done, then finish."""
    deltas: list[str] = []
    for c in chunks:
        deltas.append(f.feed(c))
        if f.done:
            break
    deltas.append(f.finish())
    return "".join(deltas), deltas


def both(f_factory, text: str) -> str:  # type: ignore[no-untyped-def]
    """Run a fresh filter on the whole text and on single characters; both must agree."""
    whole, _ = run(f_factory(), [text])
    chars, _ = run(f_factory(), list(text))
    assert whole == chars, (whole, chars)
    return whole

"""Error fixes: the line of a cell that a traceback names, and the traceback as a model sees it.

The one place where a traceback is read (the client sends it as text and never parses it):

* :func:`error_line` finds the line of the cell that raised, from IPython's frame headers:
  ``Cell In[5], line 2`` (IPython 8+; a SyntaxError's header has the same form),
  ``<ipython-input-5-…>`` with its ``----> 2`` arrow (IPython 7), and the kernel's temporary file
  ``File "/tmp/ipykernel_…/….py", line 2`` (a SyntaxError raised by ``compile``); and IJulia's
  frames, ``@ In[3]:2`` (top-level scope) and ``@ Main ./In[3]:2`` (a function defined in the
  cell). A frame counts
  only when it is this cell's: its ``In[n]`` is the error's ``execution_count`` (without one, the
  traceback must name a single cell), and the line exists in the cell; when the traceback shows
  the line's text (the ``---->`` arrow line, a SyntaxError's quoted line), the cell's line must
  still read so (a cell edited since it ran is not fixed by line number). Of this cell's frames the
  innermost counts (a function defined in the cell and raising in it). Anything else (an R
  traceback, a traceback cut before the frames) names no line: there is no fix, never a guess.
* :func:`clean_traceback` is the traceback as a prompt may show it: colour codes and control
  characters removed like every output (``outputs.py``), secrets replaced (``errors.scrub``), the
  last :data:`MAX_TRACEBACK_LINES` short lines.
* :func:`error_comment` is the comment block a prompt writes above the line that raised (the
  error, the traceback's end, what the kernel completes), in the cell's language.

Bounded: at most :data:`MAX_SCAN_CHARS` of the traceback (its end, where the frames nearest the
error are) are read, with regular expressions that run in linear time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import scrub
from ..protocol import CellError, KernelCandidates
from .context import as_comment
from .outputs import ELLIPSIS, MAX_LINE_CHARS, candidate_expression, clean_output_text, render_candidates

# The end of a traceback that is read (a 20,000-character traceback is read whole).
MAX_SCAN_CHARS = 20_000
# Lines of the traceback a prompt shows (its end: the innermost frame and the error).
MAX_TRACEBACK_LINES = 8
# The error's message as shown (one line).
MAX_EVALUE_CHARS = 300

# ``Cell In[5], line 2`` (IPython >= 8; ``In [5]`` also seen); a SyntaxError's header is the same
_CELL_IN = re.compile(r"Cell In ?\[(\d+)\], line (\d+)")
# ``<ipython-input-5-0123abcd>`` (IPython 7) heads a frame whose arrow names the line
_IPYTHON_INPUT = re.compile(r"<ipython-input-(\d+)-[0-9a-f]+>")
# ``----> 2 df["prcie"]`` (the arrow line of the frame that raised; also ``-> 2``)
_ARROW = re.compile(r"^\s*-*> ?(\d+)(?: (.*))?$")
# ``File "/tmp/ipykernel_123/456789.py", line 2`` (the kernel's file for a cell, no In[n])
_KERNEL_FILE = re.compile(r'File "[^"\n]*ipykernel_\d+[/\\][^"\n]*\.py", line (\d+)')
# IJulia runs a cell as the file ``In[n]`` (``include_string(mod, code, "In[$(kernel.n)]")``,
# IJulia.jl src/execute_request.jl, commit 0210ca2) and its traceback is Julia's
# ``Base.show_backtrace`` (src/display.jl ``error_content``): under each frame, ``@``, the module
# when known, the file's directory and name, ``:`` and the line, maybe `` [inlined]``
# (``print_module_path_file``, julia base/errorshow.jl, commit 00215d6). Real output:
# ``   @ In[13]:1`` (top-level scope), ``   @ Main ./In[12]:7`` (a function the cell defines).
# Julia lists the innermost frame first.
_JULIA_FRAME = re.compile(r"^\s*@ (?:[\w.]+ )?(?:\./)?In\[(\d+)\]:(\d+)(?: \[inlined\])?\s*$")


@dataclass(frozen=True)
class ErrorLine:
    """The line of the cell that raised: its index (0-based) and its offsets ``[start, end)`` in
    the cell's text (``end`` before the line break)."""

    index: int
    start: int
    end: int


def _cell_lines(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    return spans


@dataclass(frozen=True)
class _Frame:
    cell: int | None  # the In[n] it names (None: the kernel's file, no number)
    line: int  # 1-based
    shown: str | None  # the line's text as the traceback shows it


def _frames(lines: list[str]) -> list[_Frame]:
    frames: list[_Frame] = []
    for i, line in enumerate(lines):
        m = _CELL_IN.search(line) or _KERNEL_FILE.search(line)
        legacy = None if m else _IPYTHON_INPUT.search(line)
        if m is None and legacy is None:
            continue
        cell = int(m.group(1)) if m is not None and m.re is _CELL_IN else None
        number = int(m.group(2)) if m is not None and m.re is _CELL_IN else None
        if m is not None and m.re is _KERNEL_FILE:
            number = int(m.group(1))
        if legacy is not None:
            cell = int(legacy.group(1))
        shown: str | None = None
        # the frame's own lines, up to the next frame header: the arrow names (or confirms) the line
        for follow in lines[i + 1 : i + 40]:
            if _CELL_IN.search(follow) or _IPYTHON_INPUT.search(follow) or _KERNEL_FILE.search(follow):
                break
            arrow = _ARROW.match(follow)
            if arrow is not None:
                if number is None:
                    number = int(arrow.group(1))
                if int(arrow.group(1)) == number:
                    shown = arrow.group(2) or ""
                break
        if number is None and m is not None and m.re is _CELL_IN:
            continue
        if number is None:
            continue
        if shown is None and m is not None and i + 1 < len(lines):
            # a SyntaxError quotes the line right below its header (a ``^`` line under it)
            below = lines[i + 1]
            if i + 2 < len(lines) and lines[i + 2].strip().startswith("^") and below.strip():
                shown = below
        frames.append(_Frame(cell, number, shown))
    # Julia's frames, innermost first: put last, as Python's innermost is
    julia = [m for m in (_JULIA_FRAME.match(line) for line in lines) if m is not None]
    frames.extend(_Frame(int(m.group(1)), int(m.group(2)), None) for m in reversed(julia))
    return frames


def error_line(error: CellError, cell_text: str) -> ErrorLine | None:
    """The line of ``cell_text`` the error's traceback names, or None (see the module docstring)."""
    text = clean_output_text(error.traceback[-MAX_SCAN_CHARS:], MAX_SCAN_CHARS)
    if text is None:
        return None
    frames = _frames(text.split("\n"))
    numbered = {f.cell for f in frames if f.cell is not None}
    if error.execution_count is not None:
        mine = [f for f in frames if f.cell == error.execution_count]
        if not mine and not numbered:
            mine = frames  # only the kernel's file frames: they are this cell's
    elif len(numbered) <= 1:
        mine = frames
    else:
        return None  # several cells named and no way to tell which is this one
    spans = _cell_lines(cell_text)
    # IPython drops a cell's leading blank lines before it runs (``leading_empty_lines`` in
    # IPython/core/inputtransformer2.py): its line numbers then count from the first line with text
    lead = next((i for i, (s, e) in enumerate(spans) if cell_text[s:e].strip()), 0)
    for frame in reversed(mine):  # innermost first
        for index in dict.fromkeys((frame.line - 1 + lead, frame.line - 1)):
            if not 0 <= index < len(spans):
                continue
            start, end = spans[index]
            if frame.shown is not None and frame.shown.strip() != cell_text[start:end].strip():
                continue  # the cell no longer reads as it ran
            if not cell_text[start:end].strip():
                continue
            return ErrorLine(index, start, end)
    return None


def _short(line: str) -> str:
    line = line.rstrip()
    return line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 1] + ELLIPSIS


def error_summary(error: CellError, secrets: Sequence[str] = ()) -> str:
    """``KeyError: 'prcie'``: the error's name and message on one line, cleaned and scrubbed."""
    value = clean_output_text(error.evalue, MAX_EVALUE_CHARS * 2) or ""
    value = " ".join(value.split())[:MAX_EVALUE_CHARS]
    name = " ".join((clean_output_text(error.ename, 256) or "Error").split())
    if value.startswith(f"{name}:"):
        return scrub(value, secrets)  # IJulia's message names the error already
    return scrub(f"{name}: {value}" if value else name, secrets)


def clean_traceback(error: CellError, secrets: Sequence[str] = ()) -> list[str]:
    """The traceback's last lines as a prompt shows them (see the module docstring)."""
    text = clean_output_text(error.traceback[-MAX_SCAN_CHARS:], MAX_SCAN_CHARS)
    if text is None:
        return []
    text = scrub(text, secrets)
    # blank lines and IPython's rule of dashes say nothing
    lines = [_short(line) for line in text.strip("\n").split("\n") if line.strip().strip("-")]
    if len(lines) > MAX_TRACEBACK_LINES:
        lines = [ELLIPSIS, *lines[-MAX_TRACEBACK_LINES:]]
    return lines


def error_comment(
    error: CellError,
    line: ErrorLine,
    marker: str,
    *,
    candidates: KernelCandidates | None = None,
    candidates_label: str = "",
    secrets: Sequence[str] = (),
    indent: str = "",
) -> str:
    """The comment block written above the line that raised (ends with a line break)."""
    run = f"In [{error.execution_count}], " if error.execution_count is not None else ""
    head = f"Error: {run}line {line.index + 1} raised {error_summary(error, secrets)}"
    body = [head]
    shown = clean_traceback(error, secrets)
    if shown:
        body += ["Traceback (its end):", *shown]
    block = "".join(f"{indent}{text}\n" for text in as_comment("\n".join(body), marker).split("\n"))
    if candidates is not None:
        label = candidates_label.format(
            comment=marker, expression=candidate_expression(candidates.expression)
        )
        block += render_candidates(candidates, label, marker, indent)
    return block


__all__ = ["ErrorLine", "clean_traceback", "error_comment", "error_line", "error_summary"]

"""Context only a notebook has: the outputs of the cells above, and what the kernel completes.

Both become line comments of the cell's language, written where they keep the prompt's start
stable from one keystroke to the next:

- a code cell's outputs right after its source (cells above change rarely while typing);
- the kernel's candidates right above the cursor's line, indented like it (they change with the
  expression at the cursor, so they come last, next to the text they are about).

How each is labelled is the prompt style's :class:`NotebookSpec` (data); the cleaning and the
limits are here. Outputs are cleaned again on the server whatever the client did: ANSI escape
codes and other control characters are removed, carriage-return progress bars keep their last
state, binary-looking text is dropped, and every output is cut to a few short lines.

In a token budget outputs rank below code: they only get what the code cells above, the cursor's
cell and the suffix leave (see ``builder.py``), nearest cell first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..protocol import CellOutput, ContextCell, KernelCandidates
from .context import as_comment

# Limits of what one output and one cell's outputs become in a prompt.
MAX_OUTPUT_LINES = 12
MAX_LINE_CHARS = 160
MAX_OUTPUTS_PER_CELL = 4
# Text looked at per output (the rest is never scanned: a megabyte of output costs nothing).
MAX_SCAN_CHARS = 4_000
# Kernel candidates shown, and the width of a comment line listing them.
MAX_SHOWN_CANDIDATES = 30
MAX_CANDIDATE_CHARS = 60
CANDIDATE_LINE_CHARS = 100
ELLIPSIS = "…"

# CSI / OSC / single-character escape sequences (colours in tracebacks, cursor moves of progress bars)
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
# control characters other than tab and newline (after ANSI and carriage returns are handled)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# NUL, other low control bytes and U+FFFD (undecodable bytes): a share above which text is binary
_SUSPICIOUS = re.compile(r"[\x00-\x07\ufffd]")
_BINARY_SHARE = 0.1


def clean_output_text(text: str, max_chars: int = MAX_SCAN_CHARS) -> str | None:
    """Printable text of an output, or ``None`` when nothing readable is left (binary, empty)."""
    cut = text[:max_chars]
    if not cut.strip():
        return None
    if len(_SUSPICIOUS.findall(cut)) > len(cut) * _BINARY_SHARE:
        return None
    cut = _ANSI.sub("", cut).replace("\r\n", "\n")
    if "\r" in cut:
        # a progress bar redraws its line: keep what the line showed last
        cut = "\n".join(
            line.rsplit("\r", 1)[-1] if "\r" in line.rstrip("\r") else line.rstrip("\r")
            for line in cut.split("\n")
        )
    cut = _CONTROL.sub("", cut)
    if not cut.strip():
        return None
    return cut


def output_lines(output: CellOutput) -> list[str]:
    """The lines an output shows in a prompt: cleaned, at most ``MAX_OUTPUT_LINES`` short lines."""
    text = clean_output_text(output.text)
    if text is None:
        return []
    lines = [line.rstrip() for line in text.strip("\n").split("\n")]
    more = len(lines) > MAX_OUTPUT_LINES or len(output.text) > MAX_SCAN_CHARS
    if output.output_type == "error":
        # a traceback's last line names the error and its message
        lines, more = [next((line.strip() for line in reversed(lines) if line.strip()), "")], False
    lines = lines[:MAX_OUTPUT_LINES]
    lines = [line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 1] + ELLIPSIS for line in lines]
    if more:
        lines.append(ELLIPSIS)
    return lines


def render_outputs(cell: ContextCell, labels: Sequence[str], marker: str) -> str | None:
    """A code cell's outputs as comment lines, or ``None`` when it has nothing to show.

    ``labels``: the style's label for a result and for an error (already formatted).
    """
    if cell.cell_type != "code" or not cell.outputs:
        return None
    result_label, error_label = labels
    blocks: list[str] = []
    for output in cell.outputs:
        if len(blocks) >= MAX_OUTPUTS_PER_CELL:
            break
        lines = output_lines(output)
        if not lines:
            continue
        label = error_label if output.output_type == "error" else result_label
        body = as_comment("\n".join(lines), marker)
        blocks.append(f"{label}\n{body}" if label else body)
    return "\n".join(blocks) if blocks else None


class CellOutputs:
    """The rendered outputs of the cells above, rendered when first asked for and remembered.

    Only the cells a prompt really shows are rendered (nearest first, until the budget is spent),
    so a notebook of many cells with large outputs costs what its shown outputs cost.
    """

    def __init__(
        self, cells: Sequence[ContextCell], labels: Sequence[str], marker: str, enabled: bool
    ) -> None:
        self._cells = cells
        self._labels = labels
        self._marker = marker
        self.indexes = [i for i, c in enumerate(cells) if enabled and c.cell_type == "code" and c.outputs]
        self._rendered: dict[int, str | None] = {}

    def get(self, index: int) -> str | None:
        if index not in self._rendered:
            self._rendered[index] = render_outputs(self._cells[index], self._labels, self._marker)
        return self._rendered[index]

    def all(self) -> dict[int, str]:
        return {i: text for i in self.indexes if (text := self.get(i))}


def _candidate(text: str) -> str:
    return " ".join(text.split())[:MAX_CANDIDATE_CHARS]


def candidate_expression(expression: str) -> str:
    """The expression the kernel completed, as it appears in the candidates' label: cleaned like an
    output (escape codes, NUL, BEL... removed) and on one line (every line break and run of spaces is
    one space), so nothing of it can leave the comment."""
    cleaned = clean_output_text(expression, MAX_CANDIDATE_CHARS * 2)
    return _candidate(cleaned) if cleaned else ""


def candidate_names(candidates: KernelCandidates) -> list[str]:
    """The candidates worth showing: printable, distinct, at most ``MAX_SHOWN_CANDIDATES``."""
    seen: dict[str, None] = {}
    for item in candidates.items:
        cleaned = clean_output_text(item.text, MAX_CANDIDATE_CHARS * 2)
        name = _candidate(cleaned) if cleaned else ""
        if name and name not in seen:
            seen[name] = None
        if len(seen) >= MAX_SHOWN_CANDIDATES:
            break
    return list(seen)


def render_candidates(candidates: KernelCandidates | None, label: str, marker: str, indent: str = "") -> str:
    """The kernel's candidates as a comment block (ending with a newline), or ``""`` when none."""
    if candidates is None:
        return ""
    names = candidate_names(candidates)
    if not names:
        return ""
    lines: list[str] = [label] if label else []
    line = ""
    for name in names:
        piece = name if not line else f", {name}"
        if line and len(line) + len(piece) > CANDIDATE_LINE_CHARS:
            lines.append(f"{marker} {line},")
            line = name
        else:
            line += piece
    lines.append(f"{marker} {line}")
    return "".join(f"{indent}{text}\n" for text in lines)


def insert_candidates(prefix: str, block: str) -> str:
    """``prefix`` with ``block`` written right above the cursor's line."""
    if not block:
        return prefix
    start = prefix.rfind("\n") + 1
    return prefix[:start] + block + prefix[start:]


def cursor_indent(prefix: str) -> str:
    """The indentation of the cursor's line."""
    line = prefix[prefix.rfind("\n") + 1 :]
    return line[: len(line) - len(line.lstrip(" \t"))]

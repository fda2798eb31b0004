"""Next-edit prompts (edit predictions): build the prompt of a style's ``edit`` format, read the answer.

:func:`build_edit_prompt` turns an :class:`EditPromptRequest` (the document, the cursor, the editable
region, the user's recent edits as unified diffs, other files) and a style with an
:class:`~.styles.EditSpec` into a :class:`BuiltEditPrompt`: the prompt text or chat messages, the
stop sequences and the region the prompt asks the model to rewrite. :func:`parse_edit_answer`
reads a model's answer in that format and gives the rewritten region, or why there is none.
Turning a rewrite into edits (the diff, the bounds, the syntax guard) is ``postprocess/edits.py``.

Offsets are Unicode code points of ``text``. Nothing here branches on a family's name: every
difference between formats is a field of the record.

Budget: the excerpt (region and the lines around it) is always written; then the recent edits,
newest first, and the other files, nearest first, while they fit :data:`DEFAULT_CONTEXT_CHARS`
(Zed caps its prompt at 4,096 tokens the same way: cursor excerpt, then history, then files).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from .context import display_path, language_tag
from .errors import PromptError
from .styles import BlockSpec, EditAnswerSpec, EditSpec, PromptStyle

# Characters of recent edits and other files a prompt may carry besides the excerpt.
DEFAULT_CONTEXT_CHARS = 12_000
# The region a prompt asks to rewrite: at most this many characters / lines.
MAX_REGION_CHARS = 8_000
MAX_REGION_LINES = 200


class RecentEditText(BaseModel):
    """One recent edit: a unified diff (file headers optional) of the file at ``path``."""

    path: str | None = None
    diff: str


class EditPromptRequest(BaseModel):
    """What the prompt of one edit prediction is made from."""

    text: str
    cursor: int = Field(ge=0)
    # the editable region [start, end) the client proposes; None: the style's default lines
    region: tuple[int, int] | None = None
    path: str | None = None
    language: str | None = None
    recent_edits: list[RecentEditText] = Field(default_factory=list)
    files: dict[str, str] = Field(default_factory=dict)
    context_chars: int = Field(default=DEFAULT_CONTEXT_CHARS, ge=0)
    # at least this many lines shown before the region (an error fix's comment block above its line)
    min_lines_before: int = Field(default=0, ge=0)
    # a notebook cell: shown as ending in a line break, as a notebook is written as a script, so a
    # format's closing text (a fence, a marker) never lands on its last line
    cell: bool = False


class BuiltEditPrompt(BaseModel):
    prompt: str
    messages: list[dict[str, str]] | None = None
    stop: list[str] = Field(default_factory=list)
    style: str
    # the region the model rewrites, in ``text`` offsets, and the lines shown around it
    region_start: int
    region_end: int
    before: str = ""
    after: str = ""
    notes: list[str] = Field(default_factory=list)
    # the rendered parts of ``prompt`` (``files``, ``history``, ``excerpt``): what golden cases
    # compare with a source's own expected blocks
    sections: dict[str, str] = Field(default_factory=dict)
    # what a line-end answer (``answer.end_break``) gets back at its end: the region's final line
    # break, where the region does not end the text
    answer_tail: str = ""
    # the region as the prompt wrote it (line-end form, no cursor marker): what a marker-span answer
    # (``answer.marker_span``) is spliced into, and what tells a line-end answer's own final line
    # break (``answer.end_break``, an answer without the end marker) from the region's
    answer_base: str = ""


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _next_line(text: str, pos: int) -> int:
    """The offset after the line break that ends the line at ``pos`` (or the end of ``text``)."""
    nl = text.find("\n", pos)
    return len(text) if nl < 0 else nl + 1


def line_region(text: str, cursor: int, above: int, below: int) -> tuple[int, int]:
    """Whole lines around the cursor's line: ``above`` lines before it, ``below`` after it."""
    start = _line_start(text, cursor)
    for _ in range(above):
        if start == 0:
            break
        start = _line_start(text, start - 1)
    end = _next_line(text, cursor)
    for _ in range(below):
        if end >= len(text):
            break
        end = _next_line(text, end)
    return start, end


def snap_region(text: str, cursor: int, region: tuple[int, int]) -> tuple[int, int]:
    """The client's region widened to whole lines, holding the cursor, within the bounds."""
    start, end = region
    if not 0 <= start <= cursor <= end <= len(text):
        raise PromptError(
            "bad_region",
            f"The editable region [{start}, {end}) must lie in the document (0..{len(text)}) and "
            f"hold the cursor ({cursor}).",
        )
    start = _line_start(text, start)
    if end > start and text[end - 1 : end] != "\n":
        end = _next_line(text, end)
    return start, end


def _bound_region(text: str, cursor: int, start: int, end: int) -> tuple[int, int, list[str]]:
    """Shrink a region to :data:`MAX_REGION_LINES` / :data:`MAX_REGION_CHARS`, around the cursor."""
    notes: list[str] = []
    if end - start <= MAX_REGION_CHARS and text.count("\n", start, end) <= MAX_REGION_LINES:
        return start, end, notes
    half = MAX_REGION_LINES // 2
    s, e = line_region(text, cursor, half, half)
    s, e = max(s, start), min(e, end)
    while e - s > MAX_REGION_CHARS:
        # drop the farther end's outermost line
        if cursor - s > e - cursor:
            s = _next_line(text, s)
        else:
            e = _line_start(text, e - 1)
        if e <= s:
            s, e = _line_start(text, cursor), _next_line(text, cursor)
            break
    notes.append(f"The editable region was cut to {e - s} characters around the cursor.")
    return s, e, notes


def _with_nl(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def _lines_before(text: str, start: int, n: int | None) -> str:
    if n is None:
        return text[:start]
    s = start
    for _ in range(n):
        if s == 0:
            break
        s = _line_start(text, s - 1)
    return text[s:start]


def _lines_after(text: str, end: int, n: int | None) -> str:
    if n is None:
        return text[end:]
    e = end
    for _ in range(n):
        if e >= len(text):
            break
        e = _next_line(text, e)
    return text[end:e]


_DIFF_HEADERS = ("--- ", "+++ ", "diff ", "index ", "Index: ", "===")


@dataclass
class DiffSides:
    """A unified diff's hunks without file headers, and its old and new sides."""

    hunks: str
    old: str
    new: str
    lines: list[str] = field(default_factory=list)
    # each contiguous block of removed/added lines: (removed lines, added lines), without context
    changes: list[tuple[str, str]] = field(default_factory=list)


def diff_sides(diff: str) -> DiffSides:
    """Split a unified diff: drop ``---``/``+++``/``diff``/``index`` headers; old side = context and
    ``-`` lines, new side = context and ``+`` lines (Sweep's original/updated blocks)."""
    kept: list[str] = []
    old: list[str] = []
    new: list[str] = []
    changes: list[tuple[list[str], list[str]]] = []
    open_block = False
    started = False
    for line in diff.split("\n"):
        if not started and (not line or line.startswith(_DIFF_HEADERS)):
            continue
        started = True
        kept.append(line)
        if line.startswith("\\"):
            continue
        if line.startswith("@@"):
            open_block = False
            continue
        if line.startswith(("-", "+")):
            if not open_block:
                changes.append(([], []))
                open_block = True
            (old if line[0] == "-" else new).append(line[1:])
            changes[-1][0 if line[0] == "-" else 1].append(line[1:])
        else:
            open_block = False
            body = line[1:] if line.startswith(" ") else line
            old.append(body)
            new.append(body)
    while kept and not kept[-1]:
        kept.pop()
    while old and not old[-1] and new and not new[-1]:
        old.pop()
        new.pop()
    blocks = [("\n".join(a), "\n".join(b)) for a, b in changes]
    return DiffSides("\n".join(kept), "\n".join(old), "\n".join(new), kept, blocks)


def _fmt(template: str, **fields: str) -> str:
    try:
        return template.format(**fields)
    except (KeyError, IndexError, ValueError) as e:  # validated at load time; a user record's slip
        raise PromptError("bad_style", f"Next-edit template {template!r} could not be filled: {e}") from e


def _block(items: list[str], sep: str, block: str, empty: str) -> str:
    if not items:
        return empty
    return _fmt(block, items=sep.join(items))


_CLOSING_TAILS = ("break", "continue", "return", "throw", "end")


def _good_block_start(line: str) -> bool:
    t = line.strip()
    return bool(t) and not t.startswith(("}", "]", ")")) and t.rstrip(";") not in _CLOSING_TAILS


def block_offsets(text: str, spec: BlockSpec) -> list[int]:
    """Where ``text`` is cut into blocks (offsets of line starts; the first is 0, the last
    ``len(text)``): see :class:`~.styles.BlockSpec`."""
    if not text:
        return [0, 0]
    rows = text.split("\n")
    if text.endswith("\n") and len(rows) > 1:
        rows.pop()  # no row after the final line break
    starts = [0]
    for row in rows[:-1]:
        starts.append(starts[-1] + len(row) + 1)
    blank = [not r.strip() for r in rows]
    good = [_good_block_start(r) for r in rows]

    def nudged(i: int) -> int:
        return next((j for j in range(i, min(len(rows), i + spec.nudge_lines)) if good[j]), i)

    cuts = [0]
    last = 0
    i = 0
    while i < len(rows):
        size = i - last
        if size >= spec.min_lines and i > 0 and blank[i - 1] and not blank[i]:
            at = i if good[i] else nudged(i)
            if len(rows) - at >= spec.min_lines and starts[at] > cuts[-1]:
                cuts.append(starts[at])
                last, i = at, at + 1
                continue
        if size >= spec.max_lines:
            at = nudged(i)
            if starts[at] > cuts[-1]:
                cuts.append(starts[at])
                last, i = at, at + 1
                continue
        i += 1
    if cuts[-1] != len(text):
        cuts.append(len(text))
    return cuts


def _marker(spec: BlockSpec, n: int) -> str:
    return spec.marker.replace("{n}", str(n))


def write_blocks(text: str, cursor: int, cursor_marker: str, spec: BlockSpec) -> str:
    """``text`` cut into blocks, each after its marker on a line of its own, the last marker after
    them; ``cursor_marker`` at ``cursor`` (an offset in ``text``)."""
    cuts = block_offsets(text, spec)
    out = ""
    placed = False
    for k, at in enumerate(cuts):
        if out and not out.endswith("\n"):
            out += "\n"
        out += _marker(spec, k + 1)
        if k + 1 < len(cuts):
            block = text[at : cuts[k + 1]]
            if not placed and at <= cursor <= cuts[k + 1]:
                placed = True
                block = block[: cursor - at] + cursor_marker + block[cursor - at :]
            out += "\n" + block
    return out


def _history_items(request: EditPromptRequest, spec: EditSpec, path: str) -> list[str]:
    """The recent edits' history items, newest first: one per edit, or with ``history_per_change``
    one per block of changed lines (only those lines, as Sweep's client writes them)."""
    out: list[str] = []
    for edit in reversed(request.recent_edits):
        diff = edit.diff
        if not spec.history_keep_blank:
            diff = "\n".join(line for line in diff.split("\n") if line.strip())
        sides = diff_sides(diff)
        if not sides.hunks:
            continue
        name = display_path(edit.path, request.language) if edit.path else path
        blocks = sides.changes if spec.history_per_change else [(sides.old, sides.new)]
        items = [
            _fmt(
                spec.history_item,
                path=name,
                diff=sides.hunks,
                diff_lines=sides.hunks + "\n",
                old=old,
                new=new,
            )
            for old, new in blocks
        ]
        out.extend(reversed(items))  # reversed again with the rest: an edit's blocks stay in order
    return out


def build_edit_prompt(request: EditPromptRequest, style: PromptStyle) -> BuiltEditPrompt:
    """The next-edit prompt of ``request`` in ``style``'s ``edit`` format."""
    spec = style.edit
    if spec is None:
        raise PromptError("no_edit_format", f"Prompt style {style.name!r} has no next-edit format.")
    text = request.text
    cursor = request.cursor
    if cursor > len(text):
        raise PromptError("bad_cursor", f"The cursor ({cursor}) lies past the document's end ({len(text)}).")
    region_given = request.region
    if region_given is not None:
        start, end = snap_region(text, cursor, region_given)
    if request.cell and text and not text.endswith("\n"):
        if region_given is not None and end == len(text):
            end += 1  # the line break the cell is shown with
        text += "\n"
    if region_given is None:
        start, end = line_region(text, cursor, spec.region_lines_above, spec.region_lines_below)
    start, end, notes = _bound_region(text, cursor, start, end)
    path = display_path(request.path, request.language)
    lines_before = spec.context_lines_before
    if lines_before is not None and request.min_lines_before:
        lines_before = max(lines_before, request.min_lines_before)
    before = _lines_before(text, start, lines_before)
    after = _lines_after(text, end, spec.context_lines_after)
    marked = text[start:cursor] + spec.cursor + text[cursor:end]
    region = _with_nl(marked)
    # Line-end ranges (zed, Continue): the region ends at the end of its last line, before its line
    # break, which then opens the text after it; at the end of a file that ends in a line break the
    # empty row after it is the region's last line, so the break stays in the region.
    ctx_end = end + len(after)
    tail = end - 1 if end < len(text) and text[end - 1 : end] == "\n" else end
    region_line = marked[: len(marked) - (end - tail)]
    after_line = text[tail:ctx_end]
    after_line_nl = _with_nl(after_line)
    if ctx_end < len(text):
        after_line = after_line.removesuffix("\n")
    base = text[start:tail]
    region_blocks = write_blocks(base, cursor - start, spec.cursor, spec.blocks) if spec.blocks else ""
    budget = request.context_chars

    history: list[str] = []
    items = _history_items(request, spec, path)
    for i, item in enumerate(items):  # newest first while they fit
        if len(item) > budget:
            notes.append(f"{len(items) - i} older recent edits left out (prompt budget).")
            break
        budget -= len(item)
        history.append(item)
    original = text[start:end]
    newest = request.recent_edits[-1] if request.recent_edits else None
    if newest is not None and (newest.path is None or newest.path == request.path):
        # the region before the most recent edit (Sweep's original/): its new side, where it
        # stands once in the region, back to its old side
        sides = diff_sides(newest.diff)
        if sides.new and original.count(sides.new) == 1:
            original = original.replace(sides.new, sides.old, 1)
    if not spec.history_newest_first:
        history.reverse()  # oldest first, as most formats list them

    files: list[str] = []
    for name, content in request.files.items():
        item = _fmt(spec.file_item, path=name, content=_with_nl(content), content_text=content)
        if len(item) > budget:
            notes.append("Other files left out or cut (prompt budget).")
            break
        budget -= len(item)
        files.append(item)

    fields = {
        "path": path,
        "language_tag": language_tag(request.language),
        "start_of_file": spec.start_of_file if len(before) == start else "",
        "before": before,
        "region": region,
        "region_line": region_line,
        "region_blocks": region_blocks,
        "after": after,
        "after_nl": _with_nl(after),
        "after_lines": "\n" + after.removesuffix("\n") if after else "",
        "after_line": after_line,
        "after_line_nl": after_line_nl,
        "original": _with_nl(original),
        "prefix": text[start - len(before) : cursor],
    }
    excerpt = _fmt(spec.excerpt, **fields)
    files_text = (
        _fmt(spec.files_block, items=spec.file_sep.join(files), path=path, prefix=fields["prefix"])
        if files
        else _fmt(spec.files_empty, path=path, prefix=fields["prefix"])
    )
    history_text = _block(history, spec.history_sep, spec.history_block, spec.history_empty)
    body = _fmt(spec.template, **fields, files=files_text, history=history_text, excerpt=excerpt)
    messages: list[dict[str, str]] | None = None
    if spec.chat:
        system = _fmt(spec.system, path=path, language_tag=fields["language_tag"]) if spec.system else ""
        messages = ([{"role": "system", "content": system}] if system else []) + [
            {"role": "user", "content": body}
        ]
    return BuiltEditPrompt(
        prompt=body,
        messages=messages,
        stop=list(spec.stop),
        style=style.name,
        region_start=start,
        region_end=min(end, len(request.text)),
        before=before,
        after=after,
        notes=notes,
        sections={"files": files_text, "history": history_text, "excerpt": excerpt},
        answer_tail="\n" if (spec.answer.end_break or spec.answer.marker_span) and tail < end else "",
        answer_base=base if spec.blocks or spec.answer.end_break else "",
    )


def completion_prompt(built: BuiltEditPrompt, spec: EditSpec) -> str:
    """A chat format's messages as one prompt for an endpoint without a chat API, in the model's
    own chat template (``completion_system`` / ``completion_user`` of the record: ChatML for the
    Qwen-based models), never the messages joined by blank lines."""
    if not built.messages:
        return built.prompt
    out: list[str] = []
    for m in built.messages:
        template = spec.completion_system if m["role"] == "system" else spec.completion_user
        out.append(template.replace("{content}", m["content"]))
    return "".join(out) + spec.completion_assistant


AnswerKind = Literal["rewrite", "no_edits", "wrong_format", "unterminated", "empty"]


class ParsedAnswer(BaseModel):
    """What a model's answer says: ``rewrite`` (``text`` is the new region), ``no_edits``, or why
    there is nothing to use (``wrong_format``: no start marker; ``unterminated``: no end marker,
    the answer never ended; ``empty``)."""

    kind: AnswerKind
    text: str = ""

    @property
    def note(self) -> str:
        return {
            "rewrite": "",
            "no_edits": "The model proposes no edit.",
            "wrong_format": "The model did not answer in its next-edit format; no edit.",
            "unterminated": "The model's answer never ended its rewrite; no edit.",
            "empty": "The model's answer was empty; no edit.",
        }[self.kind]


def _strip_fences(text: str) -> str:
    lines = text.split("\n")
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i < len(lines) and lines[i].lstrip().startswith("```"):
        lines = lines[i + 1 :]
        j = len(lines) - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0 and lines[j].strip() == "```":
            lines = lines[:j]
            return "\n".join(lines) + "\n"
        return "\n".join(lines)
    return text


def _trailing_breaks(text: str) -> int:
    return len(text) - len(text.rstrip("\n"))


def _strip_marker(text: str, marker: str) -> str:
    """``text`` without ``marker``; a line that holds only the marker goes with it."""
    lines = text.split("\n")
    kept = [line for line in lines if line != marker]
    if len(kept) < len(lines) and text.endswith("\n" + marker):
        kept.append("")  # the marker ended the text: the line break before it stays
    return "\n".join(kept).replace(marker, "")


def _marker_span(answer: str, blocks: BlockSpec, base: str, tail: str) -> ParsedAnswer:
    """A marker-span answer spliced into the region ``base`` (see :class:`~.styles.BlockSpec`)."""
    head, _, rest = blocks.marker.partition("{n}")
    pattern = re.compile(re.escape(head) + r"(\d+)" + re.escape(rest))
    tags = list(pattern.finditer(answer))
    if not tags:
        return ParsedAnswer(kind="wrong_format")
    if len(tags) == 1:
        return ParsedAnswer(kind="unterminated")  # the span never closed
    first, last = tags[0], tags[-1]
    a, b = int(first.group(1)), int(last.group(1))
    if a == b:
        return ParsedAnswer(kind="no_edits")
    cuts = block_offsets(base, blocks)
    if not (1 <= a <= len(cuts) and 1 <= b <= len(cuts)) or cuts[a - 1] > cuts[b - 1]:
        return ParsedAnswer(kind="wrong_format")
    new = answer[first.end() : last.start()].removeprefix("\n")
    new = pattern.sub("", re.sub(pattern.pattern + "\n", "", new))  # markers echoed inside
    old = base[cuts[a - 1] : cuts[b - 1]]
    if old.endswith("\n") and new and not new.endswith("\n"):
        new += "\n"
    elif not old.endswith("\n") and new.endswith("\n"):
        new = new[:-1]
    return ParsedAnswer(kind="rewrite", text=base[: cuts[a - 1]] + new + base[cuts[b - 1] :] + tail)


def parse_edit_answer(
    answer: str, spec: EditAnswerSpec | EditSpec, tail: str = "", base: str = ""
) -> ParsedAnswer:
    """Read the rewritten region from a model's answer (see :class:`~.styles.EditAnswerSpec`);
    ``tail`` / ``base``: :attr:`BuiltEditPrompt.answer_tail` / ``answer_base`` of its prompt."""
    a = spec.answer if isinstance(spec, EditSpec) else spec
    text = answer
    for marker in a.strip:
        text = _strip_marker(text, marker)
    if a.marker_span:
        if not isinstance(spec, EditSpec) or spec.blocks is None:
            raise PromptError("bad_style", "A marker-span answer needs the format's blocks.")
        return _marker_span(text, spec.blocks, base, tail)
    if a.no_edits and text.lstrip().startswith(a.no_edits):
        return ParsedAnswer(kind="no_edits")
    if a.start:
        i = text.find(a.start)
        if i < 0:
            if a.require_start:
                return ParsedAnswer(kind="wrong_format")
        else:
            text = text[i + len(a.start) :]
            if text.startswith("\n"):
                text = text[1:]
    ends = [j for j in (text.find(m) for m in a.end) if j >= 0]
    if ends:
        text = text[: min(ends)]
    elif a.require_end:
        return ParsedAnswer(kind="unterminated")
    if a.fences:
        text = _strip_fences(text)
    if not text.strip() and not answer.strip():
        return ParsedAnswer(kind="empty")
    if a.end_break:
        if ends:
            text = text.removesuffix("\n")  # the line break before the end marker is the format's
        elif _trailing_breaks(text) > _trailing_breaks(base):
            text = text[:-1]  # one more than the region's own: the answer's, not the region's
        text += tail
    return ParsedAnswer(kind="rewrite", text=text)


__all__ = [
    "DEFAULT_CONTEXT_CHARS",
    "BuiltEditPrompt",
    "EditPromptRequest",
    "ParsedAnswer",
    "RecentEditText",
    "block_offsets",
    "build_edit_prompt",
    "completion_prompt",
    "diff_sides",
    "line_region",
    "parse_edit_answer",
]

"""What the filters need to know about the cursor: its line, the text after it, single- vs multi-line,
the indentation of the block the completion starts in, and the bracket state there."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .languages import LanguageRules, rules_for
from .scanner import OPENERS, Scanner

# the rest of the line counts as "end of line" when it holds only these (auto-closed brackets/quotes)
_AUTO_CLOSED = set(")]}\"'`;:,")
# a name (a line's first word: ``else``, ``end``, ``catch``)
WORD = re.compile(r"[A-Za-z_]\w*")


def indent_width(line: str) -> int:
    ws = line[: len(line) - len(line.lstrip(" \t"))]
    return len(ws.expandtabs(4))


def normalize_newlines(text: str) -> str:
    return text.replace("\r\n", "\n")


@dataclass
class Cursor:
    rules: LanguageRules
    prefix: str
    suffix: str
    line: str  # the cursor's line up to the cursor
    rest: str  # the cursor's line after the cursor
    next_line: str  # the first non-blank line below the cursor's line (right-stripped), or ""
    blank_line: bool  # the cursor's line holds only whitespace before the cursor
    multiline: bool
    # lines of a multi-line completion at this indentation or less leave the block (None: no limit)
    opener_indent: int | None
    scanner: Scanner  # bracket/string state at the cursor
    protected_from: int  # stack frames at this index or above are closed by the rest of the line
    # the end of an ordinary line (single-line unless the first line of the output opens a block)
    eol: bool = False
    # the cursor is inside a string that spans lines (triple quotes, a template literal)
    in_block_string: bool = False
    # bracket depth at the start of the cursor's line
    line_depth: int = 0
    # the cursor is inside a bracket opened on an earlier line: that line's indentation (a closing
    # line there ends the suggestion)
    bracket_indent: int | None = None


def is_block_string(delim: str, rules: LanguageRules) -> bool:
    """A string delimiter whose strings usually span lines (triple quotes, a backtick)."""
    return any(s.delim == delim and s.multiline and (len(delim) > 1 or delim == "`") for s in rules.strings)


def opens_block(rules: LanguageRules, line: str, depth_before: int, after: Scanner) -> bool:
    """Does ``line`` open a block: a bracket opened on it is still open at its end, or the language's
    block-opener pattern matches its code part? ``after``: the scanner at the end of the line."""
    if len(after.stack) > depth_before and after.stack[-1] in OPENERS:
        return True
    code = _code_part(rules, line).strip()
    return bool(rules.opener_re and code and rules.opener_re.search(code))


def _code_part(rules: LanguageRules, line: str) -> str:
    s = Scanner(rules)
    s.scan(line)
    if s.comment_end == "\n" and s.comment_start >= 0:
        return line[: s.comment_start]
    return line


def _opens(rules: LanguageRules, scanner: Scanner, line: str, start: int) -> bool:
    """Does the line (at ``start`` in the prefix) open a block or leave a bracket open?"""
    end = start + len(line)
    for frame, at in zip(scanner.stack, scanner.opened_at, strict=True):
        if frame in OPENERS and start <= at < end:
            return True
    code = _code_part(rules, line).rstrip()
    return bool(rules.opener_re and code and rules.opener_re.search(code.strip()))


def analyze(
    language: str | LanguageRules | None, prefix: str, suffix: str, multiline: bool | None = None
) -> Cursor:
    rules = rules_for(language, prefix)
    nl = prefix.rfind("\n")
    line_start = nl + 1
    line = prefix[line_start:]
    first_nl = suffix.find("\n")
    rest = suffix if first_nl < 0 else suffix[:first_nl]
    next_line = ""
    if first_nl >= 0:
        for candidate in suffix[first_nl + 1 :].split("\n"):
            if candidate.strip():
                next_line = candidate.rstrip()
                break
    scanner = Scanner(rules)
    scanner.scan(prefix)
    blank = not line.strip()
    at_end = all(c in _AUTO_CLOSED or c.isspace() for c in rest)
    opens_here = not blank and _opens(rules, scanner, line, line_start)

    in_block_string = scanner.in_string and is_block_string(scanner.stack[-1], rules)
    eol = False
    if multiline is None:
        if rules.prose or not at_end:
            multiline = False
        else:
            multiline = blank or opens_here or in_block_string
            eol = not multiline

    opener_indent: int | None
    if blank:
        prev_start, prev = -1, ""
        end = nl
        while end > 0:
            s = prefix.rfind("\n", 0, end) + 1
            if prefix[s:end].strip():
                prev_start, prev = s, prefix[s:end]
                break
            end = s - 1
        if prev_start >= 0 and _opens(rules, scanner, prev, prev_start):
            opener_indent = indent_width(prev)
        else:
            width = indent_width(line)
            opener_indent = width - 1 if width > 0 else None
    elif opens_here:
        opener_indent = indent_width(line)
    else:
        width = indent_width(line)
        opener_indent = width - 1 if width > 0 else None

    probe = scanner.copy()
    protected_from = len(probe.stack)
    pos = 0
    while pos < len(rest):
        pos, _, _ = probe.step(rest, pos, True)
        protected_from = min(protected_from, len(probe.stack))

    line_depth = sum(1 for at in scanner.opened_at if at < line_start)
    bracket_indent = None
    if scanner.stack and scanner.stack[-1] in OPENERS and scanner.opened_at[-1] < line_start:
        at = scanner.opened_at[-1]
        bracket_indent = indent_width(prefix[prefix.rfind("\n", 0, at) + 1 : at + 1])
    return Cursor(
        eol=eol,
        in_block_string=in_block_string,
        line_depth=line_depth,
        bracket_indent=bracket_indent,
        rules=rules,
        prefix=prefix,
        suffix=suffix,
        line=line,
        rest=rest,
        next_line=next_line,
        blank_line=blank,
        multiline=multiline,
        opener_indent=opener_indent,
        scanner=scanner,
        protected_from=protected_from,
    )

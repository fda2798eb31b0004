/**
 * What the text at a position is: code, a comment or a string literal.
 *
 * Python is read with Lezer's Python grammar (`@lezer/python`, the parser JupyterLab's editor
 * highlights Python with), so a docstring's lines, a triple-quoted string that spans lines and the
 * braces of an f-string are what the editor shows them to be. Other languages: a scan of the line
 * for the language's line-comment markers (`LINE_COMMENTS`) and quotes.
 *
 * Used by the usage statistics' line kinds (which the gate learns from) and by the kernel
 * completer (no kernel question inside a string or a comment).
 */
import { parser as pythonParser } from '@lezer/python';

import { languageId, LINE_COMMENTS } from './languagetable';

export type TextKind = 'code' | 'comment' | 'string';

type SyntaxNode = ReturnType<ReturnType<typeof pythonParser.parse>['resolveInner']>;

/**
 * The bounds of reading a text.
 */
export namespace SyntaxLimits {
  /**
   * The most characters before the position that are parsed (about 3 ms of Lezer's time).
   * Before a longer text, parsing starts at the first top-level `def`, `class`, decorator or
   * import line within this many characters of the position.
   */
  export const maxParseChars = 20_000;
}

/**
 * What the text at `offset` is (the end of `text.slice(0, offset)`): inside a comment, inside a
 * string literal (open at that point: a string closed later, after the cursor, counts), or code.
 */
export function textKind(text: string, offset: number, language: string | null): TextKind {
  const id = languageId(language ?? 'python');
  if (id === 'python') {
    return pythonKind(text.slice(Private.windowStart(text, offset), offset));
  }
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return scanLine(text.slice(start, offset), LINE_COMMENTS[id] ?? ['#']);
}

/**
 * What the end of one line is, by a scan for `markers` (line comments) and quotes: the fallback
 * for languages without a parser here.
 */
export function scanLine(line: string, markers: ReadonlyArray<string>): TextKind {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === '\\') {
        i++;
      } else if (ch === quote) {
        quote = null;
      }
      continue;
    }
    if (markers.some(m => line.startsWith(m, i))) {
      return 'comment';
    }
    if (ch === '"' || ch === "'" || ch === '`') {
      quote = ch;
    }
  }
  return quote ? 'string' : 'code';
}

/**
 * What the end of `text`, a Python text, is.
 */
function pythonKind(text: string): TextKind {
  const end = text.length;
  if (!end) {
    return 'code';
  }
  const tree = pythonParser.parse(text);
  for (let node: SyntaxNode | null = tree.resolveInner(end, -1); node; node = node.parent) {
    switch (node.name) {
      case 'Comment':
        return 'comment';
      case 'FormatReplacement':
        // `f"{x.` : code inside the braces, until they close
        if (node.to > end || text[node.to - 1] !== '}') {
          return 'code';
        }
        break;
      case 'String':
      case 'FormatString':
        if (node.to > end || !Private.closed(text.slice(node.from, node.to))) {
          return 'string';
        }
        return 'code';
    }
  }
  return 'code';
}

namespace Private {
  /**
   * Where parsing starts: 0 for a text up to `SyntaxLimits.maxParseChars` before the position,
   * else a top-level statement's line within that many characters (else the first line start).
   */
  export function windowStart(text: string, offset: number): number {
    const from = offset - SyntaxLimits.maxParseChars;
    if (from <= 0) {
      return 0;
    }
    const top = /^(?:def |class |async def |@|import |from )/gm;
    top.lastIndex = from;
    const m = top.exec(text);
    if (m && m.index < offset) {
      return m.index;
    }
    const line = text.indexOf('\n', from);
    return line === -1 || line >= offset ? from : line + 1;
  }

  /**
   * Whether a string literal's text (prefix letters, quotes) is closed.
   */
  export function closed(literal: string): boolean {
    const m = /^[A-Za-z]*("""|'''|"|')/.exec(literal);
    if (!m) {
      return true;
    }
    const quote = m[1];
    const body = literal.slice(m[0].length);
    if (body.length < quote.length || !body.endsWith(quote)) {
      return false;
    }
    // an escaped closing quote does not close it: count the backslashes before it
    let slashes = 0;
    for (let i = body.length - quote.length - 1; i >= 0 && body[i] === '\\'; i--) {
      slashes++;
    }
    return slashes % 2 === 0;
  }
}

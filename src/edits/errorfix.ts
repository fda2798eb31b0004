/**
 * A fix after an error: what an edit-prediction request with trigger `error` carries about the
 * error a cell's run ended with, and what the kernel is asked for candidates.
 *
 * The traceback goes as text without terminal colours, its last `ErrorFixLimits.tracebackChars`
 * characters (the end names the cause); the server finds the line it names (the client never
 * parses tracebacks for lines). For a missing key or attribute the kernel's own completer is
 * asked what exists there (`df["` for `KeyError: 'prcie'` on `df["prcie"]`, `obj.` for
 * `AttributeError: ... has no attribute 'x'`, the names starting like a missing name for a
 * `NameError`), with the standard `complete_request`.
 */
import { IRawOutput, stripAnsi } from '../context/outputs';
import { ICellError } from '../connection/protocol';

export namespace ErrorFixLimits {
  /** Characters of a traceback sent (the end is kept). */
  export const tracebackChars = 20000;
  /** Characters of the error's name and message sent. */
  export const valueChars = 2000;
}

/**
 * What a kernel reply or an error output says about an error.
 */
export interface IErrorContent {
  ename: string;
  evalue: string;
  traceback: ReadonlyArray<string>;
}

/**
 * The error to send: colours removed, the traceback's end kept.
 */
export function cellError(error: IErrorContent, executionCount: number | null): ICellError {
  const lines = Array.isArray(error.traceback)
    ? error.traceback.filter((l): l is string => typeof l === 'string')
    : [];
  // read only the end (a 10 MB traceback costs what 80 KB does); escapes are removed first
  let tail = '';
  for (let i = lines.length - 1; i >= 0 && tail.length < ErrorFixLimits.tracebackChars * 4; i--) {
    tail = lines[i].slice(-ErrorFixLimits.tracebackChars * 4) + (tail ? '\n' + tail : '');
  }
  const traceback = stripAnsi(tail).slice(-ErrorFixLimits.tracebackChars);
  return {
    ename: stripAnsi(String(error.ename ?? '')).slice(0, ErrorFixLimits.valueChars),
    evalue: stripAnsi(String(error.evalue ?? '')).slice(0, ErrorFixLimits.valueChars),
    traceback,
    execution_count: executionCount
  };
}

/**
 * The error among a cell's outputs (nbformat `error` output), if any.
 */
export function errorOfOutputs(outputs: ReadonlyArray<IRawOutput>): IErrorContent | null {
  for (const raw of outputs) {
    const out = raw as unknown as {
      output_type?: unknown;
      ename?: unknown;
      evalue?: unknown;
      traceback?: unknown;
    };
    if (out.output_type === 'error') {
      return {
        ename: typeof out.ename === 'string' ? out.ename : '',
        evalue: typeof out.evalue === 'string' ? out.evalue : '',
        traceback: Array.isArray(out.traceback) ? (out.traceback as string[]) : []
      };
    }
  }
  return null;
}

function quoted(evalue: string): string | null {
  const m = /^\s*(['"])((?:(?!\1).){1,200})\1\s*$/.exec(evalue);
  return m ? m[2] : null;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The start of a missing name (`NameError: name 'prnt' is not defined` → `p`): the kernel is
 * asked which names it knows that start so; null for other errors.
 */
export function missingNamePrefix(error: IErrorContent): string | null {
  if (error.ename !== 'NameError') {
    return null;
  }
  const m = /name '([A-Za-z_]\w*)'/.exec(error.evalue);
  return m ? m[1].charAt(0) : null;
}

/**
 * The code the kernel completes to name what exists where the error names a missing key or
 * attribute: the cell's text up to and including `name["` (KeyError) or `name.`
 * (AttributeError) on the line that uses the missing one; null for other errors.
 */
export function candidateCode(error: IErrorContent, source: string): string | null {
  let pattern: RegExp | null = null;
  if (error.ename === 'KeyError') {
    const key = quoted(error.evalue);
    if (key) {
      // name["key"] or name['key']: complete `name["`
      pattern = new RegExp(`([A-Za-z_][\\w.]*\\[\\s*["'])${escape(key)}["']`);
    }
  } else if (error.ename === 'AttributeError') {
    const m = /has no attribute '([A-Za-z_]\w*)'/.exec(error.evalue);
    if (m) {
      pattern = new RegExp(`([A-Za-z_][\\w.]*\\.)${escape(m[1])}\\b`);
    }
  }
  if (!pattern) {
    return null;
  }
  const match = pattern.exec(source);
  if (!match) {
    return null;
  }
  // the line that uses it, up to the trigger: what the kernel completes
  const end = match.index + match[1].length;
  const lineStart = source.lastIndexOf('\n', match.index - 1) + 1;
  return source.slice(lineStart, end);
}

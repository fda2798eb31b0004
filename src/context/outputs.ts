/**
 * Cell outputs as context: what a code cell printed or returned, as short plain text.
 *
 * Only text is sent: `text/plain` results and streams, an error's name and message, and the
 * rows of an HTML table when there is no plain text; never images or widgets. Every output is
 * cut before it is scanned (a megabyte of output costs what a few kilobytes do), ANSI escape
 * codes and control characters are removed, binary-looking text is dropped, and what is sent is
 * bounded per output, per cell and per request. The server cleans and cuts again.
 */
import { ICellOutput } from '../connection/protocol';

/**
 * An output as nbformat stores it (the fields read here).
 */
export interface IRawOutput {
  output_type: string;
  text?: string | string[];
  data?: { [mime: string]: unknown };
  name?: string;
  ename?: string;
  evalue?: string;
  traceback?: string[];
}

/**
 * Limits of what is sent.
 */
export namespace OutputLimits {
  /** Characters of an output's source text looked at (the rest is never scanned). */
  export const scanChars = 16000;
  /** Characters sent per output. */
  export const outputChars = 2000;
  /** Lines sent per output. */
  export const outputLines = 30;
  /** Outputs sent per cell. */
  export const outputsPerCell = 4;
  /** Characters of outputs sent per request, nearest cells first. */
  export const totalChars = 6000;
  /** Rows of an HTML table sent. */
  export const tableRows = 20;
}

// CSI, OSC and single-character escape sequences.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
// eslint-disable-next-line no-control-regex
const SUSPICIOUS = /[\x00-\x07\ufffd]/g;

/**
 * The text without terminal escape sequences (colours, cursor moves, titles).
 */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

function joined(text: unknown, max: number): string {
  if (typeof text === 'string') {
    return text.slice(0, max);
  }
  if (Array.isArray(text)) {
    let out = '';
    for (const part of text) {
      if (typeof part !== 'string') {
        continue;
      }
      out += part;
      if (out.length >= max) {
        break;
      }
    }
    return out.slice(0, max);
  }
  return '';
}

/**
 * Printable text: ANSI codes and control characters removed, a progress bar's last state
 * kept; `null` for binary-looking or empty text. Only the first `max` characters are read.
 */
export function cleanOutputText(text: string, max: number = OutputLimits.scanChars): string | null {
  let cut = text.slice(0, max);
  if (!cut.trim()) {
    return null;
  }
  const suspicious = cut.match(SUSPICIOUS)?.length ?? 0;
  if (suspicious > cut.length * 0.1) {
    return null;
  }
  cut = cut.replace(ANSI, '').replace(/\r\n/g, '\n');
  if (cut.includes('\r')) {
    cut = cut
      .split('\n')
      .map(line => {
        const parts = line.replace(/\r+$/, '').split('\r');
        return parts[parts.length - 1];
      })
      .join('\n');
  }
  cut = cut.replace(CONTROL, '');
  return cut.trim() ? cut : null;
}

/**
 * The first lines of a text, at most `OutputLimits.outputLines` lines and
 * `OutputLimits.outputChars` characters; "…" marks a cut.
 */
export function firstLines(text: string, cut = false): string {
  const lines = text.replace(/^\n+|\s+$/g, '').split('\n');
  let out = lines.slice(0, OutputLimits.outputLines).join('\n');
  let more = cut || lines.length > OutputLimits.outputLines;
  if (out.length > OutputLimits.outputChars) {
    out = out.slice(0, OutputLimits.outputChars);
    more = true;
  }
  return more ? `${out}\n…` : out;
}

const ENTITIES: { [name: string]: string } = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  '#39': "'"
};

function cellText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(#?\w+);/g, (all, name: string) => ENTITIES[name] ?? all)
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The rows of the first HTML table in a text, cells separated by two spaces; `null` when
 * there is no table. Only the first `OutputLimits.scanChars` characters are read, so a
 * 10,000-row table costs what its first rows do.
 */
export function htmlTableText(html: string): string | null {
  const head = html.slice(0, OutputLimits.scanChars);
  const start = head.search(/<table[\s>]/i);
  if (start < 0) {
    return null;
  }
  const rows: string[] = [];
  const rowPattern = /<tr[\s>][\s\S]*?(?:<\/tr>|(?=<tr[\s>])|$)/gi;
  const cellPattern = /<t([hd])[^>]*>([\s\S]*?)(?=<\/t[hd]>|<t[hd][\s>]|<\/tr>|$)/gi;
  for (const row of head.slice(start).match(rowPattern) ?? []) {
    const cells: string[] = [];
    for (const match of row.matchAll(cellPattern)) {
      cells.push(cellText(match[2]));
    }
    if (cells.some(c => c)) {
      rows.push(cells.join('  ').trim());
    }
    if (rows.length > OutputLimits.tableRows) {
      break;
    }
  }
  if (!rows.length) {
    return null;
  }
  const more = rows.length > OutputLimits.tableRows || head.length < html.length;
  return rows.slice(0, OutputLimits.tableRows).join('\n') + (more ? '\n…' : '');
}

// The repr of an object without a useful text form: `<IPython.core.display.HTML object>`,
// `<Figure size 640x480 with 1 Axes>`.
const OPAQUE_REPR = /^<[\w.]+(?: [^<>\n]*)?>$/;

/**
 * An output as context, or `null` when it has no text worth sending (images, widgets,
 * binary data, blank text).
 */
export function outputToContext(raw: IRawOutput): ICellOutput | null {
  const scan = OutputLimits.scanChars;
  switch (raw.output_type) {
    case 'stream': {
      const source = joined(raw.text, scan + 1);
      const text = cleanOutputText(source);
      return text ? { output_type: 'stream', text: firstLines(text, source.length > scan) } : null;
    }
    case 'error': {
      const name = cleanOutputText(String(raw.ename ?? ''), 200) ?? '';
      const value = cleanOutputText(String(raw.evalue ?? ''), 1000) ?? '';
      const text = value ? `${name}: ${value}` : name;
      return text.trim() ? { output_type: 'error', text: firstLines(text) } : null;
    }
    case 'execute_result':
    case 'display_data': {
      const data = raw.data ?? {};
      const plainSource = joined(data['text/plain'], scan + 1);
      const plain = cleanOutputText(plainSource);
      if (plain && !OPAQUE_REPR.test(plain.trim())) {
        return { output_type: raw.output_type, text: firstLines(plain, plainSource.length > scan) };
      }
      const html = joined(data['text/html'], scan + 1);
      const table = html ? htmlTableText(html) : null;
      const text = table ? cleanOutputText(table) : null;
      return text ? { output_type: raw.output_type, text: firstLines(text) } : null;
    }
    default:
      return null;
  }
}

/**
 * A cell's outputs as context, within `budget` characters (at most `OutputLimits.outputsPerCell`).
 */
export function contextOutputs(
  raw: ReadonlyArray<IRawOutput>,
  budget: number
): { outputs: ICellOutput[]; used: number } {
  const outputs: ICellOutput[] = [];
  let used = 0;
  for (const item of raw) {
    if (outputs.length >= OutputLimits.outputsPerCell || used >= budget) {
      break;
    }
    const output = outputToContext(item);
    if (!output) {
      continue;
    }
    if (output.text.length > budget - used) {
      output.text = output.text.slice(0, budget - used) + '\n…';
    }
    used += output.text.length;
    outputs.push(output);
  }
  return { outputs, used };
}

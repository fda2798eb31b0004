/**
 * Building the request body: the language of an editor, prefix and suffix, the other cells
 * of a notebook and other open documents, all bounded by the settings and the server's
 * message size limit.
 */
import { LANGUAGE_IDS, LANGUAGE_NAMES, languageId } from './languagetable';
import { contextOutputs, IRawOutput, OutputLimits } from './outputs';
import { IContextCell, IContextFile, IRequestBody } from '../connection/protocol';
import { ISettings } from '../settings';

/**
 * A language id (lower case, the server's) for a MIME type; names, aliases and MIME types come
 * from the one language table (`languagetable.ts`, generated from the server's).
 *
 * @param mime - the editor's MIME type
 * @param registryName - the name the editor language registry gives, if any
 */
export function languageFromMime(
  mime: string | null | undefined,
  registryName?: string | null
): string | null {
  if (registryName) {
    return languageId(registryName);
  }
  if (!mime) {
    return null;
  }
  const key = mime.toLowerCase();
  if (Object.prototype.hasOwnProperty.call(LANGUAGE_IDS, key)) {
    return LANGUAGE_IDS[key];
  }
  const match = /^(?:text|application)\/(?:x-)?([a-z0-9+#-]+)$/i.exec(mime);
  return match ? languageId(match[1]) : null;
}

/**
 * A name to show for a language: "Python", "Markdown", "C++".
 */
export function displayLanguage(language: string): string {
  const id = languageId(language);
  return Object.prototype.hasOwnProperty.call(LANGUAGE_NAMES, id)
    ? LANGUAGE_NAMES[id]
    : language.charAt(0).toUpperCase() + language.slice(1);
}

/**
 * The text before the cursor, at most `max` characters (the end is kept).
 */
export function boundedPrefix(text: string, offset: number, max: number): string {
  const before = text.slice(0, offset);
  if (max <= 0) {
    return '';
  }
  if (before.length <= max) {
    return before;
  }
  // Keep the start fixed while the user types (model servers reuse what a prompt shares with
  // the previous one): cut at a line start on a grid of a quarter of the limit, so the start
  // moves in large steps, not with every character.
  const step = Math.max(1, Math.floor(max / 4));
  const grid = Math.ceil((before.length - max) / step) * step;
  const lineStart = grid > 0 && before[grid - 1] === '\n' ? grid : before.indexOf('\n', grid) + 1;
  return lineStart > 0 && lineStart < before.length ? before.slice(lineStart) : before.slice(-max);
}

/**
 * The text after the cursor, at most `max` characters (the start is kept).
 */
export function boundedSuffix(text: string, offset: number, max: number): string {
  return max <= 0 ? '' : text.slice(offset, offset + max);
}

/**
 * A cell of a notebook, as the context builder sees it.
 */
export interface ICellInfo {
  cell_type: 'code' | 'markdown' | 'raw';
  language: string | null;
  source: string;
  /**
   * The cell's outputs (nbformat), read only for the code cells above that are sent and only
   * when the settings allow outputs.
   */
  outputs?: () => ReadonlyArray<IRawOutput>;
  /**
   * The cell's id (sent only with a notebook-scope edit prediction, and only for a cell sent
   * whole: edits name it and their offsets are in its source as sent).
   */
  cell_id?: string | null;
  /**
   * Execution order: the cell's `In [n]` (null: not run).
   */
  execution_count?: number | null;
  /**
   * Its source changed since it last ran (undefined: not known).
   */
  changed?: boolean;
}

/**
 * The execution order of a cell for the wire: its count, and whether it changed since it ran.
 */
function runInfo(cell: ICellInfo): Pick<IContextCell, 'execution_count' | 'changed'> {
  const out: Pick<IContextCell, 'execution_count' | 'changed'> = {};
  if (cell.execution_count !== undefined) {
    out.execution_count = cell.execution_count;
  }
  if (cell.changed !== undefined) {
    out.changed = cell.changed;
  }
  return out;
}

/**
 * The cells above and below the active one, nearest first in the budget, each list in
 * notebook order. Cells above get three quarters of the character budget when both sides
 * are sent; a cell that does not fit whole is cut (above: its end is kept; below: its start).
 * With `cellOutputs`, code cells above carry their outputs, nearest first, within a budget of
 * their own (`OutputLimits.totalChars`): outputs never take room from code. Each cell carries
 * its execution order; with `ids` (a notebook-scope edit prediction) each cell sent whole
 * carries its id too.
 */
export function contextCells(
  cells: ReadonlyArray<ICellInfo>,
  activeIndex: number,
  settings: Pick<ISettings, 'cellContext' | 'maxContextCells' | 'maxContextChars'> &
    Partial<Pick<ISettings, 'cellOutputs'>>,
  ids = false
): { above: IContextCell[]; below: IContextCell[] } {
  const idOf = (cell: ICellInfo, source: string): Pick<IContextCell, 'cell_id'> =>
    ids && cell.cell_id && source === cell.source ? { cell_id: cell.cell_id } : {};
  const mode = settings.cellContext;
  const wantAbove = mode === 'above-and-below' || mode === 'above';
  const wantBelow = mode === 'above-and-below' || mode === 'below';
  if (activeIndex < 0 || (!wantAbove && !wantBelow)) {
    return { above: [], below: [] };
  }
  const total = settings.maxContextChars;
  const aboveBudget = wantAbove ? (wantBelow ? Math.floor(total * 0.75) : total) : 0;
  let belowBudget = wantBelow ? total - aboveBudget : 0;

  const above: IContextCell[] = [];
  let budget = aboveBudget;
  let outputBudget = settings.cellOutputs ? OutputLimits.totalChars : 0;
  for (
    let i = activeIndex - 1;
    wantAbove && i >= 0 && above.length < settings.maxContextCells && budget > 0;
    i--
  ) {
    const cell = cells[i];
    if (!cell.source.trim()) {
      continue;
    }
    const source = cell.source.length > budget ? cell.source.slice(-budget) : cell.source;
    budget -= source.length;
    const context: IContextCell = {
      cell_type: cell.cell_type,
      language: cell.language,
      source,
      ...runInfo(cell),
      ...idOf(cell, source)
    };
    if (outputBudget > 0 && cell.cell_type === 'code' && cell.outputs && source === cell.source) {
      const { outputs, used } = contextOutputs(Private.readOutputs(cell.outputs), outputBudget);
      outputBudget -= used;
      if (outputs.length) {
        context.outputs = outputs;
      }
    }
    above.unshift(context);
  }
  // What the cells above left over goes to the cells below.
  belowBudget += wantBelow ? Math.max(0, budget) : 0;
  const below: IContextCell[] = [];
  budget = belowBudget;
  for (
    let i = activeIndex + 1;
    wantBelow && i < cells.length && below.length < settings.maxContextCells && budget > 0;
    i++
  ) {
    const cell = cells[i];
    if (!cell.source.trim()) {
      continue;
    }
    const source = cell.source.length > budget ? cell.source.slice(0, budget) : cell.source;
    budget -= source.length;
    below.push({
      cell_type: cell.cell_type,
      language: cell.language,
      source,
      ...runInfo(cell),
      ...idOf(cell, source)
    });
  }
  return { above, below };
}

/**
 * Other open documents, bounded in number and size; the current path is left out.
 */
export function contextFiles(
  documents: ReadonlyArray<IContextFile>,
  currentPath: string | null,
  settings: Pick<ISettings, 'openDocuments' | 'maxOpenDocuments' | 'maxDocumentChars'>
): IContextFile[] {
  if (!settings.openDocuments) {
    return [];
  }
  const seen = new Set<string>();
  const files: IContextFile[] = [];
  for (const doc of documents) {
    if (files.length >= settings.maxOpenDocuments) {
      break;
    }
    if (doc.path === currentPath || seen.has(doc.path) || !doc.content.trim()) {
      continue;
    }
    seen.add(doc.path);
    files.push({
      path: doc.path,
      language: doc.language,
      content: doc.content.slice(0, settings.maxDocumentChars)
    });
  }
  return files;
}

/**
 * The number of UTF-8 bytes of a string.
 */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      bytes += 1;
    } else if (code < 0x800) {
      bytes += 2;
    } else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i++;
    } else {
      bytes += 3;
    }
  }
  return bytes;
}

/**
 * Shrink a request until its JSON fits the server's message limit: drop the outputs of the
 * farthest cells, the kernel's candidates, files, then the farthest cells, then cut the suffix
 * and the start of the prefix.
 */
export function fitToLimit(body: IRequestBody, maxBytes: number | null): IRequestBody {
  if (!maxBytes || maxBytes <= 0) {
    return body;
  }
  // Room for the type and number the socket adds.
  const limit = maxBytes - 64;
  const size = (b: IRequestBody) => utf8Length(JSON.stringify(b));
  const fitted: IRequestBody = {
    ...body,
    files: [...body.files],
    cells_above: [...body.cells_above],
    cells_below: [...body.cells_below]
  };
  for (let i = 0; i < fitted.cells_above.length && size(fitted) > limit; i++) {
    if (fitted.cells_above[i].outputs) {
      const { outputs: _dropped, ...cell } = fitted.cells_above[i];
      fitted.cells_above[i] = cell;
    }
  }
  if (size(fitted) > limit && fitted.kernel_candidates) {
    delete fitted.kernel_candidates;
  }
  while (size(fitted) > limit && fitted.files.length) {
    fitted.files.pop();
  }
  while (size(fitted) > limit && (fitted.cells_above.length || fitted.cells_below.length)) {
    if (fitted.cells_below.length >= fitted.cells_above.length) {
      fitted.cells_below.pop();
    } else {
      fitted.cells_above.shift();
    }
  }
  let excess = size(fitted) - limit;
  if (excess > 0 && fitted.suffix) {
    fitted.suffix = fitted.suffix.slice(0, Math.max(0, fitted.suffix.length - excess));
    excess = size(fitted) - limit;
  }
  while (excess > 0 && fitted.prefix) {
    fitted.prefix = fitted.prefix.slice(Math.min(fitted.prefix.length, Math.max(excess, 1)));
    excess = size(fitted) - limit;
  }
  return fitted;
}

namespace Private {
  /**
   * A cell's outputs; a widget that cannot give them gives none.
   */
  export function readOutputs(read: () => ReadonlyArray<IRawOutput>): ReadonlyArray<IRawOutput> {
    try {
      return read();
    } catch {
      return [];
    }
  }
}

/**
 * Execution order: which cells ran and whether a cell's source changed since its last run (what
 * context cells carry as `execution_count` and `changed`). The source of each cell is
 * remembered when it is run in this tab; a cell that has not run here is not known to have
 * changed.
 */

/**
 * The sources cells had when they were last run, by cell model.
 */
export class RunRecord {
  /**
   * A cell was run with `source`.
   */
  ran(cell: object, source: string): void {
    this._sources.set(cell, source);
  }

  /**
   * Whether the cell's `source` changed since it last ran here; undefined: it has not run here.
   */
  changed(cell: object, source: string): boolean | undefined {
    const ran = this._sources.get(cell);
    return ran === undefined ? undefined : ran !== source;
  }

  private _sources = new WeakMap<object, string>();
}

/**
 * The record of this tab (the plugin that runs cells records into it, the context reads it).
 */
export const runRecord = new RunRecord();

/**
 * The life of an edit prediction: the suggestions' one lifecycle (`lifecycle/lifecycle.ts`),
 * shown whole (shown and complete at once), applied whole or a cell at a time, ended (dismissed
 * with Escape, accepted, typed over, or discarded: replaced, its cells edited away).
 */
import { SuggestionLifecycle } from '../lifecycle/lifecycle';

/**
 * What a shown edit prediction carries.
 */
export interface IEditShown {
  latencyMs: number;
  language: string | null;
  /**
   * What it would insert, all cells together.
   */
  text: string;
}

/**
 * The edit predictions' lifecycle.
 */
export class EditLifecycle extends SuggestionLifecycle<IEditShown> {
  constructor() {
    super({ kind: 'edit' });
  }

  /**
   * A prediction is shown whole (the one before is discarded).
   */
  showWhole(shown: IEditShown): void {
    const id = this.show(shown);
    this.completed(id, shown);
  }
}

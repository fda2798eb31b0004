/**
 * The life of an edit prediction, and the usage tracker following it through its signals.
 */
import { EditLifecycle, recordEdits } from '../edits/lifecycle';

class Recorder {
  calls: string[] = [];
  private _n = 0;
  editShown(options: { latencyMs: number; language: string | null; text: string }): string {
    const id = `imp${++this._n}`;
    this.calls.push(`shown ${id} ${options.text} ${options.latencyMs}`);
    return id;
  }
  editAccepted(id: string | null, chars: number): void {
    this.calls.push(`accepted ${id} ${chars}`);
  }
  editEnded(id: string | null, dismissed: boolean): void {
    this.calls.push(`ended ${id} ${dismissed ? 'dismissed' : 'gone'}`);
  }
}

describe('EditLifecycle', () => {
  it('a prediction shown, applied a cell at a time, then ended', () => {
    const life = new EditLifecycle();
    const usage = new Recorder();
    recordEdits(life, usage);
    life.show({ latencyMs: 120, language: 'python', text: 'abc' });
    expect(life.open).toBe(true);
    life.apply(2);
    life.apply(1);
    life.end(false);
    expect(life.open).toBe(false);
    expect(usage.calls).toEqual([
      'shown imp1 abc 120',
      'accepted imp1 2',
      'accepted imp1 1',
      'ended imp1 gone'
    ]);
  });

  it('showing another ends the one before, not dismissed; Escape dismisses', () => {
    const life = new EditLifecycle();
    const usage = new Recorder();
    recordEdits(life, usage);
    life.show({ latencyMs: 1, language: null, text: 'x' });
    life.show({ latencyMs: 2, language: null, text: 'y' });
    life.end(true);
    expect(usage.calls).toEqual([
      'shown imp1 x 1',
      'ended imp1 gone',
      'shown imp2 y 2',
      'ended imp2 dismissed'
    ]);
  });

  it('nothing is said of a prediction that is not open', () => {
    const life = new EditLifecycle();
    const usage = new Recorder();
    const stop = recordEdits(life, usage);
    life.apply(3);
    life.end(true);
    expect(usage.calls).toEqual([]);
    stop();
    life.show({ latencyMs: 1, language: null, text: 'z' });
    expect(usage.calls).toEqual([]);
  });
});

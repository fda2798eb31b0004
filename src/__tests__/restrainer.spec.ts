/**
 * Restraint as a feature: what it asks the server for, when, and what it tells the tracker.
 */
import { EditBackoff } from '../completion/restraint';
import { RestraintFeature } from '../completion/restrainer';
import { EditLifecycle } from '../edits/lifecycle';
import { DEFAULT_SETTINGS, ISettings } from '../settings';

function feature(settings: ISettings, levels: string[], now = () => 1000): RestraintFeature {
  return new RestraintFeature({
    settings: () => settings,
    fetchGate: async level => {
      levels.push(level);
      return null;
    },
    editorState: () => null,
    inEditor: () => true,
    now
  });
}

describe('RestraintFeature', () => {
  it('asks for the gate at the level set, again only when the level changes', async () => {
    const settings: ISettings = { ...DEFAULT_SETTINGS, restraint: 'on', recordUsage: true };
    const levels: string[] = [];
    const f = feature(settings, levels);
    await f.learn();
    await f.learn(false);
    expect(levels).toEqual(['normal']);
    settings.restraint = 'less';
    await f.learn(false);
    expect(levels).toEqual(['normal', 'less']);
    settings.restraint = 'off';
    await f.learn(false);
    expect(levels).toEqual(['normal', 'less']); // off: nothing asked, no gate
    expect(f.restraint.gate.model).toBeNull();
  });

  it('counts keys typed in an editor only, and the tracker reads the pause since the last', () => {
    let t = 1000;
    const f = feature({ ...DEFAULT_SETTINGS }, [], () => t);
    const tracker = {
      rhythm: null,
      held: null,
      pause: null,
      onAccept: null
    } as unknown as Parameters<RestraintFeature['attach']>[0];
    f.attach(tracker);
    const editor = document.createElement('div');
    editor.className = 'cm-editor';
    const inside = document.createElement('span');
    editor.append(inside);
    document.body.append(editor);
    inside.dispatchEvent(new KeyboardEvent('keydown', { key: 'a', bubbles: true }));
    document.addEventListener('keydown', e => f.keydown(e), { once: true });
    inside.dispatchEvent(new KeyboardEvent('keydown', { key: 'b', bubbles: true }));
    t = 1700;
    expect(tracker.pause!()).toBe(700);
    // outside an editor: not typing
    document.addEventListener('keydown', e => f.keydown(e), { once: true });
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'c', bubbles: true }));
    expect(tracker.pause!()).toBe(700);
    editor.remove();
  });

  it('holds automatic edit predictions after a run turned down, until one is taken', () => {
    let t = 1000;
    const settings: ISettings = { ...DEFAULT_SETTINGS, restraint: 'on' };
    const f = feature(settings, [], () => t);
    const life = new EditLifecycle();
    f.followEdits(life);
    const shown = { latencyMs: 50, language: 'python', text: 'x' };
    // two turned down (dismissed, typed over) and one replaced: not yet
    for (const reason of ['dismissed', 'typed-through'] as const) {
      life.showWhole(shown);
      life.end(reason);
    }
    life.showWhole(shown);
    life.showWhole(shown); // the one before is discarded: not counted
    expect(f.decideEdit()).toBeNull();
    life.end('dismissed'); // the third
    expect(f.decideEdit()).toBe('edits-turned-down');
    t += EditBackoff.HOLD_MS - 1;
    expect(f.decideEdit()).toBe('edits-turned-down');
    t += 1;
    expect(f.decideEdit()).toBeNull(); // the hold is over
    // a fourth turned down holds twice as long; "suggest more" not yet, off never
    life.showWhole(shown);
    life.end('dismissed');
    t += 2 * EditBackoff.HOLD_MS - 1;
    expect(f.decideEdit()).toBe('edits-turned-down');
    settings.restraint = 'more';
    expect(f.decideEdit()).toBeNull();
    settings.restraint = 'off';
    expect(f.decideEdit()).toBeNull();
    settings.restraint = 'on';
    // one taken: the run is over
    life.showWhole(shown);
    life.end('accepted');
    expect(f.decideEdit()).toBeNull();
    expect(f.restraint.edits.streak).toBe(0);
  });

  it('holds automatic edit predictions while a shared model service asked for a pause', () => {
    const f = feature({ ...DEFAULT_SETTINGS, restraint: 'on' }, []);
    f.restraint.debounce.strain(Date.now() + 60_000);
    expect(f.decideEdit()).toBe('strained');
  });

  it('sends every request when restraint is off', async () => {
    const f = feature({ ...DEFAULT_SETTINGS, restraint: 'off' }, []);
    const state = { key: 'k', text: 'x = ', offset: 4 };
    expect(
      await f.decide({ state, freshLine: false, language: 'python' } as Parameters<
        RestraintFeature['decide']
      >[0])
    ).toBeNull();
  });
});

/**
 * Restraint as a feature: what it asks the server for, when, and what it tells the tracker.
 */
import { RestraintFeature } from '../completion/restrainer';
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

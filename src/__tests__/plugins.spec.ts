/**
 * The plugins fit together: unique ids, the settings plugin keeps the schema's id, and every
 * token one of them requires is provided by another or by JupyterLab.
 */
import plugins, { ICodeCompleteSettings, PLUGIN_ID } from '../index';
import { CodeCompleteSettings } from '../plugins/settings';
import { DEFAULT_DEBOUNCE_MS } from '../completion/provider';

describe('plugins', () => {
  it('have unique ids in our namespace and start by themselves', () => {
    const ids = plugins.map(plugin => plugin.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const plugin of plugins) {
      expect(plugin.id.startsWith('jupyter-codecomplete:')).toBe(true);
      expect(plugin.autoStart).toBe(true);
    }
  });

  it('keep the settings schema id on the settings plugin', () => {
    // JupyterLab names a schema `<package name>:<file name>`: schema/plugin.json.
    expect(PLUGIN_ID).toBe('jupyter-codecomplete:plugin');
    const settings = plugins.find(plugin => plugin.provides === ICodeCompleteSettings);
    expect(settings?.id).toBe(PLUGIN_ID);
  });

  it('require only tokens that one of them or JupyterLab provides', () => {
    const provided = new Set(plugins.map(plugin => plugin.provides?.name));
    const missing = plugins.flatMap(plugin =>
      (plugin.requires ?? [])
        .filter(token => token.name.startsWith('jupyter-codecomplete:'))
        .filter(token => !provided.has(token.name))
        .map(token => `${plugin.id} requires ${token.name}`)
    );
    expect(missing).toEqual([]);
  });

  it('depend on each other without a cycle (optional tokens count: JupyterLab refuses a cycle)', () => {
    const byToken = new Map(plugins.map(plugin => [plugin.provides?.name, plugin.id]));
    const needs = new Map(
      plugins.map(plugin => [
        plugin.id,
        [...(plugin.requires ?? []), ...(plugin.optional ?? [])]
          .map(token => byToken.get(token.name))
          .filter((id): id is string => !!id)
      ])
    );
    const cycles: string[] = [];
    const visit = (id: string, path: string[]): void => {
      if (path.includes(id)) {
        cycles.push([...path.slice(path.indexOf(id)), id].join(' -> '));
        return;
      }
      for (const next of needs.get(id) ?? []) {
        visit(next, [...path, id]);
      }
    };
    for (const plugin of plugins) {
      visit(plugin.id, []);
    }
    expect(cycles).toEqual([]);
  });
});

describe('CodeCompleteSettings', () => {
  it('stores a change in memory when there is no setting registry', async () => {
    const settings = new CodeCompleteSettings();
    const seen: boolean[] = [];
    settings.changed.connect((_, value) => seen.push(value.enabled));
    expect(settings.current.enabled).toBe(true);
    await settings.save('enabled', false);
    expect(settings.current.enabled).toBe(false);
    expect(seen).toEqual([false]);
  });

  it('reads the debounce of our provider from the inline completer settings', () => {
    const settings = new CodeCompleteSettings();
    expect(settings.debounce).toBe(DEFAULT_DEBOUNCE_MS);
    settings.readDebounce({ providers: { 'jupyter-codecomplete': { debouncerDelay: 50 } } });
    expect(settings.debounce).toBe(50);
    settings.readDebounce({ providers: { other: { debouncerDelay: 10 } } });
    expect(settings.debounce).toBe(DEFAULT_DEBOUNCE_MS);
  });

  it('reads whether our provider is on there, and says when it changes', () => {
    const settings = new CodeCompleteSettings();
    let changes = 0;
    settings.changed.connect(() => changes++);
    expect(settings.providerEnabled).toBe(true);
    settings.readDebounce({ providers: { 'jupyter-codecomplete': { enabled: false } } });
    expect(settings.providerEnabled).toBe(false);
    expect(changes).toBe(1);
    settings.readDebounce({ providers: { 'jupyter-codecomplete': { enabled: false } } });
    expect(changes).toBe(1);
    settings.readDebounce({ providers: {} });
    expect(settings.providerEnabled).toBe(true);
    expect(changes).toBe(2);
  });
});

import { ModelChooser } from '../modeldialog';
import { ICustomEndpoint, IEditSwitch, IModelEntry, IModelListing, ModelsClient } from '../models';
import { flush } from './fakes';

function entry(id: string, fields: Partial<IModelEntry> = {}): IModelEntry {
  return {
    id,
    source: 'detected',
    name: id,
    backend: 'openai',
    model: id,
    base_url: 'http://127.0.0.1:1/v1',
    where: '127.0.0.1:1',
    size_bytes: null,
    style: null,
    fim: null,
    license: null,
    memory_gb: null,
    good_for: null,
    status: 'available',
    path: null,
    repo: null,
    file: null,
    revision: null,
    quantization: null,
    verified: null,
    active: false,
    locked: false,
    locked_reason: null,
    api_key_set: false,
    api_key_masked: null,
    ...fields
  };
}

function listing(entries: IModelEntry[], editActive: string | null): IModelListing {
  return {
    entries,
    active: entries.find(e => e.active)?.id ?? null,
    serving: null,
    edit_active: editActive,
    policy: {
      allow_user_choice: true,
      allow_downloads: true,
      allowed_backends: [],
      allowed_hosts: [],
      allowed_catalogue: []
    },
    models_dir: '/models',
    offline_hint: '',
    downloads: [],
    warnings: []
  };
}

/**
 * The server's side of the dialog: the listing it answers, and what Use for edits sends.
 */
class ScriptedClient extends ModelsClient {
  constructor(public listings: IModelListing[]) {
    super();
  }
  sent: { id: string; role: string }[] = [];
  list(): Promise<IModelListing> {
    return Promise.resolve(this.listings[Math.min(this.calls++, this.listings.length - 1)]);
  }
  useForEdits(id: string, custom?: ICustomEndpoint): Promise<IEditSwitch> {
    this.sent.push({ id, role: 'edit' });
    return Promise.resolve({
      edit_active: id,
      edit_serving: { name: 'qwen-fim', backend: 'ollama', style: 'edit-chat', native: false },
      report: { ok: true, style: 'qwen2.5-coder', fim_supported: true, first_token_s: 0.1 }
    });
  }
  calls = 0;
}

describe('ModelChooser: the model of edit predictions', () => {
  const sweep = entry('sweep', { active: true, edit_style: 'sweep-next-edit', edit_native: true });
  const fim = entry('qwen-fim', { edit_style: 'edit-chat', edit_native: false });

  it('marks the entry that serves edits and says the format each would be asked in', async () => {
    const client = new ScriptedClient([
      listing([sweep, { ...fim, edit_active: true }], 'qwen-fim')
    ]);
    const chooser = new ModelChooser({ client, onSwitched: () => undefined });
    await flush();
    const rows = Array.from(
      chooser.node.querySelectorAll<HTMLElement>('.jp-CodeComplete-modelRow')
    );
    const name = (row: HTMLElement) =>
      row.querySelector('.jp-CodeComplete-modelName')!.textContent ?? '';
    const byId = (id: string) => rows.find(r => r.dataset.id === id)!;
    expect(name(byId('qwen-fim'))).toBe('qwen-fim (edits)');
    expect(name(byId('sweep'))).toBe('sweep (in use)');
    const forEdits = (id: string) =>
      byId(id).querySelector<HTMLButtonElement>('.jp-CodeComplete-useForEdits')!;
    expect(forEdits('qwen-fim').textContent).toBe('Serves edits');
    expect(forEdits('qwen-fim').title).toContain('generic format (edit-chat)');
    expect(forEdits('sweep').textContent).toBe('Use for edits');
    expect(forEdits('sweep').title).toContain('next-edit format (sweep-next-edit)');
  });

  it('Use for edits switches the edit model and names the format it will be asked in', async () => {
    const switched: string[] = [];
    const client = new ScriptedClient([
      listing([sweep, fim], null),
      listing([sweep, { ...fim, edit_active: true }], 'qwen-fim')
    ]);
    const chooser = new ModelChooser({ client, onSwitched: m => switched.push(m.name) });
    await flush();
    chooser.node
      .querySelector<HTMLButtonElement>('[data-id="qwen-fim"] .jp-CodeComplete-useForEdits')!
      .click();
    await flush();
    await flush();
    expect(client.sent).toEqual([{ id: 'qwen-fim', role: 'edit' }]);
    // the completion model did not change: the status item is not told of a switch
    expect(switched).toEqual([]);
    const message = chooser.node.querySelector('.jp-CodeComplete-chooserMessage')!.textContent;
    expect(message).toContain('Edit predictions now use qwen-fim.');
    expect(message).toContain('generic format (edit-chat)');
    const name = chooser.node.querySelector('[data-id="qwen-fim"] .jp-CodeComplete-modelName')!;
    expect(name.textContent).toBe('qwen-fim (edits)');
  });
});

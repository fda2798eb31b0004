import { ModelChooser } from '../models/modeldialog';
import {
  ICustomEndpoint,
  IDownload,
  IEditSwitch,
  IEngineInstall,
  IModelEntry,
  IModelListing,
  ModelsClient,
  ModelsError
} from '../models/models';
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
    custom_backends: ['ollama', 'openai', 'openai-chat'],
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
      report: {
        name: 'completion',
        backend: 'openai',
        ok: true,
        style: 'qwen2.5-coder',
        fim_supported: true,
        first_token_s: 0.1
      }
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

function install(fields: Partial<IEngineInstall>): IEngineInstall {
  return {
    state: 'idle',
    installed: false,
    requirement: 'llama-cpp-python[server]>=0.3.9',
    cost: 'compiles llama.cpp once: about 15 minutes on 2 cores, and it needs a C compiler',
    seconds: null,
    progress: null,
    returncode: null,
    last_line: null,
    log: [],
    ...fields
  };
}

/**
 * A server where the chosen GGUF needs llama.cpp, which it then installs: the states its install
 * route goes through.
 */
class NeedsLlamaClient extends ScriptedClient {
  installs = 0;
  use(): ReturnType<ModelsClient['use']> {
    return Promise.reject(
      new ModelsError(
        'probe_failed',
        'file:/m/coder.Q4_K_M.gguf did not pass the check: coder.Q4_K_M.gguf needs llama.cpp ' +
          "(the built-in numpy engine does not run tensor types Q4_K): pip install 'jupyter_codecomplete[local]'",
        409
      )
    );
  }
  engineStatus(): Promise<IEngineInstall> {
    return Promise.resolve(install({}));
  }
  installEngine(): Promise<IEngineInstall> {
    this.installs++;
    return Promise.resolve(install({ state: 'running', seconds: 0 }));
  }
  followEngineInstall(onProgress: (s: IEngineInstall) => void): Promise<IEngineInstall> {
    onProgress(install({ state: 'running', seconds: 60, progress: 0.45 }));
    this.halfway = this.node?.textContent ?? '';
    const done = install({ state: 'done', installed: true, seconds: 840, progress: 1 });
    onProgress(done);
    return Promise.resolve(done);
  }
  node: HTMLElement | null = null;
  halfway = '';
}

describe('ModelChooser: a GGUF that needs llama.cpp', () => {
  it('says what installing llama.cpp costs and installs it with progress', async () => {
    const gguf = entry('file:/m/coder.Q4_K_M.gguf', { source: 'disk', backend: 'embedded' });
    const client = new NeedsLlamaClient([listing([gguf], null)]);
    const states: string[] = [];
    const chooser = new ModelChooser({
      client,
      onSwitched: () => undefined,
      onEngineInstall: s => states.push(`${s.state} ${s.progress}`)
    });
    await flush();
    const row = chooser.node.querySelector<HTMLElement>('[data-id="file:/m/coder.Q4_K_M.gguf"]')!;
    row.querySelector<HTMLButtonElement>('.jp-CodeComplete-use')!.click();
    await flush();
    await flush();
    expect(row.textContent).toContain('needs llama.cpp');
    const box = row.querySelector<HTMLElement>('.jp-CodeComplete-engineInstall')!;
    expect(box.textContent).toContain('about 15 minutes on 2 cores');
    client.node = box;
    box.querySelector<HTMLButtonElement>('.jp-CodeComplete-installEngine')!.click();
    await flush();
    await flush();
    expect(client.installs).toBe(1);
    expect(client.halfway).toContain('Building llama.cpp: 45% (60 s)');
    expect(box.querySelector('.jp-CodeComplete-engineState')!.textContent).toBe(
      'llama.cpp is installed (840 s): Use the model again.'
    );
    expect(box.querySelector<HTMLButtonElement>('.jp-CodeComplete-installEngine')!.disabled).toBe(
      true
    );
  });
});

/**
 * A server whose Test and Use answer; Use switches, so the listing after it marks the row.
 */
class AnsweringClient extends ScriptedClient {
  test(): ReturnType<ModelsClient['test']> {
    return Promise.resolve({
      name: 'completion',
      backend: 'openai-chat',
      ok: true,
      style: 'chat',
      fim_supported: true,
      fim: { style_tokens: false, native_suffix: false, chat: true, reported: null },
      first_token_s: 0.12,
      tokens_per_s: 30
    });
  }
  use(id: string): ReturnType<ModelsClient['use']> {
    return Promise.resolve({
      active: id,
      serving: { name: id, backend: 'openai-chat' } as never,
      report: {
        name: 'completion',
        backend: 'openai-chat',
        ok: true,
        style: 'chat',
        fim_supported: true,
        first_token_s: 0.1
      }
    });
  }
}

describe('ModelChooser: the answer where the user clicked', () => {
  let chooser: ModelChooser;
  afterEach(() => {
    chooser.dispose();
  });

  async function open(client: ModelsClient): Promise<ModelChooser> {
    chooser = new ModelChooser({ client, onSwitched: () => undefined });
    document.body.append(chooser.node);
    await flush();
    return chooser;
  }

  it("Test answers in the row, announced and focused, in a chat model's words", async () => {
    const other = entry('other');
    const chat = entry('gpt-chat', { backend: 'openai-chat' });
    await open(new AnsweringClient([listing([other, chat], null)]));
    const row = chooser.node.querySelector<HTMLElement>('[data-id="gpt-chat"]')!;
    row.querySelector<HTMLButtonElement>('.jp-CodeComplete-test')!.click();
    await flush();
    const result = row.querySelector<HTMLElement>('.jp-CodeComplete-rowResult')!;
    expect(result.getAttribute('aria-live')).toBe('polite');
    expect(result.getAttribute('role')).toBe('status');
    expect(result.textContent).toContain('first token 120 ms');
    expect(result.textContent).toContain('a chat model: asked by instructions');
    expect(result.textContent).not.toContain('style chat');
    expect(document.activeElement).toBe(result);
  });

  it('"Now using" shows in the clicked row after the list is drawn again, and has the focus', async () => {
    const other = entry('other', { active: true });
    const chosen = entry('chosen');
    await open(
      new AnsweringClient([
        listing([other, chosen], null),
        listing(
          [
            { ...other, active: false },
            { ...chosen, active: true }
          ],
          null
        )
      ])
    );
    chooser.node
      .querySelector<HTMLButtonElement>('[data-id="chosen"] .jp-CodeComplete-use')!
      .click();
    await flush();
    await flush();
    // the row node was replaced by the refresh: look it up again
    const row = chooser.node.querySelector<HTMLElement>('[data-id="chosen"]')!;
    expect(row.querySelector('.jp-CodeComplete-modelName')!.textContent).toBe('chosen (in use)');
    const result = row.querySelector<HTMLElement>('.jp-CodeComplete-rowResult')!;
    expect(result.textContent).toContain('Now using chosen.');
    expect(document.activeElement).toBe(result);
  });

  it("the custom form's Use answers beside its buttons", async () => {
    await open(new AnsweringClient([listing([entry('other')], null)]));
    const form = chooser.node.querySelector<HTMLElement>('.jp-CodeComplete-customForm')!;
    form.querySelector<HTMLButtonElement>('.jp-CodeComplete-use')!.click();
    await flush();
    await flush();
    const result = chooser.node.querySelector<HTMLElement>(
      '.jp-CodeComplete-customForm .jp-CodeComplete-rowResult'
    )!;
    expect(result.textContent).toContain('Now using custom.');
    expect(document.activeElement).toBe(result);
  });
});

describe('ModelChooser: the custom endpoint in use', () => {
  it('is marked "(in use)" like every other row (after a restart the listing says so)', async () => {
    const custom = entry('custom', {
      source: 'custom',
      name: 'my-coder at http://llm:8000/v1',
      active: true
    });
    const chooser = new ModelChooser({
      client: new ScriptedClient([listing([entry('other'), custom], null)]),
      onSwitched: () => undefined
    });
    await flush();
    const form = chooser.node.querySelector<HTMLElement>('.jp-CodeComplete-customForm')!;
    expect(form.querySelector('.jp-CodeComplete-modelName')!.textContent).toBe(
      'my-coder at http://llm:8000/v1 (in use)'
    );
    expect(form.classList.contains('jp-mod-active')).toBe(true);
    expect(form.querySelector('.jp-CodeComplete-use')!.textContent).toBe('In use');
    // exactly one row of the dialog says it serves
    expect(chooser.node.textContent!.split('(in use)').length - 1).toBe(1);
  });

  it('is not marked when another row serves', async () => {
    const custom = entry('custom', { source: 'custom', name: 'my-coder at http://llm:8000/v1' });
    const chooser = new ModelChooser({
      client: new ScriptedClient([listing([entry('other', { active: true }), custom], null)]),
      onSwitched: () => undefined
    });
    await flush();
    const form = chooser.node.querySelector<HTMLElement>('.jp-CodeComplete-customForm')!;
    expect(form.querySelector('.jp-CodeComplete-modelName')!.textContent).toBe(
      'my-coder at http://llm:8000/v1'
    );
    expect(form.querySelector('.jp-CodeComplete-use')!.textContent).toBe('Use');
  });

  it("offers the backend kinds the server lists, in the server's order", async () => {
    const served = listing([entry('other')], null);
    served.custom_backends = ['mistral', 'openai'];
    const chooser = new ModelChooser({
      client: new ScriptedClient([served]),
      onSwitched: () => undefined
    });
    await flush();
    const select = chooser.node.querySelector<HTMLSelectElement>(
      '.jp-CodeComplete-customForm select[name="backend"]'
    )!;
    expect(Array.from(select.options).map(o => o.value)).toEqual(['mistral', 'openai']);
    expect(select.value).toBe('openai');
  });
});

function download(fields: Partial<IDownload>): IDownload {
  return {
    id: 'test-demo',
    state: 'running',
    done: 0,
    total: 8_000_000,
    fraction: 0,
    bytes_per_s: null,
    path: null,
    error: null,
    ...fields
  };
}

/**
 * A hub behind the server: the pull's states as the server streams them.
 */
class DownloadingClient extends ScriptedClient {
  constructor(
    listings: IModelListing[],
    public states: IDownload[]
  ) {
    super(listings);
  }
  started = 0;
  startDownload(): Promise<IDownload> {
    this.started++;
    return Promise.resolve(this.states[0]);
  }
  followDownload(id: string, onProgress: (d: IDownload) => void): Promise<IDownload> {
    this.states.forEach(onProgress);
    return Promise.resolve(this.states[this.states.length - 1]);
  }
}

describe('ModelChooser: a pull that stopped', () => {
  const catalogue = (fields: Partial<IModelEntry> = {}) =>
    entry('test-demo', {
      source: 'catalogue',
      backend: 'embedded',
      status: 'not downloaded',
      size_bytes: 8_000_000,
      ...fields
    });

  it('offers Resume where bytes are kept, and says how many', async () => {
    const chooser = new ModelChooser({
      client: new ScriptedClient([listing([catalogue({ partial_bytes: 3_000_000 })], null)]),
      onSwitched: () => undefined
    });
    await flush();
    const row = chooser.node.querySelector<HTMLElement>('[data-id="test-demo"]')!;
    expect(row.querySelector('.jp-CodeComplete-download')!.textContent).toBe('Resume');
    expect(row.querySelector('.jp-CodeComplete-rowResult')!.textContent).toContain(
      'kept from a pull that stopped: Resume continues from there.'
    );
  });

  it('says Download where nothing is kept, and Resume after a failure that kept bytes', async () => {
    const client = new DownloadingClient(
      [listing([catalogue()], null)],
      [
        download({ done: 3_000_000, fraction: 0.375 }),
        download({
          state: 'failed',
          done: 3_000_000,
          resumable: true,
          error: { type: 'network', message: 'The hub sent nothing for 30 s. 3.0 MB are kept.' }
        })
      ]
    );
    const chooser = new ModelChooser({ client, onSwitched: () => undefined });
    await flush();
    const row = chooser.node.querySelector<HTMLElement>('[data-id="test-demo"]')!;
    const button = row.querySelector<HTMLButtonElement>('.jp-CodeComplete-download')!;
    expect(button.textContent).toBe('Download');
    button.click();
    await flush();
    await flush();
    expect(client.started).toBe(1);
    expect(button.textContent).toBe('Resume');
    expect(button.disabled).toBe(false);
    expect(row.querySelector('.jp-CodeComplete-rowResult')!.textContent).toContain(
      '3.0 MB are kept'
    );
  });

  it("shows the server's notice while it resumes by itself after a 503", async () => {
    const notice = 'The hub answered HTTP 503; the download resumes from 3.0 MB by itself in 2 s.';
    let seen = '';
    const client = new DownloadingClient([listing([catalogue()], null)], []);
    client.followDownload = (id, onProgress) => {
      onProgress(download({ done: 3_000_000, fraction: 0.375, notice }));
      seen = chooser.node.querySelector(
        '[data-id="test-demo"] .jp-CodeComplete-rowResult'
      )!.textContent!;
      return Promise.resolve(download({ state: 'cancelled' }));
    };
    client.states = [download({})];
    const chooser = new ModelChooser({ client, onSwitched: () => undefined });
    await flush();
    chooser.node
      .querySelector<HTMLButtonElement>('[data-id="test-demo"] .jp-CodeComplete-download')!
      .click();
    await flush();
    await flush();
    expect(seen).toContain(notice);
  });
});

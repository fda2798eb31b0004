import { InlineCompletionTriggerKind } from '@jupyterlab/completer';

import {
  candidatesFromReply,
  IKernelLike,
  KernelCompleter,
  triggerExpression
} from '../context/kernel';
import { CodeCompleteProvider, ICompletionClient } from '../completion/provider';
import { IInlineCompletionReply, IRequestBody } from '../connection/protocol';
import { DEFAULT_SETTINGS, normalizeSettings } from '../settings';

type Reply = Awaited<ReturnType<IKernelLike['requestComplete']>>;

/**
 * A kernel whose answers the test scripts: at once, late, never, or with an error.
 */
class FakeKernel implements IKernelLike {
  id = 'k1';
  status = 'idle';
  connectionStatus = 'connected';
  language = 'python';
  asked: { code: string; cursor_pos: number }[] = [];
  answer: 'now' | 'never' | 'fail' | 'manual' = 'now';
  matches: string[] = ["'price'", "'qty'"];
  metadata: Record<string, unknown> = {};
  pending: ((reply: Reply) => void)[] = [];
  private _iopub: ((
    sender: any,
    msg: { header: { msg_type: string }; content?: unknown }
  ) => void)[] = [];

  get info() {
    return Promise.resolve({ language_info: { name: this.language } });
  }
  iopubMessage = {
    connect: (
      slot: (sender: any, msg: { header: { msg_type: string }; content?: unknown }) => void
    ) => {
      this._iopub.push(slot);
      return true;
    }
  };
  ran(): void {
    this._iopub.forEach(slot => slot(this, { header: { msg_type: 'execute_input' } }));
  }
  restarted(): void {
    this._iopub.forEach(slot =>
      slot(this, { header: { msg_type: 'status' }, content: { execution_state: 'starting' } })
    );
  }

  requestComplete(content: { code: string; cursor_pos: number }): Promise<Reply> {
    this.asked.push(content);
    const reply: Reply = {
      content: { status: 'ok', matches: this.matches, metadata: this.metadata }
    };
    switch (this.answer) {
      case 'now':
        return Promise.resolve(reply);
      case 'fail':
        return Promise.reject(new Error('Kernel is dead'));
      case 'never':
        return new Promise(() => undefined);
      default:
        return new Promise(resolve => this.pending.push(() => resolve(reply)));
    }
  }
}

const BUDGET = 20;

function completer(now = { t: 0 }) {
  return new KernelCompleter({ timeBudgetMs: BUDGET, cooldownMs: 1000, now: () => now.t });
}

describe('triggerExpression', () => {
  it.each([
    ['df[', 'df[', ''],
    ['x = df["pr', 'df["', 'pr'],
    ["df['", "df['", ''],
    ['obj.attr.na', 'obj.attr.', 'na'],
    ['pd.read_csv(', 'pd.read_csv(', ''],
    ['f(a=1, se', 'f(a=1, ', 'se'],
    ['print("x", df.', 'df.', '']
  ])('finds the expression in %j', (line, expression, typed) => {
    expect(triggerExpression(line, 'python')).toMatchObject({ expression, typed });
  });

  it.each(['x = 1', 'print("a.', "s = 'df[", '# see df.', 'def add(a', 'class C(', '1.', 'df', ''])(
    'asks nothing for %j',
    line => {
      expect(triggerExpression(line, 'python')).toBeNull();
    }
  );

  it('asks nothing inside a docstring or a triple-quoted string', () => {
    expect(triggerExpression('def f():\n    """Use df.', 'python')).toBeNull();
    expect(triggerExpression('s = """a\n  b\ndf[', 'python')).toBeNull();
    expect(triggerExpression('s = """a\n  b"""\ndf[', 'python')).toMatchObject({
      expression: 'df['
    });
  });

  it('asks nothing about an expression longer than the protocol allows', () => {
    expect(triggerExpression('a.'.repeat(150), 'python')).toBeNull();
    expect(triggerExpression('a.'.repeat(90), 'python')?.expression.length).toBe(180);
  });

  it('asks nothing for a language without triggers', () => {
    expect(triggerExpression('df[', 'r')).toBeNull();
    expect(triggerExpression('df[', null)).toBeNull();
  });
});

describe('candidatesFromReply', () => {
  it('keeps keyword arguments after a call and data attributes first after a dot', () => {
    const call = candidatesFromReply(
      { status: 'ok', matches: ['abs', 'alpha=', 'AbstractSet', 'beta='] },
      'f('
    );
    expect(call.map(c => c.text)).toEqual(['alpha=', 'beta=']);
    const dot = candidatesFromReply(
      {
        status: 'ok',
        matches: ['abs', '_private', 'price', 'df.qty'],
        metadata: {
          _jupyter_types_experimental: [
            { text: 'abs', type: 'function' },
            { text: 'price', type: 'instance' },
            { text: 'df.qty', type: 'instance' }
          ]
        }
      },
      'df.'
    );
    expect(dot).toEqual([
      { text: 'price', type: 'instance' },
      { text: 'qty', type: 'instance' },
      { text: 'abs', type: 'function' }
    ]);
    expect(candidatesFromReply({ status: 'error' })).toEqual([]);
  });
});

describe('KernelCompleter', () => {
  it('asks for the names that start like a missing one (an error fix)', async () => {
    const kernel = new FakeKernel();
    kernel.matches = ['print', 'pd', 'property', 'abs'];
    const result = await completer().names(kernel, 'p', 'python');
    expect(kernel.asked).toEqual([{ code: 'p', cursor_pos: 1 }]);
    expect(result).toEqual({
      expression: 'p',
      items: [{ text: 'print' }, { text: 'pd' }, { text: 'property' }]
    });
    // not a name, or a language without a completer of ours: nothing asked
    expect(completer().names(kernel, 'p q', 'python')).toBeNull();
    expect(completer().names(kernel, 'p', 'r')).toBeNull();
    expect(kernel.asked.length).toBe(1);
  });

  it('asks an idle kernel with the line up to the trigger', async () => {
    const kernel = new FakeKernel();
    const result = await completer().candidates(kernel, 'import pandas\nx = df[', 'python');
    expect(kernel.asked).toEqual([{ code: 'x = df[', cursor_pos: 7 }]);
    expect(result).toEqual({ expression: 'df[', items: [{ text: "'price'" }, { text: "'qty'" }] });
  });

  it('counts the cursor position in code points', async () => {
    const kernel = new FakeKernel();
    await completer().candidates(kernel, 'café = "😀"; df[', 'python');
    expect(kernel.asked[0].cursor_pos).toBe([...'café = "😀"; df['].length);
  });

  it('asks a kernel of another language nothing, and never again', async () => {
    const c = completer();
    const kernel = new FakeKernel();
    kernel.language = 'R';
    expect(await c.candidates(kernel, 'df[', 'python')).toBeNull();
    expect(c.candidates(kernel, 'df.', 'python')).toBeNull(); // at once, not a promise
    expect(kernel.asked).toEqual([]);
  });

  it('skips a busy, dead or disconnected kernel at once, without asking', async () => {
    for (const change of [
      (k: FakeKernel) => (k.status = 'busy'),
      (k: FakeKernel) => (k.status = 'dead'),
      (k: FakeKernel) => (k.connectionStatus = 'connecting')
    ]) {
      const kernel = new FakeKernel();
      change(kernel);
      expect(completer().candidates(kernel, 'df[', 'python')).toBeNull();
      expect(kernel.asked).toEqual([]);
    }
    expect(await completer().candidates(null, 'df[', 'python')).toBeNull();
  });

  it('gives up after its time budget on a kernel that never answers, then leaves it alone', async () => {
    const clock = { t: 0 };
    const c = completer(clock);
    const kernel = new FakeKernel();
    kernel.answer = 'never';
    const started = Date.now();
    expect(await c.candidates(kernel, 'df[', 'python')).toBeNull();
    expect(Date.now() - started).toBeLessThan(2000);
    // the next keystrokes do not ask again while it is still answering, up to the cooldown
    expect(await c.candidates(kernel, 'df.', 'python')).toBeNull();
    clock.t = 900;
    expect(await c.candidates(kernel, 'df.', 'python')).toBeNull();
    expect(kernel.asked.length).toBe(1);
    clock.t = 1001;
    expect(await c.candidates(kernel, 'df.', 'python')).toBeNull();
    expect(kernel.asked.length).toBe(2);
  });

  it('uses a late answer for the next keystroke', async () => {
    const c = completer();
    const kernel = new FakeKernel();
    kernel.answer = 'manual';
    expect(await c.candidates(kernel, 'df[', 'python')).toBeNull();
    kernel.pending.forEach(resolve => resolve(null as any));
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(await c.candidates(kernel, 'df[p', 'python')).toEqual({
      expression: 'df[',
      items: [{ text: "'price'" }]
    });
    expect(kernel.asked.length).toBe(1);
  });

  it('survives a kernel that fails', async () => {
    const kernel = new FakeKernel();
    kernel.answer = 'fail';
    expect(await completer().candidates(kernel, 'df[', 'python')).toBeNull();
  });

  it('caches answers until the kernel runs code', async () => {
    const c = completer();
    const kernel = new FakeKernel();
    await c.candidates(kernel, 'df[', 'python');
    expect((await c.candidates(kernel, "df['q", 'python'))?.items).toEqual([{ text: "'qty'" }]);
    expect((await c.candidates(kernel, 'df[', 'python'))?.items.length).toBe(2);
    expect(kernel.asked.length).toBe(2); // df[ and df['
    kernel.ran();
    kernel.matches = ["'price'", "'qty'", "'total'"];
    expect((await c.candidates(kernel, 'df[', 'python'))?.items.length).toBe(3);
  });
});

describe('the provider and the kernel', () => {
  class Client implements ICompletionClient {
    bodies: IRequestBody[] = [];
    hello = { max_message_bytes: 1000000 };
    request(body: IRequestBody) {
      this.bodies.push(body);
      const reply: IInlineCompletionReply = {
        type: 'inline_completion',
        reply_to: 0,
        list: { items: [{ insertText: 'x' }] }
      };
      return { number: this.bodies.length, reply: Promise.resolve(reply), chunks: null };
    }
    cancel(): void {
      return;
    }
  }
  const context = { widget: {} as any, triggerKind: InlineCompletionTriggerKind.Automatic };
  const request = { text: 'df[', offset: 3, mimeType: 'text/x-ipython' };

  function make(kernelCandidates: boolean, kernel: FakeKernel) {
    const client = new Client();
    const c = completer();
    const provider = new CodeCompleteProvider({
      client,
      settings: () => normalizeSettings({ ...DEFAULT_SETTINGS, kernelCandidates }),
      kernelCandidates: (r, _ctx, language) =>
        c.candidates(kernel, r.text.slice(0, r.offset), language)
    });
    return { client, provider };
  }

  it('sends the candidates with the request', async () => {
    const { client, provider } = make(true, new FakeKernel());
    await provider.fetch(request, context);
    expect(client.bodies[0].kernel_candidates).toEqual({
      expression: 'df[',
      items: [{ text: "'price'" }, { text: "'qty'" }]
    });
  });

  it('sends a request without a trigger at once, without waiting for the kernel', () => {
    const kernel = new FakeKernel();
    const { client, provider } = make(true, kernel);
    void provider.fetch({ text: 'x = 1', offset: 5, mimeType: 'text/x-ipython' }, context);
    expect(client.bodies.length).toBe(1);
    expect(kernel.asked).toEqual([]);
  });

  it('sends a request with a cached answer at once', async () => {
    const kernel = new FakeKernel();
    const { client, provider } = make(true, kernel);
    await provider.fetch(request, context);
    void provider.fetch({ text: 'df[p', offset: 4, mimeType: 'text/x-ipython' }, context);
    expect(client.bodies.length).toBe(2);
    expect(client.bodies[1].kernel_candidates?.items).toEqual([{ text: "'price'" }]);
  });

  it('does not ask the kernel when the setting is off', async () => {
    const kernel = new FakeKernel();
    const { client, provider } = make(false, kernel);
    await provider.fetch(request, context);
    expect(kernel.asked).toEqual([]);
    expect('kernel_candidates' in client.bodies[0]).toBe(false);
  });

  it('sends the request without candidates when the kernel never answers', async () => {
    const kernel = new FakeKernel();
    kernel.answer = 'never';
    const { client, provider } = make(true, kernel);
    await provider.fetch(request, context);
    expect(client.bodies.length).toBe(1);
    expect('kernel_candidates' in client.bodies[0]).toBe(false);
  });
});

describe('KernelCompleter.prime (issue 23: the first df[ after running a cell)', () => {
  const flush = () => new Promise(resolve => setTimeout(resolve, 0));
  /**
   * Warm the kernel's completer for Python and let the kernel answer.
   */
  const primed = async (kc: KernelCompleter, kernel: FakeKernel) => {
    kc.prime(kernel, 'python');
    await flush();
  };

  it('asks an idle kernel once for empty code, and again only after a restart', async () => {
    const kernel = new FakeKernel();
    const kc = completer();
    await primed(kc, kernel);
    expect(kernel.asked).toEqual([{ code: '', cursor_pos: 0 }]);
    await primed(kc, kernel);
    expect(kernel.asked).toHaveLength(1);
    kernel.restarted();
    await primed(kc, kernel);
    expect(kernel.asked).toHaveLength(2);
  });

  it('leaves busy kernels, other languages and languages without triggers alone', async () => {
    const busy = new FakeKernel();
    busy.status = 'busy';
    const kc = completer();
    kc.prime(busy, 'python');
    const r = new FakeKernel();
    r.language = 'R';
    kc.prime(r, 'python');
    kc.prime(new FakeKernel(), 'markdown');
    kc.prime(null, 'python');
    await flush();
    expect(busy.asked).toHaveLength(0);
    expect(r.asked).toHaveLength(0);
  });

  it('a question while the priming question is out is not sent behind it (it would miss the budget)', async () => {
    const kernel = new FakeKernel();
    kernel.answer = 'manual';
    const kc = completer();
    await primed(kc, kernel);
    expect(kc.candidates(kernel, 'df[', 'python')).toBeNull();
    expect(kernel.asked).toHaveLength(1);
    // the priming question answered: the next question goes out
    kernel.pending.forEach(resolve => resolve({ content: { status: 'ok', matches: [] } }));
    kernel.answer = 'now';
    await flush();
    const answer = await kc.candidates(kernel, 'df[', 'python');
    expect(answer?.items.map(i => i.text)).toEqual(["'price'", "'qty'"]);
  });
});

/**
 * A shared model service that asks for a pause (a gateway's 429, every replica busy): one notice,
 * "model busy, retrying in N s" in the status item, no error item per keystroke, suggestions
 * again afterwards, and a stretched debounce meanwhile.
 */
import { InlineCompletionTriggerKind } from '@jupyterlab/completer';

import { ErrorNotifier } from '../status/notifier';
import { busySeconds, IErrorInfo, isBusyError } from '../connection/protocol';
import { CodeCompleteProvider } from '../completion/provider';
import { AdaptiveDebounce } from '../completion/restraint';
import { DEFAULT_SETTINGS, normalizeSettings } from '../settings';
import { CompletionError } from '../connection/socket';
import { StatusModel } from '../status/status';
import { FakeClient, flush } from './fakes';

const limited: IErrorInfo = {
  type: 'rate_limited',
  title: 'The model server answered HTTP 429',
  message: 'HTTP 429: rpm limit reached',
  retry_after: 2
};
const held = (left: number): IErrorInfo => ({
  type: 'model_busy',
  title: 'Model busy',
  message: `model busy, retrying in ${Math.round(left)} s`,
  retry_after: left
});

describe('a busy shared model', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('knows a pause when it sees one', () => {
    expect(isBusyError(limited)).toBe(true);
    expect(isBusyError(held(1.2))).toBe(true);
    expect(
      isBusyError({ type: 'backend_unavailable', title: '', message: '', retry_after: 3 })
    ).toBe(true);
    // a server that is down says nothing of when: an error, not a pause
    expect(isBusyError({ type: 'backend_unavailable', title: '', message: '' })).toBe(false);
    expect(isBusyError({ type: 'timeout', title: '', message: '' })).toBe(false);
    expect(busySeconds(held(1.2))).toBe(2);
    expect(busySeconds(held(0.01))).toBe(1);
  });

  it('gives one notice for the 429 and every request answered during its pause', () => {
    const shown: IErrorInfo[] = [];
    const notifier = new ErrorNotifier({ show: info => shown.push(info) });
    notifier.notify(limited);
    for (let left = 1.9; left > 0; left -= 0.1) {
      notifier.notify(held(left)); // one per keystroke, in this tab
    }
    expect(shown).toEqual([limited]);
    notifier.reset(); // a suggestion came again
    notifier.notify(limited);
    expect(shown.length).toBe(2);
  });

  it('says "model busy, retrying in N s" until the pause ends or a suggestion comes', () => {
    jest.useFakeTimers();
    const status = new StatusModel();
    status.setConnection('connected');
    status.model = { name: 'qwen', backend: 'openai' };
    let changes = 0;
    status.changed.connect(() => (changes += 1));
    status.started(1);
    status.failed(1, limited);
    expect(status.state).toBe('busy');
    expect(status.label).toBe('qwen · model busy, retrying in 2 s');
    expect(status.message).toContain('rpm limit');
    // the requests answered at once during the pause keep the first count, not an error
    status.started(2);
    status.failed(2, held(1.5));
    expect(status.label).toBe('qwen · model busy, retrying in 2 s');
    expect(status.state).toBe('busy');
    const before = changes;
    jest.advanceTimersByTime(2100);
    expect(changes).toBeGreaterThan(before); // the item redraws when the pause runs out
    expect(status.state).toBe('idle');
    expect(status.label).toBe('qwen');
    // a pause again, then a suggestion: it ends at once
    status.failed(3, limited);
    expect(status.state).toBe('busy');
    status.started(4);
    status.succeeded(4);
    expect(status.state).toBe('idle');
  });

  it('shows no error item in the editor, and the activity says failed with the pause', async () => {
    const client = new FakeClient();
    const settings = normalizeSettings({ ...DEFAULT_SETTINGS, streaming: 'never' });
    const provider = new CodeCompleteProvider({ client, settings: () => settings });
    const errors: (IErrorInfo | undefined)[] = [];
    provider.activity.connect((_, a) => {
      if (a.kind === 'failed') {
        errors.push(a.error);
      }
    });
    const auto = { widget: {} as any, triggerKind: InlineCompletionTriggerKind.Automatic };
    const result = provider.fetch({ text: 'x', offset: 1, mimeType: 'text/x-ipython' }, auto);
    await flush();
    client.replies[0].reject(new CompletionError(held(1), 0));
    expect((await result).items).toEqual([]);
    expect(errors.map(e => e?.type)).toEqual(['model_busy']);
  });

  it('stretches the debounce while the shared model is strained', () => {
    const debounce = new AdaptiveDebounce();
    debounce.latency(900); // a slow model: the usual rule asks sooner
    const place = { afterNonWord: false, lineEnd: false, documentEnd: false };
    const usual = debounce.delay(place);
    expect(usual).toBe(100); // 3 × 200 − 900, clamped
    debounce.strain(Date.now() + 10_000);
    expect(debounce.strained).toBe(true);
    expect(debounce.delay(place)).toBe(1200); // 2 × 3 × 200, nothing taken off
    debounce.strain(Date.now() - 1); // an earlier end does not shorten it
    expect(debounce.strained).toBe(true);
  });
});

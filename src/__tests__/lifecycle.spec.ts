/**
 * The suggestions' one lifecycle, the edit predictions' use of it, and the usage tracker
 * following both kinds through its signals.
 */
import { Signal } from '@lumino/signaling';

import { IUsageEvent } from '../connection/protocol';
import { Suggestion } from '../completion/typing';
import type { CodeCompleteProvider } from '../completion/provider';
import { EditLifecycle } from '../edits/lifecycle';
import { SuggestionLifecycle } from '../lifecycle/lifecycle';
import { DEFAULT_SETTINGS } from '../settings';
import { UsageTracker } from '../usage/usage';

function record<T>(life: SuggestionLifecycle<T>): string[] {
  const calls: string[] = [];
  life.asked.connect((_, e) => calls.push(`asked ${e.id}`));
  life.shown.connect((_, e) => calls.push(`shown ${e.id}`));
  life.complete.connect((_, e) => calls.push(`complete ${e.id}`));
  life.accepted.connect((_, e) => calls.push(`accepted ${e.id} ${e.part} ${e.chars}`));
  life.ended.connect((_, e) => calls.push(`ended ${e.id} ${e.reason}`));
  return calls;
}

function tracker() {
  const sent: IUsageEvent[] = [];
  let now = 1_000_000;
  const usage = new UsageTracker({
    send: events => {
      sent.push(...events.map(e => ({ ...e })));
      return true;
    },
    readText: () => null,
    settings: () => DEFAULT_SETTINGS,
    model: () => ({ name: 'completion', backend: 'openai', reported: 'qwen', style: 'qwen' }),
    now: () => now,
    setTimeout: () => 0,
    clearTimeout: () => undefined,
    tabId: 'tab',
    editorState: () => null
  });
  return { usage, sent, advance: (ms: number) => (now += ms) };
}

describe('SuggestionLifecycle', () => {
  it('one suggestion open at a time: showing another discards it', () => {
    const life = new SuggestionLifecycle<string>({ kind: 'inline' });
    const calls = record(life);
    life.ask(1);
    life.show('a', 1);
    life.show('ab', 1); // what is shown of it changed: still open
    life.completed(1, 'ab');
    life.ask(2);
    life.show('c', 2);
    life.accept({ part: 'word', text: 'c', chars: 1, kept: [] });
    life.end('accepted');
    life.end('dismissed'); // none open
    life.accept({ part: 'whole', text: null, chars: 0, kept: [] }); // none open
    expect(calls).toEqual([
      'asked 1',
      'shown 1',
      'shown 1',
      'complete 1',
      'asked 2',
      'ended 1 discarded',
      'shown 2',
      'accepted 2 word 1',
      'ended 2 accepted'
    ]);
    expect(life.open).toBe(false);
  });

  it('the suggestion asked for ends when dismissed before it is shown; completed only for it', () => {
    const life = new SuggestionLifecycle<string>({ kind: 'inline' });
    const calls = record(life);
    life.ask(5);
    life.completed(4, 'old'); // not the one asked for
    life.completed(5, 'x');
    life.end('dismissed');
    life.completed(5, 'x'); // ended
    expect(calls).toEqual(['asked 5', 'complete 5', 'ended 5 dismissed']);
  });
});

describe('EditLifecycle', () => {
  it('a prediction is shown whole: shown and complete at once, with its own ids', () => {
    const life = new EditLifecycle();
    const calls = record(life);
    life.showWhole({ latencyMs: 1, language: null, text: 'x' });
    life.showWhole({ latencyMs: 2, language: null, text: 'y' });
    life.end('dismissed');
    expect(calls).toEqual([
      'shown -1',
      'complete -1',
      'ended -1 discarded',
      'shown -2',
      'complete -2',
      'ended -2 dismissed'
    ]);
    expect(life.kind).toBe('edit');
  });

  it('the usage tracker follows it: an impression per prediction, applied a cell at a time', () => {
    const { usage, sent, advance } = tracker();
    const life = new EditLifecycle();
    const stop = usage.followEdits(life);
    life.showWhole({ latencyMs: 120, language: 'python', text: 'abc' });
    life.accept({ part: 'cell', text: null, chars: 2, kept: [] });
    life.accept({ part: 'cell', text: null, chars: 1, kept: [] });
    life.end('accepted');
    life.showWhole({ latencyMs: 50, language: 'python', text: 'd' });
    life.end('dismissed');
    life.showWhole({ latencyMs: 50, language: null, text: 'e' });
    life.showWhole({ latencyMs: 60, language: null, text: 'f' }); // discards the one before
    stop();
    life.end('dismissed'); // no longer followed
    advance(1000);
    usage.flush();
    const outcomes = new Map(sent.map(e => [e.id, [e.trigger, e.outcome, e.accepted_chars]]));
    expect([...outcomes.values()]).toEqual([
      ['edit', 'accepted', 3],
      ['edit', 'dismissed', 0],
      ['edit', 'ignored', 0]
    ]);
  });
});

describe('UsageTracker.follow', () => {
  it('records inline suggestions from the lifecycle: shown, accepted whole, dismissed', () => {
    const { usage, sent, advance } = tracker();
    const activity = new Signal<unknown, CodeCompleteProvider.IActivity>({});
    const lifecycle = new SuggestionLifecycle<CodeCompleteProvider.IShown>({ kind: 'inline' });
    usage.follow({ activity, lifecycle } as any);
    const show = (number: number, text: string) => {
      const suggestion = new Suggestion({ key: 'a.py', before: 'x = ', after: '', number });
      suggestion.update(text, true);
      lifecycle.ask(number);
      lifecycle.show({ suggestion, rest: text, language: 'python', trigger: 'typing' }, number);
    };
    show(1, '42');
    advance(500);
    lifecycle.accept({ part: 'whole', text: null, chars: 0, kept: [] });
    lifecycle.end('accepted');
    show(2, '7');
    lifecycle.end('dismissed');
    advance(1000);
    usage.flush();
    const outcomes = new Map(sent.map(e => [e.id, [e.trigger, e.outcome, e.accepted_chars]]));
    expect([...outcomes.values()]).toEqual([
      ['typing', 'accepted', 2],
      ['typing', 'dismissed', 0]
    ]);
  });
});

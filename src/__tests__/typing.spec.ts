import { nextLine, nextWord, RecentSuggestions, restOf, Suggestion } from '../completion/typing';
import { ownsGhostText, shownGhostText } from '../completion/partial';

describe('restOf', () => {
  const anchor = 'def f(x):';
  const intent = anchor + '\n    return x + 1';

  it.each([
    ['typed some of it', anchor + '\n    ret', 'urn x + 1'],
    ['typed nothing', anchor, '\n    return x + 1'],
    ['deleted back into the anchor line', 'def f(x', '):\n    return x + 1'],
    ['Enter with the same indent', anchor + '\n    ', 'return x + 1'],
    ['Enter with a deeper auto-indent', anchor + '\n        ', 'return x + 1'],
    ['Enter with a shallower auto-indent', anchor + '\n  ', '  return x + 1'],
    ['typed all of it', intent, '']
  ])('%s', (_, current, rest) => {
    expect(restOf(intent, anchor, current)).toBe(rest);
  });

  it.each([
    ['typed something else', anchor + '\n    x'],
    ['deleted past the start of the line', 'import os'],
    ['typed past the end', intent + ' '],
    ['text on the new line that differs', anchor + '\n  x']
  ])('null when %s', (_, current) => {
    const text = 'import os\n' + intent;
    const full = current.startsWith('import') ? current : 'import os\n' + current;
    expect(restOf(text, 'import os\n' + anchor, full)).toBeNull();
  });
});

describe('RecentSuggestions', () => {
  const make = (before: string, text: string, number = 0) =>
    new Suggestion({ key: 'k', before, after: '', number, text, done: true });

  it('finds the most recent suggestion that still applies', () => {
    const recent = new RecentSuggestions();
    recent.add(make('a = ', 'foo(1)', 0));
    recent.add(make('a = foo', '(2)', 1));
    expect(recent.find({ key: 'k', text: 'a = foo(', offset: 8 })?.rest).toBe('2)');
    expect(recent.find({ key: 'k', text: 'a = f', offset: 5 })?.rest).toBe('oo(2)');
    expect(recent.find({ key: 'k', text: 'a = foo(1', offset: 9 })?.rest).toBe(')');
    expect(recent.find({ key: 'other', text: 'a = f', offset: 5 })).toBeNull();
    expect(recent.find({ key: 'k', text: 'a = f # c', offset: 5 })).toBeNull();
  });

  it('is bounded', () => {
    const recent = new RecentSuggestions({ size: 2 });
    recent.add(make('a', '1'));
    recent.add(make('b', '2'));
    recent.add(make('c', '3'));
    expect(recent.size).toBe(2);
    expect(recent.find({ key: 'k', text: 'a', offset: 1 })).toBeNull();
  });
});

describe('partial accept', () => {
  it.each([
    ['sum(values)', 'sum'],
    ['(values)', '('],
    ['  + b', '  +'],
    [' total', ' total'],
    ['\n    return x', '\n    return'],
    ['', '']
  ])('next word of %j is %j', (rest, word) => {
    expect(nextWord(rest)).toBe(word);
  });

  it.each([
    ['x + 1\n    return x', 'x + 1'],
    ['\n    return x\n', '\n    return x'],
    ['done', 'done']
  ])('next line of %j is %j', (rest, line) => {
    expect(nextLine(rest)).toBe(line);
  });
});

describe('partial accept: only over our own suggestion', () => {
  it('owns the ghost text that is our rest (line breaks drawn as elements, streaming)', () => {
    expect(ownsGhostText('return a + b', 'return a + b')).toBe(true);
    expect(ownsGhostText('x + 1    return x', 'x + 1\n    return x')).toBe(true);
    expect(ownsGhostText('return a', 'return a + b')).toBe(true); // ours streams on
    expect(ownsGhostText('return a + b  # sum', 'return a + b')).toBe(true); // drawn ahead
  });

  it("leaves another provider's ghost text alone (jupyter-ai, notebook-intelligence)", () => {
    // the case reported: `_nbi(n):` shown, `_codecomplete` remembered
    expect(ownsGhostText('_nbi(n):', '_codecomplete')).toBe(false);
    expect(ownsGhostText(null, 'return a + b')).toBe(false); // no ghost text drawn
    expect(ownsGhostText('return a + b', null)).toBe(false); // no suggestion of ours
    expect(ownsGhostText('return a + b', '')).toBe(false);
  });

  it('reads the ghost text drawn in an editor', () => {
    const host = document.createElement('div');
    expect(shownGhostText(host)).toBeNull();
    const ghost = document.createElement('span');
    ghost.className = 'jp-GhostText';
    ghost.append('x + 1', document.createElement('br'), '    return x');
    host.append(ghost);
    expect(shownGhostText(host)).toBe('x + 1    return x');
    expect(ownsGhostText(shownGhostText(host), 'x + 1\n    return x')).toBe(true);
  });
});

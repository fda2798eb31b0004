import { scanLine, SyntaxLimits, textKind } from '../context/syntax';

describe('textKind', () => {
  // [text before the cursor, language, kind]
  it.each([
    ['x = 1', 'python', 'code'],
    ['x = 1  # note', 'python', 'comment'],
    ['s = "a # b', 'python', 'string'],
    ['s = "abc"', 'python', 'code'],
    ["s = 'it\\'s", 'python', 'string'],
    ['s = "a\\\\"', 'python', 'code'],
    ['x = "#" + y', 'python', 'code'],
    ['def f():\n    """Doc\n    more', 'python', 'string'],
    ['def f():\n    """Doc\n    more"""\n    x', 'python', 'code'],
    ["x = '''a\n# not a comment", 'python', 'string'],
    ['f"a{x.', 'python', 'code'],
    ['f"a{x}b', 'python', 'string'],
    ['f"a{x}b"', 'python', 'code'],
    ['rb"\\d+', 'python', 'string'],
    ['"""Module."""\n\n# a comment', 'python', 'comment'],
    ['', 'python', 'code'],
    ['x = 1 / 2', 'javascript', 'code'],
    ['x = 1 // note', 'javascript', 'comment'],
    ['s = "a -- b', 'sql', 'string'],
    ['-- q', 'sql', 'comment'],
    ['x <- 1 # note', 'r', 'comment']
  ])('%j (%s) is %s', (text, language, kind) => {
    expect(textKind(text, text.length, language)).toBe(kind);
  });

  it('reads only the text before the position', () => {
    const text = 'x = "abc"';
    expect(textKind(text, 6, 'python')).toBe('string');
    expect(textKind(text, text.length, 'python')).toBe('code');
  });

  it('parses at most its bound before a long text, from a top-level statement', () => {
    const filler = 'x = 1\n'.repeat(SyntaxLimits.maxParseChars / 3);
    // a string opened before the window is not seen, one opened in it is
    const text = 's = """\n' + filler + 'def f():\n    """Doc\n    more';
    expect(textKind(text, text.length, 'python')).toBe('string');
    const closed = filler + 'def f():\n    """Doc"""\n    y = 2';
    expect(textKind(closed, closed.length, 'python')).toBe('code');
  });
});

describe('scanLine', () => {
  it('skips escaped quotes and finds markers outside strings', () => {
    expect(scanLine('s = "a\\" # b', ['#'])).toBe('string');
    expect(scanLine('s = "a" # b', ['#'])).toBe('comment');
    expect(scanLine('`a` + b', ['//'])).toBe('code');
  });
});

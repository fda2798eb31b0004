/**
 * The client side of the one language table: `languagetable.ts` is generated from the server's
 * `jupyter_codecomplete/languages.py` (pytest checks the bytes); these cases check that the
 * client reads it: what an editor reports becomes the id the server knows.
 */
import { displayLanguage, languageFromMime } from '../context/context';
import { LANGUAGE_IDS, LANGUAGE_NAMES, languageId } from '../context/languagetable';
import { DEFAULT_SETTINGS, isLanguageEnabled, disabledLanguagesWith } from '../settings';
import { kernelLanguage } from '../context/widgets';
import { IInlineCompletionContext } from '@jupyterlab/completer';
import { Widget } from '@lumino/widgets';

describe('language table', () => {
  it.each([
    // [MIME type, registry name, id sent]
    ['text/x-objectivec', 'Objective-C', 'objective-c'],
    ['text/x-objectivec', null, 'objective-c'],
    ['text/typescript', 'TypeScript', 'typescript'],
    ['text/typescript', null, 'typescript'],
    ['text/x-typescript', null, 'typescript'],
    ['text/typescript-jsx', 'TSX', 'typescript'],
    ['text/x-ipython', 'ipython', 'python'],
    ['text/x-ipython', null, 'python'],
    ['text/x-python', 'Python', 'python'],
    ['text/x-ipythongfm', 'ipythongfm', 'markdown'],
    ['text/x-c++src', 'C++', 'cpp'],
    ['text/x-csharp', 'C#', 'csharp'],
    ['text/x-fsharp', 'F#', 'fsharp'],
    ['text/x-sh', 'Shell', 'shell'],
    ['text/x-rsrc', 'R', 'r'],
    ['text/x-common-lisp', 'Common Lisp', 'lisp'],
    ['text/x-octave', 'Octave', 'matlab'],
    ['text/x-stex', 'sTeX', 'latex'],
    ['text/plain', null, 'plaintext'],
    ['text/x-cobol', null, 'cobol'],
    ['text/x-cobol', 'Cobol', 'cobol']
  ])('%s (%s) is sent as %s', (mime, registryName, id) => {
    expect(languageFromMime(mime, registryName)).toBe(id);
  });

  it('shows every language by its display name', () => {
    expect(displayLanguage('objective-c')).toBe('Objective-C');
    expect(displayLanguage('objectivec')).toBe('Objective-C');
    expect(displayLanguage('cpp')).toBe('C++');
    expect(displayLanguage('typescript')).toBe('TypeScript');
    expect(displayLanguage('plaintext')).toBe('Plain Text');
    expect(displayLanguage('cobol')).toBe('Cobol');
    expect(displayLanguage('constructor')).toBe('Constructor');
  });

  it('maps every name to a language that has a display name', () => {
    for (const [name, id] of Object.entries(LANGUAGE_IDS)) {
      expect(name).toBe(name.toLowerCase());
      expect(LANGUAGE_NAMES[id]).toBeTruthy();
      expect(LANGUAGE_IDS[id]).toBe(id);
    }
    expect(languageId(' IPython ')).toBe('python');
    expect(languageId('constructor')).toBe('constructor'); // never an Object.prototype member
  });

  it('honours a disabled language under any of its names', () => {
    const settings = { ...DEFAULT_SETTINGS, disabledLanguages: ['objectivec', 'ts'] };
    expect(isLanguageEnabled(settings, 'objective-c')).toBe(false);
    expect(isLanguageEnabled(settings, 'typescript')).toBe(false);
    expect(isLanguageEnabled(settings, 'javascript')).toBe(true);
    expect(disabledLanguagesWith(['objectivec', 'markdown'], 'objective-c', true)).toEqual([
      'markdown'
    ]);
    expect(disabledLanguagesWith([], 'Objective-C', false)).toEqual(['objective-c']);
  });

  it.each([
    ['python3', 'python'],
    ['ir', 'r'],
    ['julia-1.10', 'julia'],
    ['xcpp17', 'xcpp'],
    ['bash', 'shell']
  ])('a kernel named %s gives %s', (name, id) => {
    const context = {
      widget: new Widget(),
      session: { kernel: { name } }
    } as unknown as IInlineCompletionContext;
    expect(kernelLanguage(context)).toBe(id);
  });
});

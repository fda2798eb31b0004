/**
 * The plugins' faces: every token of `tokens.ts` is typed by an interface declared beside it,
 * and every plugin takes what it requires as the token's type (a plugin that asks for
 * `ICompletionConnection` and reads it as the `CompletionSocket` class fails here). Read from
 * the sources with the TypeScript parser, so the rule holds for plugins added later.
 */
import * as ts from 'typescript';

/**
 * `src/`, found from this file (the TypeScript module reads the files: the tests have no Node
 * typings).
 */
const SRC = (expect.getState().testPath ?? '').replace(/[\\/]__tests__[\\/][^\\/]+$/, '');

/**
 * Plugins that still read a token as a class, and why.
 */
const KNOWN: { [plugin: string]: { [parameter: string]: string } } = {};

function parse(file: string): ts.SourceFile {
  const text = ts.sys.readFile(file);
  if (text === undefined) {
    throw new Error(`cannot read ${file}`);
  }
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

/**
 * The TypeScript files of a folder (`depth` 1: directly in it; 2: in its feature folders too).
 */
function sources(dir: string, depth = 1): string[] {
  return ts.sys
    .readDirectory(dir, ['.ts'], undefined, undefined, depth)
    .filter(file => !file.endsWith('.d.ts') && !/[\\/]__tests__[\\/]/.test(file));
}

function isExported(node: ts.Node): boolean {
  return (ts.getCombinedModifierFlags(node as ts.Declaration) & ts.ModifierFlags.Export) !== 0;
}

/**
 * The classes the modules of `src/` export.
 */
function exportedClasses(): Set<string> {
  const names = new Set<string>();
  for (const file of sources(SRC, 2)) {
    parse(file).forEachChild(node => {
      if (ts.isClassDeclaration(node) && node.name && isExported(node)) {
        names.add(node.name.text);
      }
    });
  }
  return names;
}

interface IPluginFace {
  file: string;
  id: string;
  provides: string | null;
  providedType: string;
  tokens: string[];
  parameters: { name: string; type: string }[];
}

function property(object: ts.ObjectLiteralExpression, name: string): ts.Expression | null {
  for (const p of object.properties) {
    if (ts.isPropertyAssignment(p) && p.name.getText() === name) {
      return p.initializer;
    }
  }
  return null;
}

/**
 * The plugin objects of `src/plugins/`: what each provides and requires, and how its
 * `activate` reads them.
 */
function pluginFaces(): IPluginFace[] {
  const faces: IPluginFace[] = [];
  for (const file of sources(`${SRC}/plugins`)) {
    const source = parse(file);
    source.forEachChild(node => {
      if (!ts.isVariableStatement(node)) {
        return;
      }
      for (const declaration of node.declarationList.declarations) {
        const type = declaration.type;
        const init = declaration.initializer;
        if (
          !type ||
          !init ||
          !ts.isTypeReferenceNode(type) ||
          type.typeName.getText() !== 'JupyterFrontEndPlugin' ||
          !ts.isObjectLiteralExpression(init)
        ) {
          continue;
        }
        const list = (name: string): string[] => {
          const value = property(init, name);
          return value && ts.isArrayLiteralExpression(value)
            ? value.elements.map(e => e.getText())
            : [];
        };
        const activate = property(init, 'activate');
        if (!activate || !ts.isArrowFunction(activate)) {
          throw new Error(`${file}: ${declaration.name.getText()} has no arrow activate`);
        }
        const id = property(init, 'id');
        faces.push({
          file: file.slice(SRC.length + 1),
          id: id && ts.isStringLiteral(id) ? id.text : (id?.getText() ?? '?'),
          provides: property(init, 'provides')?.getText() ?? null,
          providedType: type.typeArguments?.[0]?.getText() ?? '',
          tokens: [...list('requires'), ...list('optional')],
          parameters: activate.parameters.slice(1).map(p => ({
            name: p.name.getText(),
            type: p.type?.getText() ?? ''
          }))
        });
      }
    });
  }
  return faces;
}

describe('tokens', () => {
  const tokens = parse(`${SRC}/tokens.ts`);
  const interfaces = new Set<string>();
  const typed = new Map<string, string>();
  tokens.forEachChild(node => {
    if (ts.isInterfaceDeclaration(node) && isExported(node)) {
      interfaces.add(node.name.text);
    }
    if (ts.isVariableStatement(node)) {
      for (const d of node.declarationList.declarations) {
        const init = d.initializer;
        if (
          init &&
          ts.isNewExpression(init) &&
          init.expression.getText() === 'Token' &&
          init.typeArguments?.length === 1
        ) {
          typed.set(d.name.getText(), init.typeArguments[0].getText());
        }
      }
    }
  });

  it('are each typed by the interface of the same name, declared in tokens.ts', () => {
    expect(typed.size).toBeGreaterThanOrEqual(6);
    for (const [token, type] of typed) {
      expect({ token, type }).toEqual({ token, type: token });
      expect(interfaces.has(type)).toBe(true);
    }
  });

  const faces = pluginFaces();
  const classes = exportedClasses();

  it('finds the plugins and the classes behind the tokens', () => {
    expect(faces.length).toBeGreaterThanOrEqual(16);
    for (const name of ['CompletionSocket', 'CodeCompleteProvider', 'StatusModel']) {
      expect(classes.has(name)).toBe(true);
    }
  });

  it('are what a plugin provides, as the interface', () => {
    for (const face of faces.filter(f => f.provides !== null)) {
      expect({ plugin: face.id, provides: face.providedType }).toEqual({
        plugin: face.id,
        provides: face.provides
      });
    }
  });

  it('are read by each plugin as the token type, never as a class', () => {
    for (const face of faces) {
      expect({ plugin: face.id, count: face.parameters.length }).toEqual({
        plugin: face.id,
        count: face.tokens.length
      });
      face.parameters.forEach(({ name, type }, i) => {
        const token = face.tokens[i];
        const bare = type.replace(/\s*\|\s*null$/, '');
        const known = KNOWN[face.id]?.[name];
        if (known) {
          expect(classes.has(bare)).toBe(true); // still a class: drop the entry when fixed
          return;
        }
        expect({ plugin: face.id, parameter: name, type: bare }).toEqual({
          plugin: face.id,
          parameter: name,
          type: token
        });
        expect(classes.has(bare)).toBe(false);
      });
    }
  });
});

/**
 * The longest a plugin's `activate` may be: plugins wire, features live in their folders.
 */
const MAX_ACTIVATE_LINES = 80;

/**
 * The length in lines of every `activate` in a file.
 */
function activateLengths(file: ts.SourceFile): number[] {
  const out: number[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isPropertyAssignment(node) || ts.isMethodDeclaration(node)) &&
      node.name.getText(file) === 'activate'
    ) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push(end - start + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

describe('the layout of src/', () => {
  it('plugins are wiring: no activate is longer than about 80 lines', () => {
    const long = sources(`${SRC}/plugins`).flatMap(file =>
      activateLengths(parse(file))
        .filter(n => n > MAX_ACTIVATE_LINES)
        .map(n => `${file.slice(SRC.length + 1)}: ${n} lines`)
    );
    expect(long).toEqual([]);
  });

  it('the check measures an activate', () => {
    const text = 'export const p = {\n  activate: () => {\n    a();\n    b();\n  }\n};\n';
    const file = ts.createSourceFile('p.ts', text, ts.ScriptTarget.Latest, true);
    expect(activateLengths(file)).toEqual([4]);
  });

  it('the root holds only the plugin list, the tokens and the settings; features have folders', () => {
    const root = sources(SRC).map(file => file.slice(SRC.length + 1));
    expect(root.sort()).toEqual(['index.ts', 'settings.ts', 'tokens.ts']);
  });
});

/**
 * The one way the plugins add a CodeMirror extension to every editor.
 */
import { Extension } from '@codemirror/state';
import { EditorExtensionRegistry, IEditorExtensionRegistry } from '@jupyterlab/codemirror';

/**
 * Add a CodeMirror extension to every editor (nothing without the registry).
 */
export function addEditorExtension(
  registry: IEditorExtensionRegistry | null,
  name: string,
  extension: () => Extension
): void {
  registry?.addExtension({
    name,
    factory: () => EditorExtensionRegistry.createImmutableExtension(extension())
  });
}

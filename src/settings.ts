/**
 * The user settings of the extension (`schema/plugin.json`) and their normalisation.
 */
import { languageId } from './context/languagetable';

/**
 * When to stream suggestions.
 */
export type StreamingMode = 'always' | 'manual' | 'never';

/**
 * When to ask for suggestions.
 */
export type TriggerMode = 'auto' | 'manual';

/**
 * How much to hold back automatic requests (docs/usage.md, "Restraint").
 */
export type RestraintMode = 'off' | 'on' | 'more' | 'less';

/**
 * When to ask for edit predictions: never, on request (a shortcut), or after edits that make a
 * follow-up likely.
 */
export type EditPredictionMode = 'off' | 'manual' | 'auto';

/**
 * Which other cells of a notebook to send.
 */
export type CellContextMode = 'above-and-below' | 'above' | 'below' | 'none';

/**
 * The settings the provider reads.
 */
export interface ISettings {
  enabled: boolean;
  trigger: TriggerMode;
  freshLineSuggestions: boolean;
  suggestAfterAccept: boolean;
  warmModel: boolean;
  streaming: StreamingMode;
  disabledLanguages: string[];
  maxPrefixChars: number;
  maxSuffixChars: number;
  cellContext: CellContextMode;
  maxContextCells: number;
  maxContextChars: number;
  openDocuments: boolean;
  maxOpenDocuments: number;
  maxDocumentChars: number;
  notifyErrors: boolean;
  cellOutputs: boolean;
  kernelCandidates: boolean;
  editPredictions: EditPredictionMode;
  recordUsage: boolean;
  usageSamples: boolean;
  usageKeptWindows: [number, number];
  restraint: RestraintMode;
}

/**
 * Defaults; they match `schema/plugin.json`.
 */
export const DEFAULT_SETTINGS: Readonly<ISettings> = Object.freeze({
  enabled: true,
  trigger: 'auto',
  freshLineSuggestions: true,
  suggestAfterAccept: true,
  warmModel: true,
  streaming: 'always',
  disabledLanguages: ['markdown'],
  maxPrefixChars: 8000,
  maxSuffixChars: 2000,
  cellContext: 'above-and-below',
  maxContextCells: 20,
  maxContextChars: 12000,
  openDocuments: false,
  maxOpenDocuments: 5,
  maxDocumentChars: 4000,
  notifyErrors: true,
  cellOutputs: true,
  kernelCandidates: true,
  editPredictions: 'off',
  recordUsage: true,
  usageSamples: false,
  usageKeptWindows: [30, 300],
  restraint: 'on'
} as ISettings);

function pick<T extends string>(value: unknown, allowed: ReadonlyArray<T>, fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback;
}

function count(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0
    ? Math.floor(value)
    : fallback;
}

function windows(value: unknown, fallback: [number, number]): [number, number] {
  return Array.isArray(value) &&
    value.length === 2 &&
    value.every(v => typeof v === 'number' && Number.isFinite(v) && v > 0)
    ? [value[0], value[1]]
    : [...fallback];
}

/**
 * Settings from a (possibly partial or invalid) composite object: unknown values fall back to defaults.
 */
export function normalizeSettings(raw: unknown): ISettings {
  const s = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const d = DEFAULT_SETTINGS;
  return {
    enabled: typeof s.enabled === 'boolean' ? s.enabled : d.enabled,
    trigger: pick(s.trigger, ['auto', 'manual'], d.trigger),
    freshLineSuggestions:
      typeof s.freshLineSuggestions === 'boolean' ? s.freshLineSuggestions : d.freshLineSuggestions,
    suggestAfterAccept:
      typeof s.suggestAfterAccept === 'boolean' ? s.suggestAfterAccept : d.suggestAfterAccept,
    warmModel: typeof s.warmModel === 'boolean' ? s.warmModel : d.warmModel,
    streaming: pick(s.streaming, ['always', 'manual', 'never'], d.streaming),
    disabledLanguages: Array.isArray(s.disabledLanguages)
      ? s.disabledLanguages
          .filter((l): l is string => typeof l === 'string')
          .map(l => l.toLowerCase())
      : [...d.disabledLanguages],
    maxPrefixChars: count(s.maxPrefixChars, d.maxPrefixChars),
    maxSuffixChars: count(s.maxSuffixChars, d.maxSuffixChars),
    cellContext: pick(s.cellContext, ['above-and-below', 'above', 'below', 'none'], d.cellContext),
    maxContextCells: count(s.maxContextCells, d.maxContextCells),
    maxContextChars: count(s.maxContextChars, d.maxContextChars),
    openDocuments: typeof s.openDocuments === 'boolean' ? s.openDocuments : d.openDocuments,
    maxOpenDocuments: count(s.maxOpenDocuments, d.maxOpenDocuments),
    maxDocumentChars: count(s.maxDocumentChars, d.maxDocumentChars),
    notifyErrors: typeof s.notifyErrors === 'boolean' ? s.notifyErrors : d.notifyErrors,
    cellOutputs: typeof s.cellOutputs === 'boolean' ? s.cellOutputs : d.cellOutputs,
    kernelCandidates:
      typeof s.kernelCandidates === 'boolean' ? s.kernelCandidates : d.kernelCandidates,
    editPredictions: pick(s.editPredictions, ['off', 'manual', 'auto'], d.editPredictions),
    recordUsage: typeof s.recordUsage === 'boolean' ? s.recordUsage : d.recordUsage,
    usageSamples: typeof s.usageSamples === 'boolean' ? s.usageSamples : d.usageSamples,
    usageKeptWindows: windows(s.usageKeptWindows, d.usageKeptWindows),
    restraint: pick(s.restraint, ['off', 'on', 'more', 'less'], d.restraint)
  };
}

/**
 * Whether completions are on for a language (any of its names: a list holding `objectivec`
 * turns off `objective-c`).
 */
export function isLanguageEnabled(settings: ISettings, language: string | null): boolean {
  if (!language) {
    return true;
  }
  const id = languageId(language);
  return !settings.disabledLanguages.some(l => languageId(l) === id);
}

/**
 * The disabled-language list after switching one language on or off.
 */
export function disabledLanguagesWith(
  disabled: ReadonlyArray<string>,
  language: string,
  enable: boolean
): string[] {
  const name = languageId(language);
  const rest = disabled.filter(l => languageId(l) !== name);
  return enable ? rest : [...rest, name];
}

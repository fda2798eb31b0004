/**
 * What the notebook's kernel knows at the cursor.
 *
 * When the cursor follows `name.`, `name[`, `name["` or `name(`, the kernel is asked with the
 * standard `complete_request` (what Tab completion sends: no code of ours runs in the kernel)
 * for what it completes there: a DataFrame's columns, an object's attributes, a function's
 * keyword arguments. The answer goes with the request as `kernel_candidates`.
 *
 * It never delays a request for long: a kernel that is not idle and connected (busy, starting,
 * dead), of another language, or still answering an earlier question is skipped at once; an
 * answer is awaited at most `timeBudgetMs` (a late answer still fills the cache for the next
 * keystroke; a kernel that fails or never answers is left alone for `cooldownMs`). Answers are
 * cached per kernel and expression until the kernel runs code again.
 */
import { languageId } from './languagetable';
import { IKernelCandidate, IKernelCandidates } from '../connection/protocol';
import { textKind } from './syntax';

/**
 * The part of a kernel connection used here (`Kernel.IKernelConnection` has it).
 */
export interface IKernelLike {
  readonly id: string;
  readonly status: string;
  readonly connectionStatus?: string;
  readonly info?: Promise<{ language_info?: { name?: string } }>;
  requestComplete(content: { code: string; cursor_pos: number }): Promise<{
    content: {
      status: string;
      matches?: string[];
      cursor_start?: number;
      cursor_end?: number;
      metadata?: { [key: string]: unknown };
    };
  }>;
  readonly iopubMessage?: {
    connect(
      slot: (sender: any, msg: { header: { msg_type: string }; content?: unknown }) => void
    ): boolean;
  };
}

/**
 * A trigger: what the text before the cursor must end with for a language.
 */
interface ITrigger {
  /** Matches the end of the cursor's line: group 1 is the expression to complete. */
  pattern: RegExp;
}

/**
 * Languages whose kernels are asked, and what ends an expression worth asking about (data:
 * add a language here). Group 1: the text up to and including the trigger (`df[`, `df["`,
 * `obj.attr.`, `f(`); whatever identifier follows is what the user is typing.
 */
const TRIGGERS: { [language: string]: ITrigger } = {
  python: {
    pattern:
      /((?:^|[^\w.])[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*(?:\.|\[\s*["']?|\(\s*(?:[\w.]+\s*=\s*[^,()]*,\s*)*))[A-Za-z_]?\w*$/
  }
};

/**
 * Tunables (milliseconds and counts).
 */
export namespace KernelLimits {
  /** How long a request waits for the kernel's answer. */
  export const timeBudgetMs = 250;
  /** How long a kernel that missed the budget is left alone. */
  export const cooldownMs = 15000;
  /** Candidates sent. */
  export const maxCandidates = 40;
  /** Characters of a candidate. */
  export const maxCandidateChars = 200;
  /** Characters of the cursor's line sent to the kernel. */
  export const maxLineChars = 2000;
  /** Characters of the expression (longer ones are not asked about; the protocol's limit). */
  export const maxExpressionChars = 200;
}

/**
 * The expression before the cursor that the kernel should complete, or null (also inside a
 * string literal or a comment, `textKind`: a docstring's lines too).
 *
 * @param prefix - the cell's text up to the cursor (its last line is the one asked about)
 */
export function triggerExpression(
  prefix: string,
  language: string | null
): { expression: string; code: string; typed: string } | null {
  const line = prefix.slice(prefix.lastIndexOf('\n') + 1).slice(-KernelLimits.maxLineChars);
  const trigger = language ? TRIGGERS[language] : undefined;
  const match = trigger ? trigger.pattern.exec(line) : null;
  if (!match) {
    return null;
  }
  const typed = match[0].slice(match[1].length);
  const code = line.slice(0, line.length - typed.length);
  const expression = match[1].replace(/^[^\w]/, '');
  // the text before the expression: `print("a.` is inside a string, `# see df.` a comment,
  // `def f(` and `class C(` define names the kernel does not know yet
  const before = code.slice(0, code.length - expression.length);
  if (
    expression.length > KernelLimits.maxExpressionChars ||
    textKind(prefix, prefix.length - line.length + before.length, language) !== 'code' ||
    /\b(?:def|class)\s+$/.test(before)
  ) {
    return null;
  }
  return { expression, code, typed };
}

function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xd800 || code > 0xdbff) {
      n++;
    }
  }
  return n;
}

// Kernel types of data (columns, attributes holding values), shown before methods after `name.`.
const DATA_TYPES = new Set(['instance', 'statement', 'dict key', 'property', 'param']);

/**
 * The candidates of a `complete_reply`: private (`_`) names left out, the completed expression cut
 * off, distinct, at most `KernelLimits.maxCandidates`, with the types the kernel gave. After
 * `name(` only keyword arguments (`sep=`) are kept (the rest is every name in scope); after
 * `name.` data attributes (a DataFrame's columns) come before methods.
 */
export function candidatesFromReply(
  content: {
    status: string;
    matches?: string[];
    metadata?: { [key: string]: unknown };
  },
  expression = ''
): IKernelCandidate[] {
  if (content.status !== 'ok' || !Array.isArray(content.matches)) {
    return [];
  }
  const types = new Map<string, string>();
  const experimental = content.metadata?._jupyter_types_experimental;
  if (Array.isArray(experimental)) {
    for (const item of experimental) {
      if (item && typeof item.text === 'string' && typeof item.type === 'string') {
        types.set(item.text, item.type);
      }
    }
  }
  const call = /\(\s*$/.test(expression) || /,\s*$/.test(expression);
  let matches = content.matches.filter(
    (m): m is string => typeof m === 'string' && (!call || /^\w+=$/.test(m))
  );
  if (expression.endsWith('.')) {
    const data = (m: string) => (DATA_TYPES.has(types.get(m) ?? '') ? 0 : 1);
    matches = matches
      .map((m, i) => ({ m, i }))
      .sort((a, b) => data(a.m) - data(b.m) || a.i - b.i)
      .map(({ m }) => m);
  }
  const seen = new Set<string>();
  const out: IKernelCandidate[] = [];
  for (const match of matches) {
    // IPython may answer `df.price` where jedi answers `price`: keep the part after the dot
    const text = match
      .replace(/^.*\.(?=[A-Za-z_]\w*$)/, '')
      .slice(0, KernelLimits.maxCandidateChars);
    if (!text.trim() || seen.has(text) || text.startsWith('_')) {
      continue;
    }
    seen.add(text);
    const type = types.get(match);
    out.push(type ? { text, type: type.slice(0, 64) } : { text });
    if (out.length >= KernelLimits.maxCandidates) {
      break;
    }
  }
  return out;
}

/**
 * Asks kernels for candidates, with a time budget, a cooldown and a cache per kernel.
 */
export class KernelCompleter {
  constructor(options: KernelCompleter.IOptions = {}) {
    this._timeBudgetMs = options.timeBudgetMs ?? KernelLimits.timeBudgetMs;
    this._cooldownMs = options.cooldownMs ?? KernelLimits.cooldownMs;
    this._now = options.now ?? (() => Date.now());
  }

  /**
   * The kernel's candidates for the expression before the cursor, or null (no trigger, no
   * usable kernel, no answer in time). Answers at once (not a promise) when the kernel is not
   * asked: no trigger, a cached answer, a kernel that is skipped; a promise only while a
   * question is out, settled within the time budget. Never throws or rejects.
   *
   * @param kernel - the notebook's or console's kernel
   * @param prefix - the text of the cell before the cursor
   * @param language - the cell's language
   */
  candidates(
    kernel: IKernelLike | null | undefined,
    prefix: string,
    language: string | null
  ): IKernelCandidates | null | Promise<IKernelCandidates | null> {
    const trigger = triggerExpression(prefix, language);
    if (!kernel || !trigger) {
      return null;
    }
    return this._complete(kernel, trigger, language);
  }

  /**
   * The names the kernel knows that start with `prefix` (an identifier), as `candidates` answers
   * (same time budget, cooldown and cache): for an error that names a missing name.
   */
  names(
    kernel: IKernelLike | null | undefined,
    prefix: string,
    language: string | null
  ): IKernelCandidates | null | Promise<IKernelCandidates | null> {
    if (!kernel || !language || !TRIGGERS[language] || !/^[A-Za-z_]\w{0,99}$/.test(prefix)) {
      return null;
    }
    return this._complete(kernel, { expression: prefix, code: prefix, typed: prefix }, language);
  }

  private _complete(
    kernel: IKernelLike,
    question: { expression: string; code: string; typed: string },
    language: string | null
  ): IKernelCandidates | null | Promise<IKernelCandidates | null> {
    const { expression, code, typed } = question;
    const state = this._state(kernel);
    const cached = state.cache.get(code);
    if (cached) {
      return Private.result(expression, cached, typed);
    }
    if (
      this._now() < state.quietUntil ||
      (state.language !== null && state.language !== language) ||
      kernel.status !== 'idle' ||
      (kernel.connectionStatus !== undefined && kernel.connectionStatus !== 'connected')
    ) {
      return null;
    }
    // one question at a time: quiet until this one is answered (a kernel that fails or never
    // answers stays quiet for the cooldown); a late answer still fills the cache
    state.quietUntil = this._now() + this._cooldownMs;
    const answer = this._ask(kernel, state, code, expression, language);
    answer.catch(() => undefined);
    return this._within(answer).then(
      items =>
        items === Private.TIMEOUT || !items ? null : Private.result(expression, items, typed),
      () => null
    );
  }

  /**
   * Prime the kernel's completer, once in the kernel's life (again after a restart): one
   * `complete_request` for empty code, its answer dropped. IPython's first completion in a
   * kernel takes far longer than the time budget (0.7 s here for empty code, 6 s for `df[` with
   * pandas loaded) and later ones ~20–90 ms, so without this the first `df[` a user types
   * carries no candidates. Called when a notebook's kernel is idle; skipped for a kernel that
   * is busy, disconnected, of another language or in its cooldown.
   */
  prime(kernel: IKernelLike | null | undefined, language: string | null): void {
    if (!kernel || !language || !TRIGGERS[language]) {
      return;
    }
    const state = this._state(kernel);
    if (
      state.primed ||
      this._now() < state.quietUntil ||
      (state.language !== null && state.language !== language) ||
      kernel.status !== 'idle' ||
      (kernel.connectionStatus !== undefined && kernel.connectionStatus !== 'connected')
    ) {
      return;
    }
    state.primed = true;
    // one question at a time: a question meanwhile would queue behind this one in the kernel
    state.quietUntil = this._now() + this._cooldownMs;
    void (async () => {
      try {
        if (!(await this._speaks(kernel, state, language))) {
          return;
        }
        await kernel.requestComplete({ code: '', cursor_pos: 0 });
        state.quietUntil = 0;
      } catch {
        // a kernel that fails stays quiet for the cooldown
      }
    })();
  }

  private async _ask(
    kernel: IKernelLike,
    state: Private.IKernelState,
    code: string,
    expression: string,
    language: string | null
  ): Promise<IKernelCandidate[] | null> {
    if (!(await this._speaks(kernel, state, language))) {
      return null; // a kernel of another language: never asked again
    }
    const reply = await kernel.requestComplete({ code, cursor_pos: codePoints(code) });
    const items = candidatesFromReply(reply.content, expression);
    state.cache.set(code, items);
    state.quietUntil = 0;
    return items;
  }

  /**
   * Whether the kernel speaks the cell's language (learned from its info once, remembered).
   */
  private async _speaks(
    kernel: IKernelLike,
    state: Private.IKernelState,
    language: string | null
  ): Promise<boolean> {
    const info = kernel.info ? await kernel.info : null;
    const raw = info?.language_info?.name;
    const name = raw ? languageId(raw) : null;
    if (name) {
      state.language = name;
    }
    return !name || name === language;
  }

  private _within<T>(promise: Promise<T>): Promise<T | typeof Private.TIMEOUT> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<typeof Private.TIMEOUT>(resolve => {
      timer = setTimeout(() => resolve(Private.TIMEOUT), this._timeBudgetMs);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }

  private _state(kernel: IKernelLike): Private.IKernelState {
    let state = this._states.get(kernel);
    if (!state) {
      const fresh: Private.IKernelState = {
        quietUntil: 0,
        language: null,
        cache: new Map(),
        primed: false
      };
      // what the kernel knows changes when it runs code: forget its answers then; a restarted
      // kernel is a new one (its completer cold again)
      kernel.iopubMessage?.connect((_, msg) => {
        if (msg.header.msg_type === 'execute_input') {
          fresh.cache.clear();
        } else if (
          msg.header.msg_type === 'status' &&
          (msg.content as { execution_state?: string } | undefined)?.execution_state === 'starting'
        ) {
          fresh.cache.clear();
          fresh.primed = false;
        }
      });
      this._states.set(kernel, fresh);
      state = fresh;
    }
    return state;
  }

  private _timeBudgetMs: number;
  private _cooldownMs: number;
  private _now: () => number;
  private _states = new WeakMap<IKernelLike, Private.IKernelState>();
}

/**
 * A namespace for KernelCompleter statics.
 */
export namespace KernelCompleter {
  /**
   * Options (tests shorten the time budget and move the clock).
   */
  export interface IOptions {
    timeBudgetMs?: number;
    cooldownMs?: number;
    now?: () => number;
  }
}

namespace Private {
  export const TIMEOUT = Symbol('timeout');

  export interface IKernelState {
    quietUntil: number;
    language: string | null;
    cache: Map<string, IKernelCandidate[]>;
    /** Whether the kernel's completer was primed since the kernel started. */
    primed: boolean;
  }

  /**
   * The candidates that still match what the user typed after the trigger.
   */
  export function result(
    expression: string,
    items: IKernelCandidate[],
    typed: string
  ): IKernelCandidates | null {
    const lower = typed.toLowerCase();
    const matching = items.filter(item =>
      item.text.replace(/^["']/, '').toLowerCase().startsWith(lower)
    );
    return matching.length ? { expression, items: matching } : null;
  }
}

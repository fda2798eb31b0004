/**
 * Saying when the model is too slow (issue 29): the time from asking to the first text shown,
 * over the last few suggestions; once its median passes a threshold the status item says so,
 * once, with what helps.
 */

/**
 * The median time to show (ms) past which the model is called slow.
 */
export const SLOW_MEDIAN_MS = 1500;

/**
 * How many of the last suggestions the median is taken over (and at least how many it needs).
 */
export const SLOW_WINDOW = 8;
export const SLOW_MINIMUM = 5;

/**
 * Watches the time to show of suggestions.
 */
export class SlowModelWatch {
  constructor(options: { threshold?: number; window?: number; minimum?: number } = {}) {
    this._threshold = options.threshold ?? SLOW_MEDIAN_MS;
    this._window = options.window ?? SLOW_WINDOW;
    this._minimum = options.minimum ?? SLOW_MINIMUM;
  }

  /**
   * The median (ms) that made it trip, or null while it has not.
   */
  get slowMedian(): number | null {
    return this._tripped;
  }

  /**
   * One suggestion's time to show; true the one time the median passes the threshold.
   */
  record(ms: number): boolean {
    this._times = [...this._times, ms].slice(-this._window);
    if (this._tripped !== null || this._times.length < this._minimum) {
      return false;
    }
    const median = medianOf(this._times);
    if (median <= this._threshold) {
      return false;
    }
    this._tripped = median;
    return true;
  }

  private _threshold: number;
  private _window: number;
  private _minimum: number;
  private _times: number[] = [];
  private _tripped: number | null = null;
}

/**
 * The median of a non-empty list.
 */
export function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

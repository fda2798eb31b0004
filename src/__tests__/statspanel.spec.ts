import { nullTranslator } from '@jupyterlab/translation';

import { IUsageGroup, IUsageSummary, keptNote, usageCharts } from '../usage/statspanel';

const group = (fields: Partial<IUsageGroup>): IUsageGroup =>
  ({ shown: 1, accepted: 1, accept_rate: 1, kept_chars: 5, kept_per_hour: 10, ...fields }) as any;

describe('usageCharts', () => {
  it('draws models side by side and over days, each chart from its part of the summary', () => {
    const perDay = [
      group({ day: '2026-11-30', model: 'a', kept_per_hour: 100, accept_rate: 0.5 }),
      group({ day: '2026-12-01', model: 'a', kept_per_hour: 120, accept_rate: 0.6 }),
      group({ day: '2026-12-01', model: 'b', kept_per_hour: 40, accept_rate: 0.2 })
    ];
    const byModel = [group({ model: 'a' }), group({ model: 'b' })];
    const summary = {
      per_day: perDay,
      by_model: byModel,
      by_trigger: [group({ trigger: 'typing' })],
      by_language: [group({ language: 'python' })],
      latency_histogram: []
    } as unknown as IUsageSummary;
    const charts = usageCharts(summary, nullTranslator.load('jupyter_codecomplete'));
    const byId = new Map(charts.map(c => [c.id, c.spec as any]));
    expect([...byId.keys()]).toEqual([
      'kept-per-hour',
      'acceptance-over-time',
      'acceptance-by-model',
      'acceptance-by-trigger',
      'acceptance-by-language',
      'latency',
      'per-model'
    ]);
    for (const id of ['kept-per-hour', 'acceptance-over-time']) {
      const spec = byId.get(id);
      expect(spec.data.values).toBe(perDay);
      expect(spec.encoding.x.field).toBe('day');
      expect(spec.encoding.color.field).toBe('model');
    }
    expect(byId.get('kept-per-hour').encoding.y.field).toBe('kept_per_hour');
    expect(byId.get('acceptance-over-time').encoding.y.field).toBe('accept_rate');
    expect(byId.get('acceptance-by-model').data.values).toBe(byModel);
    expect(byId.get('acceptance-by-model').encoding.x.field).toBe('model');
    expect(byId.get('acceptance-by-trigger').encoding.x.field).toBe('trigger');
    expect(byId.get('acceptance-by-trigger').encoding.color).toBeUndefined();
    for (const spec of byId.values()) {
      expect(spec.$schema).toContain('vega-lite/v5');
      // as wide as its box, whatever the panel's width (Notebook 7's sidebar is ~311 px)
      expect(spec.width).toBe('container');
      expect(spec.autosize).toMatchObject({ type: 'fit', contains: 'padding' });
      expect(spec.mark).toBeTruthy();
    }
  });

  it('orders the time-to-show bins by their start, whatever the models in each', () => {
    // two models in the 300–500 bin, one in 750–1000: summed, 3 + 3 > 5 put 300–500 last
    const histogram = [
      { model: 'a', bin: '200-300 ms', order: 2, low_ms: 200, high_ms: 300, count: 4 },
      { model: 'a', bin: '300-500 ms', order: 3, low_ms: 300, high_ms: 500, count: 2 },
      { model: 'b', bin: '300-500 ms', order: 3, low_ms: 300, high_ms: 500, count: 1 },
      { model: 'b', bin: '750-1000 ms', order: 5, low_ms: 750, high_ms: 1000, count: 1 }
    ];
    const summary = {
      per_day: [],
      by_model: [],
      by_trigger: [],
      by_language: [],
      latency_histogram: histogram
    } as unknown as IUsageSummary;
    const spec = usageCharts(summary, nullTranslator.load('jupyter_codecomplete')).find(
      c => c.id === 'latency'
    )!.spec as any;
    const sort = spec.encoding.x.sort;
    expect(sort).toEqual({ field: 'order', op: 'min' });
    // the order the sort gives: each bin by the min of its rows' `order`
    const key = new Map<string, number>();
    for (const row of spec.data.values as typeof histogram) {
      key.set(row.bin, Math.min(key.get(row.bin) ?? Infinity, row[sort.field as 'order']));
    }
    const bins = [...key.keys()].sort((x, y) => key.get(x)! - key.get(y)!);
    expect(bins).toEqual(['200-300 ms', '300-500 ms', '750-1000 ms']);
  });

  it('draws edit predictions per next-edit format when there are some', () => {
    const byFormat = [group({ style: 'zeta1' }), group({ style: 'instinct', accept_rate: 0.5 })];
    const base = {
      per_day: [],
      by_model: [],
      by_trigger: [],
      by_language: [],
      latency_histogram: []
    };
    const trans = nullTranslator.load('jupyter_codecomplete');
    const ids = (summary: object) => usageCharts(summary as IUsageSummary, trans).map(c => c.id);
    expect(ids(base)).not.toContain('acceptance-by-style'); // an older server, or none yet
    expect(ids({ ...base, by_edit_format: [] })).not.toContain('acceptance-by-style');
    const charts = usageCharts(
      { ...base, by_edit_format: byFormat } as unknown as IUsageSummary,
      trans
    );
    const spec = charts.find(c => c.id === 'acceptance-by-style')?.spec as any;
    expect(spec.data.values).toBe(byFormat);
    expect(spec.encoding.x.field).toBe('style');
  });
});

describe('keptNote', () => {
  const trans = nullTranslator.load('jupyter_codecomplete');
  it('says how many kept figures were counted when their tab closed before 30 s', () => {
    const note = keptNote(group({ kept_at_close: 2, kept_at_close_chars: 31 }), trans);
    expect(note).toContain('Kept: characters still in the document 5 minutes');
    expect(note).toContain(
      'For 2 suggestions whose tab closed within 30 seconds of the accept, what was still there at close is counted (31 characters).'
    );
    expect(keptNote(group({ kept_at_close: 1, kept_at_close_chars: 4 }), trans)).toContain(
      'For 1 suggestion whose tab'
    );
  });

  it('says nothing of it when none was', () => {
    expect(keptNote(group({ kept_at_close: 0 }), trans)).not.toContain('closed');
    expect(keptNote(group({}), trans)).not.toContain('closed');
  });
});

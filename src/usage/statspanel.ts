/**
 * "Code Suggestions — Statistics": what became of the suggestions (GET api/codecomplete/usage),
 * as figures, tables and Vega-Lite plots drawn by JupyterLab's own Vega renderer (the
 * `application/vnd.vegalite.v5+json` MIME renderer of the rendermime registry). Without that
 * renderer (an application that leaves it out) the tables still show.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { IRenderMimeRegistry, MimeModel } from '@jupyterlab/rendermime';
import { ServerConnection } from '@jupyterlab/services';
import { ITranslator, nullTranslator, TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

/**
 * The REST route of the aggregates.
 */
export const USAGE_PATH = 'api/codecomplete/usage';

/**
 * The MIME type of Vega-Lite 5 specs.
 */
export const VEGALITE_MIME = 'application/vnd.vegalite.v5+json';

/**
 * One group of the summary (everything, or one model, trigger, language, line kind, accept kind,
 * next-edit format or day): the field that names the group is set, the others null.
 */
export interface IUsageGroup {
  model?: string | null;
  trigger?: string | null;
  language?: string | null;
  line_kind?: string | null;
  accept_kind?: string | null;
  style?: string | null;
  day?: string | null;
  shown: number;
  accepted: number;
  typed_through: number;
  dismissed: number;
  ignored: number;
  accept_rate: number | null;
  shown_chars: number;
  accepted_chars: number;
  kept_chars: number;
  kept_30s_chars: number;
  kept_5m_chars: number;
  /**
   * How many kept figures were counted when their tab closed before the 30 s window ended, and
   * their characters.
   */
  kept_at_close?: number;
  kept_at_close_chars?: number;
  kept_ratio: number | null;
  editing_hours: number;
  kept_per_hour: number | null;
  latency_p50_ms: number | null;
  latency_p90_ms: number | null;
}

/**
 * One bar of the time-to-show histogram: a model's suggestions in `[low_ms, high_ms)`.
 */
export interface ILatencyBin {
  model: string;
  bin: string;
  order: number;
  low_ms: number;
  high_ms: number | null;
  count: number;
}

/**
 * The answer of GET api/codecomplete/usage.
 */
export interface IUsageSummary {
  recording: boolean;
  path: string | null;
  problem: string | null;
  generated_at: number;
  first_shown_at: number | null;
  last_shown_at: number | null;
  total: IUsageGroup;
  by_model: IUsageGroup[];
  by_trigger: IUsageGroup[];
  by_language: IUsageGroup[];
  by_line_kind: IUsageGroup[];
  by_accept_kind: IUsageGroup[];
  /**
   * Edit predictions per next-edit format the model was asked in (`style`); absent from an
   * older server.
   */
  by_edit_format?: IUsageGroup[];
  latency_histogram: ILatencyBin[];
  per_day: IUsageGroup[];
  /**
   * The user's pause before taking a suggestion, by line kind (ms).
   */
  accept_pauses?: Record<string, number>;
  /**
   * What each restraint level would have changed on these suggestions (`usage/preview.py`);
   * absent from an older server.
   */
  restraint?: IRestraintPreview[];
}

/**
 * One level of the restraint preview: the suggestions at the places it skips or holds.
 */
export interface IRestraintPreview {
  level: string;
  verb: 'skips' | 'holds';
  events: number;
  /**
   * The gate learns once there are this many automatic suggestions.
   */
  min_events: number;
  shown: number;
  kept_chars: number;
  affected_shown: number;
  affected_kept_chars: number;
  lost_kept_chars: number;
  shown_ratio: number | null;
  kept_ratio: number | null;
}

/**
 * One chart of the panel: an id (the Galata tests find it by), a title and a Vega-Lite spec.
 */
export interface IUsageChart {
  id: string;
  title: string;
  spec: Record<string, unknown>;
}

/**
 * A chart of `values`: the panel's size and schema, one mark, its encoding.
 */
function chart(
  id: string,
  title: string,
  values: unknown[],
  mark: string | Record<string, unknown>,
  encoding: Record<string, unknown>
): IUsageChart {
  return {
    id,
    title,
    spec: {
      $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
      // the width of its box, which the panel's width decides (Notebook 7's sidebar is ~311 px):
      // the legend and axes inside it, drawn again when the panel is resized
      width: 'container',
      autosize: { type: 'fit', contains: 'padding', resize: true },
      height: 180,
      data: { values },
      mark,
      encoding
    }
  };
}

/**
 * The Vega-Lite specs of the panel, from a summary (exposed for tests).
 */
export function usageCharts(summary: IUsageSummary, trans: TranslationBundle): IUsageChart[] {
  const model = { field: 'model', type: 'nominal', title: trans.__('Model') };
  const day = { field: 'day', type: 'ordinal', title: trans.__('Day') };
  const keptPerHour = {
    field: 'kept_per_hour',
    type: 'quantitative',
    title: trans.__('Kept / hour')
  };
  const acceptRate = {
    field: 'accept_rate',
    type: 'quantitative',
    title: trans.__('Accepted'),
    axis: { format: '%' }
  };
  const counts = [{ field: 'shown' }, { field: 'accepted' }, { field: 'kept_chars' }];
  const line = { type: 'line', point: true };
  // acceptance per group of `field` (trigger, language, model), one bar each
  const acceptance = (field: string, title: string, label: string, values: unknown[]) =>
    chart(`acceptance-by-${field}`, title, values, 'bar', {
      x: { field, type: 'nominal', title: label },
      y: acceptRate,
      ...(field === 'model' ? { color: { ...model, legend: null } } : {}),
      tooltip: counts
    });
  return [
    chart(
      'kept-per-hour',
      trans.__('Kept characters per hour of editing, per model'),
      summary.per_day,
      line,
      { x: day, y: keptPerHour, color: model, tooltip: [model, ...counts] }
    ),
    chart('acceptance-over-time', trans.__('Acceptance per model'), summary.per_day, line, {
      x: day,
      y: acceptRate,
      color: model,
      tooltip: [model, ...counts]
    }),
    acceptance('model', trans.__('Acceptance by model'), trans.__('Model'), summary.by_model),
    acceptance(
      'trigger',
      trans.__('Acceptance by trigger'),
      trans.__('Trigger'),
      summary.by_trigger
    ),
    acceptance(
      'language',
      trans.__('Acceptance by language'),
      trans.__('Language'),
      summary.by_language
    ),
    ...(summary.by_edit_format?.length
      ? [
          acceptance(
            'style',
            trans.__('Edit predictions accepted, by format'),
            trans.__('Next-edit format'),
            summary.by_edit_format
          )
        ]
      : []),
    chart('latency', trans.__('Time to show (per model)'), summary.latency_histogram, 'bar', {
      x: {
        field: 'bin',
        type: 'ordinal',
        // by the bin's start: Vega-Lite sorts a stacked bar's field by its sum over the bin's
        // rows (one per model) unless told otherwise, which put 750–1000 before 300–500
        sort: { field: 'order', op: 'min' },
        title: trans.__('Time to show')
      },
      xOffset: { field: 'model' },
      y: { field: 'count', type: 'quantitative', title: trans.__('Suggestions') },
      color: model
    }),
    chart('per-model', trans.__('Kept per hour, models side by side'), summary.by_model, 'bar', {
      x: model,
      y: keptPerHour,
      color: { ...model, legend: null },
      tooltip: [
        { field: 'shown' },
        { field: 'accept_rate', format: '.0%' },
        { field: 'kept_chars' },
        { field: 'latency_p50_ms' }
      ]
    })
  ];
}

function pct(x: number | null): string {
  return x === null ? '–' : `${Math.round(x * 100)}%`;
}

function num(x: number | null): string {
  return x === null ? '–' : Math.round(x).toLocaleString();
}

/**
 * What "kept" means, and (when some were) how many suggestions were counted when their tab closed
 * before the 30 s window ended.
 */
export function keptNote(total: IUsageGroup, trans: TranslationBundle): string {
  const meaning = trans.__(
    'Kept: characters still in the document 5 minutes after they were accepted (30 seconds while the 5 minutes are not over).'
  );
  const atClose = total.kept_at_close ?? 0;
  if (atClose <= 0) {
    return meaning;
  }
  return (
    meaning +
    ' ' +
    trans._n(
      'For %1 suggestion whose tab closed within 30 seconds of the accept, what was still there at close is counted (%2 characters).',
      'For %1 suggestions whose tab closed within 30 seconds of the accept, what was still there at close is counted (%2 characters).',
      atClose,
      total.kept_at_close_chars ?? 0
    )
  );
}

/**
 * The statistics panel.
 */
export class StatisticsPanel extends Widget {
  constructor(options: StatisticsPanel.IOptions) {
    super();
    this._rendermime = options.rendermime;
    this._serverSettings = options.serverSettings ?? ServerConnection.makeSettings();
    this._trans = (options.translator ?? nullTranslator).load('jupyter_codecomplete');
    this.id = 'jp-codecomplete-statistics';
    this.addClass('jp-CodeComplete-statistics');
    this.title.label = this._trans.__('Code Suggestions — Statistics');
    this.title.closable = true;
    const header = document.createElement('div');
    header.className = 'jp-CodeComplete-statistics-header';
    const refresh = document.createElement('button');
    refresh.className = 'jp-Button jp-mod-styled jp-mod-accept';
    refresh.textContent = this._trans.__('Refresh');
    refresh.onclick = () => void this.refresh();
    this._days = document.createElement('select');
    this._days.className = 'jp-CodeComplete-statistics-days';
    for (const [value, label] of [
      ['', this._trans.__('All time')],
      ['1', this._trans.__('Last day')],
      ['7', this._trans.__('Last 7 days')],
      ['30', this._trans.__('Last 30 days')]
    ]) {
      const option = document.createElement('option');
      option.value = value;
      option.textContent = label;
      this._days.appendChild(option);
    }
    this._days.onchange = () => void this.refresh();
    header.append(refresh, this._days);
    this._body = document.createElement('div');
    this._body.className = 'jp-CodeComplete-statistics-body';
    this.node.append(header, this._body);
  }

  /**
   * The summary shown, once loaded.
   */
  get summary(): IUsageSummary | null {
    return this._summary;
  }

  /**
   * Load the aggregates again and redraw.
   */
  async refresh(): Promise<void> {
    const days = this._days.value;
    const url =
      URLExt.join(this._serverSettings.baseUrl, USAGE_PATH) +
      (days ? `?days=${encodeURIComponent(days)}` : '');
    let summary: IUsageSummary;
    try {
      const response = await ServerConnection.makeRequest(url, {}, this._serverSettings);
      const body = await response.json();
      if (!response.ok) {
        throw new Error(body?.error?.message ?? response.statusText);
      }
      summary = body as IUsageSummary;
    } catch (reason) {
      this._body.textContent = this._trans.__('Could not load the statistics: %1', String(reason));
      return;
    }
    this._summary = summary;
    await this._render(summary);
  }

  protected onAfterAttach(): void {
    void this.refresh();
  }

  /**
   * Vega sizes a chart of the container's width on the window's resize event: tell it when the
   * panel's width changed (a sidebar dragged wider) and only then (the shell relays the event).
   */
  protected onResize(msg: Widget.ResizeMessage): void {
    super.onResize(msg);
    const width = this.node.clientWidth;
    if (width === this._drawnWidth || this._resizeFrame !== null) {
      return;
    }
    this._resizeFrame = requestAnimationFrame(() => {
      this._resizeFrame = null;
      this._drawnWidth = this.node.clientWidth;
      window.dispatchEvent(new Event('resize'));
    });
  }

  dispose(): void {
    if (this._resizeFrame !== null) {
      cancelAnimationFrame(this._resizeFrame);
      this._resizeFrame = null;
    }
    super.dispose();
  }

  private async _render(summary: IUsageSummary): Promise<void> {
    const trans = this._trans;
    const body = this._body;
    body.textContent = '';
    const t = summary.total;
    const figures = document.createElement('div');
    figures.className = 'jp-CodeComplete-statistics-figures';
    const figure = (name: string, label: string, value: string) => {
      const box = document.createElement('div');
      box.className = 'jp-CodeComplete-statistics-figure';
      box.dataset.figure = name;
      const v = document.createElement('div');
      v.className = 'jp-CodeComplete-statistics-value';
      v.textContent = value;
      const l = document.createElement('div');
      l.textContent = label;
      box.append(v, l);
      figures.appendChild(box);
    };
    figure('shown', trans.__('shown'), String(t.shown));
    figure('accepted', trans.__('accepted'), `${t.accepted} (${pct(t.accept_rate)})`);
    figure('typed_through', trans.__('typed through'), String(t.typed_through));
    figure('dismissed', trans.__('dismissed'), String(t.dismissed));
    figure('accepted_chars', trans.__('characters accepted'), num(t.accepted_chars));
    figure('kept_chars', trans.__('characters kept'), num(t.kept_chars));
    figure('kept_per_hour', trans.__('kept per hour of editing'), num(t.kept_per_hour));
    body.appendChild(figures);
    const note = document.createElement('p');
    note.className = 'jp-CodeComplete-statistics-note';
    note.textContent = summary.recording
      ? trans.__('Recorded on this machine only (%1).', summary.path ?? '') +
        ' ' +
        keptNote(t, trans)
      : trans.__('This server does not record usage (c.CodeCompleteApp.record_usage).');
    body.appendChild(note);
    if (summary.problem) {
      const problem = document.createElement('p');
      problem.className = 'jp-CodeComplete-statistics-problem';
      problem.textContent = summary.problem;
      body.appendChild(problem);
    }
    if (!t.shown) {
      return;
    }
    const canPlot =
      this._rendermime?.preferredMimeType({ [VEGALITE_MIME]: {} }, 'any') === VEGALITE_MIME;
    if (canPlot && this._rendermime) {
      const grid = document.createElement('div');
      grid.className = 'jp-CodeComplete-statistics-charts';
      body.appendChild(grid);
      for (const chart of usageCharts(summary, trans)) {
        const box = document.createElement('div');
        box.className = 'jp-CodeComplete-statistics-chart';
        box.dataset.chart = chart.id;
        const h = document.createElement('h3');
        h.textContent = chart.title;
        box.appendChild(h);
        grid.appendChild(box);
        const renderer = this._rendermime.createRenderer(VEGALITE_MIME);
        box.appendChild(renderer.node);
        try {
          await renderer.renderModel(
            new MimeModel({ data: { [VEGALITE_MIME]: chart.spec as any } })
          );
        } catch (reason) {
          box.appendChild(document.createTextNode(String(reason)));
        }
      }
    }
    for (const [key, title] of [
      ['model', trans.__('Per model')],
      ['trigger', trans.__('Per trigger')],
      ['language', trans.__('Per language')],
      ['line_kind', trans.__('Per kind of line')]
    ] as const) {
      body.appendChild(this._table(key, title, summary[`by_${key}`]));
    }
    const preview = summary.restraint ?? [];
    if (preview.length && preview[0].events && preview[0].events < preview[0].min_events) {
      const note = document.createElement('p');
      note.className = 'jp-CodeComplete-statistics-note';
      note.dataset.note = 'restraint';
      note.textContent = trans.__(
        'Restraint learns from your automatic suggestions once there are %1 (%2 so far).',
        preview[0].min_events,
        preview[0].events
      );
      body.appendChild(note);
    } else if (preview.length && preview[0].events) {
      // a hold: at most its places' suggestions go, and its cost is an estimate
      const shown = (p: IRestraintPreview) =>
        p.verb === 'holds' ? trans.__('at least %1', pct(p.shown_ratio)) : pct(p.shown_ratio);
      const kept = (p: IRestraintPreview) =>
        p.verb === 'holds' ? trans.__('about %1', pct(p.kept_ratio)) : pct(p.kept_ratio);
      const section = Private.table(
        'restraint',
        trans.__('Restraint, on your last %1 automatic suggestions', preview[0].events),
        [
          trans.__('level'),
          trans.__('at its places'),
          trans.__('shown'),
          trans.__('kept chars'),
          trans.__('left: shown'),
          trans.__('left: kept')
        ],
        preview.map(p => [
          p.level,
          p.verb === 'holds' ? trans.__('holds') : trans.__('skips'),
          String(p.affected_shown),
          num(p.affected_kept_chars),
          shown(p),
          kept(p)
        ])
      );
      const note = document.createElement('p');
      note.className = 'jp-CodeComplete-statistics-note';
      note.textContent = trans.__(
        'What each level would have changed here, the gate learned from the suggestions before each: a skipped place is not asked; a held one is asked after your usual pause, so what it costs is the suggestions you took sooner.'
      );
      section.appendChild(note);
      body.appendChild(section);
    }
  }

  private _table(key: keyof IUsageGroup, title: string, groups: IUsageGroup[]): HTMLElement {
    const trans = this._trans;
    const heads = [
      '',
      trans.__('shown'),
      trans.__('accepted'),
      trans.__('typed through'),
      trans.__('dismissed'),
      trans.__('accepted chars'),
      trans.__('kept chars'),
      trans.__('kept / hour'),
      trans.__('p50 time to show')
    ];
    return Private.table(
      key,
      title,
      heads,
      groups.map(g => [
        String(g[key] ?? '?'),
        String(g.shown),
        `${g.accepted} (${pct(g.accept_rate)})`,
        String(g.typed_through),
        String(g.dismissed),
        num(g.accepted_chars),
        num(g.kept_chars),
        num(g.kept_per_hour),
        g.latency_p50_ms === null ? '–' : `${Math.round(g.latency_p50_ms)} ms`
      ])
    );
  }

  private _rendermime: IRenderMimeRegistry | null;
  private _serverSettings: ServerConnection.ISettings;
  private _trans: TranslationBundle;
  private _drawnWidth = -1;
  private _resizeFrame: number | null = null;
  private _days: HTMLSelectElement;
  private _body: HTMLElement;
  private _summary: IUsageSummary | null = null;
}

/**
 * A namespace for StatisticsPanel statics.
 */
export namespace StatisticsPanel {
  export interface IOptions {
    /**
     * The application's rendermime registry (its Vega-Lite renderer draws the plots).
     */
    rendermime: IRenderMimeRegistry | null;
    serverSettings?: ServerConnection.ISettings;
    translator?: ITranslator;
  }
}

namespace Private {
  /**
   * A titled table (`data-table` is its key, for the tests).
   */
  export function table(
    key: string,
    title: string,
    heads: string[],
    rows: string[][]
  ): HTMLElement {
    const section = document.createElement('div');
    const h = document.createElement('h3');
    h.textContent = title;
    const table = document.createElement('table');
    table.className = 'jp-CodeComplete-statistics-table';
    table.dataset.table = key;
    const row = (cells: string[], tag: 'th' | 'td') => {
      const tr = document.createElement('tr');
      for (const c of cells) {
        const cell = document.createElement(tag);
        cell.textContent = c;
        tr.appendChild(cell);
      }
      return tr;
    };
    table.appendChild(row(heads, 'th'));
    for (const cells of rows) {
      table.appendChild(row(cells, 'td'));
    }
    // a narrow panel scrolls a wide table, not the whole panel
    const scroll = document.createElement('div');
    scroll.className = 'jp-CodeComplete-statistics-tableScroll';
    scroll.append(table);
    section.append(h, scroll);
    return section;
  }
}

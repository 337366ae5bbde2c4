// The page's main-thread tasks, read from a Chrome trace (DevTools protocol): every task
// with its length, not only those over 50 ms as the Long Tasks API reports them, so that
// `make bench-web` can print the longest task of each scenario against its goal.
//
//   const trace = await MainThreadTrace.start(page);   // before the navigation, if wanted
//   await mark(page, 'scenario');  ...  await mark(page, 'scenario:end');
//   const tasks = await trace.stop();                   // [{ startMs, ms }]
//   longest(tasks, between(marks, 'scenario', 'scenario:end'))

/** Put a named instant on the trace's clock (a `performance.mark`). */
export async function mark(page, name) {
  await page.evaluate((n) => performance.mark(n), PREFIX + name);
}

/** Our marks, told from the navigation-timing marks every page has. */
const PREFIX = 'bench:';

export class MainThreadTrace {
  static async start(page) {
    const cdp = await page.context().newCDPSession(page);
    const t = new MainThreadTrace(cdp);
    await cdp.send('Tracing.start', {
      transferMode: 'ReportEvents',
      // `toplevel` has one event per task of every thread; user timing has the marks.
      traceConfig: { includedCategories: ['toplevel', 'blink.user_timing'], excludedCategories: ['*'] },
    });
    return t;
  }

  constructor(cdp) {
    this.cdp = cdp;
    this.events = [];
    cdp.on('Tracing.dataCollected', (d) => this.events.push(...d.value));
  }

  /** Stop; the renderer main thread's tasks and the page's marks (ms on one clock). */
  async stop() {
    const done = new Promise((r) => this.cdp.once('Tracing.tracingComplete', r));
    await this.cdp.send('Tracing.end');
    await done;
    await this.cdp.detach().catch(() => {});
    return tasksOf(this.events);
  }
}

/**
 * The tasks of the renderer main thread that holds the page's marks. Put one mark at
 * least: a new browser also runs pages of its own (Chrome's internal pages), and the
 * busiest renderer is not always the page's.
 */
export function tasksOf(events) {
  const marks = events.filter((e) => e.cat === 'blink.user_timing' && e.name.startsWith(PREFIX));
  const mains = events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const taskEvents = events.filter((e) => e.name === 'ThreadControllerImpl::RunTask' && e.ph === 'X');
  const busy = new Map();
  for (const e of taskEvents) busy.set(`${e.pid}:${e.tid}`, (busy.get(`${e.pid}:${e.tid}`) || 0) + e.dur);
  const markPids = new Set(marks.map((m) => m.pid));
  if (markPids.size === 0) throw new Error('no mark in the trace: which renderer is the page?');
  const candidates = mains
    .map((m) => `${m.pid}:${m.tid}`)
    .filter((k) => markPids.has(Number(k.split(':')[0])))
    .sort((a, b) => (busy.get(b) || 0) - (busy.get(a) || 0));
  if (!candidates.length) throw new Error('no renderer main thread in the trace');
  const [pid, tid] = candidates[0].split(':').map(Number);
  return {
    tasks: taskEvents
      .filter((e) => e.pid === pid && e.tid === tid)
      .map((e) => ({ startMs: e.ts / 1000, ms: e.dur / 1000 }))
      .sort((a, b) => a.startMs - b.startMs),
    marks: Object.fromEntries(marks.filter((m) => m.pid === pid).map((m) => [m.name.slice(PREFIX.length), m.ts / 1000])),
  };
}

/** The longest task that starts in [fromMs, toMs) (whole trace when not given). */
export function longest({ tasks }, fromMs = -Infinity, toMs = Infinity) {
  const inside = tasks.filter((t) => t.startMs >= fromMs && t.startMs < toMs);
  return {
    ms: inside.reduce((m, t) => Math.max(m, t.ms), 0),
    over50: inside.filter((t) => t.ms > 50).length,
    count: inside.length,
  };
}

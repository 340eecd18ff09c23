/**
 * The console's routes: read-only pages over GET, actions over POST behind the guards
 * (guards.ts). No route writes on a GET; every action passes a confirmation page first.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import type { LaneState, TaskClient, TaskRecord } from 'tasklane';
import { TasklaneError, TaskStatus, UnknownLaneError, ValidationError } from 'tasklane';
import { parseAction, parseConfirmed, perform, previewOf } from './actions.js';
import { serveAsset } from './assets.js';
import type { ChartSource } from './charts/chart-data.js';
import { recordChartSource } from './charts/record-charts.js';
import { refuseCrossSite } from './cross-site.js';
import { guardActions, loopbackHostOnly } from './guards.js';
import { findTasks, readListQuery } from './list-query.js';
import { liveHandler } from './live.js';
import { liveViews } from './live-views.js';
import { confirmPage, outcomePage, problemPage } from './pages/confirm.js';
import { deadPage } from './pages/dead.js';
import type { PageContext } from './pages/layout.js';
import { overviewPage } from './pages/overview.js';
import { parkedPage } from './pages/parked.js';
import { schedulesPage } from './pages/schedules.js';
import { malformedTaskPage, taskDetailPage, taskListPage, taskMissingPage } from './pages/tasks.js';
import { keyPreviewOf } from './pause-actions.js';
import { listTasks, readOverview, readParkedKeys, readScheduleViews } from './queries.js';
import { recordProblems } from './record-check.js';
import { sameOriginPath } from './safety.js';
import type { SearchPage } from './search.js';
import { ConsoleSession, requireSession } from './session.js';

/**
 * The largest form body accepted: a confirmation of the most tasks an action takes (100
 * ids of 128 characters, each percent-encoded at worst) fits with room to spare.
 */
export const MAX_FORM_BYTES = 64 * 1024;

/** What {@link createConsoleApp} needs. */
export interface ConsoleAppOptions {
  readonly client: TaskClient;
  /** The token every action form must carry. */
  readonly csrfToken: string;
  readonly readOnly: boolean;
  /** When set, every request must be signed in with it (session.ts); undefined: no auth. */
  readonly accessToken: string | undefined;
  /** When true (a loopback bind), requests must name a loopback host. */
  readonly loopbackOnly: boolean;
  /** @default Date.now */
  readonly clock?: () => number;
  /**
   * Where the overview's charts come from: CloudWatch on AWS, the task records on an
   * emulator. @default the task records, through `client`
   */
  readonly charts?: ChartSource;
  /**
   * How often a live page reads its data again, in ms (the task list and the schedules at a
   * few times this). @default 3000
   */
  readonly liveIntervalMs?: number;
}

/** Builds the console's Hono app; `startConsole` serves it. */
export function createConsoleApp(options: ConsoleAppOptions): Hono {
  const { client, readOnly } = options;
  const clock = options.clock ?? Date.now;
  const page = (): PageContext => ({ csrf: options.csrfToken, readOnly, now: clock() });
  const charts = options.charts ?? recordChartSource(client);
  const app = new Hono();
  app.use(
    secureHeaders({
      // Only the console's own files: no inline script or style, no other origin. The live
      // channel is an EventSource on the same origin (connect-src).
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
      // The console's own pages send their address (for "Go back" and Origin on a POST);
      // no other site learns it.
      referrerPolicy: 'same-origin',
    }),
  );
  app.use(async (c, next) => {
    await next();
    // Pages carry the CSRF token and task data: not for a shared cache or the back button.
    // The assets say their own.
    if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
  });
  app.use(
    bodyLimit({
      maxSize: MAX_FORM_BYTES,
      onError: (c) =>
        c.html(
          problemPage(page(), 'Form too large', [
            `a form of at most ${MAX_FORM_BYTES} bytes is accepted; select fewer tasks`,
          ]),
          413,
        ),
    }),
  );
  if (options.loopbackOnly) app.use(loopbackHostOnly(page));
  app.use(refuseCrossSite(page));
  // Before the session: the sign-in page needs the stylesheet, and no asset holds data.
  app.get('/assets/:name', serveAsset);
  if (options.accessToken !== undefined) {
    app.use(requireSession(new ConsoleSession(options.accessToken), page));
  }
  app.use(guardActions({ readOnly, csrf: options.csrfToken }, page));

  app.get('/', async (c) => {
    const now = clock();
    const [overview, drawn] = await Promise.all([
      readOverview(client, now),
      charts.lastHour(now).then(
        (data) => ({ data, problem: undefined }),
        (err: Error) => ({ data: undefined, problem: `${err.name}: ${err.message}` }),
      ),
    ]);
    return c.html(overviewPage(page(), overview, drawn));
  });

  app.get(
    '/live',
    liveHandler(
      liveViews({ client, charts, clock, page, intervalMs: options.liveIntervalMs ?? 3000 }),
    ),
  );

  app.get('/tasks', async (c) => {
    const { query, filter, problems } = readListQuery((n) => c.req.query(n), clock());
    let found: SearchPage | undefined;
    if (problems.length === 0) {
      try {
        found = await findTasks(client, query, filter);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        problems.push(...err.issues.map((i) => `${i.path || 'filter'}: ${i.message}`));
      }
    }
    return c.html(taskListPage(page(), query, found, problems), problems.length > 0 ? 400 : 200);
  });

  app.get('/tasks/:id', async (c) => {
    const id = c.req.param('id');
    let record: TaskRecord | undefined;
    try {
      record = await client.get(id);
    } catch (err) {
      // An id no task can have (a space, over 128 characters) names no task.
      if (err instanceof ValidationError) return c.html(taskMissingPage(page(), id), 404);
      // An SDK error is the SDK's to report; anything else is the stored item failing to
      // map (a payload that is not JSON, say): the record is what is wrong, so say so.
      if (err instanceof TasklaneError || isAwsError(err)) throw err;
      return c.html(
        malformedTaskPage(page(), id, [`${(err as Error).name}: ${(err as Error).message}`]),
        502,
      );
    }
    if (record === undefined) return c.html(taskMissingPage(page(), id), 404);
    const problems = recordProblems(record);
    if (problems.length > 0) return c.html(malformedTaskPage(page(), id, problems), 502);
    return c.html(taskDetailPage(page(), record));
  });

  app.get('/dead', async (c) => {
    const cursor = c.req.query('cursor') || undefined;
    const found = await listTasks(client, { status: TaskStatus.DEAD }, { limit: 50, cursor });
    return c.html(deadPage(page(), found, cursor));
  });

  app.get('/schedules', async (c) => {
    const { schedules, schedulesError } = await readScheduleViews(client);
    return c.html(schedulesPage(page(), schedules, schedulesError));
  });

  app.get('/parked', async (c) => {
    const { byLane, parkedError } = await readParkedKeys(client);
    return c.html(parkedPage(page(), byLane, parkedError));
  });

  app.get('/confirm', async (c) => {
    if (readOnly) {
      return c.html(
        problemPage(page(), 'Read-only console', [
          'actions are disabled: this console was started with --read-only',
        ]),
        403,
      );
    }
    const parsed = parseAction(c.req.query('action') ?? '', (n) => c.req.queries(n) ?? []);
    if ('problems' in parsed)
      return c.html(problemPage(page(), 'Nothing to confirm', parsed.problems), 400);
    const back = sameOriginPath(c.req.header('referer'), new URL(c.req.url).origin);
    const { action } = parsed;
    const preview = await previewOf(client, action, clock);
    const keyTasks =
      action.kind === 'pause-key' || action.kind === 'resume-key'
        ? await keyPreviewOf(client, action)
        : undefined;
    let laneState: LaneState | undefined;
    if (action.kind === 'pause-lane' || action.kind === 'resume-lane') {
      try {
        [laneState] = await client.laneStates([action.lane]);
      } catch (err) {
        if (!(err instanceof UnknownLaneError)) throw err;
        return c.html(
          problemPage(page(), 'Unknown lane', [
            `no lane is named "${action.lane}": the executor's lanes are ${err.known.join(', ')}`,
          ]),
          404,
        );
      }
    }
    return c.html(confirmPage(page(), action, back, preview, keyTasks, laneState));
  });

  app.post('/actions/:kind', async (c) => {
    const body = await c.req.parseBody({ all: true });
    const field = (name: string): string[] => {
      const v = body[name];
      const all = Array.isArray(v) ? v : v === undefined ? [] : [v];
      return all.filter((x): x is string => typeof x === 'string');
    };
    const parsed = parseConfirmed(c.req.param('kind'), field, clock());
    if ('problems' in parsed)
      return c.html(problemPage(page(), 'Action refused', parsed.problems), 400);
    const outcome = await perform(client, parsed.action, clock);
    return c.html(outcomePage(page(), outcome), outcome.failed ? 409 : 200);
  });

  app.notFound((c) =>
    c.html(
      problemPage(page(), 'Page not found', [`no page at ${new URL(c.req.url).pathname}`]),
      404,
    ),
  );
  app.onError((err, c) =>
    c.html(problemPage(page(), 'Something went wrong', [`${err.name}: ${err.message}`]), 500),
  );
  return app;
}

/** True for an error of an AWS call (it carries the SDK's `$metadata`). */
function isAwsError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && '$metadata' in err;
}

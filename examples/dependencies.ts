import * as z from 'zod';
import { createWorker, defineTask, TaskClient } from '../src/index.js';

// Fan-out: one task per page of a report.
export const renderPage = defineTask('renderPage', {
  schema: z.object({ reportId: z.string(), page: z.number().int() }),
  handler: async ({ reportId, page }) => ({ key: `reports/${reportId}/page-${page}.pdf` }),
});

// Fan-in: starts once every page has SUCCEEDED, and reads their results.
export const assembleReport = defineTask('assembleReport', {
  schema: z.object({ reportId: z.string() }),
  handler: async ({ reportId }, ctx) => {
    const pages = await ctx.parents();
    const keys = pages.map((page) => (page.result as { key: string }).key);
    ctx.logger.info('report assembled', { reportId, pages: keys.length });
    return { reportId, keys };
  },
});

// A chain: mail the report once it is assembled; still mail it if assembly died.
export const mailReport = defineTask('mailReport', {
  schema: z.object({ reportId: z.string(), to: z.string() }),
  handler: async ({ reportId, to }, ctx) => {
    const [assembly] = await ctx.parents();
    const attached = assembly?.status === 'SUCCEEDED';
    ctx.logger.info('report mailed', { reportId, to, attached });
  },
});

const client = new TaskClient();

export async function buildReport(reportId: string, pages: number, to: string): Promise<string> {
  const { entries, fanIn } = await client.enqueueFanIn(
    // Ids of your own make the whole call safe to repeat.
    Array.from({ length: pages }, (_, page) => ({
      task: renderPage,
      payload: { reportId, page },
      options: { id: `page-${reportId}-${page}` },
    })),
    {
      // biome-ignore lint/suspicious/noThenProperty: `then` is enqueueFanIn's option, no promise.
      then: {
        task: assembleReport,
        payload: { reportId },
        options: { id: `assemble-${reportId}` },
      },
    },
  );
  if (fanIn === undefined) {
    const failed = entries.filter((entry) => !entry.ok).length;
    throw new Error(`${failed} page(s) not enqueued; enqueue the report again to finish it`);
  }
  const mail = await client.enqueue(
    mailReport,
    { reportId, to },
    { id: `mail-${reportId}`, dependsOn: [fanIn.id], onParentDead: 'run' },
  );
  return mail.id;
}

export const worker = createWorker([renderPage, assembleReport, mailReport]);

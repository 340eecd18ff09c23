import type { Command } from 'commander';
import { DEFAULT_LANE } from 'tasklane';
import { commandContext, positiveInt } from '../context.js';
import { humanDuration, isoTime } from '../output.js';

/** `tasklane dlq peek`: dead-letter messages, not consumed. */
export function registerDlq(program: Command): void {
  const dlq = program.command('dlq').description('the dead-letter queue');
  dlq
    .command('peek')
    .description('show dead-letter messages without consuming them (each peek counts as a receive)')
    .option('--limit <n>', 'messages to show, 1 to 1000', positiveInt('--limit', 1000), 20)
    .action(async (opts: { limit: number }, command: Command) => {
      const { out, client } = commandContext(command);
      const messages = await (await client()).deadLetters.peek({ limit: opts.limit });
      if (out.json) {
        out.data(messages);
        return;
      }
      if (messages.length === 0) {
        out.line('The dead-letter queue is empty.');
        return;
      }
      const now = Date.now();
      // Each lane has its own DLQ (docs/lanes.md); the column appears once there are lanes.
      const lanes = messages.some((m) => m.lane !== DEFAULT_LANE);
      out.table(
        ['task', 'type', ...(lanes ? ['lane'] : []), 'group', 'sent', 'age', 'receives', 'message'],
        messages.map((m) => [
          m.taskId ?? out.color.red(`not a task message: ${m.invalidReason ?? ''}`),
          m.type ?? '',
          ...(lanes ? [m.lane] : []),
          m.messageGroupId ?? '',
          isoTime(m.sentAt),
          m.sentAt === undefined ? '' : humanDuration(now - m.sentAt),
          String(m.receiveCount),
          m.messageId,
        ]),
      );
      out.note(
        'Next: tasklane show <task> to see why it died; tasklane redrive --ids <task> to run it again.',
      );
    });
}

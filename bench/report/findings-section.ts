/** What the run found in src/ that costs requests, dollars or bytes, with the saving of each fix. */
import { PRICES } from '../prices.js';
import { successfulCost } from './analysis.js';
import { kb, num, usd } from './markdown.js';
import type { BenchResults } from './results.js';

/** The section's Markdown. */
export function findingsSection(results: BenchResults): string {
  const t = successfulCost(results, 'tasklane').median.tally;
  const sum = (pick: (x: (typeof t)[string]) => number) =>
    Object.values(t).reduce((s, x) => s + pick(x), 0);
  const indexUnits = sum((x) => x.indexWriteUnits);
  const tableUnits = sum((x) => x.writeUnits);
  const wru = PRICES.dynamodbPerMillionWriteUnits;
  const zod = results.pkg.bundles.worker.contributors.find((c) => c.name === 'zod')?.bytes ?? 0;
  return [
    '## Findings in src/',
    '',
    'Nothing in `src/` was changed for these figures. What the counts show, largest saving first; savings are per million successful tasks at the prices above:',
    '',
    `1. **The status index is the largest cost.** It takes ${num(indexUnits)} of the ${num(indexUnits + tableUnits)} write units a task costs (${usd(indexUnits * wru)} of Tasklane's DynamoDB write bill). Every transition rewrites its key (\`statusShard\`, \`statusAt\`), so each \`UpdateItem\` is an index delete plus an index put; terminal statuses stay indexed although docs/design.md §4 calls the index sparse; and it projects ALL attributes, so every index write is billed at the whole item's size: a task with a 4 KB payload would pay about 5 units for each of those 7 index writes. Keying only the statuses the sweeper queries (PENDING, RUNNING) makes it 4 index writes (saves ${usd(3 * wru)}, but \`list()\` of other statuses needs another path); a KEYS_ONLY or INCLUDE projection keeps each index write at 1 unit whatever the payload.`,
    `2. **\`markSent\` is one write and two index writes per task** (${usd(3 * wru)}). The claim already accepts PENDING; the sweeper could treat a PENDING task older than a grace period as unsent instead. This is also what it takes to meet "≤ 3 DynamoDB writes per task".`,
    `3. **The worker reads before it claims**: a strongly consistent \`GetItem\` per delivery, ${usd(PRICES.dynamodbPerMillionReadUnits)} and a round trip per task. The claim's condition already guards correctness, so the read could be eventually consistent (half the units), or dropped: a claim whose condition names the claimable statuses and whose update increments the attempt returns the record (ALL_NEW) or explains a refusal (ALL_OLD).`,
    `4. **zod is ${kb(zod)} of the shipped worker bundle**: the task schemas and \`src/message.ts\`'s three-field envelope check use it (imported as a namespace, so only what is used is bundled). \`zod/mini\`, or a hand-written envelope check for workers whose tasks use another Standard Schema library, would shrink it and the cold start's import.`,
    '5. **`enqueueBatch` sends its SendMessageBatch calls one after another** (the `await` in `Dispatcher.sendAll`) while its writes run 16 at a time. On moto this costs nothing extra (it serializes everything); on AWS 1,000 tasks wait for 100 sequential round trips. Chunks whose message groups do not overlap could be sent concurrently without breaking per-key order.',
  ].join('\n');
}

/** What the run found in src/ that costs requests, dollars or bytes, with the saving of each fix. */
import { PRICES } from '../prices.js';
import { successfulCost } from './analysis.js';
import { kb, num, usd } from './markdown.js';
import type { BenchResults } from './results.js';
import { templateFile } from './template.js';

const findingsTemplate = templateFile('findings.md');

/** The section's Markdown. */
export function findingsSection(results: BenchResults): string {
  const t = successfulCost(results, 'tasklane').median.tally;
  const sum = (pick: (x: (typeof t)[string]) => number) =>
    Object.values(t).reduce((s, x) => s + pick(x), 0);
  const indexUnits = sum((x) => x.indexWriteUnits);
  const tableUnits = sum((x) => x.writeUnits);
  const wru = PRICES.dynamodbPerMillionWriteUnits;
  const zod = results.pkg.bundles.worker.contributors.find((c) => c.name === 'zod')?.bytes ?? 0;
  return findingsTemplate('section', {
    indexUnits: num(indexUnits),
    totalUnits: num(indexUnits + tableUnits),
    indexCost: usd(indexUnits * wru),
    threeWrites: usd(3 * wru),
    readCost: usd(PRICES.dynamodbPerMillionReadUnits),
    zod: kb(zod),
  });
}

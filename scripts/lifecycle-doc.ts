/**
 * Writes the lifecycle section of docs/design.md from the transition table
 * (`ALL_TRANSITIONS`): a state diagram of the rows that move a task, and a table of every
 * row. `npx tsx scripts/lifecycle-doc.ts` rewrites the part between the markers;
 * test/unit/lifecycle-doc.test.ts fails while the doc and the table differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ALL_TRANSITIONS, type Row } from '../src/store/transitions/index.js';

/** The markers around the generated part of docs/design.md. */
export const BEGIN =
  '<!-- lifecycle: generated from ALL_TRANSITIONS by scripts/lifecycle-doc.ts; do not edit by hand -->';
export const END = '<!-- end of lifecycle -->';

const KINDS: Readonly<Record<Row['kind'], string>> = {
  transition: 'move',
  mark: 'mark (status kept)',
  create: 'create',
  purge: 'delete',
  item: 'other item',
};

/** The generated part: the diagram and the table, between the markers. */
export function lifecycleSection(rows: readonly Row[] = ALL_TRANSITIONS): string {
  const arrows = new Map<string, string[]>();
  const arrow = (from: string, to: string, name: string) => {
    const key = `${from} --> ${to}`;
    arrows.set(key, [...(arrows.get(key) ?? []), name]);
  };
  for (const row of rows) {
    if (row.kind === 'transition') {
      for (const from of row.from) arrow(from, row.to, row.name);
    } else if (row.kind === 'create') {
      for (const to of row.creates ?? []) {
        arrow('[*]', to, row.name);
        for (const from of row.from ?? []) arrow(from, to, `${row.name} (a new record)`);
      }
    } else if (row.kind === 'purge') {
      for (const from of row.from ?? []) arrow(from, '[*]', row.name);
    }
  }
  const diagram = [...arrows].map(([key, names]) => `    ${key}: ${names.join(', ')}`);
  const table = rows.map((row) => {
    const from =
      row.from === undefined
        ? '(not a task)'
        : `${row.kind !== 'transition' && row.orAbsent ? '(none), ' : ''}${row.from.join(', ')}`;
    const to =
      row.kind === 'transition'
        ? row.to
        : row.kind === 'create'
          ? (row.creates ?? []).join(', ')
          : row.kind === 'purge'
            ? '(deleted)'
            : row.kind === 'mark'
              ? '(same)'
              : '';
    const writes = row.writes.includes('*') ? 'the whole item' : row.writes.join(', ');
    return `| ${row.name} | ${KINDS[row.kind]} | ${from} | ${to} | ${writes} |`;
  });
  return [
    BEGIN,
    '```mermaid',
    'stateDiagram-v2',
    ...diagram,
    '```',
    '',
    `Every conditional write of the store is one of these ${rows.length} rows (\`src/store/transitions/\`).`,
    'A move also writes the status, `updatedAt`, the history and the status index keys.',
    '',
    '| Row | Kind | From | To | Writes |',
    '| --- | --- | --- | --- | --- |',
    ...table,
    END,
  ].join('\n');
}

/** `doc` with its generated part replaced by {@link lifecycleSection}. */
export function withLifecycle(doc: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error('docs/design.md has no lifecycle markers');
  return doc.slice(0, start) + lifecycleSection() + doc.slice(end + END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = new URL('../docs/design.md', import.meta.url);
  writeFileSync(path, withLifecycle(readFileSync(path, 'utf8')));
}

/**
 * Markdown templates for the generated reports (RELIABILITY.md, BENCHMARKS.md): the prose
 * lives in `.md` files, and the code only computes the values of their `{{placeholders}}`.
 */
import { readFileSync } from 'node:fs';

/** The values of a template's placeholders: Markdown text, or numbers printed as they are. */
export type TemplateValues = Readonly<Record<string, string | number>>;

/** Thrown when a template and its values disagree: a report must never print `{{…}}`. */
export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

const PLACEHOLDER = /\{\{\s*([A-Za-z][A-Za-z0-9_]*)\s*\}\}/g;
const COMMENT = /<!--[\s\S]*?-->\n?/g;

/** The placeholder names of a template, in order of first use. */
export function placeholders(template: string): string[] {
  const names = [...template.replace(COMMENT, '').matchAll(PLACEHOLDER)].map((m) => m[1] ?? '');
  return [...new Set(names)];
}

/**
 * Fills `{{name}}` placeholders. HTML comments (`<!-- … -->`, notes for whoever edits the
 * template) are dropped. Every placeholder needs a value and every value a placeholder, so
 * a renamed value cannot go missing from the report unnoticed.
 *
 * @throws TemplateError naming the missing and the unused values, and the template.
 */
export function fillTemplate(template: string, values: TemplateValues, name = 'template'): string {
  const body = template.replace(COMMENT, '');
  const used = placeholders(body);
  const missing = used.filter((key) => !(key in values));
  const unused = Object.keys(values).filter((key) => !used.includes(key));
  if (missing.length > 0 || unused.length > 0) {
    const parts = [
      missing.length > 0 ? `no value for ${missing.map((k) => `{{${k}}}`).join(', ')}` : '',
      unused.length > 0 ? `no placeholder for ${unused.join(', ')}` : '',
    ].filter((part) => part !== '');
    throw new TemplateError(`${name}: ${parts.join('; ')}`);
  }
  return body.replace(PLACEHOLDER, (_, key: string) => String(values[key]));
}

/** Reads a template next to the calling module: `loadTemplate(new URL('./t.md', import.meta.url))`. */
export function loadTemplate(url: URL): string {
  return readFileSync(url, 'utf8');
}

const BLOCK_MARKER = /^<!-- block: ([A-Za-z][A-Za-z0-9-]*) -->$/;

/** A template file cut into named blocks; {@link TemplateBlocks.get} throws for a missing one. */
export interface TemplateBlocks {
  readonly names: readonly string[];
  get(name: string): string;
}

/**
 * Cuts a template file into named blocks, each starting at a line `<!-- block: name -->` and
 * running to the next such line, without its trailing newlines. Text before the first block
 * is a note for editors and is dropped. For a section whose prose has alternatives (a
 * sentence that depends on the run), each alternative is a block of its own.
 */
export function parseBlocks(text: string, file = 'template'): TemplateBlocks {
  const blocks = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split('\n')) {
    const marker = BLOCK_MARKER.exec(line);
    if (marker !== null) {
      const name = marker[1] ?? '';
      if (blocks.has(name)) throw new TemplateError(`${file}: block ${name} appears twice`);
      current = [];
      blocks.set(name, current);
    } else {
      current?.push(line);
    }
  }
  const texts = new Map(
    [...blocks].map(([name, lines]) => [name, lines.join('\n').replace(/\n+$/, '')]),
  );
  return {
    names: [...texts.keys()],
    get(name: string): string {
      const block = texts.get(name);
      if (block === undefined) throw new TemplateError(`${file}: no block ${name}`);
      return block;
    },
  };
}

/** Reads a template file of named blocks next to the calling module. */
export function loadBlocks(url: URL): TemplateBlocks {
  return parseBlocks(readFileSync(url, 'utf8'), url.pathname.split('/').pop());
}

/** The report's Markdown templates (./templates/*.md), one file per section, cut into blocks. */
import { fillTemplate, loadBlocks, type TemplateValues } from '../../scripts/lib/template.js';

/** Fills the named block of a template file. */
export type BlockRenderer = (block: string, values?: TemplateValues) => string;

/** Loads `templates/<file>` once and returns a renderer for its blocks. */
export function templateFile(file: string): BlockRenderer {
  const blocks = loadBlocks(new URL(`./templates/${file}`, import.meta.url));
  return (block, values = {}) => fillTemplate(blocks.get(block), values, `${file}#${block}`);
}

/**
 * Where the CLI and the console it starts write their audit lines: the operator actions
 * (redrive, cancel, purge, key release, schedule pause, resume and delete), each with the
 * acting principal (docs/adr/0039-operator-audit.md). The terminal is for the operator, and
 * `--json` output must stay one document, so the lines go to a file of JSON lines:
 * `--audit-log <path>`, else `TASKLANE_AUDIT_LOG`, else `~/.tasklane/audit.log`; `-` sends
 * them to stderr. Each line is appended (synchronously) before the action's next AWS call,
 * so the `purged` line is in the file before its delete is sent.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { LogAttributes, TaskLogger } from 'tasklane';
import { UNKNOWN_PRINCIPAL } from 'tasklane';
import type { Output } from './output.js';

/** The variable naming the audit file. */
export const AUDIT_LOG_ENV = 'TASKLANE_AUDIT_LOG';

/** The audit file when neither the option nor the variable names one. */
export function defaultAuditLogPath(): string {
  return path.join(homedir(), '.tasklane', 'audit.log');
}

/** The audit file the options and the environment choose, or `-` for stderr. */
export function auditLogPath(
  option: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const chosen = option ?? env[AUDIT_LOG_ENV];
  return chosen === undefined || chosen.trim() === '' ? defaultAuditLogPath() : chosen;
}

/**
 * A TaskLogger that keeps the audit lines (and warnings, such as an unknown principal) and
 * drops the rest, which the CLI reports on its own. The file is made (mode 600, in a
 * directory of mode 700) at the first line. A line the file cannot take goes to stderr
 * instead, with why, since a logger must not fail the action it reports; an unknown
 * principal is noted on the terminal too, once.
 */
export function auditLogger(file: string, out: Output): TaskLogger {
  let broken = file === '-' ? 'stderr asked for' : undefined;
  let opened = false;
  let warned = false;
  const append = (line: string) => {
    if (!opened) {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      opened = true;
    }
    appendFileSync(file, line, { mode: 0o600 });
  };
  const write = (level: string, message: string, attributes: LogAttributes = {}) => {
    const line = `${JSON.stringify({ level, time: new Date().toISOString(), message, ...attributes })}\n`;
    if (broken === undefined) {
      try {
        append(line);
      } catch (err) {
        broken = (err as Error).message;
        out.note(
          `Cannot write the audit log ${file} (${broken}): audit lines go to stderr. Name another file with --audit-log <path> or ${AUDIT_LOG_ENV}.`,
        );
      }
    }
    if (broken !== undefined) out.note(line.trimEnd());
    const principal = attributes.principal;
    if (!warned && typeof principal === 'string' && principal.startsWith(UNKNOWN_PRINCIPAL)) {
      warned = true;
      out.note(`Recorded as ${principal}: STS did not say who you are.`);
    }
  };
  const keep = (level: string) => (message: string, attributes?: LogAttributes) => {
    if (attributes?.audit === true || level === 'WARN' || level === 'ERROR') {
      write(level, message, attributes);
    }
  };
  return { debug: () => undefined, info: keep('INFO'), warn: keep('WARN'), error: keep('ERROR') };
}

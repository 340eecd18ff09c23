/**
 * A reader that leaves early (`tasklane show <id> | head`, `tasklane tail | grep -m1 …`)
 * closes the pipe the CLI writes to. Node then reports EPIPE as an `error` event on the
 * stream, which, unhandled, ends the process with a stack trace. What is left to print has
 * nobody to read it, so it is dropped; the command itself finishes its work (a redrive is
 * not cut in half by `| head`) and exits with its own code, and a command that follows
 * (`tail`) stops, as `tail -f | head` does.
 */

const closed = new AbortController();

/** Aborts once stdout's reader has gone away. */
export const outputClosed: AbortSignal = closed.signal;

/** A stream the CLI writes to: stdout or stderr. */
interface WritableOutput {
  on(event: 'error', listener: (err: NodeJS.ErrnoException) => void): unknown;
  write: (...args: never[]) => boolean;
}

/**
 * Quietly drops what is written to `streams` once their reader has gone away (EPIPE), and
 * aborts {@link outputClosed} when stdout's has. Any other error on them is thrown as before.
 */
export function handleBrokenPipes(
  streams: { readonly stdout: WritableOutput; readonly stderr: WritableOutput } = process,
): void {
  for (const [name, stream] of Object.entries(streams) as [string, WritableOutput][]) {
    stream.on('error', (err) => {
      if (err.code !== 'EPIPE') throw err;
      stream.write = () => true;
      if (name === 'stdout') closed.abort();
    });
  }
}

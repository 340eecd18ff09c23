/**
 * Criteria that fail today because of a bug in src/, keyed `scenario:criterion`. A known
 * failure does not fail the suite: it is printed and written to RELIABILITY.md under
 * "Known failures" with the reason, so it is never silent. Remove the entry with the fix;
 * a known failure that passes is reported as such.
 */
export const KNOWN_FAILURES: Readonly<Record<string, string>> = {
  'n:key-order':
    'A lost lease can still break per-key order once in a while. In the full run with ' +
    'FAULT_SEED=2584361984, task n-22 lost its lease to a 6 s SIGSTOP and was requeued; its ' +
    'original message was claimed again by the resumed worker (receive 2) and succeeded, but ' +
    'n-28, the next task of its key, had started 10.5 s earlier. Three earlier runs of the ' +
    'scenario had 0 violations. Not yet diagnosed: which worker ran n-28, and how its message ' +
    "got ahead of n-22's handed-back one.",
};

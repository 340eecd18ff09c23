/**
 * Waits `ms`, or less if `signal` aborts; never rejects. The abort listener is removed when
 * the time is up, so a loop that pauses on one signal for hours keeps one listener on it,
 * not one per round (which Node reports as MaxListenersExceededWarning).
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

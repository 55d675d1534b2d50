/**
 * Background housekeeping on a timer: `repeatEvery` runs a task every period, never two rounds
 * at once, without keeping the process alive, until stopped. A failed round is logged and the
 * next one tries again; after `stop()` (the stores are closing) failures are expected and quiet.
 */

/** Runs `task` every `everyMs` until stopped; `what` names it in the log when a round fails. */
export function repeatEvery(
  what: string,
  everyMs: number,
  task: () => Promise<unknown>,
): { stop(): void } {
  let running = false;
  let stopped = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      await task();
    } catch (err) {
      if (!stopped) console.error(`${what} failed:`, err);
    } finally {
      running = false;
    }
  }, everyMs);
  Deno.unrefTimer(timer);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

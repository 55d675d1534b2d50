/**
 * The accept loop. Deno.serve's own loop rejects when accept() fails with EMFILE and the process
 * dies ("Uncaught (in promise) Http: Error: Too many open files"); this one retries a failed
 * accept (EMFILE, ENFILE, ...) with a growing delay and never ends until the server stops.
 */

const ACCEPT_RETRY_FIRST_MS = 10;
const ACCEPT_RETRY_MAX_MS = 1000;

interface AcceptLoop {
  listener: Deno.Listener<Deno.TcpConn, Deno.NetAddr>;
  /** True once the server stops; the loop then ends. */
  stopping(): boolean;
  /** Aborted on stop: ends a retry's wait at once. */
  wake: AbortSignal;
  /** Each accepted connection. */
  accepted(conn: Deno.TcpConn): void;
  log(message: string): void;
}

/** Accepts until the server stops or the listener closes; resolves then. */
export async function acceptLoop(loop: AcceptLoop): Promise<void> {
  let retryMs = 0;
  let failures = 0;
  while (!loop.stopping()) {
    let conn: Deno.TcpConn;
    try {
      conn = await loop.listener.accept();
    } catch (err) {
      if (loop.stopping() || err instanceof Deno.errors.BadResource) break;
      // EMFILE and its kind: the process must outlive them. Stalled connections are freed by
      // their deadlines, so waiting and trying again is enough; new ones wait in the backlog.
      if (failures++ === 0) loop.log(`accept failed, retrying until it works again: ${err}`);
      retryMs = Math.min(
        retryMs === 0 ? ACCEPT_RETRY_FIRST_MS : retryMs * 2,
        ACCEPT_RETRY_MAX_MS,
      );
      await sleep(retryMs, loop.wake);
      continue;
    }
    if (failures > 0) {
      loop.log(`accepting again after ${failures} failed accepts`);
      failures = 0;
      retryMs = 0;
    }
    loop.accepted(conn);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

export function closeQuietly(closable: { close(): void }) {
  try {
    closable.close();
  } catch { /* already closed */ }
}

/**
 * A webhook receiver on 127.0.0.1 for the webhook tests: records every request per path and
 * answers from a per-path script (a status, "hang" to answer only when released, or the default
 * 200), so a test can make an endpoint fail, redirect or stall while a delivery is in flight.
 */
import { Webhook } from "standardwebhooks";

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The parsed body. */
  // deno-lint-ignore no-explicit-any
  json: any;
}

export type Answer = number | "hang";

export class Receiver {
  readonly received: Received[] = [];
  private readonly scripts = new Map<string, Answer[]>();
  private readonly always = new Map<string, number>();
  private readonly hanging: (() => void)[] = [];
  private readonly server: Deno.HttpServer<Deno.NetAddr>;
  readonly url: string;

  constructor() {
    this.server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      return this.answer(req);
    });
    this.url = `http://127.0.0.1:${this.server.addr.port}`;
  }

  private async answer(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname;
    const body = await req.text();
    const headers = Object.fromEntries(req.headers);
    let json = null;
    try {
      json = JSON.parse(body);
    } catch { /* recorded as is */ }
    this.received.push({ path, headers, body, json });
    const next = this.scripts.get(path)?.shift() ?? this.always.get(path) ?? 200;
    if (next === "hang") {
      await new Promise<void>((resolve) => this.hanging.push(resolve));
      return new Response("late", { status: 200 });
    }
    const answerHeaders: Record<string, string> = next >= 300 && next < 400
      ? { location: `${this.url}/redirected` }
      : {};
    return new Response(null, { status: next, headers: answerHeaders });
  }

  /** The next answers of `path`, in order; then `always` (default 200). */
  script(path: string, answers: Answer[], always?: number): void {
    this.scripts.set(path, [...answers]);
    if (always !== undefined) this.always.set(path, always);
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Waits (bounded) until `done` holds for the requests to `path`; returns them. */
  async waitFor(
    path: string,
    done: (got: Received[]) => boolean,
    limitMs = 30_000,
  ): Promise<Received[]> {
    const deadline = Date.now() + limitMs;
    while (!done(this.at(path))) {
      if (Date.now() > deadline) {
        throw new Error(`${path}: got ${JSON.stringify(this.at(path).map((r) => r.json))}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.at(path);
  }

  async close(): Promise<void> {
    for (const release of this.hanging.splice(0)) release();
    await this.server.shutdown();
  }
}

/** Verifies `r` with the standardwebhooks package and `secret`; throws when it does not verify. */
export function verified(r: Received, secret: string): unknown {
  return new Webhook(secret).verify(r.body, {
    "webhook-id": r.headers["webhook-id"],
    "webhook-timestamp": r.headers["webhook-timestamp"],
    "webhook-signature": r.headers["webhook-signature"],
  });
}

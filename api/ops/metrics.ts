/**
 * The service's Prometheus metrics (GET /metrics, api/ops/routes.ts), on prom-client. boot()
 * creates one `Metrics` per service, with its own registry, so two services in one process (the
 * tests) never share a counter. What feeds them: the request-log middleware (requests, latency,
 * bytes, provider operations), the commit observer in kv/db.ts (conflicts, retries), and
 * collectors that read on scrape (connections, memory, blob store totals). docs/operations.md
 * "Metrics" lists every series.
 */
import { getHeapStatistics } from "node:v8";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { BlobStore } from "../../blobs/store.ts";
import type { CommitObserver } from "../../kv/db.ts";

/** How long a blob store total may be reused: listing a large store on every scrape is too dear. */
const BLOB_STATS_MAX_AGE_MS = 60_000;

/** Methods outside this list count as "other", so a client cannot grow the label set. */
const KNOWN_METHODS = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
  "PROPFIND",
]);

export interface RequestSample {
  method: string;
  /** The route template (never the raw path, which may carry a token). */
  route: string;
  status: number;
  seconds: number;
  bytesIn: number;
  bytesOut: number;
  /** The storage provider operation, when the request was one. */
  providerOperation?: string;
}

export interface Metrics {
  readonly registry: Registry;
  /** Counts lost commit races and retries (kv/db.ts observeCommits). */
  readonly commits: CommitObserver;
  record(sample: RequestSample): void;
  /** Where the open-connection gauge reads from; the server is made after the app. */
  countConnectionsWith(source: () => number): void;
  /** Where the listing gauge reads from (provider/list_pool.ts, with the drive's turns). */
  countListingsWith(source: () => { building: number; waiting: number }): void;
  /** Where the connection refusal and cut totals read from (serve.ts's counts). */
  countServedWith(source: () => ServedCounts): void;
}

/**
 * serve.ts's totals of refused and cut connections, restated here: ops code may not import the
 * composition layer it is mounted by.
 */
export interface ServedCounts {
  refusedFull: number;
  refusedPerClient: number;
  lingerCuts: number;
  slowBodies: number;
  idleBodies: number;
  idleConnections: number;
}

/**
 * Totals of the blob store, from one listing reused for BLOB_STATS_MAX_AGE_MS. The first scrape
 * waits for the listing; later ones get the last totals at once and start a fresh listing in
 * the background when those are stale (one at a time).
 */
function blobTotals(blobs: BlobStore) {
  let last: { bytes: number; objects: number; at: number } | null = null;
  let running: Promise<void> | null = null;
  const refresh = () => {
    running ??= (async () => {
      let bytes = 0;
      let objects = 0;
      for await (const blob of blobs.list()) {
        bytes += blob.size;
        objects++;
      }
      last = { bytes, objects, at: Date.now() };
    })().finally(() => (running = null));
    return running;
  };
  return async () => {
    if (last === null) await refresh();
    else if (Date.now() - last.at > BLOB_STATS_MAX_AGE_MS) refresh().catch(() => {});
    return last;
  };
}

export function createMetrics(blobs: BlobStore): Metrics {
  const registry = new Registry();
  const registers = [registry];
  /** A counter of this registry, by the labels `labelNames` (none: one total). */
  const counter = <L extends string = string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
  ) => new Counter<L>({ name, help, labelNames, registers });
  const requests = counter(
    "drive_http_requests_total",
    "HTTP requests answered, by method, route template and status.",
    ["method", "route", "status"],
  );
  const latency = new Histogram({
    name: "drive_http_request_duration_seconds",
    help: "Time from a request's arrival until its response was sent, by method and route.",
    labelNames: ["method", "route"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const bytesIn = counter(
    "drive_http_request_bytes_total",
    "Request body bytes received (as declared by Content-Length).",
  );
  const bytesOut = counter("drive_http_response_bytes_total", "Response body bytes sent.");
  const provider = counter(
    "drive_provider_operations_total",
    "Storage provider protocol requests, by operation and status.",
    ["operation", "status"],
  );
  const conflicts = counter(
    "drive_kv_commit_conflicts_total",
    "KV commits whose versionstamp checks failed because another writer won.",
  );
  const retries = counter(
    "drive_kv_commit_retries_total",
    "Read-decide-commit cycles run again, by reason (conflict, or busy storage).",
    ["reason"],
  );
  const auditDropped = counter(
    "drive_audit_writes_dropped_total",
    "Audit entries of reads and admin actions that could not be written (e.g. a full disk) " +
      "and were dropped, so the read itself still succeeded.",
  );
  let connectionSource: () => number = () => 0;
  new Gauge({
    name: "drive_open_connections",
    help: "TCP connections open now.",
    registers,
    collect() {
      this.set(connectionSource());
    },
  });
  let servedSource: (() => ServedCounts) | null = null;
  /** A counter read from the served counts at scrape time: `reasons` maps each label to its count. */
  const servedCounter = (name: string, help: string, reasons: Record<string, keyof ServedCounts>) =>
    new Counter({
      name,
      help,
      labelNames: ["reason"] as const,
      registers,
      collect() {
        const c = servedSource?.();
        this.reset();
        for (const [reason, count] of Object.entries(reasons)) {
          this.inc({ reason }, c?.[count] ?? 0);
        }
      },
    });
  servedCounter(
    "drive_connections_refused_total",
    "Connections refused with a 503 at accept: every slot taken (full), or the client's " +
      "share of the slots taken (per_client, DRIVE_MAX_CONNECTIONS_PER_CLIENT).",
    { full: "refusedFull", per_client: "refusedPerClient" },
  );
  servedCounter(
    "drive_connections_cut_total",
    "Connections cut by the server's limits: a body not drained after an early answer " +
      "(linger), sent under the minimum rate (body_rate), idle mid-body (body_idle), or idle " +
      "before or between requests (idle).",
    {
      linger: "lingerCuts",
      body_rate: "slowBodies",
      body_idle: "idleBodies",
      idle: "idleConnections",
    },
  );
  let listingSource = () => ({ building: 0, waiting: 0 });
  new Gauge({
    name: "drive_listings",
    help:
      "Large listings (drive API folder and trash pages, provider list answers) being built now, and waiting for their turn (state).",
    labelNames: ["state"] as const,
    registers,
    collect() {
      const { building, waiting } = listingSource();
      this.set({ state: "building" }, building);
      this.set({ state: "waiting" }, waiting);
    },
  });
  const memory = Deno.memoryUsage;
  new Gauge({
    name: "process_resident_memory_bytes",
    help: "Resident memory size in bytes.",
    registers,
    collect() {
      this.set(memory().rss);
    },
  });
  new Gauge({
    name: "deno_memory_heap_bytes",
    help:
      "V8 heap memory by kind (used, total), the size it may not outgrow (limit), and memory held outside the heap (external).",
    labelNames: ["kind"] as const,
    registers,
    collect() {
      const m = memory();
      this.set({ kind: "used" }, m.heapUsed);
      this.set({ kind: "total" }, m.heapTotal);
      this.set({ kind: "external" }, m.external);
      // Set by --max-old-space-size (docs/operations.md, "Memory and CPU"); beyond it, the
      // process stops with an out-of-memory error.
      this.set({ kind: "limit" }, getHeapStatistics().heap_size_limit);
    },
  });
  const totals = blobTotals(blobs);
  new Gauge({
    name: "drive_blob_store_bytes",
    help: `Bytes in the blob store's complete blobs (recounted at most every ${
      BLOB_STATS_MAX_AGE_MS / 1000
    } s).`,
    labelNames: ["store"] as const,
    registers,
    async collect() {
      const t = await totals().catch(() => null);
      if (t) this.set({ store: blobs.kind }, t.bytes);
    },
  });
  new Gauge({
    name: "drive_blob_store_objects",
    help: "Complete blobs in the blob store (recounted with drive_blob_store_bytes).",
    labelNames: ["store"] as const,
    registers,
    async collect() {
      const t = await totals().catch(() => null);
      if (t) this.set({ store: blobs.kind }, t.objects);
    },
  });

  return {
    registry,
    commits: {
      conflict: () => conflicts.inc(),
      retry: (reason) => retries.inc({ reason }),
      auditDropped: () => auditDropped.inc(),
    },
    record(s) {
      const method = KNOWN_METHODS.has(s.method) ? s.method : "other";
      requests.inc({ method, route: s.route, status: String(s.status) });
      latency.observe({ method, route: s.route }, s.seconds);
      if (s.bytesIn > 0) bytesIn.inc(s.bytesIn);
      if (s.bytesOut > 0) bytesOut.inc(s.bytesOut);
      if (s.providerOperation) {
        provider.inc({ operation: s.providerOperation, status: String(s.status) });
      }
    },
    countConnectionsWith(source) {
      connectionSource = source;
    },
    countListingsWith(source) {
      listingSource = source;
    },
    countServedWith(source) {
      servedSource = source;
    },
  };
}

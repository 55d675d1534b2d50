/**
 * Office documents to PDF with a small pool of long-lived headless LibreOffice processes.
 *
 * Each worker is one `office_worker.py` beside this file (Debian's python3-uno), which starts its
 * own `soffice.bin` (own profile, listening on a private UNO pipe), keeps the UNO connection and
 * converts one document per request line. LibreOffice dies with its worker and the worker with
 * this process (PR_SET_PDEATHSIG), so a killed drive process leaves no LibreOffice behind. What was tried first, and why not:
 * - unoserver (pip, over python3-uno): LibreOffice 7.4's no-GUI Calc aborts in `GetClipboard`
 *   when unoserver loads a spreadsheet, killing the server on every .xlsx.
 * - `soffice --convert-to` handed to a running instance: the instance quits after each handed
 *   document, so every document pays a LibreOffice start again (~2 s).
 * - one `soffice --convert-to` per document: the same ~2 s start each time.
 * A conversion over the time limit kills the worker (and so its LibreOffice); the next
 * document starts a new one. The pool's state lives in the object `openOfficeConverter` returns.
 */

/** Too many documents are already waiting for a worker. */
export class ConverterBusyError extends Error {}

export interface OfficeConverter {
  /** Whether LibreOffice and python3-uno were found (else previews answer the original bytes). */
  readonly available: boolean;
  /**
   * The PDF of `input` (a file named with extension `ext`), or null when LibreOffice cannot
   * read it or ran over the time limit. ConverterBusyError when the queue is full.
   */
  convert(input: Uint8Array, ext: string): Promise<Uint8Array | null>;
  /** Conversions LibreOffice was asked to do (the cache's tests and the bench read it). */
  readonly conversions: number;
  close(): Promise<void>;
}

export interface ConverterOptions {
  soffice: string;
  workers: number;
  queue: number;
  timeoutMs: number;
}

/** Debian's python3-uno installs for the system Python only. */
const PYTHON = "/usr/bin/python3";
const UNO_MODULE = "/usr/lib/python3/dist-packages/uno.py";
const WORKER_SCRIPT = new URL("./office_worker.py", import.meta.url);

/**
 * Whether this process may start the worker and write its profiles. Under Deno Deploy's
 * permissions (no --allow-run, no --allow-write) a machine that has LibreOffice installed would
 * otherwise find it, and every office `view` would fail with NotCapable instead of answering
 * the original bytes (tests/runtime/deploy_config_test.ts).
 */
function mayRunWorkers(): boolean {
  const granted = (d: Deno.PermissionDescriptor) =>
    Deno.permissions.querySync(d).state === "granted";
  return granted({ name: "run", command: PYTHON }) && granted({ name: "write" });
}

/** `soffice` is a shell script; its `soffice.bin` is the process a kill must reach. */
function findProgram(soffice: string): string | null {
  if (soffice === "off" || WORKER_SCRIPT.protocol !== "file:" || !mayRunWorkers()) return null;
  try {
    Deno.statSync(UNO_MODULE);
    Deno.statSync(PYTHON);
    const bin = Deno.realPathSync(soffice).replace(/soffice$/, "soffice.bin");
    return Deno.statSync(bin).isFile ? bin : null;
  } catch {
    return null;
  }
}

/** A worker's running process and the reader of its answers. */
interface Running {
  python: Deno.ChildProcess;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  lines: AsyncIterator<string>;
}

interface Worker {
  dir: string;
  running: Running | null;
  /** While it starts: its start (null if it failed). */
  starting: Promise<Running | null> | null;
}

async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffered = "";
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      yield buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
    }
  }
}

function stop(running: Running | null) {
  try {
    running?.python.kill("SIGKILL");
  } catch { /* already gone */ }
}

export function openOfficeConverter(opts: ConverterOptions): OfficeConverter {
  const program = findProgram(opts.soffice);
  const free: Worker[] = [];
  const waiting: ((w: Worker) => void)[] = [];
  const all: Worker[] = [];
  let conversions = 0;
  let closed = false;
  let root: Promise<string> | null = null;
  let pool: Promise<void> | null = null;

  async function newWorker(): Promise<Worker> {
    root ??= Deno.makeTempDir({ prefix: "drive-office-" });
    const w: Worker = { dir: `${await root}/w${all.length}`, running: null, starting: null };
    all.push(w);
    await Deno.mkdir(`${w.dir}/profile`, { recursive: true });
    return w;
  }

  /** Starts the worker (and its LibreOffice); resolves once it is connected to it. */
  async function start(w: Worker): Promise<Running> {
    const python = new Deno.Command(PYTHON, {
      args: [WORKER_SCRIPT.pathname, program!, `${w.dir}/profile`],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const running: Running = {
      python,
      writer: python.stdin.getWriter(),
      lines: readLines(python.stdout)[Symbol.asyncIterator](),
    };
    python.status.then(() => {
      if (w.running === running) w.running = null;
    });
    w.running = running;
    const ready = await running.lines.next();
    if (ready.done) throw new Error("the office worker ended before it was ready");
    return running;
  }

  /** Starts `w` unless it runs or is starting; its running process, or null if it failed. */
  function warm(w: Worker): Promise<Running | null> {
    if (w.running) return Promise.resolve(w.running);
    w.starting ??= start(w).catch(() => null).finally(() => w.starting = null);
    return w.starting;
  }

  /**
   * The first document starts every worker at once (a LibreOffice takes seconds to start, so
   * the documents that arrive meanwhile do not each wait for one more start in turn).
   */
  async function acquire(): Promise<Worker> {
    pool ??= (async () => {
      for (let i = 0; i < opts.workers; i++) {
        const w = await newWorker();
        void warm(w);
        free.push(w);
      }
    })();
    await pool;
    const w = free.pop();
    if (w) return w;
    if (waiting.length >= opts.queue) throw new ConverterBusyError("all converters are busy");
    return await new Promise((resolve) => waiting.push(resolve));
  }

  function release(w: Worker) {
    const next = waiting.shift();
    if (next) next(w);
    else free.push(w);
  }

  async function convertOn(w: Worker, input: Uint8Array, ext: string) {
    const job = `${w.dir}/job-${crypto.randomUUID()}`;
    await Deno.mkdir(job);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const inPath = `${job}/document.${ext}`;
      const outPath = `${job}/document.pdf`;
      await Deno.writeFile(inPath, input);
      conversions++;
      // The time limit covers starting the worker too: a LibreOffice that hangs while starting
      // is stopped like one that hangs on a document.
      const timeout = new Promise<null>((resolve) => {
        timer = setTimeout(() => {
          stop(w.running);
          resolve(null);
        }, opts.timeoutMs);
      });
      const work = (async () => {
        const running = await warm(w);
        if (!running) return null;
        await running.writer.write(
          new TextEncoder().encode(JSON.stringify({ in: inPath, out: outPath }) + "\n"),
        );
        const answer = await running.lines.next();
        if (answer.done || !JSON.parse(answer.value).ok) return null;
        return await Deno.readFile(outPath);
      })().catch(() => null);
      const pdf = await Promise.race([work, timeout]);
      return pdf && pdf.length > 0 ? pdf : null;
    } finally {
      clearTimeout(timer);
      await Deno.remove(job, { recursive: true }).catch(() => {});
    }
  }

  return {
    available: program !== null,
    get conversions() {
      return conversions;
    },
    async convert(input, ext) {
      if (!program || closed) return null;
      const w = await acquire();
      try {
        return await convertOn(w, input, ext);
      } finally {
        release(w);
      }
    },
    async close() {
      closed = true;
      await pool;
      for (const w of all) {
        await w.starting;
        const running = w.running;
        w.running = null;
        stop(running);
        if (running) {
          await running.writer.close().catch(() => {});
          await running.python.status;
          await running.lines.return?.();
        }
      }
      if (root) await Deno.remove(await root, { recursive: true }).catch(() => {});
    },
  };
}

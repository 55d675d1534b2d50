/**
 * The browser side, served by the same process: the end-user app shell at `/` and its pages
 * (APP_PATHS), the admin console shell at /admin and /admin/<page>, the share-link page shell at
 * /s/{token} (all written by shellHtml), and their committed build under /static/. START_PAGE
 * links the API reference, the console and the OpenAPI documents; the app links it. Files are
 * read from static/ beside this module, so it works from any working directory and on Deno
 * Deploy; nothing is fetched from another origin.
 */
import { createHash } from "node:crypto";
import { type Context, Hono } from "hono";

const STATIC_DIR = new URL("../../static/", import.meta.url);
/** The page of links to the API reference and the console, which needs no script. */
const START_PAGE = "/start";
/** The app's pages (ui/app/router.ts); the file browser's paths join them. */
const APP_PATHS = ["/", "/signin", "/account"];

type ShellName = "app" | "admin" | "share" | "start";

interface Shell {
  title: string;
  /** The bundle under static/build/ the page runs, with the stylesheet; none for the start page. */
  bundle?: string;
  /** Kept out of search engines: share links are private. */
  noindex?: boolean;
  /** The body's class: `app` scopes the app's own styles (its dark theme) away from the console. */
  bodyClass?: string;
  /** The body's markup, indented for the template. */
  body: string;
}

const SHELLS: Record<ShellName, Shell> = {
  app: {
    title: "Drive",
    bundle: "app.js",
    bodyClass: "app",
    body: `
    <div id="app">
      <noscript>
        Drive needs JavaScript. The <a href="/api/external/v1/docs">API reference</a> and the
        <a href="/start">server's start page</a> work without it.
      </noscript>
    </div>`,
  },
  admin: {
    title: "Drive admin",
    bundle: "admin.js",
    body: `
    <div id="app">
      <noscript>The admin console needs JavaScript.</noscript>
    </div>`,
  },
  share: {
    title: "Shared with you · Drive",
    bundle: "share.js",
    noindex: true,
    body: `
    <div id="app">
      <noscript>This page needs JavaScript.</noscript>
    </div>`,
  },
  start: {
    title: "Drive",
    body: `
    <main>
      <h1>Drive</h1>
      <p>What this server offers:</p>
      <ul>
        <li><a href="/">The Drive app</a>: sign in, set your password from an invitation,
          manage your sessions and app passwords.</li>
        <li><a href="/api/external/v1/docs">API reference</a>: the drive, admin and share-link
          APIs, with try-it-out against this server.</li>
        <li><a href="/admin">Admin console</a>: tenants, users, API keys, adapters and the
          activity log (needs the admin token).</li>
        <li>The OpenAPI documents:
          <a href="/api/external/v1/openapi.json">drive API</a>,
          <a href="/admin/api/openapi.json">admin API</a>,
          <a href="/public/v1/openapi.json">share-link API</a>.</li>
        <li>Operations: <a href="/healthz">/healthz</a>, <a href="/readyz">/readyz</a>.</li>
      </ul>
      <p>The guides (README.md and docs/) come with the server's source.</p>
    </main>`,
  },
};

/**
 * The page's HTML. One template writes every head, so the referrer policy, the viewport and the
 * stylesheet link cannot differ between the pages. Titles and bodies are fixed text of this
 * module, so nothing is escaped.
 */
function shellHtml(name: ShellName): string {
  const { title, bundle, noindex, bodyClass, body } = SHELLS[name];
  const head = [
    `<meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<meta name="referrer" content="no-referrer">`,
    ...(noindex ? [`<meta name="robots" content="noindex">`] : []),
    `<title>${title}</title>`,
    ...(bundle
      ? [
        `<link rel="stylesheet" href="/static/build/styles.css">`,
        `<script type="module" src="/static/build/${bundle}"></script>`,
      ]
      : []),
  ];
  return `<!doctype html>
<html lang="en">
  <head>
${head.map((line) => `    ${line}`).join("\n")}
  </head>
  <body${bodyClass ? ` class="${bodyClass}"` : ""}>${body}
  </body>
</html>
`;
}

const CONTENT_TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  json: "application/json",
  png: "image/png",
  svg: "image/svg+xml",
  ico: "image/x-icon",
};

/** Same-origin only: the bundles, the stylesheet and the JSON APIs of this server. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  // The app's preview plays audio and video and shows PDFs from the drive's view route.
  "media-src 'self'",
  "frame-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const SAFE_PATH = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;
/**
 * Longest asset name segment and deepest path served. Far above what static/ holds, and below the
 * file system's limits (255 bytes a name), which would otherwise fail the read with ENAMETOOLONG.
 */
const MAX_SEGMENT = 128;
const MAX_DEPTH = 8;

/**
 * A path under static/ that cannot climb out of it: no "..", no hidden files, no escapes, no
 * name longer than any file there can have.
 */
function safeRelativePath(rel: string): string | null {
  if (rel.length > MAX_DEPTH * (MAX_SEGMENT + 1) || !SAFE_PATH.test(rel)) return null;
  const segments = rel.split("/");
  if (segments.length > MAX_DEPTH || segments.includes("..")) return null;
  return segments.every((s) => s.length <= MAX_SEGMENT) ? rel : null;
}

async function readStatic(rel: string): Promise<Uint8Array | null> {
  try {
    return await Deno.readFile(new URL(rel, STATIC_DIR));
  } catch (err) {
    // A directory or a missing file is simply not found.
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.IsADirectory) return null;
    if (err instanceof Error && /EISDIR|is a directory/i.test(err.message)) return null;
    // A file used as a directory, or a name the file system cannot hold: no such asset either.
    const code = (err as { code?: unknown }).code;
    if (code === "ENOTDIR" || code === "ENAMETOOLONG") return null;
    throw err;
  }
}

async function serveStatic(
  c: Context,
  rel: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const bytes = await readStatic(rel);
  if (!bytes) return c.text("Not found", 404);
  const ext = rel.slice(rel.lastIndexOf(".") + 1);
  return serveBytes(c, bytes, CONTENT_TYPES[ext] ?? "application/octet-stream", headers);
}

function serveBytes(
  c: Context,
  bytes: Uint8Array,
  contentType: string,
  headers: Record<string, string>,
): Response {
  const etag = `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 27)}"`;
  const common = {
    etag,
    // Revalidate every time: a new build must reach browsers at once, and the ETag keeps
    // an unchanged file to a 304.
    "cache-control": "no-cache",
    "x-content-type-options": "nosniff",
    ...headers,
  };
  if (c.req.header("if-none-match") === etag) return c.body(null, 304, common);
  return c.body(bytes as Uint8Array<ArrayBuffer>, 200, { "content-type": contentType, ...common });
}

function serveShell(c: Context, name: ShellName): Response {
  return serveBytes(c, new TextEncoder().encode(shellHtml(name)), CONTENT_TYPES.html, {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    // Share tokens and admin pages must not leak through the Referer header.
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    ...(name === "share" ? { "x-robots-tag": "noindex", "cache-control": "no-store" } : {}),
  });
}

export function staticRoutes(): Hono {
  const app = new Hono();
  // The end-user app (ui/app/): its pages are routed in the browser.
  for (const path of APP_PATHS) app.get(path, (c) => serveShell(c, "app"));
  app.get(START_PAGE, (c) => serveShell(c, "start"));
  app.get("/admin", (c) => serveShell(c, "admin"));
  app.get("/admin/", (c) => serveShell(c, "admin"));
  // Console pages are routed in the browser; /admin/api belongs to the admin API.
  app.get("/admin/:page{[a-z][a-z0-9-]*}", (c) => {
    if (c.req.param("page") === "api") return c.notFound();
    return serveShell(c, "admin");
  });
  app.get("/s/:token", (c) => serveShell(c, "share"));
  app.get("/static/*", (c) => {
    const rel = safeRelativePath(c.req.path.slice("/static/".length));
    return rel ? serveStatic(c, rel) : c.text("Not found", 404);
  });
  return app;
}

/**
 * The browsable API reference: Scalar's standalone API reference (npm `@scalar/api-reference`,
 * copied to static/vendor/scalar/ by scripts/vendor_api_reference.ts) rendering this server's
 * OpenAPI documents, with try-it-out against this same origin. Nothing comes from another origin:
 * the script is ours, the default web fonts, telemetry and the AI agent are off, and the content
 * security policy lets the page reach this server only.
 */
import type { Context } from "hono";

/** Where static/vendor/scalar/standalone.js is served (api/public/static.ts serves /static/). */
export const SCALAR_SCRIPT_PATH = "/static/vendor/scalar/standalone.js";

/** One OpenAPI document the page offers. */
interface DocsSource {
  title: string;
  /** Stable id of the document in the page's address (`?api=<slug>`). */
  slug: string;
  /** Absolute path of the document on this server. */
  url: string;
}

/**
 * The service's documents, the drive API first (the page opens on it). The paths are the mount
 * points of app.ts; tests/runtime/openapi_docs_test.ts fetches each.
 */
export const API_DOCUMENTS: readonly DocsSource[] = [
  { title: "Drive external API", slug: "external", url: "/api/external/v1/openapi.json" },
  { title: "Admin API", slug: "admin", url: "/admin/api/openapi.json" },
  { title: "Public share-link API", slug: "public-links", url: "/public/v1/openapi.json" },
  { title: "Account API", slug: "account", url: "/api/account/v1/openapi.json" },
  { title: "Sign-in API (single sign-on)", slug: "auth", url: "/auth/v1/openapi.json" },
];

/**
 * Scalar may inject styles, and its fonts and icons are data URLs; scripts and requests stay on
 * this origin (try-it-out calls the documented server, which is this one).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const escapeAttribute = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * The page: Scalar reads its configuration from the `data-configuration` attribute of the
 * `#api-reference` element, so no inline script is needed (the policy forbids them).
 */
function apiDocsHtml(title: string, sources: readonly DocsSource[]): string {
  const configuration = {
    sources: sources.map((s, i) => ({ ...s, default: i === 0 })),
    // No request to fonts.scalar.com, Scalar's telemetry or its AI services.
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    hideClientButton: false,
    // Try-it-out goes straight to this server; Scalar's public proxy must never see a key.
    proxyUrl: "",
    documentDownloadType: "json",
    defaultOpenAllTags: false,
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeAttribute(title)}</title>
</head>
<body>
<noscript>This page needs JavaScript. The documents themselves: ${
    sources.map((s) => `<a href="${escapeAttribute(s.url)}">${escapeAttribute(s.title)}</a>`)
      .join(", ")
  }.</noscript>
<script id="api-reference" data-configuration="${
    escapeAttribute(JSON.stringify(configuration))
  }"></script>
<script src="${SCALAR_SCRIPT_PATH}"></script>
</body>
</html>`;
}

/** Answers the page with its security headers. */
export function apiDocsResponse(
  c: Context,
  title: string,
  sources: readonly DocsSource[],
): Response {
  return c.html(apiDocsHtml(title, sources), 200, {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
  });
}

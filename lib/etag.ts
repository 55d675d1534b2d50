/**
 * The strong ETag of stored content: the first 128 bits (32 hex digits) of its SHA-256, quoted.
 * One form for the drive API's downloads (api/http/file_response.ts) and WebDAV's getetag
 * (dav/files.ts). Not the whole hash: WebDAV clients echo ETags back inside If headers next to a
 * URL and a lock token, and some keep those in small fixed buffers (litmus's complex_cond_put
 * does: with 64 digits its If header no longer fits). 128 bits still tell contents apart.
 */
export const contentEtag = (sha256: string): string => `"${sha256.slice(0, 32)}"`;

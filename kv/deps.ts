import type { BlobStore } from "../blobs/store.ts";
import type { Config } from "../config.ts";

/** What every drive operation works on; built once in main.ts (or a test) and passed down. */
export interface Deps {
  kv: Deno.Kv;
  blobs: BlobStore;
  config: Config;
}

import type { BlobStore } from "../blobs/store.ts";
import type { Config } from "../config.ts";

/** What every drive operation works on; built once by boot() in boot.ts and passed down. */
export interface Deps {
  kv: Deno.Kv;
  blobs: BlobStore;
  config: Config;
}

/**
 * Configuration rows (config.ts): rendered previews — the LibreOffice pool that turns office
 * documents into PDF and the thumbnail library ([docs/api.md](docs/api.md#previews)).
 */
import { z } from "zod";
import { int, seconds } from "../lib/env_parsers.ts";
import type { Variable } from "./variable.ts";

export const PREVIEW_VARIABLES = {
  previewSoffice: {
    name: "DRIVE_PREVIEW_SOFFICE",
    default: "/usr/bin/soffice",
    parse: z.string().min(1),
    about: "LibreOffice's `soffice` for office previews; `off` or a missing program turns them " +
      "off, and `view` then answers the original bytes as before",
  },
  previewWorkers: {
    name: "DRIVE_PREVIEW_WORKERS",
    default: "2",
    parse: int(1, 16),
    about: "long-lived LibreOffice processes converting documents at once (each with its own " +
      "profile; started on the first preview)",
  },
  previewQueue: {
    name: "DRIVE_PREVIEW_QUEUE",
    default: "16",
    parse: int(0),
    about: "documents that may wait for a free converter; one more is 503 `PREVIEW_002` " +
      "with Retry-After",
  },
  previewTimeoutMs: {
    name: "DRIVE_PREVIEW_TIMEOUT_S",
    default: "30",
    parse: seconds(1),
    about: "time limit of one document conversion; a slower one is stopped and is 422 " +
      "`PREVIEW_001`",
  },
  previewMaxBytes: {
    name: "DRIVE_PREVIEW_MAX_BYTES",
    default: "52428800",
    parse: int(1),
    about: "largest file given to the converter or the thumbnail library; a larger one is " +
      "422 `PREVIEW_001`/`PREVIEW_003`",
  },
} satisfies Record<string, Variable>;

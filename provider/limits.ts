/** The limits table of the storage provider protocol, in one place for provider and host. */
export { PROTOCOL_MAX_DOC_BYTES as MAX_DOC_BYTES } from "../config.ts";

/** Successful info, list and put responses; also the whole JSON of a list. */
export const MAX_JSON_RESPONSE_BYTES = 5_242_880;
export const MAX_LIST_ENTRIES = 10_000;
/** What a host reads of an error or unsupported body. */
export const MAX_ERROR_BODY_BYTES = 8 * 1024;
/** A 200 result text of lock, unlock, mkdir, rename, delete. */
export const MAX_RESULT_TEXT_BYTES = 10 * 1024 * 1024;
/** JSON request bodies (public examples). */
export const MAX_JSON_REQUEST_BYTES = 16 * 1024;
export const MAX_PATH_CHARS = 4096;
export const MAX_NAME_CHARS = 255;
export const MAX_JWT_BYTES = 5120;
export const MAX_JWT_LIFETIME_S = 60;

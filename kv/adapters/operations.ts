/**
 * The operations of the storage provider protocol (docs/provider.md), the one list that URL
 * parsing, adapters and the admin API share. Every provider answers info and get; an adapter
 * offers any of the optional ones, and the rest answer with the protocol's "not supported".
 */

export const REQUIRED_OPERATIONS = ["info", "get"] as const;

/** In canonical order: adapters store and list their enabled operations in this order. */
export const OPTIONAL_OPERATIONS = [
  "list",
  "put",
  "lock",
  "unlock",
  "mkdir",
  "rename",
  "delete",
] as const;
export type OptionalOperation = typeof OPTIONAL_OPERATIONS[number];

export const OPERATIONS = [...REQUIRED_OPERATIONS, ...OPTIONAL_OPERATIONS] as const;
export type Operation = typeof OPERATIONS[number];

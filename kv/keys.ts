/**
 * The key builders, one per family of kv/key_families.ts (the table: owner, tuple shape, value).
 * Modules build keys only through these; `kv/keys_test.ts` holds every module to that.
 *
 * This module imports nothing but the table, so every layer (blob stores included) may use it.
 */
import type { FamilyName } from "./key_families.ts";

/** A key (or a prefix, with fewer parts) of one family. */
const key = (family: FamilyName, ...parts: Deno.KvKeyPart[]): Deno.KvKey => [family, ...parts];

// Builders, in the order of the table. A builder with fewer parts than the shape is a prefix
// for kv.list.

// identity
export const tenantKey = (tenantId?: number) => key("tenant", ...opt(tenantId));
export const tenantByNameKey = (folded: string) => key("tenant_by_name", folded);
export const userKey = (userSeq?: number) => key("user", ...opt(userSeq));
export const userByAccountKey = (accountId: string) =>
  key("user_by_account", accountId.toLowerCase());
export const userByEmailKey = (email: string) => key("user_by_email", email.toLowerCase());
export const userByTenantKey = (tenantId: number, userSeq?: number) =>
  key("user_by_tenant", tenantId, ...opt(userSeq));
export const userTermKey = (term?: string, userSeq?: number) =>
  key("user_term", ...opt(term), ...opt(userSeq));
export const userAdminKey = (userSeq?: number) => key("user_admin", ...opt(userSeq));
export const apiKeyKey = (keyId?: string) => key("api_key", ...opt(keyId));
export const apiKeyByUserKey = (userSeq: number, keyId?: string) =>
  key("api_key_by_user", userSeq, ...opt(keyId));
export const adminTokenKey = () => key("admin_token");
export const identityEpochKey = () => key("identity_epoch");
export const userPasswordKey = (userSeq: number) => key("user_password", userSeq);
export const invitationKey = (tokenHash: string) => key("invitation", tokenHash);
export const sessionKey = (sessionHash: string) => key("session", sessionHash);
export const sessionByUserKey = (userSeq: number, sessionHash?: string) =>
  key("session_by_user", userSeq, ...opt(sessionHash));
/** A password-guessing subject: `link:<shareSeq>`, `account:<login>`, `client:<client>`. */
export const guessKey = (subject: string, client: string) => key("guess", subject, client);
export const guessRateKey = (subject: string) => key("guess_rate", subject);

// tree
export const resourceKey = (rs?: number) => key("res", ...opt(rs));
export const resourceNameKey = (ownerSeq: number, parent?: number, nameKey?: string) =>
  key("res_name", ownerSeq, ...opt(parent), ...opt(nameKey));
export const bySizeKey = (ownerSeq: number, parent: number, size?: number, rs?: number) =>
  key("res_by_size", ownerSeq, parent, ...opt(size), ...opt(rs));
export const byUpdateKey = (ownerSeq: number, parent: number, updatedAt?: number, rs?: number) =>
  key("res_by_update", ownerSeq, parent, ...opt(updatedAt), ...opt(rs));
export const trashIndexKey = (ownerSeq?: number, rs?: number) =>
  key("res_trash", ...opt(ownerSeq), ...opt(rs));
export const versionKey = (rs?: number, version?: number) =>
  key("res_version", ...opt(rs), ...opt(version));
export const searchTokenKey = (ownerSeq: number, token?: string, rs?: number) =>
  key("res_token", ownerSeq, ...opt(token), ...opt(rs));
export const lockKey = (rs?: number) => key("lock", ...opt(rs));
export const ownerLockKey = (ownerSeq: number, rs?: number) =>
  key("lock_owner", ownerSeq, ...opt(rs));
export const lockStampKey = (ownerSeq: number) => key("lock_stamp", ownerSeq);
export const treeShapeKey = (ownerSeq: number) => key("tree_shape", ownerSeq);
export const lockReleaseKey = (releasedAt?: number, rs?: number) =>
  key("lock_release", ...opt(releasedAt), ...opt(rs));
export const usageKey = (userSeq: number) => key("usage", userSeq);
export const purgeMarkerKey = (rs: number) => key("trash_purge", rs);
export const downloadTokenKey = (token: string) => key("download_token", token);
/** A cached rendition of some content, by the content's SHA-256 (kv/previews/renditions.ts). */
export const renditionKey = (sha256?: string, kind?: string) =>
  key("rendition", ...opt(sha256), ...opt(kind));
export const uploadKey = (uploadId?: string) => key("upload", ...opt(uploadId));
export const uploadExpiryKey = (expiresAt?: number, uploadId?: string) =>
  key("upload_expiry", ...opt(expiresAt), ...opt(uploadId));

// sharing (share_link and link_access are keyed by a SHA-256 the caller computes, so a token
// never sits in a key)
export const shareKey = (shareSeq: number) => key("share", shareSeq);
export const shareByResKey = (rs: number) => key("share_by_res", rs);
export const shareByOwnerKey = (ownerSeq: number, shareSeq?: number) =>
  key("share_by_owner", ownerSeq, ...opt(shareSeq));
export const shareLinkKey = (tokenHash: string) => key("share_link", tokenHash);
export const shareLinkListKey = (shareSeq?: number) => key("share_link_list", ...opt(shareSeq));
export const shareTypeGenKey = (ownerSeq: number) => key("share_type_gen", ownerSeq);
export const shareVisitKey = (shareSeq: number, userSeq?: number) =>
  key("share_visit", shareSeq, ...opt(userSeq));
export const sharedEntryKey = (userSeq: number, rs?: number) =>
  key("shared_entry", userSeq, ...opt(rs));
export const sharedIndexKey = (
  userSeq: number,
  sort: string,
  sortValue?: Deno.KvKeyPart,
  rs?: number,
) => key("shared_idx", userSeq, sort, ...opt(sortValue), ...opt(rs));
export const starKey = (userSeq: number, rs?: number) => key("star", userSeq, ...opt(rs));
export const linkAccessKey = (accessTokenHash: string) => key("link_access", accessTokenHash);
export const deadPropKey = (rs: number, ns?: string, local?: string) =>
  key("dav_prop", rs, ...opt(ns), ...opt(local));
export const deadPropIndexKey = (ownerSeq: number, rs?: number) =>
  key("dav_prop_idx", ownerSeq, ...opt(rs));
export const pinsKey = (userSeq: number) => key("pins", userSeq);
export const pinKey = (pinnedFolderSeq: number) => key("pin", pinnedFolderSeq);
export const outboxKey = (createdAt?: number, id?: string) =>
  key("notify_outbox", ...opt(createdAt), ...opt(id));

// events
export const eventPendingKey = (commitId?: string, n?: number) =>
  key("event_pending", ...opt(commitId), ...opt(n));
export const eventTickKey = () => key("event_tick");
export const eventLogKey = (versionstamp?: string, n?: number) =>
  key("event", ...opt(versionstamp), ...opt(n));
export const eventHeadKey = () => key("event_head");
export const eventLeaseKey = () => key("event_lease");
export const eventFloorKey = () => key("event_floor");
export const webhookKey = (webhookId?: string) => key("webhook", ...opt(webhookId));
export const webhookDeliveryKey = (webhookId: string, deliveryId?: string) =>
  key("webhook_delivery", webhookId, ...opt(deliveryId));
export const webhookOutboxKey = (dueAt?: number, id?: string) =>
  key("webhook_outbox", ...opt(dueAt), ...opt(id));
export const webhookUndeliveredKey = (kind?: string, id?: string) =>
  key("webhook_undelivered", ...opt(kind), ...opt(id));

// single sign-on
export const oidcConfigKey = (tenantId?: number) => key("oidc_config", ...opt(tenantId));
export const oidcFlowKey = (stateHash: string) => key("oidc_flow", stateHash);

// provider
export const adapterKey = (name?: string) => key("adapter", ...opt(name));
export const jtiKey = (adapterName: string, jti: string) => key("provider_jti", adapterName, jti);

// lifecycle
export const lifecycleJobKey = (kind?: string, id?: number) =>
  key("lifecycle_job", ...opt(kind), ...opt(id));
export const retentionLeaseKey = () => key("retention_lease");

// schema
export const schemaVersionKey = () => key("schema_version");
export const migrationKey = (name?: string) => key("migration", ...opt(name));
export const restoreMarkerKey = () => key("restore_incomplete");

// stores
export const seqKey = (name: string) => key("seq", name);
export const readyProbeKey = (id: string) => key("ready_probe", id);
export const blobKey = (blobId?: string) => key("blob", ...opt(blobId));
export const blobChunkKey = (blobId: string, n?: number) => key("blob_chunk", blobId, ...opt(n));
export const blobPendingKey = (blobId?: string) => key("blob_pending", ...opt(blobId));
export const blobLeaseKey = (store?: string, writerId?: string) =>
  key("blob_lease", ...opt(store), ...opt(writerId));
export const s3PendingKey = (blobId?: string) => key("s3_pending", ...opt(blobId));
export const s3StageKey = (blobId?: string) => key("s3_stage", ...opt(blobId));
export const s3StageChunkKey = (blobId: string, n?: number) =>
  key("s3_stage_chunk", blobId, ...opt(n));
/**
 * What the blob stores need (`lease` for blobs/leases.ts); boot() hands it over, so the byte
 * stores import nothing from kv/.
 */
export const blobStoreKeys = {
  blob: blobKey,
  chunk: blobChunkKey,
  pending: blobPendingKey,
  lease: blobLeaseKey,
};
/** What the s3 blob store keeps in KV (blobs/s3.ts): its pending writes and its tus stages. */
export const s3StoreKeys = {
  pending: s3PendingKey,
  stage: s3StageKey,
  stageChunk: s3StageChunkKey,
  lease: blobLeaseKey,
};

/** Optional trailing key parts: present ones are appended, absent ones make a prefix. */
function opt(part: Deno.KvKeyPart | undefined): Deno.KvKeyPart[] {
  return part === undefined ? [] : [part];
}

/**
 * The data model in one place: every Deno KV key family the service stores, its tuple shape,
 * the value under it, and the one module that writes it. Modules build keys only through the
 * builders of kv/keys.ts (no raw key tuples elsewhere) and write only the families they own; a
 * module that needs another family changed in its commit calls the owner's helper, which adds
 * the mutation to the caller's atomic operation. `kv/keys_test.ts` holds every module to this.
 *
 * This module imports nothing, so every layer (blob stores included) may use it.
 */

/** One key family: who writes it, the tuple it is keyed by, and what is stored there. */
export interface Family {
  owner: string;
  shape: string;
  /** The stored value: a type declared in the owner module, or a plain JSON shape. */
  value: string;
}

export const FAMILIES = {
  // ------------------------------------------------------------ identity
  tenant: { owner: "kv/identity/tenants.ts", shape: "[tenant, tenantId]", value: "Tenant" },
  tenant_by_name: {
    owner: "kv/identity/tenants.ts",
    shape: "[tenant_by_name, NFC lowercase name]",
    value: "tenantId",
  },
  user: { owner: "kv/identity/users.ts", shape: "[user, userSeq]", value: "User" },
  user_by_account: {
    owner: "kv/identity/users.ts",
    shape: "[user_by_account, lowercase accountId]",
    value: "userSeq",
  },
  user_by_email: {
    owner: "kv/identity/users.ts",
    shape: "[user_by_email, lowercase email]",
    value: "userSeq",
  },
  user_by_tenant: {
    owner: "kv/identity/users.ts",
    shape: "[user_by_tenant, tenantId, userSeq]",
    value: "userSeq",
  },
  user_term: {
    owner: "kv/identity/users.ts",
    shape: "[user_term, lowercase accountId, email, name or word of the name, userSeq]",
    value: "true (the admin search's prefix index, kv/identity/admin_lists.ts)",
  },
  user_admin: {
    owner: "kv/identity/users.ts",
    shape: "[user_admin, userSeq]",
    value: "true (the users holding the admin role)",
  },
  api_key: { owner: "kv/identity/api_keys.ts", shape: "[api_key, keyId]", value: "StoredApiKey" },
  api_key_by_user: {
    owner: "kv/identity/api_keys.ts",
    shape: "[api_key_by_user, userSeq, keyId]",
    value: "keyId",
  },
  identity_epoch: {
    owner: "kv/identity/cache.ts",
    shape: "[identity_epoch]",
    value: "a Deno.KvU64 counter, +1 in every commit that changes a user or tenant record",
  },
  admin_token: {
    owner: "kv/identity/admin_token.ts",
    shape: "[admin_token]",
    value: "{ hash, createdAt } (SHA-256 of a generated token)",
  },
  user_password: {
    owner: "kv/identity/passwords.ts",
    shape: "[user_password, userSeq]",
    value: "StoredPassword (scrypt hash, when it was set)",
  },
  invitation: {
    owner: "kv/identity/invitations.ts",
    shape: "[invitation, sha256(token)]",
    value: "Invitation (one-time link to set a password; expires)",
  },
  session: {
    owner: "kv/identity/sessions.ts",
    shape: "[session, sha256(sessionId)]",
    value: "Session (a signed-in browser; expires)",
  },
  session_by_user: {
    owner: "kv/identity/sessions.ts",
    shape: "[session_by_user, userSeq, sha256(sessionId)]",
    value: "true (a user's sessions, for listing and revoking)",
  },
  guess: {
    owner: "kv/identity/guess_throttle.ts",
    shape: "[guess, subject, client]",
    value: "GuessBudget (one client's password tries on one link or account)",
  },
  guess_rate: {
    owner: "kv/identity/guess_throttle.ts",
    shape: "[guess_rate, subject]",
    value: "GuessRate (wrong passwords a minute for one link, account or client)",
  },

  // ------------------------------------------------------------ tree
  res: { owner: "kv/tree/resources.ts", shape: "[res, rs]", value: "Resource" },
  res_name: {
    owner: "kv/tree/resources.ts",
    shape: "[res_name, ownerSeq, parentRs or 0, NFC lowercase name]",
    value: "IndexValue (the Resource as listed; unique name per folder)",
  },
  res_by_size: {
    owner: "kv/tree/resources.ts",
    shape: "[res_by_size, ownerSeq, parentRs or 0, size, rs]",
    value: "IndexValue (the Resource as listed)",
  },
  res_by_update: {
    owner: "kv/tree/resources.ts",
    shape: "[res_by_update, ownerSeq, parentRs or 0, updatedAt, rs]",
    value: "IndexValue (the Resource as listed)",
  },
  res_trash: {
    owner: "kv/tree/resources.ts",
    shape: "[res_trash, ownerSeq, rs]",
    value: "IndexValue (the Resource; top-level trashed items)",
  },
  res_version: {
    owner: "kv/tree/content_versions.ts",
    shape: "[res_version, rs, version]",
    value: "ContentVersion",
  },
  res_token: {
    owner: "kv/tree/search_index.ts",
    shape: "[res_token, ownerSeq, folded name token, rs]",
    value: "SearchEntry (name and type, so a search filters without reading the resource)",
  },
  lock: { owner: "kv/tree/locks.ts", shape: "[lock, rs]", value: "Lock" },
  lock_owner: {
    owner: "kv/tree/locks.ts",
    shape: "[lock_owner, ownerSeq, rs]",
    value: "true (the owner's locked documents)",
  },
  lock_stamp: {
    owner: "kv/tree/locks.ts",
    shape: "[lock_stamp, ownerSeq]",
    value: "ms of the owner's latest new lock",
  },
  tree_shape: {
    owner: "kv/tree/tree_shape.ts",
    shape: "[tree_shape, ownerSeq]",
    value: "ms of the owner's latest folder move, trash, restore or delete",
  },
  lock_release: {
    owner: "kv/tree/locks.ts",
    shape: "[lock_release, releasedAt, rs]",
    value: "LockRelease",
  },
  usage: { owner: "kv/tree/usage.ts", shape: "[usage, userSeq]", value: "bytes" },
  trash_purge: {
    owner: "kv/tree/trash.ts",
    shape: "[trash_purge, rs]",
    value: "true (a purge of rs has started)",
  },
  download_token: {
    owner: "kv/tree/download_tokens.ts",
    shape: "[download_token, token]",
    value: "DownloadToken",
  },
  rendition: {
    owner: "kv/previews/renditions.ts",
    shape: "[rendition, content sha256, kind]",
    value: "Rendition (a cached PDF preview or thumbnail: its blob, size, sha256)",
  },
  upload: {
    owner: "kv/tree/uploads.ts",
    shape: "[upload, uploadId]",
    value: "Upload (a resumable tus upload: offset, target, state)",
  },
  upload_expiry: {
    owner: "kv/tree/uploads.ts",
    shape: "[upload_expiry, expiresAt, uploadId]",
    value: "true (when the upload and its staged bytes are removed)",
  },

  // ------------------------------------------------------------ sharing
  share: { owner: "kv/sharing/share_writes.ts", shape: "[share, shareSeq]", value: "Share" },
  share_by_res: {
    owner: "kv/sharing/share_writes.ts",
    shape: "[share_by_res, rs]",
    value: "shareSeq",
  },
  share_by_owner: {
    owner: "kv/sharing/share_writes.ts",
    shape: "[share_by_owner, ownerSeq, shareSeq]",
    value: "{ rs, type }",
  },
  share_link: {
    owner: "kv/sharing/share_writes.ts",
    shape: "[share_link, sha256(token)]",
    value: "shareSeq",
  },
  share_link_list: {
    owner: "kv/sharing/share_writes.ts",
    shape: "[share_link_list, shareSeq]",
    value: "rs",
  },
  share_type_gen: {
    owner: "kv/sharing/share_writes.ts",
    shape: "[share_type_gen, ownerSeq]",
    value: "number (bumped by each share create or type change)",
  },
  share_visit: {
    owner: "kv/sharing/shared_list.ts",
    shape: "[share_visit, shareSeq, userSeq]",
    value: "true (the user presented the link token)",
  },
  shared_entry: {
    owner: "kv/sharing/shared_list.ts",
    shape: "[shared_entry, userSeq, rs]",
    value: "SharedEntry",
  },
  shared_idx: {
    owner: "kv/sharing/shared_list.ts",
    shape: "[shared_idx, userSeq, sort, sortValue, rs]",
    value: "shareSeq",
  },
  star: { owner: "kv/sharing/stars.ts", shape: "[star, userSeq, rs]", value: "Star" },
  link_access: {
    owner: "kv/sharing/share_links.ts",
    shape: "[link_access, sha256(accessToken)]",
    value: "LinkAccess",
  },
  dav_prop: {
    owner: "kv/tree/dead_props.ts",
    shape: "[dav_prop, rs, namespace, localName]",
    value: "DeadProp",
  },
  dav_prop_idx: {
    owner: "kv/tree/dead_props.ts",
    shape: "[dav_prop_idx, ownerSeq, rs]",
    value: "DeadPropMark",
  },
  pins: { owner: "kv/sharing/pins.ts", shape: "[pins, userSeq]", value: "Pin[] (pin order)" },
  pin: { owner: "kv/sharing/pins.ts", shape: "[pin, pinnedFolderSeq]", value: "userSeq" },
  notify_outbox: {
    owner: "kv/sharing/notifications.ts",
    shape: "[notify_outbox, createdAt, id]",
    value: "Notification",
  },

  // ------------------------------------------------------------ events (docs/changes.md)
  event_pending: {
    owner: "kv/events/log.ts",
    shape: "[event_pending, commitId, n]",
    value: "DriveEvent (written in the change's own commit; its versionstamp is its order)",
  },
  event_tick: {
    owner: "kv/events/log.ts",
    shape: "[event_tick]",
    value: "commitId of the latest commit with events (blind set; wakes the sequencer)",
  },
  event: {
    owner: "kv/events/sequencer.ts",
    shape: "[event, versionstamp, n]",
    value: "a DriveEvent of kv/events/log.ts (the log, in commit order)",
  },
  event_head: {
    owner: "kv/events/sequencer.ts",
    shape: "[event_head]",
    value: "{ vs, n }: the newest log entry's EventPosition (wakes long-polls)",
  },
  event_lease: {
    owner: "kv/events/sequencer.ts",
    shape: "[event_lease]",
    value: "SequencerLease (which process sequences, until when)",
  },
  event_floor: {
    owner: "kv/events/sequencer.ts",
    shape: "[event_floor]",
    value: "EventFloor (the newest position removed by retention; older cursors are 410)",
  },
  webhook: {
    owner: "kv/events/webhooks.ts",
    shape: "[webhook, webhookId]",
    value: "StoredWebhook (endpoint, event filter, sealed signing secret, health)",
  },
  webhook_delivery: {
    owner: "kv/events/webhook_delivery.ts",
    shape: "[webhook_delivery, webhookId, deliveryId]",
    value: "WebhookDelivery (one message to one endpoint, its attempts; expireIn retention)",
  },
  webhook_outbox: {
    owner: "kv/events/webhook_outbox.ts",
    shape: "[webhook_outbox, dueAt, id]",
    value: "OutboxEntry (a webhook fan-out or attempt, due at dueAt; a claim moves it by a lease)",
  },
  webhook_undelivered: {
    owner: "kv/events/webhook_outbox.ts",
    shape: "[webhook_undelivered, kind, id]",
    value: "a message the KV queue gave up on before the outbox; moved into it at start",
  },

  // ------------------------------------------------------------ single sign-on (OIDC)
  oidc_config: {
    owner: "kv/identity/oidc.ts",
    shape: "[oidc_config, tenantId]",
    value: "StoredOidcConfig (issuer, client id, sealed client secret, domains, claim names)",
  },
  oidc_flow: {
    owner: "kv/identity/oidc_flow.ts",
    shape: "[oidc_flow, SHA-256 of state]",
    value: "OidcFlow (tenant, nonce, PKCE verifier of one sign-in under way; expireIn 10 min)",
  },

  // ------------------------------------------------------------ provider
  adapter: {
    owner: "kv/adapters/adapters.ts",
    shape: "[adapter, name]",
    value: "StoredAdapter",
  },
  provider_jti: {
    owner: "kv/adapters/replay.ts",
    shape: "[provider_jti, adapterName, jti]",
    value: "{ exp } (expireIn until exp)",
  },

  // ------------------------------------------------------------ lifecycle (docs/operations.md)
  lifecycle_job: {
    owner: "kv/lifecycle/jobs.ts",
    shape: "[lifecycle_job, user_delete or tenant_delete or transfer, id]",
    value: "LifecycleJob (a deletion or transfer under way; the retention job resumes it)",
  },
  retention_lease: {
    owner: "kv/lifecycle/retention.ts",
    shape: "[retention_lease]",
    value: "RetentionLease (which process runs the retention job, until when; expireIn)",
  },

  // ------------------------------------------------------------ schema
  schema_version: {
    owner: "kv/migrations/migrations.ts",
    shape: "[schema_version]",
    value: "number (the highest schema version whose migrations all ran)",
  },
  migration: {
    owner: "kv/migrations/migrations.ts",
    shape: "[migration, name]",
    value: "MigrationRecord (a named start-up migration that ran)",
  },
  restore_incomplete: {
    owner: "kv/backup/restore.ts",
    shape: "[restore_incomplete]",
    value: "RestoreMarker (a restore is writing, or failed without undoing what it wrote)",
  },

  // ------------------------------------------------------------ stores
  seq: { owner: "kv/db.ts", shape: "[seq, name]", value: "last number handed out" },
  ready_probe: {
    owner: "kv/db.ts",
    shape: "[ready_probe, random id]",
    value: "probe time (ms; /readyz's KV round trip, deleted at once, expires in 60 s)",
  },
  blob: { owner: "blobs/kv.ts", shape: "[blob, blobId]", value: "BlobRecord" },
  blob_chunk: {
    owner: "blobs/kv.ts",
    shape: "[blob_chunk, blobId, n]",
    value: "bytes (a 63 KiB chunk)",
  },
  blob_pending: {
    owner: "blobs/kv.ts",
    shape: "[blob_pending, blobId]",
    value: "PendingWrite (a number, the start time, from versions before blob_lease)",
  },
  blob_lease: {
    owner: "blobs/leases.ts",
    shape: "[blob_lease, fs or kv or s3, writerId]",
    value: "WriterLease (renewed while the writer's writes run; expireIn)",
  },
  s3_pending: {
    owner: "blobs/s3.ts",
    shape: "[s3_pending, blobId]",
    value: "S3PendingWrite (before the object's first byte is sent; gone once it is complete)",
  },
  s3_stage: {
    owner: "blobs/s3_staging.ts",
    shape: "[s3_stage, blobId]",
    value: "S3StageMarker (a tus stage of the s3 store, until sealed or discarded)",
  },
  s3_stage_chunk: {
    owner: "blobs/s3_staging.ts",
    shape: "[s3_stage_chunk, blobId, n]",
    value: "S3StageChunk (63 KiB of a stage's bytes)",
  },
} as const satisfies Record<string, Family>;

export type FamilyName = keyof typeof FAMILIES;

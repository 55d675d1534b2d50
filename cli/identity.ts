/**
 * Admin CLI commands for identities: the admin token, tenants, users and API keys. They call
 * the same domain functions as the admin API and validate input with the admin API's own
 * schemas (api/admin/schemas.ts), so a value the API refuses the CLI refuses too.
 */
import { type Command, InvalidArgumentError } from "commander";
import type { z } from "zod";
import { describeZodError } from "../api/http/openapi.ts";
import {
  CreateKeyBody,
  CreateTenantBody,
  CreateUserBody,
  KEY_ID_PATTERN,
  KEY_ID_RULE,
} from "../api/admin/schemas/identity.ts";
import { resetAdminToken } from "../kv/identity/admin_token.ts";
import {
  type ApiKey,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  setApiKeyDisabled,
} from "../kv/identity/api_keys.ts";
import {
  createTenant,
  listTenants,
  setTenantDisabled,
  type Tenant,
} from "../kv/identity/tenants.ts";
import { createUser, listUsers, setUserDisabled, type User } from "../kv/identity/users.ts";
import { parseQuotaText } from "../lib/quota.ts";
import { getUsage } from "../kv/tree/usage.ts";
import { CliExit, EXIT, loadConfig, print, table, withDeps } from "./context.ts";

interface JsonOption {
  json?: boolean;
}

/** A positive integer argument (a seq or id), or a usage error naming it. */
export function positiveInt(name: string) {
  return (value: string): number => {
    if (!/^[1-9]\d{0,15}$/.test(value)) {
      throw new InvalidArgumentError(`${name} must be a positive integer`);
    }
    return Number(value);
  };
}

/** A quota as the console takes it (lib/quota.ts), or a usage error saying what is accepted. */
function quotaArg(value: string): number {
  const bytes = parseQuotaText(value);
  if (typeof bytes === "string") throw new InvalidArgumentError(bytes);
  return bytes;
}

function keyIdArg(value: string): string {
  if (!KEY_ID_PATTERN.test(value)) throw new InvalidArgumentError(`keyId must be ${KEY_ID_RULE}`);
  return value;
}

/** Parses `input` with an admin API schema; a refusal is a usage error naming the field. */
function validated<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new CliExit(EXIT.usage, `invalid ${describeZodError(result.error).message}`);
  }
  return result.data;
}

const state = (x: { disabledAt?: string | null; revokedAt?: string | null }) =>
  x.revokedAt ? "revoked" : x.disabledAt ? "disabled" : "enabled";

const tenantRows = (items: Tenant[]) =>
  table(
    ["ID", "NAME", "STATE", "CREATED"],
    items.map((t) => [t.id, t.name, state(t), t.createdAt]),
  );

const userRows = (items: (User & { usedBytes: number })[]) =>
  table(
    ["SEQ", "TENANT", "ACCOUNT", "EMAIL", "STATE", "USED", "QUOTA"],
    items.map((u) => [
      u.userSeq,
      u.tenantId,
      u.accountId,
      u.email,
      state(u),
      u.usedBytes,
      u.quotaBytes,
    ]),
  );

const keyRows = (items: ApiKey[]) =>
  table(
    ["KEY ID", "USER", "SCOPES", "STATE", "LABEL", "CREATED"],
    items.map((k) => [k.keyId, k.userSeq, k.scopes.join(","), state(k), k.label, k.createdAt]),
  );

/** The `disable` and `enable` commands of a group (tenants, users, keys), alike but for words. */
function addDisableEnable<Id, T>(group: Command, spec: {
  disable: string;
  enable: string;
  argument: [name: string, about: string, parse: (value: string) => Id];
  /** What --json prints, e.g. "the tenant". */
  record: string;
  set: (kv: Deno.Kv, id: Id, disabled: boolean) => Promise<T>;
  show: (record: T) => { json: unknown; line: string };
}): void {
  for (const action of ["disable", "enable"] as const) {
    group.command(action)
      .description(spec[action])
      .argument(...spec.argument)
      .option("--json", `print ${spec.record} as JSON`)
      .action(async (id: Id, opts: JsonOption) => {
        const shown = spec.show(await withDeps((d) => spec.set(d.kv, id, action === "disable")));
        print(opts.json, shown.json, () => [shown.line]);
      });
  }
}

export function addIdentityCommands(program: Command): void {
  program.command("reset-admin-token")
    .description(
      "replace the admin token and print the new one once (the old one stops working on every " +
        "running server at once)",
    )
    .option("--json", 'print {"adminToken": ...} as JSON')
    .action(async (opts: JsonOption) => {
      const config = loadConfig();
      if (config.adminToken) {
        throw new CliExit(
          EXIT.refused,
          "DRIVE_ADMIN_TOKEN is set, so it is the admin token: change the variable and restart",
        );
      }
      const token = await withDeps((d) => resetAdminToken(d.kv, null));
      print(opts.json, { adminToken: token }, () => [
        `new admin token (shown once, store it now): ${token}`,
      ]);
    });

  const tenants = program.command("tenants").description("create, list, disable, enable tenants");
  tenants.command("create")
    .description("create a tenant")
    .requiredOption("--name <name>", "the tenant's name")
    .option("--json", "print the tenant as JSON")
    .action(async (opts: JsonOption & { name: string }) => {
      const body = validated(CreateTenantBody, { name: opts.name });
      const t = await withDeps((d) => createTenant(d.kv, body.name));
      print(opts.json, t, () => [`created tenant ${t.id} "${t.name}"`]);
    });
  tenants.command("list")
    .description("list every tenant")
    .option("--json", 'print {"items": [...]} as JSON')
    .action(async (opts: JsonOption) => {
      const items = await withDeps((d) => listTenants(d.kv));
      print(opts.json, { items }, () => tenantRows(items));
    });
  addDisableEnable(tenants, {
    disable: "disable a tenant: its users' API keys, adapters and share links stop working; " +
      "data is kept",
    enable: "enable a disabled tenant again",
    argument: ["<tenantId>", "the tenant's id", positiveInt("tenantId")],
    record: "the tenant",
    set: setTenantDisabled,
    show: (t) => ({ json: t, line: `tenant ${t.id} "${t.name}" is ${state(t)}` }),
  });

  const users = program.command("users").description("create, list, disable, enable users");
  users.command("create")
    .description("create a user")
    .requiredOption("--tenant <tenantId>", "the user's tenant", positiveInt("--tenant"))
    .requiredOption("--account <accountId>", "login id, unique across the service")
    .requiredOption("--email <email>", "e-mail address, unique across the service")
    .requiredOption("--name <name>", "display name")
    .option(
      "--quota <size>",
      "storage quota: bytes, or with a unit as in the console, e.g. 5GiB, 512MiB, 2.5TiB " +
        "(default DRIVE_DEFAULT_QUOTA_BYTES)",
      quotaArg,
    )
    .option("--json", "print the user as JSON")
    .action(async (
      opts: JsonOption & {
        tenant: number;
        account: string;
        email: string;
        name: string;
        quota?: number;
      },
    ) => {
      const body = validated(CreateUserBody, {
        tenantId: opts.tenant,
        accountId: opts.account,
        email: opts.email,
        name: opts.name,
        ...(opts.quota === undefined ? {} : { quotaBytes: opts.quota }),
      });
      const u = await withDeps((d) =>
        createUser(d.kv, { ...body, quotaBytes: body.quotaBytes ?? d.config.defaultQuotaBytes })
      );
      print(opts.json, u, () => [`created user ${u.userSeq} "${u.accountId}"`]);
    });
  users.command("list")
    .description("list users, with their usage")
    .option("--tenant <tenantId>", "only this tenant's users", positiveInt("--tenant"))
    .option("--json", 'print {"items": [...]} as JSON')
    .action(async (opts: JsonOption & { tenant?: number }) => {
      const items = await withDeps(async (d) => {
        const list = await listUsers(d.kv, opts.tenant);
        return await Promise.all(list.map(async (u) => ({
          ...u,
          disabledAt: u.disabledAt ?? null,
          usedBytes: await getUsage(d.kv, u.userSeq),
        })));
      });
      print(opts.json, { items }, () => userRows(items));
    });
  addDisableEnable(users, {
    disable: "disable a user: their API keys, adapters and share links stop working; data is kept",
    enable: "enable a disabled user again",
    argument: ["<userSeq>", "the user's seq", positiveInt("userSeq")],
    record: "the user",
    set: setUserDisabled,
    show: (u) => ({
      json: { ...u, disabledAt: u.disabledAt ?? null },
      line: `user ${u.userSeq} "${u.accountId}" is ${state(u)}`,
    }),
  });

  const keys = program.command("keys").description("create, list, disable, enable, revoke keys");
  keys.command("create")
    .description("issue an API key for a user (the key is printed once)")
    .requiredOption("--user <userSeq>", "the user the key acts as", positiveInt("--user"))
    .option("--write", "grant api:write as well as api:read")
    .option("--label <label>", "a note saying what the key is for")
    .option("--json", "print the key record with apiKey as JSON")
    .action(async (opts: JsonOption & { user: number; write?: boolean; label?: string }) => {
      const body = validated(CreateKeyBody, {
        userSeq: opts.user,
        scopes: opts.write ? ["api:read", "api:write"] : ["api:read"],
        label: opts.label ?? null,
      });
      const { key, apiKey } = await withDeps((d) => createApiKey(d.kv, body));
      print(opts.json, { ...key, apiKey }, () => [
        `API key ${key.keyId} for user ${key.userSeq} (${key.scopes.join(", ")}), shown once:`,
        apiKey,
      ]);
    });
  keys.command("list")
    .description("list API keys (never their secrets)")
    .option("--user <userSeq>", "only this user's keys", positiveInt("--user"))
    .option("--json", 'print {"items": [...]} as JSON')
    .action(async (opts: JsonOption & { user?: number }) => {
      const items = await withDeps((d) => listApiKeys(d.kv, opts.user));
      print(opts.json, { items }, () => keyRows(items));
    });
  addDisableEnable(keys, {
    disable: "disable an API key until it is enabled again",
    enable: "enable a disabled API key (a revoked key stays revoked)",
    argument: ["<keyId>", "the key id (drv_<keyId>_<secret>)", keyIdArg],
    record: "the key record",
    set: setApiKeyDisabled,
    show: (k) => ({ json: k, line: `API key ${k.keyId} is ${state(k)}` }),
  });
  keys.command("revoke")
    .description("revoke an API key for good")
    .argument("<keyId>", "the key id (drv_<keyId>_<secret>)", keyIdArg)
    .option("--json", 'print {"keyId": ..., "revoked": true} as JSON')
    .action(async (keyId: string, opts: JsonOption) => {
      await withDeps((d) => revokeApiKey(d.kv, keyId));
      print(opts.json, { keyId, revoked: true }, () => [`API key ${keyId} is revoked`]);
    });
}

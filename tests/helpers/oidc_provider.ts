/**
 * A real OpenID provider for the sign-in tests: panva's certified `oidc-provider`, in this Deno
 * process on 127.0.0.1 (Deno's node:http runs it; no Node needed), with one confidential client
 * and a few users. Its development login and consent pages are what a browser signs in through
 * (any password is accepted; the login name picks the user).
 *
 * Two test levers act on the provider itself, never on the drive:
 * - `rotateKeys()` starts a new provider on the same issuer and port whose JWKS leads with a new
 *   signing key (the old one still published), the way an IdP rolls its keys;
 * - `tamperNext({ aud | nonce })` re-signs the next ID token the token endpoint answers, with the
 *   provider's own current key, so only the tampered claim is wrong.
 *
 * Run alone (`deno run -A tests/helpers/oidc_provider.ts`) to try a drive against it by hand.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt, exportJWK, generateKeyPair, type JWK, Provider, SignJWT } from "./oidc_deps.ts";

export interface OidcUser {
  /** The `sub` claim, also the login name on the provider's login page. */
  sub: string;
  email: string;
  name: string;
}

export interface OidcProviderOptions {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  users: OidcUser[];
}

export interface TestOidcProvider {
  issuer: string;
  /** The signing keys' ids, newest first. */
  kids(): string[];
  rotateKeys(): Promise<void>;
  tamperNext(claims: { aud?: string; nonce?: string }): void;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: crypto.randomUUID(), alg: "RS256", use: "sig" };
}

export async function startOidcProvider(opts: OidcProviderOptions): Promise<TestOidcProvider> {
  const users = new Map(opts.users.map((u) => [u.sub, u]));
  // The one mutable part: the provider answering now (replaced by rotateKeys) and the tamper.
  const state: { keys: JWK[]; handler: Handler | null; tamper: Record<string, string> | null } = {
    keys: [await newSigningKey()],
    handler: null,
    tamper: null,
  };
  const server = createServer((req, res) => state.handler!(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const build = () => {
    const provider = new Provider(issuer, {
      clients: [{
        client_id: opts.clientId,
        client_secret: opts.clientSecret,
        redirect_uris: opts.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
      }],
      jwks: { keys: state.keys },
      claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
      features: { devInteractions: { enabled: true } },
      pkce: { required: () => true },
      findAccount: (_ctx: unknown, sub: string) => {
        const user = users.get(sub);
        if (!user) return undefined;
        return {
          accountId: sub,
          claims: () => ({ sub, email: user.email, email_verified: true, name: user.name }),
        };
      },
    });
    provider.proxy = false;
    // Re-sign the ID token of one token answer with the current key, one claim changed.
    provider.use(async (ctx: { path: string; body: unknown }, next: () => Promise<void>) => {
      await next();
      const body = ctx.body as { id_token?: string } | undefined;
      if (ctx.path !== "/token" || !state.tamper || !body?.id_token) return;
      const claims = { ...decodeJwt(body.id_token), ...state.tamper };
      state.tamper = null;
      const key = state.keys[0];
      const signer = new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: key.kid });
      body.id_token = await signer.sign(key);
    });
    state.handler = provider.callback();
  };
  build();

  return {
    issuer,
    kids: () => state.keys.map((k) => k.kid!),
    async rotateKeys() {
      state.keys = [await newSigningKey(), ...state.keys];
      build();
    },
    tamperNext(claims) {
      state.tamper = { ...claims };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.main) {
  const redirect = Deno.args[0] ?? "http://localhost:8000/auth/oidc/callback";
  const p = await startOidcProvider({
    clientId: "drive",
    clientSecret: "drive-secret-for-tests-only",
    redirectUris: [redirect],
    users: [{ sub: "alice", email: "alice@example.com", name: "Alice Example" }],
  });
  console.log(`issuer ${p.issuer}, client "drive", redirect ${redirect}; log in as "alice"`);
}

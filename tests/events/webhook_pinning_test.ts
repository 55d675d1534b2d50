/**
 * Webhook destinations are pinned (issue 22, item 5): an attempt resolves its host once, vets the
 * answer and connects to that address, with the URL's name as Host header and TLS server name.
 * A fake resolver plays a rebinding DNS server; 127.0.0.2 stands in for an internet address, so
 * every receiver stays on loopback. Before pinning, the check and the connection each resolved
 * the name, and the rebinding reached 127.0.0.1 on 3 of 3 events.
 */
import assert from "node:assert/strict";
import { type SendOptions, sendSigned } from "../../kv/events/webhook_send.ts";
import type { Resolver } from "../../kv/events/webhook_target.ts";
import { withServer } from "../helpers/server.ts";

/** "Public" (a loopback stand-in) and inner receivers on one port, counting what each gets. */
function receivers(tls?: { cert: string; key: string }) {
  /** What a receiver saw of a request: the name it was addressed to (Host or :authority). */
  const seen = { public: [] as string[], inner: [] as string[] };
  const serve = (hostname: string, port: number, into: string[]) =>
    Deno.serve({ hostname, port, onListen() {}, ...tls }, (req) => {
      into.push(new URL(req.url).host);
      return new Response("got it", { status: 200 });
    });
  const inner = serve("127.0.0.1", 0, seen.inner);
  const port = inner.addr.port;
  const outer = serve("127.0.0.2", port, seen.public);
  return {
    seen,
    port,
    close: async () => void await Promise.all([inner.shutdown(), outer.shutdown()]),
  };
}

/** A rebinding DNS server: answers come from `answers` in turn, one per lookup, recorded. */
function rebinding(answers: string[][]): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = (host: string) => {
    asked.push(host);
    return Promise.resolve(answers[(asked.length - 1) % answers.length]);
  };
  return Object.assign(resolve, { asked });
}

const send = (url: string, opts: Partial<SendOptions>) =>
  sendSigned(
    {
      url,
      secret: `whsec_${btoa("k".repeat(32))}`,
      messageId: "msg_pinning",
      payload: '{"type":"created"}',
    },
    { timeoutMs: 10_000, allowPrivate: false, treatAsPublic: ["127.0.0.2"], ...opts },
  );

Deno.test("pinning: a name rebinding to 127.0.0.1 between check and connection never reaches it", async () => {
  const r = receivers();
  try {
    // The classic rebinding: public at the check, inward at the connection's own lookup.
    const resolve = rebinding([["127.0.0.2"], ["127.0.0.1"]]);
    const url = `http://hooks.rebind.example:${r.port}/hook`;
    const outcomes = [];
    for (let event = 0; event < 3; event++) outcomes.push(await send(url, { resolve }));
    assert.equal(r.seen.inner.length, 0, "the inner address was reached");
    // One lookup per attempt: the attempts that got the public answer were delivered there...
    assert.deepEqual(outcomes.map((o) => o.ok), [true, false, true]);
    assert.equal(r.seen.public.length, 2);
    assert.deepEqual(resolve.asked, Array(3).fill("hooks.rebind.example"));
    // ...with the URL's name as Host, and the one that got the inner answer was refused.
    assert.equal(r.seen.public[0], `hooks.rebind.example:${r.port}`);
    assert.match(outcomes[1].error!, /resolves to a refused address: 127\.0\.0\.1 is not a public/);
  } finally {
    await r.close();
  }
});

Deno.test("pinning: a name answering public and inner addresses at once is refused", async () => {
  const r = receivers();
  try {
    const resolve = rebinding([["127.0.0.2", "127.0.0.1"], ["::ffff:127.0.0.1"], ["::127.0.0.1"]]);
    for (let i = 0; i < 3; i++) {
      const out = await send(`http://mixed.example:${r.port}/`, { resolve });
      assert.equal(out.ok, false);
      assert.match(out.error!, /refused by the outbound rules: .*not a public address/);
    }
    assert.equal(r.seen.inner.length + r.seen.public.length, 0);
  } finally {
    await r.close();
  }
});

Deno.test("pinning: other spellings of loopback and local names are refused before any lookup", async () => {
  const r = receivers();
  try {
    const resolve = rebinding([["127.0.0.2"]]);
    const hosts = [
      "localhost.",
      "LOCALHOST..",
      "[::127.0.0.1]",
      "[::ffff:127.0.0.1]",
      "[64:ff9b::127.0.0.1]",
      "2130706433",
      "0177.0.0.1",
      "0x7f.0.0.1",
      "127.1",
      "metadata.google.internal.",
      "instance-data",
      "printer.local",
      "[fd00:ec2::254]",
    ];
    for (const host of hosts) {
      const out = await send(`http://${host}:${r.port}/`, { resolve });
      assert.equal(out.ok, false, host);
      assert.match(out.error!, /not a public address/, host);
    }
    assert.deepEqual(resolve.asked, []);
    assert.equal(r.seen.inner.length, 0);
    // Metadata services are refused even where private targets are allowed.
    const metadata = await send(`http://169.254.169.254/latest/`, { allowPrivate: true });
    assert.match(metadata.error!, /cloud metadata service/);
  } finally {
    await r.close();
  }
});

Deno.test("pinning: https connects to the vetted address and checks the URL's name", async () => {
  const r = receivers({ cert: HOOK_TEST_CERT, key: HOOK_TEST_KEY });
  try {
    const resolve = rebinding([["127.0.0.2"], ["127.0.0.1"]]);
    const ok = await send(`https://hook.test:${r.port}/tls`, {
      resolve,
      caCerts: [HOOK_TEST_CERT],
    });
    assert.equal(ok.ok, true, ok.error ?? "");
    assert.equal(r.seen.public.length, 1);
    assert.deepEqual(r.seen.public, [`hook.test:${r.port}`]);
    // The certificate is checked against the URL's name, not the address connected to.
    const other = await send(`https://other.test:${r.port}/tls`, {
      resolve: rebinding([["127.0.0.2"]]),
      caCerts: [HOOK_TEST_CERT],
    });
    assert.equal(other.ok, false);
    assert.match(other.error!, /could not connect/);
    assert.equal(r.seen.inner.length, 0);
  } finally {
    await r.close();
  }
});

Deno.test("webhooks: other spellings of loopback and metadata names are refused at creation", async () => {
  await withServer(async (server) => {
    const urls = [
      "http://localhost./x",
      "http://[::127.0.0.1]/x",
      "http://[::ffff:127.0.0.1]/x",
      "http://0177.0.0.1/x",
      "http://metadata.google.internal/computeMetadata/v1/",
      "http://metadata/",
      "http://[fd00:ec2::254]/",
      "http://intranet/hook",
    ];
    for (const url of urls) {
      const res = await server.admin.call("POST", "/webhooks", { url, events: ["*"] });
      assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error, "WEBHOOK_003");
      assert.match(res.body.message, /not a public address/, url);
    }
  });
});

/** A self-signed certificate for hook.test (2020 to 2120) and its key: test material only. */
const HOOK_TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBUDCB9qADAgECAgEBMAoGCCqGSM49BAMCMBQxEjAQBgNVBAMMCWhvb2sudGVz
dDAgFw0yMDAxMDEwMDAwMDBaGA8yMTIwMDEwMTAwMDAwMFowFDESMBAGA1UEAwwJ
aG9vay50ZXN0MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE5DCkXruQGsuz40UM
p5a/QrPBliB8d+FdA0Z+i68VhAB/BegLed97jgCJc/8EMAYHuXcNr5Zu0SFDrp7Q
X2Q59aM3MDUwFAYDVR0RBA0wC4IJaG9vay50ZXN0MB0GA1UdDgQWBBQtwg2U220G
zFtrhTlCcJsZ0oeo4zAKBggqhkjOPQQDAgNJADBGAiEAl5dOa7Ezg1aSZjrRCVRA
4uIWPlgLFrZQa6XG9i6YiUECIQDYddDpcgEDF1izU4pEeVwlA0buFDA/KfLZI1v9
MFYbuQ==
-----END CERTIFICATE-----
`;
const HOOK_TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgO4Wd5D7dcnKYay5M
87ZZsKo0uKM4MiZnocjs5ys8/z6hRANCAATkMKReu5Aay7PjRQynlr9Cs8GWIHx3
4V0DRn6LrxWEAH8F6At533uOAIlz/wQwBge5dw2vlm7RIUOuntBfZDn1
-----END PRIVATE KEY-----
`;

/**
 * A secret (API key, adapter secret) shown exactly once: a warning, the value, a copy button.
 * The value lives only in this component's props; hiding it drops it for good.
 */
import { type Signal, useSignal } from "@preact/signals";
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

async function copyText(text: string, fallbackInput: HTMLInputElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Clipboard API needs a secure context; plain http on a LAN host falls back to selection.
    if (!fallbackInput) return false;
    fallbackInput.select();
    return document.execCommand("copy");
  }
}

/**
 * How the server keeps the secret, for the warning: an API key only as a SHA-256 hash (it can
 * check the key, never show it); an adapter secret sealed with the server's secrets key, since
 * it must sign and verify requests with it, yet never hands it out again.
 */
export type SecretStorage = "hashed" | "sealed";

const STORAGE_NOTE: Record<SecretStorage, string> = {
  hashed: "only a hash of it is stored, so it cannot be displayed again.",
  sealed: "it is stored sealed (encrypted with the server's secrets key) and is never " +
    "displayed again.",
};

export function SecretReveal(
  { title, label, secret, onDone, storage }: {
    title: string;
    label: string;
    secret: string;
    storage: SecretStorage;
    onDone: () => void;
  },
) {
  const copied = useSignal<"idle" | "copied" | "failed">("idle");
  const heading = useRef<HTMLHeadingElement>(null);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="secret" aria-labelledby="secret-title">
      <h3 id="secret-title" tabIndex={-1} ref={heading}>{title}</h3>
      <p class="warning">
        <strong>Copy it now.</strong> This is the only time it is shown: {STORAGE_NOTE[storage]}
      </p>
      <div class="secret-row">
        <label for="secret-value" class="visually-hidden">{label}</label>
        <input
          id="secret-value"
          ref={input}
          class="secret-value"
          readOnly
          value={secret}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button
          type="button"
          onClick={async () => {
            copied.value = (await copyText(secret, input.current)) ? "copied" : "failed";
          }}
        >
          Copy
        </button>
      </div>
      <p class="status" role="status">
        {copied.value === "copied" && "Copied to the clipboard."}
        {copied.value === "failed" && "Copying failed: select the text and copy it by hand."}
      </p>
      <button type="button" class="primary" onClick={onDone}>I have stored it, hide it</button>
    </section>
  );
}

/** A secret to show once, with the title naming what it belongs to. */
export interface NewSecret {
  title: string;
  secret: string;
}

/** The page's panel for a just-issued secret; "hide" empties `shown`, which removes it. */
function SecretPanel(
  { shown, label, storage }: {
    shown: Signal<NewSecret | null>;
    label: string;
    storage: SecretStorage;
  },
) {
  if (!shown.value) return null;
  return (
    <section class="panel">
      <SecretReveal
        title={shown.value.title}
        label={label}
        secret={shown.value.secret}
        storage={storage}
        onDone={() => (shown.value = null)}
      />
    </section>
  );
}

/**
 * The side column of a page that issues secrets: the just-issued secret (when there is one) above
 * the panel with the form (`children`) that issues the next.
 */
export function SecretSide(
  { shown, label, storage, children }: {
    shown: Signal<NewSecret | null>;
    label: string;
    storage: SecretStorage;
    children: ComponentChildren;
  },
) {
  return (
    <>
      <SecretPanel shown={shown} label={label} storage={storage} />
      <section class="panel">{children}</section>
    </>
  );
}

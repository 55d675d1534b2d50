/**
 * The quota bar under the views: storage used of the quota, from GET /api/account/v1/me's
 * `usage`. Read again when the view changes and when an action freed or used storage (the
 * USAGE_CHANGED event on document, so no state is shared between modules).
 */
import { useEffect, useState } from "preact/hooks";
import type { Me } from "../../../api/account/schemas/account.ts";
import { formatSize } from "./format.ts";
import { api, locale, t } from "../store.ts";

/** Dispatched on document after something changed the storage used. */
export const USAGE_CHANGED = "drive:usage-changed";

export function QuotaBar(props: { view: string }) {
  const [usage, setUsage] = useState<Me["usage"] | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const bump = () => setTick((n) => n + 1);
    document.addEventListener(USAGE_CHANGED, bump);
    return () => document.removeEventListener(USAGE_CHANGED, bump);
  }, []);
  useEffect(() => {
    // The session's /me answer, which also carries the usage.
    api.me().then((m) => setUsage((m as Me).usage ?? null), () => {});
  }, [props.view, tick]);
  if (!usage) return null;
  const used = formatSize(usage.usedBytes, locale.value);
  const text = usage.quotaBytes === null
    ? t("qbUsedUnlimited", used)
    : t("qbUsed", used, formatSize(usage.quotaBytes, locale.value));
  return (
    <div class="quota-bar" style={{ marginTop: "1rem", fontSize: "0.85rem" }}>
      {usage.quotaBytes !== null && (
        <meter
          id="quota-meter"
          min={0}
          max={usage.quotaBytes}
          value={usage.usedBytes}
          high={usage.quotaBytes * 0.9}
          optimum={0}
          aria-label={t("qbLabel")}
          aria-valuetext={text}
          style={{ width: "100%" }}
        />
      )}
      <p class="quota-text" style={{ margin: "0.25rem 0 0" }}>{text}</p>
    </div>
  );
}

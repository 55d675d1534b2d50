/**
 * The share dialog of the file browser: who can open the file or folder (specific people found
 * through the recipient search, anyone in the organization, anyone with the link), what they may
 * do (the spec's flags: view is the prerequisite, and only what the tenant allows the type is
 * offered, from /shares/{rs}/share-types), a link's password, expiry and the upload-only file
 * request, the link to copy, and the recipients to remove. A recipient who may re-share (`cs`)
 * changes the recipients only; anyone else sees the share read-only. A modal <dialog>: focus
 * stays in it and Escape closes it.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Row } from "../drive/api.ts";
import { me, t } from "../store.ts";
import type { MessageKey } from "../messages.ts";
import {
  type Flag,
  FLAG_POLICY,
  type Flags,
  flagsOf,
  type Person,
  type Share,
  shareApi,
  type ShareType,
  type ShareTypes,
} from "./api.ts";

const TYPE_LABEL: Record<ShareType, MessageKey> = {
  SPECIFIC_USERS: "shSpecific",
  ORG_LINK: "shOrg",
  PUBLIC_LINK: "shPublic",
};
const FLAG_LABEL: [Flag, MessageKey][] = [
  ["cv", "pView"],
  ["ce", "pEdit"],
  ["cd", "pDownload"],
  ["cu", "pUpload"],
  ["cs", "pShare"],
];
// Inline: the app's stylesheet (ui/styles.css) is shared; these few rules are this dialog's.
const CHECK = { display: "inline-block", marginRight: "1rem" };
const FIELD = {
  display: "block",
  width: "100%",
  boxSizing: "border-box",
  margin: "0.25rem 0 0.5rem",
};
const VIEW_ONLY: Flags = { cv: true, ce: false, cd: false, cu: false, cs: false };

/** The flags after ticking `flag`: view is the prerequisite of every other one. */
function tick(flags: Flags, flag: Flag, on: boolean): Flags {
  if (flag === "cv" && !on) return { cv: false, ce: false, cd: false, cu: false, cs: false };
  return { ...flags, [flag]: on, cv: flags.cv || on };
}

export function ShareDialog(props: { row: Row; onClose: () => void }) {
  const { row } = props;
  const ss = row.ss !== undefined && row.ss !== me.value?.userSeq ? row.ss : undefined;
  const dialog = useRef<HTMLDialogElement>(null);
  const [types, setTypes] = useState<ShareTypes | null>(null);
  const [share, setShare] = useState<Share | null>(null);
  const [st, setSt] = useState<ShareType>("SPECIFIC_USERS");
  const [flags, setFlags] = useState<Flags>(VIEW_ONLY);
  const [people, setPeople] = useState<Person[]>([]);
  const [password, setPassword] = useState("");
  const [expiry, setExpiry] = useState("");
  const [fileRequest, setFileRequest] = useState(false);
  const [query, setQuery] = useState("");
  const [found, setFound] = useState<Person[] | null>(null);
  const [status, setStatus] = useState("");

  const fail = (err: unknown) => setStatus(t("error", (err as Error).message));
  const adopt = (s: Share | null) => {
    setShare(s);
    if (!s) return;
    setSt(s.shareType);
    setFlags(flagsOf(s.permissions));
    setPeople(s.targets);
    setExpiry(s.expireDate ? s.expireDate.slice(0, 10) : "");
    setFileRequest(s.fileRequest);
    setPassword("");
  };
  useEffect(() => {
    dialog.current!.showModal();
    shareApi.types(row.rs, ss).then(async (ty) => {
      setTypes(ty);
      if (ty.shareTypes[0]) setSt(ty.fixedType ?? ty.shareTypes[0].code);
      if (ty.currentShareSeq !== null) adopt(await shareApi.read(ty.currentShareSeq, ss));
    }).catch(fail);
  }, []);
  // The recipient search, as you type.
  useEffect(() => {
    const words = query.trim();
    if (!words) return setFound(null);
    const timer = setTimeout(() => shareApi.search(words, ss).then(setFound, fail), 200);
    return () => clearTimeout(timer);
  }, [query]);

  const owner = types?.editable === true;
  // A recipient re-shares with what they were given themselves (their own `cs`, not the share's).
  const mine = share?.targets.find((p) => p.userSeq === me.value?.userSeq);
  const reshare = !owner && share?.shareType === "SPECIFIC_USERS" && !!mine &&
    flagsOf(mine.permissions).cs;
  const allowed = new Set(types?.shareTypes.find((x) => x.code === st)?.allowedPermissions ?? []);
  const offered = FLAG_LABEL.filter(([f]) =>
    allowed.has(FLAG_POLICY[f]) && !(f === "cs" && st !== "SPECIFIC_USERS")
  );
  const isLink = st !== "SPECIFIC_USERS";
  const canRequest = st === "PUBLIC_LINK" && row.type === "FOLDER" && allowed.has("EDIT");
  const sent = fileRequest && canRequest ? { ...VIEW_ONLY, cu: true } : flags;
  // The owner's choice applies to everyone; a re-sharer keeps the others' access as it is and
  // gives newcomers their own.
  const targets = () =>
    people.map((p) => {
      const had = share?.targets.find((q) => q.userSeq === p.userSeq);
      if (!reshare) return { us: p.userSeq, ...sent };
      return { us: p.userSeq, ...flagsOf((had ?? mine!).permissions) };
    });

  const save = async (e: Event) => {
    e.preventDefault();
    try {
      let next: Share;
      if (reshare) next = await shareApi.setTargets(share!.shareSeq, targets(), ss);
      else {
        const input = {
          st,
          ...sent,
          ...(isLink ? {} : { ts: targets() }),
          ...(isLink && password ? { password } : {}),
          ...(isLink ? { expireDate: expiry || null } : {}),
          ...(st === "PUBLIC_LINK" ? { fileRequest: fileRequest && canRequest } : {}),
        };
        if (share) next = await shareApi.change(share.shareSeq, input);
        else {
          const { expireDate, ...created } = input;
          next = await shareApi.create(row.rs, expireDate ? input : created);
        }
      }
      adopt(next);
      setStatus(t("shSaved"));
    } catch (err) {
      fail(err);
    }
  };
  const stop = async () => {
    try {
      await shareApi.remove(share!.shareSeq);
      adopt(null);
      setPeople([]);
      setStatus(t("shStopped"));
    } catch (err) {
      fail(err);
    }
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(share!.linkUrl!);
      setStatus(t("shCopied"));
    } catch (err) {
      fail(err);
    }
  };
  const editing = owner || reshare;

  return (
    <dialog
      ref={dialog}
      class="sheet share-dialog"
      aria-labelledby="share-title"
      onClose={props.onClose}
    >
      <h2 id="share-title">{t("shTitle", row.name)}</h2>
      {types && !editing && <p>{t("shReadOnly")}</p>}
      <form onSubmit={save}>
        <fieldset disabled={!owner}>
          <legend>{t("shType")}</legend>
          {types?.shareTypes.map((x) => (
            <label key={x.code} class="check" style={CHECK}>
              <input
                type="radio"
                name="share-type"
                value={x.code}
                checked={st === x.code}
                disabled={types.fixedType !== null && types.fixedType !== x.code}
                onChange={() => setSt(x.code)}
              />{" "}
              {t(TYPE_LABEL[x.code])}
            </label>
          ))}
        </fieldset>
        <fieldset disabled={!owner || (fileRequest && canRequest)}>
          <legend>{t("shPerms")}</legend>
          {offered.map(([f, label]) => (
            <label key={f} class="check" style={CHECK}>
              <input
                type="checkbox"
                checked={sent[f]}
                onChange={(e) => setFlags(tick(flags, f, e.currentTarget.checked))}
              />{" "}
              {t(label)}
            </label>
          ))}
          <p class="muted">{t("shViewNeeded")}</p>
        </fieldset>
        {isLink && (
          <fieldset disabled={!owner}>
            <legend>{t("shLink")}</legend>
            {canRequest && (
              <label class="check">
                <input
                  type="checkbox"
                  checked={fileRequest}
                  onChange={(e) => setFileRequest(e.currentTarget.checked)}
                />{" "}
                {t("shFileRequest")}
              </label>
            )}
            <label for="share-password">{t("shPassword")}</label>
            <input
              id="share-password"
              style={FIELD}
              type="password"
              autocomplete="new-password"
              minLength={4}
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
            {share?.isPasswordEnabled && <p class="muted">{t("shPasswordSet")}</p>}
            <label for="share-expiry">{t("shExpiry")}</label>
            <input
              id="share-expiry"
              style={FIELD}
              type="date"
              value={expiry}
              onInput={(e) => setExpiry(e.currentTarget.value)}
            />
            {share?.linkUrl && (
              <div class="share-link">
                <label for="share-url" class="visually-hidden">{t("shLink")}</label>
                <input id="share-url" readOnly value={share.linkUrl} style={FIELD} />
                <button type="button" class="button" onClick={copy}>{t("shCopy")}</button>
              </div>
            )}
          </fieldset>
        )}
        {!isLink && (
          <fieldset disabled={!editing}>
            <legend>{t("shPeople")}</legend>
            <label for="share-find">{t("shFind")}</label>
            <input
              id="share-find"
              style={FIELD}
              type="search"
              autocomplete="off"
              value={query}
              onInput={(e) => setQuery(e.currentTarget.value)}
            />
            {found && !found.length && <p class="muted">{t("shNoResults")}</p>}
            {found && found.length > 0 && (
              <ul class="share-found">
                {found.filter((p) => !people.some((q) => q.userSeq === p.userSeq)).map((p) => (
                  <li key={p.userSeq}>
                    <button
                      type="button"
                      class="button"
                      onClick={() => {
                        setPeople([...people, p]);
                        setQuery("");
                      }}
                    >
                      {t("shAdd", `${p.name} <${p.email}>`)}
                    </button>
                  </li>
                ))}
              </ul>
            )}
            {people.length === 0
              ? <p class="muted">{t("shNoPeople")}</p>
              : (
                <ul class="share-people">
                  {people.map((p) => (
                    <li key={p.userSeq}>
                      <span>{p.name} &lt;{p.email}&gt;</span>{" "}
                      <button
                        type="button"
                        class="button"
                        aria-label={t("shRemove", p.name)}
                        onClick={() => setPeople(people.filter((q) => q.userSeq !== p.userSeq))}
                      >
                        ×
                      </button>
                    </li>
                  ))}
                </ul>
              )}
          </fieldset>
        )}
        <p role="status" class="drive-status">{status}</p>
        <div class="actions">
          {editing && <button type="submit" class="button primary">{t("shSave")}</button>}
          {owner && share && (
            <button type="button" class="button" onClick={stop}>{t("shStop")}</button>
          )}
          <button type="button" class="button" onClick={() => dialog.current!.close()}>
            {t("close")}
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** The toolbar's Share button: opens the dialog for the one chosen row. */
export function ShareButton(props: { row: Row | null | undefined }) {
  const [open, setOpen] = useState<Row | null>(null);
  return (
    <>
      <button
        type="button"
        class="button"
        disabled={!props.row}
        onClick={() => props.row && setOpen(props.row)}
      >
        {t("share")}
      </button>
      {open && <ShareDialog row={open} onClose={() => setOpen(null)} />}
    </>
  );
}

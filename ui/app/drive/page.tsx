/**
 * The file browser: one page for every view (My drive and its folders, Shared with me, Pinned,
 * Trash, search results). A view's rows come from a Listing (listing.ts) shown through the
 * VirtualList; the selection, the active row and inline renaming are this page's state; actions
 * call the drive API through the session (drive/api.ts) and change the loaded rows in place.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Crumb, Row, SortBy, SortOrder } from "./api.ts";
import { Listing } from "./listing.ts";
import { ROW_HEIGHT, VirtualList } from "./virtual_list.tsx";
import { RowView } from "./rows.tsx";
import { listKey } from "./keys.ts";
import { ShortcutSheet } from "./shortcuts.tsx";
import { ShareButton } from "../share/dialog.tsx";
import { NewFolderForm, SearchBox, ViewNav } from "./toolbar.tsx";
import { downloadLabel, ViewActions, zipOrFile } from "./view_actions.tsx";
import { Breadcrumbs, SortBar, StatusLine } from "./header.tsx";
import { UploadZone } from "../upload/zone.tsx";
import { drivePath, type DriveRoute, navigate } from "../router.ts";
import { drive, me, t } from "../store.ts";
import { download, folderRow, sourceOf, TITLES } from "./views.ts";
import { FileActions } from "./file_actions.tsx";
import { NewDocumentMenu } from "./new_document.tsx";
import { GridView, LayoutToggle, useLayout } from "./grid.tsx";
import { usePreview } from "../preview/host.tsx";
import { reindex, useLiveUpdates } from "../preview/live.ts";

export function DrivePage(props: { r: DriveRoute }) {
  const { r } = props;
  const [sort, setSort] = useState<[SortBy, SortOrder]>(["name", "asc"]);
  const sortable = r.view === "mine" || r.view === "shared";
  const listing = useMemo(
    () => new Listing(sourceOf(r, sort)),
    [r.view, r.folder, r.ss, r.q, r.type, sort[0], sort[1]],
  );
  const [active, setActive] = useState(-1);
  const [anchor, setAnchor] = useState(-1);
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [renaming, setRenaming] = useState<number | null>(null);
  const [status, setStatus] = useState("");
  const [crumbs, setCrumbs] = useState<Crumb[] | null>(null);
  const [help, setHelp] = useState(false);
  const [layout, setLayout] = useLayout();
  const list = useRef<HTMLDivElement>(null);
  const search = useRef<HTMLInputElement>(null);

  useEffect(() => {
    setActive(-1);
    setSelected(new Set());
    setRenaming(null);
    setStatus("");
    listing.more();
    return () => listing.close();
  }, [listing]);

  // The folder's own name and the path above it, for the heading and the breadcrumbs.
  useEffect(() => {
    setCrumbs(null);
    if (r.view !== "mine" || !r.folder) return;
    drive.details(r.folder, r.ss).then(
      (d) => setCrumbs([...d.path, { resourceSeq: d.resourceSeq, name: d.name }]),
      (err) => setStatus(t("error", (err as Error).message)),
    );
  }, [r.view, r.folder, r.ss]);

  const rows = listing.rows.value;
  const title = r.folder && crumbs ? crumbs[crumbs.length - 1].name : t(TITLES[r.view]);
  useEffect(() => {
    document.title = `${title} · Drive`;
  }, [title]);

  // `/` and `?` work anywhere on the page except while typing.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement;
      if (el.closest("input, select, textarea, dialog") || e.ctrlKey || e.metaKey) return;
      if (e.key === "/") {
        e.preventDefault();
        search.current?.focus();
      } else if (e.key === "?") {
        e.preventDefault();
        setHelp(true);
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  const targets = (): Row[] => {
    // No pass over every loaded row (each render, 100,000 in a big folder) when none is selected.
    const picked = selected.size ? rows.filter((row) => selected.has(row.rs)) : [];
    if (picked.length) return picked;
    return active >= 0 && rows[active] ? [rows[active]] : [];
  };
  const fail = (err: unknown) => setStatus(t("error", (err as Error).message));
  const refocus = () => list.current?.focus({ preventScroll: true });
  const preview = usePreview(listing, (i) => moveTo(i, false), refocus);
  useLiveUpdates(r, listing, sort, (b, a) => setActive((x) => reindex(x, b, a)));

  const open = (row: Row) => {
    if (r.view === "trash") return;
    if (row.type === "FOLDER") {
      // Own rows carry no owner, or the caller's own seq (pins of own folders).
      const own = row.ss === undefined || row.ss === me.value?.userSeq ||
        r.view === "mine" && !r.ss;
      navigate(drivePath({ folder: row.rs, ss: own ? undefined : row.ss }));
    } else preview.open(row);
  };

  const up = () => {
    if (r.view !== "mine" || !r.folder) return;
    const parent = crumbs && crumbs.length > 1 ? crumbs[crumbs.length - 2] : null;
    if (parent) navigate(drivePath({ folder: parent.resourceSeq, ss: r.ss }));
    else navigate(drivePath({ view: r.ss ? "shared" : "mine" }));
  };

  /**
   * Acts on each picked row in turn, stopping at the first failure (shown) or when `act`
   * answers false (the user declined); the rows done leave the listing and the selection.
   */
  const eachPicked = async (
    picked: Row[],
    act: (row: Row) => Promise<unknown>,
  ): Promise<Set<number>> => {
    const done = new Set<number>();
    try {
      for (const row of picked) {
        if (await act(row) === false) break;
        done.add(row.rs);
      }
    } catch (err) {
      fail(err);
    }
    if (done.size) {
      listing.remove(done);
      setSelected(new Set());
    }
    return done;
  };

  const trash = async () => {
    const picked = targets();
    if (!picked.length) return;
    const done = await eachPicked(picked, async (row) => {
      if (r.view === "trash") {
        if (!confirm(t("confirmPurge", row.name))) return false;
        await drive.purge(row.rs);
      } else await drive.moveToTrash(row);
    });
    if (!done.size) return;
    setActive((a) => Math.min(a, listing.rows.value.length - 1));
    if (r.view === "trash") setStatus(t("purged", picked[0].name));
    else {
      setStatus(done.size === 1 ? t("trashed", picked[0].name) : t("trashedMany", done.size));
    }
    refocus();
  };

  const restore = async () => {
    const picked = targets();
    const done = await eachPicked(picked, async (row) => {
      await drive.restore(row.rs);
    });
    if (!done.size) return;
    setStatus(t("restored", picked[0].name));
    refocus();
  };

  const rename = async (row: Row, name: string | null) => {
    if (renaming !== row.rs) return;
    setRenaming(null);
    refocus();
    if (!name || name === row.name) return;
    try {
      const d = await drive.rename(row, name);
      const applied = d?.name ?? name;
      listing.update(row.rs, { name: applied });
      setStatus(t("renamed", applied));
    } catch (err) {
      fail(err);
    }
  };

  /** A new row (folder or document) goes first, selected. */
  const added = (row: Row) => {
    listing.rows.value = [row, ...listing.rows.value];
    setActive(0);
    setSelected(new Set([row.rs]));
  };

  const createFolder = async (name: string) => {
    try {
      const d = await drive.newFolder(name, r.folder, r.ss);
      added(folderRow(d.resourceSeq, name));
      setStatus(t("created", name));
      refocus();
      return true;
    } catch (err) {
      fail(err);
      return false;
    }
  };

  const moveTo = (to: number, extend: boolean) => {
    setActive(to);
    if (extend && anchor >= 0) {
      const [a, b] = anchor < to ? [anchor, to] : [to, anchor];
      setSelected(new Set(rows.slice(a, b + 1).map((x) => x.rs)));
    } else {
      setAnchor(to);
      setSelected(new Set([rows[to].rs]));
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const pageRows = Math.max(
      1,
      Math.floor(
        (list.current?.parentElement?.clientHeight ?? 440) /
          ROW_HEIGHT,
      ) - 1,
    );
    const action = listKey(e, active, rows.length, pageRows);
    if (!action) return;
    e.preventDefault();
    switch (action.kind) {
      case "move":
        return moveTo(action.to, action.extend);
      case "open":
        return rows[active] && open(rows[active]);
      case "up":
        return up();
      case "trash":
        return void trash();
      case "rename":
        if (r.view !== "trash" && rows[active]) setRenaming(rows[active].rs);
        return;
      case "selectAll":
        return setSelected(new Set(rows.map((x) => x.rs)));
      case "clear":
        return setSelected(new Set());
      case "toggle": {
        const next = new Set(selected);
        const rs = rows[active].rs;
        if (next.has(rs)) next.delete(rs);
        else next.add(rs);
        return setSelected(next);
      }
    }
  };

  const pick = (index: number, e: MouseEvent) => {
    if (e.ctrlKey || e.metaKey) {
      const next = new Set(selected);
      next.has(rows[index].rs) ? next.delete(rows[index].rs) : next.add(rows[index].rs);
      setSelected(next);
      setActive(index);
    } else moveTo(index, e.shiftKey);
    refocus();
  };
  const onRange = (_first: number, last: number) => listing.want(last);

  const picked = targets();
  const one = picked.length === 1 ? picked[0] : null;
  const done = listing.done.value;
  return (
    <div class="drive">
      <ViewNav r={r} />
      <div class="drive-main">
        <div class="drive-tools">
          <SearchBox r={r} inputRef={search} />
          {r.view === "mine" && <NewFolderForm onCreate={createFolder} />}
          {r.view === "mine" && (
            <NewDocumentMenu
              folder={r.folder}
              ss={r.ss}
              onCreated={(row) => [added(row), setRenaming(row.rs)]}
              onError={setStatus}
            />
          )}
          <LayoutToggle layout={layout} onChange={setLayout} />
          <UploadZone r={r} listing={listing} />
          {r.view !== "trash" && <ShareButton row={one} />}
        </div>
        {r.view === "mine" && r.folder ? <Breadcrumbs crumbs={crumbs} ss={r.ss} /> : null}
        <div class="drive-head">
          <h1>{title}</h1>
          <div class="actions" role="group" aria-label={t("files")}>
            {r.view === "trash"
              ? (
                <>
                  <button type="button" class="button" disabled={!picked.length} onClick={restore}>
                    {t("restore")}
                  </button>
                  <button
                    type="button"
                    class="button danger"
                    disabled={!picked.length}
                    onClick={trash}
                  >
                    {t("deleteForever")}
                  </button>
                </>
              )
              : (
                <>
                  <button
                    type="button"
                    class="button"
                    disabled={!picked.length}
                    onClick={() => zipOrFile(picked).then(download, fail)}
                  >
                    {t(downloadLabel(picked))}
                  </button>
                  <button
                    type="button"
                    class="button"
                    disabled={!one}
                    onClick={() => one && setRenaming(one.rs)}
                  >
                    {t("rename")}
                  </button>
                  <button type="button" class="button" disabled={!picked.length} onClick={trash}>
                    {t("moveToTrash")}
                  </button>
                  <FileActions
                    picked={picked}
                    listing={listing}
                    onDone={(text) => [setSelected(new Set()), setStatus(text), refocus()]}
                  />
                </>
              )}
            <ViewActions r={r} picked={picked} listing={listing} say={setStatus} fail={fail} />
            <button
              type="button"
              class="button"
              aria-keyshortcuts="?"
              onClick={() => setHelp(true)}
            >
              {t("shortcuts")}
            </button>
          </div>
        </div>
        <SortBar sort={sortable ? sort : null} onSort={setSort} view={r.view} />
        {layout === "grid"
          ? (
            <GridView
              {...{ rows, active, selected, renaming, onKeyDown, onRange, onRename: rename }}
              label={title}
              setSize={done ? rows.length : -1}
              listRef={list}
              onMove={moveTo}
              thumbs={r.view !== "trash"}
              onPick={pick}
              onOpen={(index) => open(rows[index])}
            />
          )
          : (
            <VirtualList
              count={rows.length}
              active={active}
              label={title}
              multiselectable
              listRef={list}
              onKeyDown={onKeyDown}
              onRange={onRange}
              row={(i, style) => (
                <RowView
                  key={rows[i].rs}
                  row={rows[i]}
                  index={i}
                  setSize={done ? rows.length : -1}
                  selected={selected.has(rows[i].rs)}
                  active={i === active}
                  renaming={renaming === rows[i].rs}
                  style={style}
                  onPick={pick}
                  onOpen={(index) => open(rows[index])}
                  onRename={rename}
                />
              )}
            />
          )}
        <StatusLine
          listing={listing}
          status={status}
          selected={selected.size}
          view={r.view}
        />
      </div>
      {help && <ShortcutSheet onClose={() => setHelp(false)} />}
      {preview.view}
    </div>
  );
}

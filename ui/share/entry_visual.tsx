/**
 * What stands before an entry's name on the share page: an image's thumbnail (from the link's
 * thumbnail route, lazily), or a folder or file icon.
 */
import { linkApi, type SharedResource } from "./api.ts";

/** Drawn inline: system fonts may lack emoji, and nothing is fetched from elsewhere. */
function EntryIcon({ folder }: { folder: boolean }) {
  return (
    <svg class="icon" viewBox="0 0 20 20" width="20" height="20" aria-hidden="true">
      {folder
        ? <path d="M2 5a1 1 0 0 1 1-1h5l2 2h7a1 1 0 0 1 1 1v8a1 1 0 0 1-1 1H3a1 1 0 0 1-1-1z" />
        : <path d="M5 2h7l4 4v11a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V3a1 1 0 0 1 1-1zm7 0v4h4" />}
    </svg>
  );
}

export function EntryVisual({ token, item }: { token: string; item: SharedResource }) {
  if (item.type === "FILE" && item.contentType?.startsWith("image/")) {
    return (
      <img
        class="thumb"
        src={linkApi.thumbnailUrl(token, item.resourceSeq)}
        alt=""
        loading="lazy"
        width="40"
        height="40"
        style={{ objectFit: "cover", borderRadius: "4px", flex: "none" }}
      />
    );
  }
  return <EntryIcon folder={item.type === "FOLDER"} />;
}

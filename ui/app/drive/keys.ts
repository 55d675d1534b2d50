/**
 * What a key pressed on the file list means, as Drive and Dropbox map them (the list):
 * arrows and Home/End move, Shift extends, Enter opens, Backspace goes up, Delete trashes, F2
 * renames, Ctrl/Cmd+A selects all, Escape clears. Pure, so the mapping is tested without a page.
 */
export type KeyAction =
  | { kind: "move"; to: number; extend: boolean }
  | { kind: "open" }
  | { kind: "up" }
  | { kind: "trash" }
  | { kind: "rename" }
  | { kind: "selectAll" }
  | { kind: "clear" }
  | { kind: "toggle" };

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}

/** The action of `e` on a list of `count` rows whose active one is `active`; null for none. */
export function listKey(e: KeyLike, active: number, count: number, pageRows: number) {
  const clamp = (i: number) => Math.max(0, Math.min(count - 1, i));
  const move = (to: number): KeyAction | null =>
    count === 0 ? null : { kind: "move", to: clamp(to), extend: e.shiftKey };
  if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "a") {
    return { kind: "selectAll" } as const;
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  switch (e.key) {
    case "ArrowDown":
      return move(active < 0 ? 0 : active + 1);
    case "ArrowUp":
      return move(active < 0 ? 0 : active - 1);
    case "PageDown":
      return move(active + pageRows);
    case "PageUp":
      return move(active - pageRows);
    case "Home":
      return move(0);
    case "End":
      return move(count - 1);
    case "Enter":
      return active >= 0 ? { kind: "open" } as const : null;
    case "Backspace":
      return { kind: "up" } as const;
    case "Delete":
      return { kind: "trash" } as const;
    case "F2":
      return active >= 0 ? { kind: "rename" } as const : null;
    case "Escape":
      return { kind: "clear" } as const;
    case " ":
      return active >= 0 ? { kind: "toggle" } as const : null;
  }
  return null;
}

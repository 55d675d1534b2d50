/**
 * A drive API listing built in one of the service's listing turns (`Deps.listingTurns`, made by
 * boot): the page's records, objects and JSON are built while few others are, however many
 * clients list at once.
 */
import type { Deps } from "../../kv/deps.ts";

export function inListingTurn<T>(
  d: Pick<Deps, "listingTurns">,
  build: () => Promise<T>,
): Promise<T> {
  return d.listingTurns(build);
}

/** Several API users of one tenant, for tests of sharing and access between colleagues. */
import { type ApiUser, newApiUser } from "./api.ts";
import type { TestServer } from "./server.ts";

/** Users of one new tenant, created in order (the tenant is named after the first). */
export async function newTeam(server: TestServer, ...accountIds: string[]): Promise<ApiUser[]> {
  const first = await newApiUser(server, accountIds[0]);
  const team = [first];
  for (const id of accountIds.slice(1)) {
    team.push(await newApiUser(server, id, { tenantId: first.tenantId }));
  }
  return team;
}

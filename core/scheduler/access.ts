// Who may open a schedule and which group it may be put in. Schedules are the team's, like tokens:
// every member opens the schedules of the team's members (a Viewer only reads them, by user type);
// a user limited to groups (UserRecord.group_ids) opens only those in their groups, creates them
// only in one of those, and cannot move one out.
import { groupLimit, type Caller } from '../auth/access.js';
import { Forbidden, NotFound, ValidationError } from '../errors.js';
import type { ScheduleRecord, Store, UserRecord } from '../store/types.js';

/** Members of a team are listed a page at a time; a team is small, but nothing here assumes it. */
const MEMBERS_PAGE = 100;

/** The IDs of the team's users, for listing the team's schedules. */
export async function teamMemberIds(store: Store, teamId: number): Promise<number[]> {
  const ids: number[] = [];
  for (let page = 1; ; page++) {
    const found = await store.users.page(teamId, page, MEMBERS_PAGE);
    ids.push(...found.items.map((u) => u.id));
    if (found.items.length < MEMBERS_PAGE || ids.length >= found.total) return ids;
  }
}

/**
 * The schedule if the user may open it: another team's (or a missing) schedule is a 404, one of
 * the team outside the groups a limited user may open a 403.
 */
export async function authorizeSchedule(store: Store, caller: Caller & { kind: 'user' }, s: ScheduleRecord | null): Promise<ScheduleRecord> {
  const user = caller.user;
  const owner = !s ? null : s.user_id === user.id ? user : await store.users.get(s.user_id);
  if (!s || !owner || owner.team_id !== user.team_id) throw new NotFound('Schedule not found');
  const limit = groupLimit(caller);
  if (limit && (s.group_id === null || !limit.includes(s.group_id))) throw new Forbidden('This schedule is outside the groups you may open');
  return s;
}

/**
 * Checks the group a schedule is put in (null: none). A user limited to groups must name one of
 * them; anyone else a group made by a member of their team. The administrator key (applying
 * workflow files for an owner) passes the owner as `team`.
 */
export async function checkScheduleGroup(store: Store, caller: Caller, groupId: number | null, team?: UserRecord): Promise<void> {
  const limit = groupLimit(caller);
  if (limit) {
    if (groupId === null || !limit.includes(groupId)) {
      throw new ValidationError('group_id: must be one of the groups you are limited to', { group_id: [`must be one of ${limit.join(', ')}`] });
    }
    return;
  }
  if (groupId === null) return;
  const teamId = team?.team_id ?? (caller.kind === 'user' ? caller.user.team_id : null);
  const group = await store.groups.get(groupId);
  const creator = group ? await store.users.get(group.user_id) : null;
  if (!creator || creator.team_id !== teamId) throw new ValidationError('group_id: no such group', { group_id: ['is not a group of your team'] });
}

// A list's group choice (tokens on the start page, schedules): all groups, or one group's only.
// Shown only when the caller has groups to choose from.
import type { Group } from './account/api';

export function GroupFilter({ id, groups, value, onChange }: { id: string; groups: Pick<Group, 'id' | 'name'>[]; value: string; onChange: (group: string) => void }) {
  if (!groups.length) return null;
  return (
    <div class="field">
      <label for={id}>Group</label>
      <select id={id} value={value} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value)}>
        <option value="">All groups</option>
        {groups.map((g) => (
          <option key={g.id} value={String(g.id)}>
            {g.name}
          </option>
        ))}
      </select>
    </div>
  );
}

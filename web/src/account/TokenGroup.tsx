// The group a token belongs to, chosen on its Settings tab (PUT /token/{id} with group_id). Only
// tokens of a user can join a group, and only that user's groups.
import { useState } from 'preact/hooks';
import { call, enc, type Page, type Token } from '../api';
import { href } from '../route';
import { announce } from '../ui';
import { formErrors, useSession, type Group } from './api';
import { InlineError, useLoad } from './common';
import './account.css';

type TokenWithGroup = Token & { group_id?: number | null };

export function TokenGroup({ token, onSaved }: { token: TokenWithGroup; onSaved: (t: Token) => void }) {
  const session = useSession();
  const own = session.state === 'signed-in' && !session.me.admin && session.me.id === token.user_id;
  if (!own) return null;
  return <GroupPicker token={token} onSaved={onSaved} />;
}

function GroupPicker({ token, onSaved }: { token: TokenWithGroup; onSaved: (t: Token) => void }) {
  const groups = useLoad(() => call<Page<Group>>('GET', '/groups?per_page=100'), []);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  if (groups.error) return null;

  async function choose(value: string) {
    setError(null);
    setSaving(true);
    try {
      const t = await call<Token>('PUT', `/token/${enc(token.uuid)}`, { json: { group_id: value ? Number(value) : null }, token: token.uuid });
      onSaved(t);
      announce(value ? 'Token moved to the group' : 'Token removed from its group');
    } catch (e) {
      setError(formErrors(e).message);
    } finally {
      setSaving(false);
    }
  }

  return (
    <section class="panel" aria-labelledby="token-group-title">
      <h2 id="token-group-title">Group</h2>
      <div class="field acct-narrow-field">
        <label for="token-group">This token's group</label>
        <select
          id="token-group"
          disabled={!groups.data || saving}
          value={token.group_id ? String(token.group_id) : ''}
          onChange={(e) => void choose((e.currentTarget as HTMLSelectElement).value)}
          aria-describedby="token-group-hint"
        >
          <option value="">No group</option>
          {groups.data?.data.map((g) => (
            <option key={g.id} value={String(g.id)}>
              {g.name}
            </option>
          ))}
        </select>
        <p class="hint small" id="token-group-hint">
          Saved as soon as you choose. <a href={href({ view: 'account', section: 'groups' })}>Manage groups</a>
        </p>
        <InlineError error={error} />
      </div>
    </section>
  );
}

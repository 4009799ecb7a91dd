// Start: create a token, open one by ID, alias or URL, or pick one of yours / one opened lately.
import { useEffect, useState } from 'preact/hooks';
import { call, enc, type Page, type Token } from './api';
import { useApiKey } from './settings';
import { formatTime, parseApiTime } from './format';
import { href, navigate } from './route';
import { settings } from './settings';
import { ErrorNotice, Pager } from './ui';
import { useGroups, useSession } from './account/api';
import { GroupFilter } from './GroupFilter';

/** A token from whatever the user pasted: a UUID anywhere in it, a capture URL, or an alias. */
export function tokenFromInput(input: string): string | null {
  const s = input.trim();
  if (!s) return null;
  const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i.exec(s);
  if (uuid) return uuid[0].toLowerCase();
  try {
    const u = new URL(s);
    const first = u.pathname.split('/').filter(Boolean)[0];
    if (first) return first;
    const hash = u.hash.replace(/^#\/?/, '').split('/')[0];
    return hash || null;
  } catch {
    return /^[a-zA-Z0-9_-]{3,64}$/.test(s) ? s : null;
  }
}

export function Home() {
  const key = useApiKey();
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [open, setOpen] = useState('');
  const [openError, setOpenError] = useState<string | null>(null);
  const [mine, setMine] = useState<Page<Token> | null>(null);
  const [mineError, setMineError] = useState<unknown>(null);
  const [page, setPage] = useState(1);
  // A group's tokens only ('' all), as the Schedules list filters.
  const [group, setGroup] = useState('');
  const groups = useGroups(Boolean(key));
  const recent = settings.recent();
  const session = useSession();
  // A user limited to groups sees and makes tokens only in those: new ones go in the first.
  const limitedTo = session.state === 'signed-in' ? (session.me.group_ids ?? null) : null;

  useEffect(() => {
    setMine(null);
    setMineError(null);
    if (!key) return;
    call<Page<Token>>('GET', `/token?per_page=20&order_direction=desc&page=${page}${group ? `&group_id=${enc(group)}` : ''}`)
      .then(setMine)
      .catch(setMineError);
  }, [key, page, group]);

  async function create() {
    setCreating(true);
    setError(null);
    try {
      const t = await call<Token>('POST', '/token', { json: limitedTo?.length ? { group_id: limitedTo[0] } : {} });
      settings.remember(t.uuid, t.alias);
      navigate({ view: 'token', token: t.uuid, tab: 'requests' });
    } catch (e) {
      setError(e);
    } finally {
      setCreating(false);
    }
  }

  return (
    <div class="home">
      <section class="panel hero" aria-labelledby="new-title">
        <h1 id="new-title">Capture HTTP requests and e-mail</h1>
        <p>A token gives you a URL and an e-mail address. Everything sent to them shows up here the moment it arrives, and is answered with the response you choose.</p>
        <button class="btn primary big" type="button" onClick={create} disabled={creating}>
          {creating ? 'Creating…' : 'Create a new URL'}
        </button>
        <ErrorNotice error={error} />
      </section>

      <section class="panel" aria-labelledby="open-title">
        <h2 id="open-title">Open a token</h2>
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            const t = tokenFromInput(open);
            if (!t) return setOpenError('Enter a token ID, an alias or a capture URL.');
            setOpenError(null);
            navigate({ view: 'token', token: t, tab: 'requests' });
          }}
        >
          <label for="open-token">Token ID, alias or capture URL</label>
          <div class="copy-row">
            <input
              id="open-token"
              type="text"
              value={open}
              placeholder="00000000-0000-0000-0000-000000000000"
              spellcheck={false}
              aria-invalid={openError ? true : undefined}
              aria-describedby={openError ? 'open-token-error' : undefined}
              onInput={(e) => setOpen((e.currentTarget as HTMLInputElement).value)}
            />
            <button class="btn" type="submit">
              Open
            </button>
          </div>
          {openError && (
            <p id="open-token-error" class="field-error">
              {openError}
            </p>
          )}
        </form>
      </section>

      {key && (
        <section class="panel" aria-labelledby="mine-title">
          <h2 id="mine-title">Your tokens</h2>
          {limitedTo && <p class="hint">Only the tokens in the groups you are limited to are listed.</p>}
          <GroupFilter
            id="mine-group-filter"
            groups={groups}
            value={group}
            onChange={(g) => {
              setGroup(g);
              setPage(1);
            }}
          />
          <ErrorNotice error={mineError} />
          {mine && mine.data.length === 0 && <p class="hint">{group ? 'No tokens in this group.' : 'You have no tokens yet.'}</p>}
          {mine && mine.data.length > 0 && <TokenTable tokens={mine.data} />}
          {mine && mine.last_page > 1 && <Pager page={page} last={mine.last_page} onPage={setPage} label="Token pages" />}
        </section>
      )}

      {recent.length > 0 && (
        <section class="panel" aria-labelledby="recent-title">
          <h2 id="recent-title">Opened in this browser</h2>
          <ul class="plain-list">
            {recent.map((t) => (
              <li key={t.uuid}>
                <a href={href({ view: 'token', token: t.uuid, tab: 'requests' })}>
                  <code>{t.alias ?? t.uuid}</code>
                </a>
                <span class="hint"> {formatTime(new Date(t.opened_at))}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

function TokenTable({ tokens }: { tokens: Token[] }) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Token</th>
            <th scope="col">Requests</th>
            <th scope="col">Latest</th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((t) => (
            <tr key={t.uuid}>
              <td>
                <a href={href({ view: 'token', token: t.uuid, tab: 'requests' })}>
                  <code>{t.alias ?? t.uuid}</code>
                </a>
                {t.description && <span class="hint"> {t.description}</span>}
              </td>
              <td>{t.requests ?? ''}</td>
              <td>{formatTime(parseApiTime(t.latest_request_at))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

// The account area: one navigation for everything that belongs to a user or the administrator
// (keys, users, providers, templates, databases, global variables, groups, schedules), and the
// overview that says who is signed in and what each screen is for.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { href, type AccountSection, type Route } from '../route';
import { settings } from '../settings';
import { Spinner, announce } from '../ui';
import { managesUsers, useSession, type Me } from './api';
import { Gate } from './common';
import { Databases } from './Databases';
import { Groups } from './Groups';
import { ErrorLog } from './ErrorLog';
import { Keys } from './Keys';
import { Providers } from './Providers';
import { QueueProfiles } from './QueueProfiles';
import { Templates } from './Templates';
import { Users } from './Users';
import { Variables } from './Variables';
import './account.css';

type Place = AccountSection | 'schedules';

interface Entry {
  place: Place;
  label: string;
  about: string;
  /** Shown in the navigation only to who manages users (the administrator key, Administrators). */
  adminOnly?: boolean;
}

const ENTRIES: Entry[] = [
  { place: 'overview', label: 'Overview', about: 'Who you are signed in as.' },
  { place: 'keys', label: 'API keys', about: 'Create and revoke the keys that sign you in.' },
  { place: 'users', label: 'Team members', about: 'Invite people, choose what each may do, remove them.', adminOnly: true },
  { place: 'providers', label: 'Providers', about: 'Connected accounts your actions use: Slack, AWS, SSH keys…' },
  { place: 'templates', label: 'Templates', about: 'Reusable action lists, saved from a token’s Actions tab.' },
  { place: 'databases', label: 'Databases', about: 'Hosted SQL databases: run queries, use them from actions.' },
  { place: 'variables', label: 'Global variables', about: 'Values every token’s actions can use as $global.name$.' },
  { place: 'queue-profiles', label: 'Queue profiles', about: 'Throttle queued actions and run them in order.' },
  { place: 'groups', label: 'Groups', about: 'Folders for your tokens.' },
  { place: 'errors', label: 'Error log', about: 'Actions and schedule runs that failed, searchable, with what is unread.' },
  { place: 'schedules', label: 'Schedules', about: 'Requests sent on a timetable, with checks and logs.' },
];

const placeHref = (p: Place) => (p === 'schedules' ? href({ view: 'schedules' }) : href({ view: 'account', section: p }));

function AccountNav({ current, manager }: { current: Place; manager: boolean }) {
  const nav = useRef<HTMLElement>(null);
  // On a phone the list scrolls sideways: keep the current screen's entry in view.
  useEffect(() => {
    const a = nav.current?.querySelector<HTMLElement>('[aria-current="page"]');
    const list = a?.closest('ul');
    if (a && list && list.scrollWidth > list.clientWidth) list.scrollLeft = a.offsetLeft - (list.clientWidth - a.offsetWidth) / 2;
  }, [current, manager]);
  return (
    <nav class="acct-nav" aria-label="Account" ref={nav}>
      <ul>
        {ENTRIES.filter((e) => manager || !e.adminOnly).map((e) => (
          <li key={e.place}>
            <a href={placeHref(e.place)} aria-current={e.place === current ? 'page' : undefined}>
              {e.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The account navigation beside a screen of the area (schedules come from App.tsx). */
export function AccountLayout({ current, children }: { current: Place; children: ComponentChildren }) {
  const session = useSession();
  const manager = session.state === 'signed-in' && managesUsers(session.me);
  return (
    <div class="acct-layout">
      <AccountNav current={current} manager={manager} />
      <div class="acct-body">{children}</div>
    </div>
  );
}

export function Account({ route }: { route: Extract<Route, { view: 'account' }> }) {
  return (
    <AccountLayout current={route.section}>
      {route.section === 'overview' && <Overview />}
      {route.section === 'keys' && <Keys />}
      {route.section === 'users' && <Users />}
      {route.section === 'providers' && <Providers />}
      {route.section === 'templates' && <Templates />}
      {route.section === 'databases' && <Databases key={route.id ?? ''} id={route.id} />}
      {route.section === 'variables' && <Variables />}
      {route.section === 'queue-profiles' && <QueueProfiles />}
      {route.section === 'groups' && <Groups />}
      {route.section === 'errors' && <ErrorLog />}
    </AccountLayout>
  );
}

function Overview() {
  const session = useSession();
  if (session.state === 'checking') return <Spinner label="Checking the API key" />;
  if (session.state !== 'signed-in') {
    return (
      <Gate title="Account" what="Your account holds your tokens, keys, providers, templates, databases, global variables, groups and schedules." needs="any">
        {() => null}
      </Gate>
    );
  }
  return <SignedIn me={session.me} />;
}

function SignedIn({ me }: { me: Me }) {
  const entries = ENTRIES.filter((e) => e.place !== 'overview' && (me.admin ? e.place === 'users' || e.place === 'keys' : !e.adminOnly || managesUsers(me)));
  return (
    <section class="panel" aria-labelledby="acct-title">
      <h1 id="acct-title">{me.admin ? 'Administrator' : me.name}</h1>
      {me.admin ? (
        <p>
          You are signed in with the server's <code>ADMIN_API_KEY</code>. The administrator manages users and their keys; tokens, providers and the rest belong to users, so sign in with a user's key to use them.
        </p>
      ) : (
        <p>
          Signed in as <strong>{me.name}</strong>
          {me.email && <> ({me.email})</>}, {me.premium ? <span class="badge">premium</span> : 'free plan'}
          {me.user_type && (
            <>
              , {me.user_type} of team #{me.team_id}
            </>
          )}
          .
        </p>
      )}
      <ul class="acct-tiles">
        {entries.map((e) => (
          <li key={e.place}>
            <a href={placeHref(e.place)}>{e.label}</a>
            <span class="hint small">{e.about}</span>
          </li>
        ))}
      </ul>
      <div class="form-actions">
        <button
          class="btn"
          type="button"
          onClick={() => {
            settings.setApiKey(null);
            announce('Signed out: the key is forgotten in this browser');
          }}
        >
          Sign out
        </button>
      </div>
    </section>
  );
}

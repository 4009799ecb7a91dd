// The first-run screen: what an anonymous visitor can do without a key, what a key adds, and how
// the administrator makes one (the exact commands). Shown on the start page until dismissed, and
// always at #/welcome.
import { useLayoutEffect, useRef } from 'preact/hooks';
import { href } from '../route';
import { CopyButton } from '../ui';
import { openApiKeyPanel } from './api';
import './account.css';

function Command({ label, text }: { label: string; text: string }) {
  return (
    <div class="acct-command">
      <pre class="code small">
        <code>{text}</code>
      </pre>
      <CopyButton text={text} label={label} />
    </div>
  );
}

/** `focus`: the screen is the page (#/welcome): its title is the page's h1 and takes the focus. */
export function FirstRun({ onDismiss, focus = false }: { onDismiss: () => void; focus?: boolean }) {
  const Title = focus ? 'h1' : 'h2';
  const Sub = focus ? 'h2' : 'h3';
  const base = location.origin;
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => {
    if (focus) heading.current?.focus();
  }, [focus]);
  const startCmd = `export ADMIN_API_KEY=$(openssl rand -hex 24)
echo "$ADMIN_API_KEY"    # keep it: it is the administrator's key
npm start`;
  const userCmd = `curl -s -X POST ${base}/users -H "Api-Key: $ADMIN_API_KEY" \\
  -H 'Content-Type: application/json' -d '{"name":"Ada","email":"ada@example.com"}'`;
  return (
    <section class="panel acct-firstrun" aria-labelledby="firstrun-title" data-testid="first-run">
      <div class="section-head">
        <Title id="firstrun-title" class="acct-firstrun-title" tabIndex={-1} ref={heading}>
          Welcome: no sign-up needed to start
        </Title>
        <button class="btn small" type="button" onClick={onDismiss} aria-label="Dismiss the welcome screen">
          Dismiss
        </button>
      </div>
      <div class="acct-two">
        <div>
          <Sub>Works without a key</Sub>
          <ul class="acct-checks">
            <li>Create a token: a URL, an e-mail address and a DNS name</li>
            <li>Capture every request, e-mail and DNS lookup sent to it</li>
            <li>Watch them arrive live, search, inspect and delete them</li>
            <li>Choose the response it sends back</li>
            <li>Run custom actions on each capture</li>
          </ul>
          <p class="hint small">Anonymous tokens are open to anyone who knows their URL, and expire after a week.</p>
        </div>
        <div>
          <Sub>A user's API key adds</Sub>
          <ul class="acct-checks">
            <li>Your tokens, in every browser, private to you</li>
            <li>Schedules, groups and global variables</li>
            <li>Providers (connected accounts), templates and databases for actions</li>
            <li>Premium users: aliases, passwords, longer limits</li>
          </ul>
        </div>
      </div>
      <Sub>How to get a key</Sub>
      <ol class="acct-steps-big">
        <li>
          <p>The administrator starts the server with an administrator key:</p>
          <Command label="Copy the start commands" text={startCmd} />
        </li>
        <li>
          <p>
            Then creates a user, either here (enter that key with <strong>API key</strong>, then open <a href={href({ view: 'account', section: 'users' })}>Account → Users</a>) or with curl:
          </p>
          <Command label="Copy the curl command" text={userCmd} />
          <p class="hint small">
            The answer's <code>api_key</code> (<code>whk_…</code>) is the user's key. It is shown only once.
          </p>
        </li>
        <li>
          <p>The user enters their key with the API key button at the top.</p>
        </li>
      </ol>
      <div class="form-actions">
        <button class="btn primary" type="button" onClick={openApiKeyPanel}>
          I have a key: enter it
        </button>
        <button class="btn" type="button" onClick={onDismiss}>
          Continue without a key
        </button>
      </div>
    </section>
  );
}

// Slack: Events API callbacks (JSON), a slash command and interactivity payloads (form-encoded, the
// latter as `payload=<JSON>`), in the shapes of Slack's API documentation, signed as Slack signs:
// `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<X-Slack-Request-Timestamp>:<body>">`.
import { formBody, formFields, hmac, jsonBody, mergeOverrides, randomId, seconds, type SampleEvent, type SampleProvider } from '../types.js';

const TEAM = 'T0123ABCD';
const APP = 'A0123ABCD';
const USER = 'U0123ABCD';
const CHANNEL = 'C0123ABCD';

type Body = { json: Record<string, unknown> } | { form: Record<string, string> } | { payload: Record<string, unknown> };

function eventCallback(t: number, event: Record<string, unknown>): Record<string, unknown> {
  return {
    token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
    team_id: TEAM,
    api_app_id: APP,
    event,
    type: 'event_callback',
    event_id: randomId('Ev', 9),
    event_time: t,
    authorizations: [{ enterprise_id: null, team_id: TEAM, user_id: 'U0BOTUSER', is_bot: true, is_enterprise_install: false }],
    is_ext_shared_channel: false,
    event_context: randomId('4-', 40),
  };
}

const ts = (t: number) => `${t}.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;

const EVENTS: Array<{ event: string; description: string; body: (t: number) => Body }> = [
  {
    event: 'app_mention',
    description: 'Events API: the app was mentioned in a channel.',
    body: (t) => ({ json: eventCallback(t, { type: 'app_mention', user: USER, text: '<@U0BOTUSER> what is the status of the deploy?', ts: ts(t), channel: CHANNEL, event_ts: ts(t), team: TEAM }) }),
  },
  {
    event: 'message',
    description: 'Events API: a message was posted in a channel the app is in.',
    body: (t) => ({ json: eventCallback(t, { type: 'message', channel: CHANNEL, user: USER, text: 'Deploy finished :rocket:', ts: ts(t), event_ts: ts(t), channel_type: 'channel', team: TEAM }) }),
  },
  {
    event: 'url_verification',
    description: 'Events API: the challenge Slack sends when the Request URL is set (answer with the challenge).',
    body: () => ({ json: { token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', challenge: randomId('', 48), type: 'url_verification' } }),
  },
  {
    event: 'slash_command',
    description: 'A slash command (/deploy staging), form-encoded.',
    body: (t) => ({
      form: {
        token: 'gIkuvaNzQIHg97ATvDxqgjtO',
        team_id: TEAM,
        team_domain: 'example',
        channel_id: CHANNEL,
        channel_name: 'deploys',
        user_id: USER,
        user_name: 'jenny',
        command: '/deploy',
        text: 'staging',
        api_app_id: APP,
        is_enterprise_install: 'false',
        response_url: `https://hooks.slack.com/commands/${TEAM}/${t}/${randomId('', 24)}`,
        trigger_id: `${t}.${randomId('', 12, '0123456789')}.${randomId('', 32, '0123456789abcdef')}`,
      },
    }),
  },
  {
    event: 'block_actions',
    description: 'Interactivity: a button in a message was clicked (form-encoded `payload=`).',
    body: (t) => ({
      payload: {
        type: 'block_actions',
        user: { id: USER, username: 'jenny', name: 'jenny', team_id: TEAM },
        api_app_id: APP,
        token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
        container: { type: 'message', message_ts: ts(t), channel_id: CHANNEL, is_ephemeral: false },
        trigger_id: `${t}.${randomId('', 12, '0123456789')}.${randomId('', 32, '0123456789abcdef')}`,
        team: { id: TEAM, domain: 'example' },
        channel: { id: CHANNEL, name: 'deploys' },
        response_url: `https://hooks.slack.com/actions/${TEAM}/${t}/${randomId('', 24)}`,
        actions: [{ action_id: 'approve_deploy', block_id: 'deploy_buttons', text: { type: 'plain_text', text: 'Approve', emoji: true }, value: 'staging', style: 'primary', type: 'button', action_ts: ts(t) }],
      },
    }),
  },
  {
    event: 'view_submission',
    description: 'Interactivity: a modal was submitted (form-encoded `payload=`).',
    body: (t) => ({
      payload: {
        type: 'view_submission',
        team: { id: TEAM, domain: 'example' },
        user: { id: USER, username: 'jenny', name: 'jenny', team_id: TEAM },
        api_app_id: APP,
        token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
        trigger_id: `${t}.${randomId('', 12, '0123456789')}.${randomId('', 32, '0123456789abcdef')}`,
        view: {
          id: randomId('V', 10),
          type: 'modal',
          callback_id: 'incident_report',
          title: { type: 'plain_text', text: 'Report an incident' },
          state: { values: { summary: { summary_input: { type: 'plain_text_input', value: 'Checkout is slow' } } } },
        },
      },
    }),
  },
];

/** Slash commands and interactivity come form-encoded; Events API callbacks as JSON. */
const FORM_EVENTS = new Set(['slash_command', 'block_actions', 'view_submission']);

export const slack: SampleProvider = {
  id: 'slack',
  name: 'Slack',
  source: "Written for this project from Slack's API documentation (Events API, slash commands, interactivity payloads)",
  licence: 'MIT (this project)',
  preset: 'slack',
  secretRequired: true,
  events: (): SampleEvent[] => EVENTS.map((e) => ({ event: e.event, description: e.description, formats: [FORM_EVENTS.has(e.event) ? 'form' : 'json'] })),
  deliver({ event, secret, now, overrides }) {
    const found = EVENTS.find((e) => e.event === event);
    if (!found) return null;
    const t = seconds(now);
    const made = found.body(t);
    const isJson = 'json' in made;
    const body =
      'json' in made ? jsonBody(mergeOverrides(made.json, overrides)) : 'form' in made ? formBody(formFields(made.form, overrides)) : formBody({ payload: JSON.stringify(mergeOverrides(made.payload, overrides)) });
    const signature = hmac('sha256', secret ?? '', Buffer.concat([Buffer.from(`v0:${t}:`), body])).toString('hex');
    return {
      method: 'POST',
      headers: {
        Accept: 'application/json,*/*',
        'Content-Type': isJson ? 'application/json' : 'application/x-www-form-urlencoded',
        'User-Agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
        'X-Slack-Request-Timestamp': String(t),
        'X-Slack-Signature': `v0=${signature}`,
      },
      body,
    };
  },
};

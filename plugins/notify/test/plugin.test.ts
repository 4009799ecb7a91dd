import { describe, expect, it } from 'vitest';
import { ActionRegistry, providerTypes } from '../../../test/helpers/host.js';
import plugin from '../src/index.js';

describe('the notify plugin', () => {
  it('registers its action and provider types with readable schemas', () => {
    const registry = new ActionRegistry();
    registry.addAll(plugin.name, plugin.actions, undefined, plugin.providers);
    expect(registry.list().map((a) => a.type)).toEqual(['discord_send_message', 'hubspot_create_contact', 'ntfy', 'pushed_send', 'slack_send_message', 'twitter_tweet']);
    const types = providerTypes(registry);
    expect(types.map((p) => p.type)).toEqual(['discord', 'hubspot', 'slack', 'twitter']);
    const slack = types.find((p) => p.type === 'slack')!;
    expect(Object.keys((slack.credentials as { properties: object }).properties)).toEqual(['bot_token', 'webhook_url']);
    expect(Object.keys((slack.settings as { properties: object }).properties)).toEqual(['channel', 'base_url']);
    const ntfy = registry.get('ntfy')!.schema as { required: string[]; properties: Record<string, unknown> };
    expect(ntfy.required).toEqual(['topic', 'message']);
    expect(Object.keys(ntfy.properties)).toEqual(['topic', 'title', 'icon', 'message', 'server']);
  });
});

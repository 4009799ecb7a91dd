import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchHttpClient, memoryProviders, runAction, stubHttp, validateParams } from '@capture/sdk/testing';
import { hubspotCreateContact } from '../src/hubspot.js';
import { apiServer, jsonOf, type ApiServer, type Received } from './api-server.js';

const TOKEN = 'pat-na1-11111111-2222-3333-4444-555555555555';
const KNOWN = new Set(['email', 'firstname', 'lastname', 'phone', 'company', 'lifecyclestage']);

// Plays HubSpot's CRM v3 contacts endpoint.
function hubspot(r: Received) {
  const err = (status: number, category: string, message: string, extra: Record<string, unknown> = {}) => ({
    status,
    json: { status: 'error', message, correlationId: 'aeb5f871-7f07-4993-9211-075dc63e7cbf', category, ...extra },
  });
  if (r.path !== '/crm/v3/objects/contacts') return err(404, 'OBJECT_NOT_FOUND', 'Resource not found');
  if (r.method !== 'POST') return err(405, 'METHOD_NOT_ALLOWED', 'Method not allowed');
  if (r.headers.authorization !== `Bearer ${TOKEN}`)
    return err(
      401,
      'INVALID_AUTHENTICATION',
      'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
    );
  const body = jsonOf(r);
  if (r.headers['content-type'] !== 'application/json' || !body?.properties) return err(400, 'VALIDATION_ERROR', 'Invalid input JSON on line 1');
  const unknown = Object.keys(body.properties).filter((k) => !KNOWN.has(k));
  if (unknown.length)
    return err(400, 'VALIDATION_ERROR', `Property values were not valid: [{"isValid":false,"message":"Property \\"${unknown[0]}\\" does not exist","error":"PROPERTY_DOESNT_EXIST","name":"${unknown[0]}"}]`, {
      errors: [{ message: `Property "${unknown[0]}" does not exist`, code: 'PROPERTY_DOESNT_EXIST', context: { propertyName: [unknown[0]] } }],
    });
  if (body.properties.email === 'taken@example.com') return err(409, 'CONFLICT', 'Contact already exists. Existing ID: 12345');
  return { status: 201, json: { id: '51', properties: { ...body.properties, hs_object_id: '51' }, createdAt: '2024-01-02T03:04:05.000Z', updatedAt: '2024-01-02T03:04:05.000Z', archived: false } };
}

let s: ApiServer;
beforeAll(async () => {
  s = await apiServer(hubspot);
});
afterAll(async () => {
  await s.close();
});

function providers(token = TOKEN) {
  return memoryProviders([
    { id: '3', type: 'hubspot', credentials: { access_token: token }, settings: { base_url: s.url } },
    { id: '4', type: 'twitter', credentials: { access_token: 'x' } },
  ]);
}
const run = (params: Record<string, unknown>, token?: string) =>
  runAction(hubspotCreateContact, params, {
    request: { request: { email: 'ada@example.com', name: 'Ada' } },
    services: { http: fetchHttpClient, providers: providers(token) },
  });
const last = () => s.received[s.received.length - 1]!;

describe('hubspot_create_contact', () => {
  it('creates the contact from name/value pairs and logs its id', async () => {
    const r = await run({
      provider_id: 3,
      properties: [
        { name: 'email', value: '$request.form.email$' },
        { property: 'firstname', value: '$request.form.name$' },
        { key: 'lifecyclestage', value: 'lead' },
      ],
    });
    expect(r.errors).toEqual([]);
    expect(last()).toMatchObject({ method: 'POST', path: '/crm/v3/objects/contacts' });
    expect(last().headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(jsonOf(last())).toEqual({ properties: { email: 'ada@example.com', firstname: 'Ada', lifecyclestage: 'lead' } });
    expect(r.output).toEqual(['HubSpot contact 51 (ada@example.com) created']);
  });

  it('takes an object, or JSON text such as the request body', async () => {
    const obj = await run({ provider_id: '3', properties: { email: 'b@example.com', phone: 5551234 } });
    expect(obj.errors).toEqual([]);
    expect(jsonOf(last())).toEqual({ properties: { email: 'b@example.com', phone: '5551234' } });
    const text = await runAction(
      hubspotCreateContact,
      { provider_id: 3, properties: '$request.content$' },
      {
        request: { content: '{"email":"c@example.com","company":"Acme"}' },
        services: { http: fetchHttpClient, providers: providers() },
      },
    );
    expect(text.errors).toEqual([]);
    expect(jsonOf(last())).toEqual({ properties: { email: 'c@example.com', company: 'Acme' } });
  });

  it("turns HubSpot's error documents into action errors", async () => {
    const taken = await run({ provider_id: 3, properties: { email: 'taken@example.com' } });
    expect(taken.errors).toEqual(['HubSpot answered 409: CONFLICT: Contact already exists. Existing ID: 12345 (correlation id aeb5f871-7f07-4993-9211-075dc63e7cbf)']);
    const unknown = await run({ provider_id: 3, properties: { shoe_size: '44' } });
    expect(unknown.errors[0]).toMatch(/^HubSpot answered 400: VALIDATION_ERROR: Property values were not valid: .*; Property "shoe_size" does not exist \(correlation id /);
  });

  it('reports a wrong token without showing it', async () => {
    const r = await run({ provider_id: 3, properties: { email: 'd@example.com' } }, 'pat-na1-revoked-token');
    expect(r.errors[0]).toMatch(/^HubSpot answered 401: INVALID_AUTHENTICATION: Authentication credentials not found/);
    expect(r.errors[0]).not.toContain('revoked-token');
  });

  it('refuses properties it cannot send, without calling HubSpot', async () => {
    const before = s.received.length;
    expect((await run({ provider_id: 3, properties: [{ value: 'x' }] })).errors).toEqual(['properties: each entry needs a property name (name, property or key)']);
    expect((await run({ provider_id: 3, properties: 'not json' })).errors).toEqual(['properties must be a list of name/value pairs, an object, or JSON text of either']);
    expect((await run({ provider_id: 3, properties: '{}' })).errors).toEqual(['properties is empty: give at least one contact property (e.g. email)']);
    expect((await run({ provider_id: 3, properties: '{"email":{"a":1}}' })).errors).toEqual(['properties.email must be text, a number or a boolean']);
    expect(s.received.length).toBe(before);
  });

  it('reports a missing provider and a provider of another type', async () => {
    expect((await run({ provider_id: 1, properties: { email: 'e@example.com' } })).errors).toEqual(['Provider 1 not found']);
    expect((await run({ provider_id: 4, properties: { email: 'e@example.com' } })).errors).toEqual(['Provider 4 is a twitter account, not hubspot']);
  });

  it('calls https://api.hubapi.com by default', async () => {
    const http = stubHttp(() => ({ status: 201, body: '{"id":"9"}' }));
    const r = await runAction(
      hubspotCreateContact,
      { provider_id: 1, properties: { email: 'f@example.com' } },
      {
        services: { http, providers: memoryProviders([{ id: '1', type: 'hubspot', credentials: { access_token: TOKEN } }]) },
      },
    );
    expect(r.errors).toEqual([]);
    expect(http.sent[0]).toMatchObject({ method: 'POST', url: 'https://api.hubapi.com/crm/v3/objects/contacts' });
  });

  it('validates the parameters on create', () => {
    expect(() => validateParams(hubspotCreateContact, { provider_id: 1 })).toThrow(/parameters.properties: is required/);
    expect(() => validateParams(hubspotCreateContact, { properties: { email: 'a@b.c' } })).toThrow(/parameters.provider_id: is required/);
    expect(() => validateParams(hubspotCreateContact, { provider_id: 1, properties: 5 })).toThrow(/parameters.properties/);
    expect(() => validateParams(hubspotCreateContact, { provider_id: 1, properties: [] })).toThrow(/parameters.properties/);
    expect(() => validateParams(hubspotCreateContact, { provider_id: true, properties: { email: 'a@b.c' } })).toThrow(/parameters.provider_id/);
    expect(validateParams(hubspotCreateContact, { provider_id: '12', properties: [{ name: 'email', value: '$email$' }] })).toBeTruthy();
  });
});

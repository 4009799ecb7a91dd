// HubSpot: the `hubspot_create_contact` action and the `hubspot` provider (a private app's access
// token). The action creates a contact with CRM v3: `POST /crm/v3/objects/contacts` with
// `{"properties": {...}}` and the token as a Bearer credential; HubSpot answers 201 with the
// contact, whose id is logged.
import { defineAction, defineProvider, providerId, z } from '@capture/sdk';
import { apiError, asObject, callApi, field, httpUrl, joinUrl, useProvider } from './common.js';

export const HUBSPOT_API = 'https://api.hubapi.com';

export const hubspotProvider = defineProvider({
  type: 'hubspot',
  title: 'HubSpot',
  description: 'A HubSpot private app (Settings > Integrations > Private Apps) with the crm.objects.contacts.write scope; its access token authenticates the requests.',
  credentials: z.object({
    access_token: z.string().trim().min(1, 'is required').describe('Private app access token (pat-...)'),
  }),
  settings: z.object({
    base_url: httpUrl().optional().describe(`API base URL, default ${HUBSPOT_API}`),
  }),
});

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const pair = z.object({
  name: z.string().optional(),
  property: z.string().optional(),
  key: z.string().optional(),
  value: scalar.optional(),
});

export const hubspotCreateContact = defineAction({
  type: 'hubspot_create_contact',
  title: 'HubSpot: Create Contact',
  category: 'crm',
  description:
    'Creates a contact in HubSpot CRM through a hubspot provider. Properties are given by their internal names (email, firstname, lastname, phone, company...), as a list of {"name": ..., "value": ...} pairs (property or key also name the property), as an object, or as JSON text of either (e.g. $request.content$).',
  parameters: z.object({
    provider_id: providerId(),
    properties: z
      .union([z.array(pair).min(1, 'must not be empty'), z.record(z.string(), scalar), z.string()])
      .describe('Contact properties: [{"name": "email", "value": "$request.form.email$"}], {"email": "..."} or JSON text'),
  }),
  async execute(ctx, params) {
    const properties = contactProperties(params.properties);
    const provider = await useProvider(ctx, params.provider_id, hubspotProvider);
    const token = provider.credentials.access_token;
    const res = await callApi(ctx, 'HubSpot', {
      method: 'POST',
      url: joinUrl(provider.settings.base_url ?? HUBSPOT_API, '/crm/v3/objects/contacts'),
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ properties }),
      secrets: [token],
    });
    if (!res.ok) throw apiError('HubSpot', res, hubspotError(res.json), [token]);
    const id = field(res.json, 'id');
    ctx.log(['HubSpot contact', id, properties.email && `(${properties.email})`, 'created'].filter(Boolean).join(' '));
  },
});

type Input = z.output<typeof pair>[] | Record<string, z.output<typeof scalar>> | string;

/** The properties as HubSpot's name -> text map. */
export function contactProperties(input: Input): Record<string, string> {
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch {
      throw new Error('properties must be a list of name/value pairs, an object, or JSON text of either');
    }
  }
  const out: Record<string, string> = {};
  const put = (name: unknown, v: unknown) => {
    const key = typeof name === 'string' ? name.trim() : '';
    if (!key) throw new Error('properties: each entry needs a property name (name, property or key)');
    if (v !== null && v !== undefined && typeof v === 'object') throw new Error(`properties.${key} must be text, a number or a boolean`);
    out[key] = v === null || v === undefined ? '' : String(v);
  };
  if (Array.isArray(value)) {
    for (const entry of value) {
      const o = asObject(entry);
      if (!o) throw new Error('properties: each entry must be an object with a name and a value');
      put(o.name ?? o.property ?? o.key, o.value);
    }
  } else if (asObject(value)) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) put(k, v);
  } else {
    throw new Error('properties must be a list of name/value pairs, an object, or JSON text of either');
  }
  if (!Object.keys(out).length) throw new Error('properties is empty: give at least one contact property (e.g. email)');
  return out;
}

/**
 * HubSpot's errors: `{"status": "error", "message": "Contact already exists. Existing ID: 123",
 * "category": "CONFLICT", "correlationId": "...", "errors": [{"message": "...", "code": "..."}]}`.
 */
export function hubspotError(json: unknown): string | undefined {
  const obj = asObject(json);
  if (!obj) return undefined;
  const message = field(obj, 'message');
  const category = field(obj, 'category');
  const details = Array.isArray(obj.errors) ? obj.errors.map((e) => field(e, 'message')).filter((m): m is string => !!m && m !== message) : [];
  const head = [category, message].filter(Boolean).join(': ');
  const text = [head, ...details].filter(Boolean).join('; ');
  const correlation = field(obj, 'correlationId');
  return text ? `${text}${correlation ? ` (correlation id ${correlation})` : ''}` : undefined;
}

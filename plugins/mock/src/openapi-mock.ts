import { defineAction, integer, optionalText, type ResponseDraft, z } from '@capture/sdk';
import { matchOperation, normalisePath } from './match.js';
import { specFromText, specFromUrl, type MockResponse } from './spec.js';

// The example generator brings faker, slow to import: loaded on the first mock response, not at start-up.
let generate: Promise<typeof import('./generate.js')> | undefined;

const isJson = (type: string) => /[/+]json\b/i.test(type);

function serialise(value: unknown, contentType: string): string {
  if (value === undefined) return '';
  if (typeof value === 'string') {
    if (!isJson(contentType)) return value;
    // A JSON example written as a YAML string is sent as it is.
    try {
      JSON.parse(value);
      if (/^\s*[[{]/.test(value)) return value;
    } catch {
      // A plain string: JSON-encode it below.
    }
  }
  return JSON.stringify(value, null, 2);
}

function answer(response: ResponseDraft, status: number, body: unknown): void {
  response.status = status;
  response.contentType = 'application/json';
  response.content = JSON.stringify(body);
}

/**
 * The response to mock: `preferred` when given (its documentation, else `default`'s, else an empty
 * body), otherwise the lowest documented 2xx, a `2XX` range, `default` (as 200) or the lowest code.
 */
export function chooseResponse(responses: Record<string, MockResponse>, preferred?: number): { status: number; response?: MockResponse } {
  if (preferred) return { status: preferred, response: responses[String(preferred)] ?? responses[`${String(preferred)[0]}XX`] ?? responses.default };
  const codes = Object.keys(responses)
    .filter((k) => /^\d{3}$/.test(k))
    .map(Number)
    .sort((a, b) => a - b);
  const ok = codes.find((c) => c >= 200 && c < 300);
  if (ok) return { status: ok, response: responses[String(ok)] };
  if (responses['2XX']) return { status: 200, response: responses['2XX'] };
  if (responses.default) return { status: 200, response: responses.default };
  return codes.length ? { status: codes[0], response: responses[String(codes[0])] } : { status: 200 };
}

export const openapiMock = defineAction({
  type: 'openapi_mock',
  title: 'Mock: OpenAPI/Swagger',
  category: 'mock',
  description:
    'Answers like a mock server for an OpenAPI 3.x or Swagger 2.0 spec (YAML or JSON text, or downloaded from spec_url): the request method and path ($request.path$ unless path is set; when the spec defines a server use e.g. https://example.com$request.path$) pick an operation, which responds with its documented example or a body generated from its schema. Unknown paths answer 404, other methods 405.',
  parameters: z
    .object({
      spec: optionalText().describe('The OpenAPI 3.x or Swagger 2.0 document, YAML or JSON; used instead of spec_url when both are set'),
      spec_url: z
        .string()
        .trim()
        .regex(/^(https?:\/\/\S+)?$/i, 'must be an http(s) URL')
        .nullish()
        .transform((v) => v || undefined)
        .describe('Where to download the spec (at most 2 MiB; kept for 60 s)'),
      path: optionalText().describe('The path to match, with or without scheme, host and the server base path; default $request.path$'),
      method: z
        .string()
        .trim()
        .regex(/^[A-Za-z]*$/, 'must be an HTTP method')
        .nullish()
        .transform((v) => (v ? v.toUpperCase() : undefined))
        .describe("Overrides the request's method"),
      status: z
        .union([integer({ min: 100, max: 599, message: 'must be an HTTP status code' }), z.literal('').transform(() => undefined)])
        .nullish()
        .describe('Which documented response to send; default the lowest 2xx'),
    })
    .superRefine((p, ctx) => {
      if (!p.spec?.trim() && !p.spec_url) ctx.addIssue({ code: 'custom', path: ['spec'], message: 'spec or spec_url is required' });
    }),
  async execute(ctx) {
    const { params, request, response, vars, log } = ctx;
    const spec = params.spec?.trim() ? specFromText(params.spec) : await specFromUrl(ctx, params.spec_url!);
    const method = params.method ?? request.method.toUpperCase();
    const path = normalisePath(params.path ?? vars.get('request.path') ?? '/');
    const match = matchOperation(spec, method, path);

    if (match.kind === 'not_found') {
      answer(response, 404, { message: `No path in the spec matches ${method} ${path}` });
      log(`Mocked ${method} ${path} -> 404`);
      return;
    }
    if (match.kind === 'method_not_allowed') {
      answer(response, 405, { message: `Method ${method} is not allowed for ${match.template} (allowed: ${match.allow.join(', ')})` });
      response.headers.Allow = match.allow.join(', ');
      log(`Mocked ${method} ${match.template} -> 405`);
      return;
    }

    const { status, response: documented } = chooseResponse(match.operation.responses, params.status ?? undefined);
    // Seeded by method and path: the same request always gets the same body.
    const { generator } = await (generate ??= import('./generate.js'));
    const gen = generator(spec.root, `${method} ${path}`);
    const contentType = documented?.contentType;
    const body = documented?.example ? documented.example.value : documented?.schema ? gen.value(documented.schema) : undefined;
    const headers: Record<string, string> = {};
    for (const [name, h] of Object.entries(documented?.headers ?? {})) {
      const v = h.example ? h.example.value : gen.value(h.schema, name);
      headers[name] = typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
    }

    response.status = status;
    if (contentType) response.contentType = contentType;
    response.content = contentType ? serialise(body, contentType) : '';
    Object.assign(response.headers, headers);
    log(`Mocked ${method} ${match.operation.template} -> ${status}`);
  },
});

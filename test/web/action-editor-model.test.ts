// The visual action editor's pure parts: schema -> form fields, error wording, the document model
// (nothing lost in a round trip), and the variables typeahead.
import { describe, expect, it } from 'vitest';
import { MODIFIERS as CORE_MODIFIERS } from '@capture/sdk/runner';
import { builtinRegistry } from '../../core/actions/builtin.js';
import { duplicate, fromText, remove, stepPath, toText } from '../../web/src/actions/model.js';
import { OPERATOR_LABELS as CORE_OPERATOR_LABELS } from '@capture/sdk/operators';
import { OPERATOR_LABELS, explain, fieldsOf, type ActionType, type JsonSchema } from '../../web/src/actions/schema.js';
import { formatJson, parseCurl } from '../../web/src/actions/curl-import.js';
import { MODIFIERS, availableVariables, partialAt, requestValues, suggest, variablesSetBy } from '../../web/src/actions/variables.js';

const types = async () => new Map((await builtinRegistry()).list().map((t) => [t.type, t as unknown as ActionType]));

describe('form fields from action schemas', () => {
  it('gives enums selects, booleans toggles, numbers their bounds, secrets password fields, provider_id a provider select', async () => {
    const t = await types();
    const kinds = (type: string) => Object.fromEntries(fieldsOf(t.get(type)!.schema).map((f) => [f.name, f]));
    const response = kinds('modify_response');
    expect(response.status).toMatchObject({ kind: 'number', min: 100, max: 599, integer: true, httpStatus: true });
    expect(response.content!.kind).toBe('textarea');
    expect(response.stop!.kind).toBe('toggle');
    expect(kinds('condition').operator).toMatchObject({ kind: 'select', required: true });
    expect(kinds('http').auth).toMatchObject({ kind: 'object', fields: expect.arrayContaining([expect.objectContaining({ name: 'password', kind: 'secret' })]) });
    expect(kinds('conditions').conditions).toMatchObject({ kind: 'list' });
    expect(kinds('aws_s3_get_object').provider_id!.kind).toBe('provider');
    expect(kinds('auth_basic').password!.kind).toBe('secret');
    // A variable-name prefix's default is the schema's own: the empty field shows it.
    expect(kinds('http').variable_name).toMatchObject({ placeholder: 'http', required: false });
    expect(kinds('send_request').variable_name!.placeholder).toBe('http');
    expect(kinds('webhook_get_requests').variable_name!.placeholder).toBe('req');
    // Every parameter of every built-in type gets some control.
    for (const type of t.values()) for (const f of fieldsOf(type.schema)) expect(f.kind).toBeTruthy();
  });

  it('words the operators as core does, and explains outcomes and modes one sentence each', async () => {
    expect(OPERATOR_LABELS).toEqual(CORE_OPERATOR_LABELS);
    const t = await types();
    const cond = Object.fromEntries(fieldsOf(t.get('condition')!.schema).map((f) => [f.name, f]));
    expect(cond.operator!.optionLabels).toMatchObject({ eq: 'is equal to', sw: 'starts with', regex: 'matches regex' });
    expect(cond.action!.optionLabels).toEqual({ stop: 'Stop if it passes', continue: 'Continue only if it passes', noop: 'Use the result' });
    for (const help of Object.values(cond.action!.optionHelp!)) expect(help).toMatch(/^[A-Z][^.]*\.$/);
    const modes = fieldsOf(t.get('conditions')!.schema).find((f) => f.name === 'mode')!;
    expect(modes.optionLabels).toEqual({ one: 'At least one passes', all: 'All pass', none: 'None passes' });
    // Set Variable's modes are not a Conditions mode: left as they are.
    expect(fieldsOf(t.get('set_variable')!.schema).find((f) => f.name === 'mode')!.optionLabels).toBeUndefined();
    expect(explain(cond.operator, 'Invalid option')).toMatch(/^must be one of is equal to, is not equal to/);
  });

  it('words server messages from what the schema says', () => {
    const [status] = fieldsOf({ properties: { status: { description: 'An HTTP status code', anyOf: [{ type: 'integer', minimum: 100, maximum: 599 }, { type: 'null' }] } } } as JsonSchema);
    expect(explain(status, 'Invalid input')).toBe('must be an HTTP status code between 100 and 599');
    const [mode] = fieldsOf({ properties: { mode: { type: 'string', enum: ['a', 'b', 'c'] } } });
    expect(explain(mode, 'Invalid option: expected one of "a"|"b"|"c"')).toBe('must be one of a, b or c');
    expect(explain(mode, 'is required')).toBe('is required');
  });
});

describe('the document model', () => {
  const text = `# comment
apiVersion: capture/v1
kind: TokenActions
x-extra: 1
metadata: { token: t }
spec:
  steps:
    - { id: 6f1c2a52-3b8e-4c1e-9a57-0a2b3c4d5e6f, name: c, type: condition, parameters: {}, x-note: keep }
    - { type: log, condition: c, condition_action: "false", disabled: true, parameters: { text: hi, future: 1 } }
`;

  it('gives the text back unchanged when nothing changed, and keeps unknown fields after a change', () => {
    const r = fromText(text);
    if (!('model' in r)) throw new Error(r.error);
    expect(toText(r.model, text)).toBe(text);
    const changed = { ...r.model, items: r.model.items.map((it, i) => (i === 1 ? { ...it, step: { ...it.step, parameters: { ...it.step.parameters, text: 'yo' } } } : it)) };
    const out = toText(changed, text);
    const again = fromText(out);
    if (!('model' in again)) throw new Error(again.error);
    expect(again.model.doc['x-extra']).toBe(1);
    expect(again.model.items.map((i) => i.step)).toEqual([
      { id: '6f1c2a52-3b8e-4c1e-9a57-0a2b3c4d5e6f', name: 'c', type: 'condition', parameters: {}, 'x-note': 'keep' },
      { type: 'log', condition: 'c', condition_action: 'false', disabled: true, parameters: { text: 'yo', future: 1 } },
    ]);
  });

  it('duplicates with a new ID and name, and deleting a condition frees the steps that waited for it', () => {
    const r = fromText(text);
    if (!('model' in r)) throw new Error(r.error);
    const d = duplicate(r.model.items, 0);
    expect(d[1]!.step).toMatchObject({ name: 'c 2', type: 'condition', 'x-note': 'keep' });
    expect(d[1]!.step.id).not.toBe(d[0]!.step.id);
    const rest = remove(r.model.items, 0);
    expect(rest[0]!.step).not.toHaveProperty('condition');
    expect(rest[0]!.step).not.toHaveProperty('condition_action');
  });

  it('refuses documents it cannot show, and reads server paths', () => {
    expect(fromText('spec: { steps: 3 }')).toEqual({ error: '`spec.steps` must be a list.' });
    expect('error' in fromText('kind: [unclosed')).toBe(true);
    expect(stepPath('spec.steps.2.parameters.status')).toEqual({ step: 2, field: 'parameters.status' });
    expect(stepPath('metadata.token')).toBeNull();
  });
});

describe('the variables typeahead', () => {
  it('lists the modifiers of the chain runner templating (@capture/sdk/runner)', () => {
    expect(MODIFIERS.map(([m]) => m).sort()).toEqual(Object.keys(CORE_MODIFIERS).sort());
  });

  it('offers the variables the steps above set, the request, globals and modifiers', async () => {
    const t = await types();
    expect(variablesSetBy({ type: 'http', parameters: { variable_name: 'api' } }, t.get('http'))).toContainEqual({ name: 'api.status', complete: true });
    expect(variablesSetBy({ type: 'auto_json', parameters: { variable_name: 'order' } }, t.get('auto_json'))).toEqual([
      { name: 'order', complete: true },
      { name: 'order.', complete: false },
    ]);
    expect(variablesSetBy({ type: 'store_global_variable', parameters: { name: 'seen' } }, t.get('store_global_variable'))).toEqual([{ name: 'global.seen', complete: true }]);
    const steps = [
      { type: 'set_variable', parameters: { name: 'greeting' } },
      { type: 'set_variable', parameters: { name: 'later' } },
    ];
    const all = availableVariables({ steps, types: t, globals: [{ name: 'api_key' }] }, 1);
    expect(all.map((s) => s.insert)).toEqual(expect.arrayContaining(['greeting', 'global.api_key', 'request.content', 'request.header.']));
    expect(all.map((s) => s.insert)).not.toContain('later');
    expect(suggest(all, 'gree')[0]!.insert).toBe('greeting');
    expect(suggest(all, 'greeting.up').map((s) => s.insert)).toEqual(['greeting.upper']);
    expect(partialAt('hi $gre', 7)).toEqual({ start: 3, typed: 'gre' });
    expect(partialAt('hi $a$ b', 8)).toBeNull();
  });

  it('offers what the last test set, keys after a prefix, then modifiers, each with its value', async () => {
    const t = await types();
    const steps = [
      { type: 'auto_json', parameters: {} },
      { type: 'set_variable', parameters: { name: 'x' } },
    ];
    const ctx = {
      steps,
      types: t,
      globals: [{ name: 'api_key', value: 'k1' }],
      tested: [{ json: '{"order":{"total":42}}', 'json.order': '{"total":42}', 'json.order.total': '42' }],
      request: requestValues({ method: 'POST', url: 'http://x/t', content: '{}', headers: { 'Content-Type': ['application/json'] }, query: { page: '2' }, request: null } as never),
    };
    const all = availableVariables(ctx, 1);
    // In order: what the steps above set (declared, then as tested), globals, the request.
    expect(all.map((s) => s.insert).slice(0, 5)).toEqual(['json', 'json.', 'json.order', 'json.order.total', 'global.api_key']);
    expect(all.find((s) => s.insert === 'json')).toMatchObject({ detail: 'Set by step 1 (Extract JSON)', value: '{"order":{"total":42}}' });
    expect(all.find((s) => s.insert === 'global.api_key')!.value).toBe('k1');
    expect(all.find((s) => s.insert === 'request.method')!.value).toBe('POST');
    expect(all.find((s) => s.insert === 'request.header.content-type')!.value).toBe('application/json');
    expect(all.find((s) => s.insert === 'request.query.page')!.value).toBe('2');
    expect(
      suggest(all, 'js')
        .map((s) => s.insert)
        .slice(0, 4),
    ).toEqual(['json', 'json.', 'json.order', 'json.order.total']);
    // After a complete name and a dot: its keys, then the modifiers.
    const afterDot = suggest(all, 'json.');
    expect(afterDot.slice(0, 2).map((s) => [s.insert, s.value])).toEqual([
      ['json.order', '{"total":42}'],
      ['json.order.total', '42'],
    ]);
    expect(afterDot.slice(2).map((s) => s.label)).toEqual(MODIFIERS.map(([m]) => `.${m}`));
    expect(suggest(all, 'json.order.t').map((s) => s.insert)).toEqual(['json.order.total']);
    // A step later than the test reached sees what the last tested step left.
    expect(availableVariables(ctx, 2).find((s) => s.insert === 'json.order.total')!.value).toBe('42');
  });
});

describe('Import from cURL and JSON Format', () => {
  it('reads method, URL, headers, body and basic auth as curl sends them', () => {
    const cmd = ["curl -X PUT 'https://api.example.test/orders/7?x=1' \\", `  -H "Content-Type: application/json" -H 'X-Key: a b' \\`, `  --data-raw '{"total": 42}' -u ann:s3cr:et --compressed -s`].join('\n');
    expect(parseCurl(cmd)).toEqual({
      url: 'https://api.example.test/orders/7?x=1',
      method: 'PUT',
      headers: 'Content-Type: application/json\nX-Key: a b',
      content: '{"total": 42}',
      auth: { mode: 'basic', username: 'ann', password: 's3cr:et' },
    });
    expect(parseCurl('curl https://x.test -d "say \\"hi\\""').content).toBe('say "hi"');
    // Data without -X is a POST; several -d are joined as curl joins them.
    expect(parseCurl('curl https://x.test -d a=1 -d b=2')).toEqual({ url: 'https://x.test', method: 'POST', content: 'a=1&b=2' });
    expect(parseCurl('curl https://x.test')).toEqual({ url: 'https://x.test' });
    expect(() => parseCurl('wget https://x.test')).toThrow(/must start with curl/);
    expect(() => parseCurl("curl 'https://x.test")).toThrow(/not closed/);
    expect(() => parseCurl('curl -X POST')).toThrow(/no URL/);
  });

  it('indents JSON, and leaves what is not JSON alone', () => {
    expect(formatJson('{"a":[1,2]}')).toBe('{\n  "a": [\n    1,\n    2\n  ]\n}');
    expect(formatJson('{"a": $x$}')).toBeNull();
  });
});

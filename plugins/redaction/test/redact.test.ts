import { describe, expect, it } from 'vitest';
import { redactRequest } from '../../../test/helpers/host.js';
import { runAction, validateParams } from '@capture/sdk/testing';
import { redact } from '../src/redact.js';

describe('redact', () => {
  it('hands its rules to the pipeline, attributed to the action, with the replacement it was given', async () => {
    const r = await runAction(redact, {
      rules: [
        { kind: 'header', name: 'Authorization' },
        { kind: 'preset', preset: 'card' },
      ],
      replacement: '***',
    });
    expect(r.errors).toEqual([]);
    expect(r.output).toEqual(['The request will be stored with 2 redaction rules applied']);
    expect(r.redact.map((c) => [c.source, c.index, c.replacement, c.rule.kind])).toEqual([
      ['action', 0, '***', 'header'],
      ['action', 1, '***', 'preset'],
    ]);
    // The rules it returns are the ones the pipeline runs on the record.
    const record = {
      url: 'http://h/t',
      user_agent: '',
      content_type: null,
      headers: { authorization: ['Bearer x'] },
      query: null,
      form: null,
      body: Buffer.from('card 4111111111111111'),
      size: 0,
      files: [],
      custom_action_output: [],
      custom_action_errors: [],
      extra: {},
    };
    const out = redactRequest(record, new Map(), r.redact);
    expect(record.headers.authorization).toEqual(['***']);
    expect(record.body.toString()).toBe('card ***');
    expect(out.entries.every((e) => e.source === 'action' && e.action === '33333333-3333-4333-8333-333333333333')).toBe(true);
  });

  it('takes patterns and JSONPaths as typed (no $variable$ replacement)', async () => {
    const r = await runAction(
      redact,
      {
        rules: [
          { kind: 'json', path: '$..secret' },
          { kind: 'regex', pattern: '\\$x\\$' },
        ],
      },
      { vars: { x: 'nope' } },
    );
    expect(r.errors).toEqual([]);
    expect(r.redact.map((c) => ('path' in c.rule ? c.rule.path : 'pattern' in c.rule ? c.rule.pattern : ''))).toEqual(['$..secret', '\\$x\\$']);
  });

  it('refuses bad rules as the API does (422)', () => {
    expect(() => validateParams(redact, { rules: [{ kind: 'regex', pattern: '(' }] })).toThrow(/Invalid regular expression/);
    expect(() => validateParams(redact, { rules: [{ kind: 'preset', preset: 'ssn' }] })).toThrow(/preset/);
    expect(() => validateParams(redact, { rules: [] })).toThrow(/rules/);
    expect(() => validateParams(redact, { rules: [{ kind: 'header', name: 'a', actions_see_original: false }] })).toThrow(/actions_see_original|Unrecognized/);
  });
});

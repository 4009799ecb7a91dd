// The README checker compares what it should and reads the conventions the README uses.
import { describe, expect, it } from 'vitest';
import { outputMismatch, shellExamples } from './readme-examples.js';

describe('outputMismatch', () => {
  it('compares JSON by the fields shown, with ... as any value, more fields or more items', () => {
    const printed = JSON.stringify({ id: 1, name: 'Ada', key: 'whk_abc', list: [{ a: 1, b: 2 }, { a: 3 }], time: 0.4 });
    expect(outputMismatch('{"id":1,...,"key":"whk_..."}', printed)).toBeNull();
    expect(outputMismatch('{"list":[{"a":1,...},...],"time":...}', printed)).toBeNull();
    expect(outputMismatch('{"id":2,...}', printed)).toMatch(/\$\.id/);
    expect(outputMismatch('{"key":"abc..."}', printed)).toMatch(/\$\.key/);
    expect(outputMismatch('{"list":[{"a":1}]}', printed)).toMatch(/2 items/);
    expect(outputMismatch('{"missing":...}', printed)).toMatch(/missing/);
    expect(outputMismatch('{"id":1}', 'thanks')).toMatch(/no JSON/);
  });

  it('compares text whole, with ... as anything', () => {
    expect(outputMismatch('hi bob', 'hi bob\n')).toBeNull();
    expect(outputMismatch('hi ...', 'hi bob')).toBeNull();
    expect(outputMismatch('hi bob', 'thanks')).not.toBeNull();
    expect(outputMismatch('', 'something')).not.toBeNull();
  });
});

describe('shellExamples', () => {
  it('reads commands, their documented output and status, prose comments and skip markers', () => {
    const md = [
      '```sh',
      'X=$(curl -s -X POST localhost:8084/a -d \'{"n":"#1"}\' \\',
      '  | json id)',
      'curl -s localhost:8084/$X     # another one',
      '# {"id":...}',
      'curl -s localhost:8084/b        # hi bob   (status 202)',
      '```',
      '<!-- readme-test: skip needs a mail server -->',
      '```sh',
      'curl -s smtp://localhost',
      '```',
      '```sh',
      'npm start',
      '```',
    ].join('\n');
    const blocks = shellExamples(md);
    expect(blocks).toHaveLength(2);
    expect(blocks[0]!.examples).toEqual([
      { line: 2, command: 'X=$(curl -s -X POST localhost:8084/a -d \'{"n":"#1"}\' \\\n  | json id)' },
      { line: 4, command: 'curl -s localhost:8084/$X', output: '{"id":...}' },
      { line: 6, command: 'curl -s localhost:8084/b', output: 'hi bob', status: 202 },
    ]);
    expect(blocks[1]!.skip).toBe('needs a mail server');
  });
});

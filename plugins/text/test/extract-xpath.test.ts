import { describe, expect, it } from 'vitest';
import { runAction, validateParams } from '@capture/sdk/testing';
import { extractXpath } from '../src/extract-xpath.js';

const xml = `<?xml version="1.0"?>
<organization name="ExampleCo">
  <employees>
    <employee id="1">Jack</employee>
    <employee id="2">Ann</employee>
  </employees>
</organization>`;

const run = (xpath: string, source = xml, extra: Record<string, unknown> = {}) => runAction(extractXpath, { xpath, variable_name: 'x', source, ...extra });

describe('extract_xpath', () => {
  it('an element gives its text, one line per text node', async () => {
    expect((await run('/organization')).vars.x).toBe('Jack\nAnn');
  });

  it('attributes, positions, last() and predicates', async () => {
    expect((await run('/organization/@name')).vars.x).toBe('ExampleCo');
    expect((await run('/organization/employees/employee[2]')).vars.x).toBe('Ann');
    expect((await run('/organization/employees/employee[2]/@id')).vars.x).toBe('2');
    expect((await run('//employee[last()]')).vars.x).toBe('Ann');
    expect((await run('//employee[contains(@id, "2")]')).vars.x).toBe('Ann');
    expect((await run('count(//employee)')).vars.x).toBe('2');
  });

  it('reads HTML too, ignoring case', async () => {
    const r = await run('//title', '<!DOCTYPE html><html><head><TITLE>Hi</TITLE></head><body><p>x</p></body></html>');
    expect(r.vars.x).toBe('Hi');
  });

  it('no match sets the default', async () => {
    expect((await run('//nope', xml, { default: 'd' })).vars.x).toBe('d');
  });

  it('malformed XML and bad expressions are action errors', async () => {
    expect((await run('/a', '<a><b></a>')).errors[0]).toMatch(/not well-formed XML/);
    expect((await run('//[', xml)).errors[0]).toMatch(/Invalid XPath/);
  });

  it('without a variable name the result goes to $xpath$', async () => {
    expect((await runAction(extractXpath, { xpath: '/organization/@name', source: xml })).vars.xpath).toBe('ExampleCo');
    expect((await runAction(extractXpath, { xpath: '/organization/@name', source: xml, variable_name: '' })).vars.xpath).toBe('ExampleCo');
  });

  it('requires xpath', () => {
    expect(() => validateParams(extractXpath, { variable_name: 'x' })).toThrow(/parameters.xpath/);
  });
});

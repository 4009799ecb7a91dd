import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

describe('the one logger', () => {
  it('writes JSON lines with time, level and msg; a child adds its fields to every line', () => {
    const lines: string[] = [];
    const log = createLogger('info', { service: 'x' }, (l) => lines.push(l));
    log.debug('hidden');
    log.child({ module: 'scheduler' }).warn('late', { job: 7 });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(entry).toMatchObject({ level: 'warn', msg: 'late', service: 'x', module: 'scheduler', job: 7 });
    expect(typeof entry.time).toBe('string');
  });
  it('writes an error as its message and stack', () => {
    const lines: string[] = [];
    createLogger('info', {}, (l) => lines.push(l)).error('failed', { err: new Error('boom') });
    expect(JSON.parse(lines[0]!).err).toMatchObject({ message: 'boom', stack: expect.stringContaining('boom') });
  });
});

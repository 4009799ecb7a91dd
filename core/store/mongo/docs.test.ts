// Offline checks of the MongoDB adapter (no server needed): a request survives the BSON round trip
// exactly as the port defines it, as do groups, set-responses, workflow documents and global variables,
// and the database name is read from the URI.
import { BSON, ObjectId } from 'mongodb';
import { expect, it } from 'vitest';
import type { GlobalVariableRecord, GroupRecord, RequestRecord, SetResponse } from '../types.js';
import {
  CONTENT_TEXT_BYTES,
  LISTENER_GRACE_MS,
  decodeSetResponse,
  encodeSetResponse,
  escapeRegex,
  toGlobalVariable,
  toGroup,
  toListenerDoc,
  toRequest,
  toRequestDoc,
  toWorkflow,
  toWorkflowDoc,
  type GlobalVariableDoc,
  type GroupDoc,
  type ListenerDoc,
  type WorkflowDoc,
} from './docs.js';
import { dbNameFromUri } from './index.js';

function sample(over: Partial<RequestRecord> = {}): RequestRecord {
  return {
    uuid: 'u1',
    token_id: 't1',
    type: 'web',
    team_id: null,
    ip: '1.2.3.4',
    hostname: 'h',
    method: 'POST',
    user_agent: 'ua',
    url: 'http://x/y?a.b=1',
    content_type: 'application/octet-stream',
    body: Buffer.from([0, 255, 1, 2, 0xc3]),
    size: 5,
    query: { 'a.b': '1', $x: '2' },
    headers: { 'content-type': ['a', 'b'] },
    form: { f: ['1', '2'] },
    files: [{ id: 'f', name: 'n', filename: 'x', size: 1, content_type: 'c' }],
    custom_action_output: ['x'],
    custom_action_errors: [{ a: 1 }],
    time: 0.0123,
    note: null,
    sorting: 1712345678901234,
    created_at: 1712345678901,
    updated_at: 1712345678902,
    extra: { nested: { deep: [1, 'x', null, true] } },
    httpVersion: '2',
    ...over,
  };
}

/** What the driver does on the wire: serialise (undefined left out) and deserialise with defaults. */
function viaBson<T extends object>(doc: T): T {
  return BSON.deserialize(BSON.serialize(doc, { ignoreUndefined: true })) as T;
}

it('round-trips a request exactly, body as a Node Buffer, without _id, ins or content_text', () => {
  const r = sample();
  const back = toRequest(viaBson(toRequestDoc(r, new ObjectId())));
  expect(Buffer.isBuffer(back.body)).toBe(true);
  expect(Buffer.compare(back.body, r.body)).toBe(0);
  expect(back).toEqual(r);
  expect(Object.keys(back).sort()).toEqual(Object.keys(r).sort());
});

it('stores the HTTP version as http_version; a web document without one reads as 1.1, an e-mail as none', () => {
  const doc = viaBson(toRequestDoc(sample(), new ObjectId()));
  expect(doc.http_version).toBe('2');
  const { http_version: _, ...old } = doc;
  expect(toRequest(old).httpVersion).toBe('1.1');
  expect('httpVersion' in toRequest({ ...old, type: 'email' })).toBe(false);
});

it('round-trips an empty body', () => {
  const r = sample({ body: Buffer.alloc(0), size: 0 });
  const back = toRequest(viaBson(toRequestDoc(r, new ObjectId())));
  expect(back.body.length).toBe(0);
  expect(back).toEqual(r);
});

it('keeps at most 1 MiB of body text for search', () => {
  const doc = toRequestDoc(sample({ body: Buffer.alloc(CONTENT_TEXT_BYTES + 10, 'a') }), new ObjectId());
  expect(doc.content_text.length).toBe(CONTENT_TEXT_BYTES);
  expect(doc.body.length()).toBe(CONTENT_TEXT_BYTES + 10);
});

it('reads the database name from the URI path', () => {
  expect(dbNameFromUri('mongodb://u:p@h1:1,h2:2/mydb?replicaSet=x')).toBe('mydb');
  expect(dbNameFromUri('mongodb://127.0.0.1:27017/capture_ci')).toBe('capture_ci');
  expect(dbNameFromUri('mongodb+srv://cluster.example/?retryWrites=true')).toBeNull();
  expect(dbNameFromUri('mongodb://127.0.0.1:27017')).toBeNull();
});

it('round-trips a group without _id', () => {
  const g: GroupRecord = { id: 7, user_id: 3, name: 'Grüppe', created_at: 1712345678901, updated_at: 1712345678902 };
  const back = toGroup(viaBson<GroupDoc>({ _id: g.id, ...g }));
  expect(back).toEqual(g);
  expect(Object.keys(back).sort()).toEqual(Object.keys(g).sort());
});

it('opens a listener unanswered, reaped a minute after its deadline', () => {
  const doc = viaBson<ListenerDoc>(toListenerDoc('r1', 't1', 1712345678901));
  expect(doc).toEqual({ _id: 'r1', token_id: 't1', deadline: 1712345678901, response: null, expires_at: new Date(1712345678901 + 60_000) });
  expect(LISTENER_GRACE_MS).toBe(60_000);
  expect(decodeSetResponse(doc.response)).toBeNull();
  expect(decodeSetResponse(undefined)).toBeNull();
});

it('round-trips a set-response, header names with dots and dollars included', () => {
  const r: SetResponse = {
    status: 201,
    content: Buffer.from([0, 255, 0xc3]).toString('base64'),
    headers: { 'x-a.b': 'v', $weird: ['1', '2'], 'content-type': 'text/plain' },
  };
  const doc = viaBson<ListenerDoc>({ ...toListenerDoc('r1', 't1', 1), response: encodeSetResponse(r) });
  expect(decodeSetResponse(doc.response)).toEqual(r);
});

it('round-trips a workflow document as JSON text, keys with dots and dollars included', () => {
  const document = { kind: 'TokenActions', spec: { steps: [{ id: 'a', type: 'log', parameters: { 'x.y': 1, $z: [null, true, 'é'] } }] } };
  const doc = viaBson<WorkflowDoc>(toWorkflowDoc('t1', document, 6));
  expect(typeof doc.document).toBe('string');
  expect(Object.keys(doc).sort()).toEqual(['_id', 'document', 'updated_at']);
  expect(toWorkflow(doc)).toEqual({ token_id: 't1', document, updated_at: 6 });
});

it('round-trips a global variable without _id', () => {
  const g: GlobalVariableRecord = { id: 4, owner: 'user:1', name: 'colour', value: 'blue', created_at: 1, updated_at: 2 };
  const back = toGlobalVariable(viaBson<GlobalVariableDoc>({ _id: g.id, ...g }));
  expect(back).toEqual(g);
  expect(Object.keys(back).sort()).toEqual(Object.keys(g).sort());
});

it('escapes regex metacharacters of a global variable search', () => {
  const specials = 'a.b*c+d?e^f$g{h}i(j)k|l[m]n\\o/p-q';
  const re = new RegExp(escapeRegex(specials), 'i');
  expect(re.test('xx' + specials.toUpperCase() + 'yy')).toBe(true);
  expect(new RegExp(escapeRegex('a.b'), 'i').test('axb')).toBe(false);
  expect(new RegExp(escapeRegex('.*'), 'i').test('name')).toBe(false);
});

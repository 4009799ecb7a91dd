// Route objects mounted on a real Koa app: auth rule, validation (the 422 of fromZod), the typed
// input, and the test-time check that fails an answer not matching its declared schema.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ANONYMOUS } from '../auth/access.js';
import { silentLogger } from '../logger.js';
import { errorHandler } from './middleware/errors.js';
import { jsonBody } from './middleware/body.js';
import { mountRoutes, routeFor } from './route.js';
import type { AppState } from './services.js';

const route = routeFor<{ greeting: string }>();
const Answer = z.object({ text: z.string() });
const routes = [
  route({
    method: 'post',
    path: '/hello/{name}',
    summary: 'Greets',
    auth: 'public',
    query: z.object({ times: z.coerce.number().int().min(1).default(1) }),
    body: z.object({ punctuation: z.string().max(1) }),
    response: { status: 201, schema: Answer },
    handler: (ctx, deps) => ({ text: `${deps.greeting} ${ctx.params.name}${ctx.input.body.punctuation}`.repeat(ctx.input.query.times) }),
  }),
  route({ method: 'get', path: '/broken', summary: 'Answers the wrong shape', auth: 'public', response: { status: 200, schema: Answer }, handler: () => ({ text: 5 }) }),
  route({ method: 'get', path: '/mine', summary: 'Needs a user', auth: { user: 'Things' }, response: { status: 200, schema: Answer }, handler: (ctx) => ({ text: String(ctx.input.userId) }) }),
];

let server: Server;
let url: string;
beforeAll(async () => {
  const koa = new Koa<AppState>();
  koa.silent = true;
  koa.use(errorHandler(silentLogger));
  koa.use(async (ctx, next) => {
    ctx.state.caller = ANONYMOUS;
    await next();
  });
  koa.use(jsonBody(1024));
  koa.use(mountRoutes(new Router<AppState>(), routes, { greeting: 'hi' }).routes());
  server = createServer(koa.callback()).listen(0);
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server?.close());

const post = (path: string, body: unknown) => fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('mountRoutes', () => {
  it('hands the handler parsed params, query and body and answers the declared status', async () => {
    const r = await post('/hello/ann?times=2', { punctuation: '!' });
    expect(r.status).toBe(201);
    expect(await r.json()).toEqual({ text: 'hi ann!hi ann!' });
  });

  it('answers bad input with the 422 of fromZod, naming the field', async () => {
    const r = await post('/hello/ann', { punctuation: '!!' });
    expect(r.status).toBe(422);
    const body = await r.json();
    expect(Object.keys(body.errors)).toEqual(['punctuation']);
    expect(body.message).toMatch(/^punctuation: /);
    expect((await post('/hello/ann?times=0', { punctuation: '!' })).status).toBe(422);
  });

  it('applies the auth rule before validation', async () => {
    expect((await fetch(`${url}/mine`)).status).toBe(401);
  });

  it('fails (500) an answer that does not match its declared schema while tests run', async () => {
    expect(process.env.NODE_ENV).toBe('test');
    expect((await fetch(`${url}/broken`)).status).toBe(500);
  });
});

import Router from '@koa/router';
import { DatabaseCreateBody, DatabaseQueryBody, DatabaseUpdateBody, type DatabaseService } from '../../databases/service.js';
import { mountRoutes, pageOf, routeFor } from '../route.js';
import type { AppState, HttpServices } from '../services.js';
import { pageEnvelope, publicBaseUrl } from '../token-access.js';
import { DatabaseView, QueryAnswerView } from '../../databases/databases.schema.js';
import { DatabaseListQuery } from './databases.schema.js';
import { TableManager } from '../../databases/tables.js';
import { tableRoutes } from './tables.router.js';

interface DatabasesDeps {
  services: HttpServices;
  databases: DatabaseService;
}

const route = routeFor<DatabasesDeps>();
const auth = { user: 'Databases' };

/** The Databases API: a user's hosted SQL databases and their query endpoint. The service parses the bodies after checking databases are configured (403 first). */
export const databaseRoutes = [
  route({
    method: 'post',
    path: '/databases',
    summary: 'Create a hosted database (a PostgreSQL schema of its own; needs DATABASES_POSTGRES_URL)',
    auth,
    body: DatabaseCreateBody,
    bodyParsedByService: true,
    response: { status: 201, schema: DatabaseView },
    handler: (ctx, { databases }) => databases.create(ctx.input.userId, ctx.request.body),
  }),
  route({
    method: 'get',
    path: '/databases',
    summary: "List the caller's hosted databases",
    auth,
    query: DatabaseListQuery,
    response: { status: 200, schema: pageOf(DatabaseView) },
    handler: async (ctx, { services, databases }) => {
      const q = ctx.input.query;
      const page = await databases.list(ctx.input.userId, { page: q.page, perPage: q.per_page });
      return pageEnvelope(ctx, publicBaseUrl(ctx, services), page.items, page.total, q.page, q.per_page);
    },
  }),
  route({
    method: 'get',
    path: '/databases/{id}',
    summary: 'Get a database with its tables and bytes used',
    auth,
    response: { status: 200, schema: DatabaseView },
    handler: (ctx, { databases }) => databases.get(ctx.input.userId, ctx.params.id!),
  }),
  route({
    method: 'put',
    path: '/databases/{id}',
    summary: 'Rename a database',
    auth,
    body: DatabaseUpdateBody,
    bodyParsedByService: true,
    response: { status: 200, schema: DatabaseView },
    handler: (ctx, { databases }) => databases.rename(ctx.input.userId, ctx.params.id!, ctx.request.body),
  }),
  route({
    method: 'delete',
    path: '/databases/{id}',
    summary: 'Delete a database with all its tables',
    auth,
    response: { status: 204 },
    handler: async (ctx, { databases }) => {
      await databases.delete(ctx.input.userId, ctx.params.id!);
    },
  }),
  route({
    method: 'post',
    path: '/databases/{id}/query',
    summary: 'Run one SQL statement with `:name` or `?` parameters: {result (at most 1000 rows), error, time (ms)}',
    auth,
    body: DatabaseQueryBody,
    bodyParsedByService: true,
    response: { status: 200, schema: QueryAnswerView },
    handler: (ctx, { databases }) => databases.queryApi(ctx.input.userId, ctx.params.id!, ctx.request.body),
  }),
];

/** The Databases API with its Database Manager routes (core/http/databases/tables.router.ts). */
export function databasesRouter(services: HttpServices, databases: DatabaseService): Router<AppState> {
  const router = mountRoutes(new Router<AppState>(), databaseRoutes, { services, databases });
  return mountRoutes(router, tableRoutes, { services, tables: new TableManager(databases) });
}

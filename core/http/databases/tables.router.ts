import {
  ColumnAddBody,
  ColumnUpdateBody,
  PrimaryKeyBody,
  RowInsertBody,
  RowUpdateBody,
  RowView,
  RowsDeleteBody,
  RowsDeletedView,
  RowsExtra,
  TableCreateBody,
  TableListView,
  TableRenameBody,
  TableView,
} from '../../databases/tables.schema.js';
import type { TableAt, TableManager } from '../../databases/tables.js';
import { pageOf, routeFor } from '../route.js';
import type { HttpServices } from '../services.js';
import { pageEnvelope, publicBaseUrl } from '../token-access.js';
import { RowsQuery } from './databases.schema.js';

interface TablesDeps {
  services: HttpServices;
  tables: TableManager;
}

const route = routeFor<TablesDeps>();
const auth = { user: 'Databases' };
const T = '/databases/{id}/tables/{table}';

/** The table a request under T names, for the caller. */
const at = ({ input }: { input: { userId: number; params: Record<string, string> } }): TableAt => ({ userId: input.userId, id: input.params.id!, table: input.params.table! });

/**
 * The Database Manager: a database's tables, their structure and their rows. The manager parses
 * the bodies after finding the database (404 and 403 first); names in paths are the tables' and
 * columns' own names, URL-encoded.
 */
export const tableRoutes = [
  route({
    method: 'get',
    path: '/databases/{id}/tables',
    summary: 'List the tables with their columns, primary keys and estimated rows (also the column types a table may use)',
    auth,
    response: { status: 200, schema: TableListView },
    handler: (ctx, { tables }) => tables.list(ctx.input.userId, ctx.params.id!),
  }),
  route({
    method: 'post',
    path: '/databases/{id}/tables',
    summary: 'Create a table from its columns (name, type, nullable, default, primary key)',
    auth,
    body: TableCreateBody,
    bodyParsedByService: true,
    response: { status: 201, schema: TableView },
    handler: (ctx, { tables }) => tables.create(ctx.input.userId, ctx.params.id!, ctx.request.body),
  }),
  route({
    method: 'get',
    path: T,
    summary: 'Get a table with its columns',
    auth,
    response: { status: 200, schema: TableView },
    handler: (ctx, { tables }) => tables.get(at(ctx)),
  }),
  route({
    method: 'put',
    path: T,
    summary: 'Rename a table',
    auth,
    body: TableRenameBody,
    bodyParsedByService: true,
    response: { status: 200, schema: TableView },
    handler: (ctx, { tables }) => tables.rename(at(ctx), ctx.request.body),
  }),
  route({
    method: 'delete',
    path: T,
    summary: 'Drop a table with its rows',
    auth,
    response: { status: 204 },
    handler: async (ctx, { tables }) => {
      await tables.drop(at(ctx));
    },
  }),
  route({
    method: 'post',
    path: `${T}/columns`,
    summary: 'Add a column; answers the table',
    auth,
    body: ColumnAddBody,
    bodyParsedByService: true,
    response: { status: 201, schema: TableView },
    handler: (ctx, { tables }) => tables.addColumn(at(ctx), ctx.request.body),
  }),
  route({
    method: 'put',
    path: `${T}/columns/{column}`,
    summary: 'Change a column: its name, type (values are cast), nullability or default; answers the table',
    auth,
    body: ColumnUpdateBody,
    bodyParsedByService: true,
    response: { status: 200, schema: TableView },
    handler: (ctx, { tables }) => tables.updateColumn(at(ctx), ctx.params.column!, ctx.request.body),
  }),
  route({
    method: 'delete',
    path: `${T}/columns/{column}`,
    summary: 'Drop a column; answers the table',
    auth,
    response: { status: 200, schema: TableView },
    handler: (ctx, { tables }) => tables.dropColumn(at(ctx), ctx.params.column!),
  }),
  route({
    method: 'put',
    path: `${T}/primary-key`,
    summary: 'Set the primary key columns (an empty list drops the key); answers the table',
    auth,
    body: PrimaryKeyBody,
    bodyParsedByService: true,
    response: { status: 200, schema: TableView },
    handler: (ctx, { tables }) => tables.setPrimaryKey(at(ctx), ctx.request.body),
  }),
  route({
    method: 'get',
    path: `${T}/rows`,
    summary: 'A page of rows, sorted by a column, optionally where one column equals a value',
    auth,
    query: RowsQuery,
    response: { status: 200, schema: pageOf(RowView.shape.row, RowsExtra) },
    handler: async (ctx, { services, tables }) => {
      const q = ctx.input.query;
      const page = await tables.browse(at(ctx), { page: q.page, perPage: q.per_page, sort: q.sort, order: q.order, filterColumn: q.filter_column, filterValue: q.filter_value });
      return { ...pageEnvelope(ctx, publicBaseUrl(ctx, services), page.items, page.total, q.page, q.per_page), primary_key: page.primary_key };
    },
  }),
  route({
    method: 'post',
    path: `${T}/rows`,
    summary: 'Add a row (values bound as parameters; columns left out get their default)',
    auth,
    body: RowInsertBody,
    bodyParsedByService: true,
    response: { status: 201, schema: RowView },
    handler: async (ctx, { tables }) => ({ row: await tables.insertRow(at(ctx), ctx.request.body) }),
  }),
  route({
    method: 'put',
    path: `${T}/rows`,
    summary: 'Change the row named by its primary key',
    auth,
    body: RowUpdateBody,
    bodyParsedByService: true,
    response: { status: 200, schema: RowView },
    handler: async (ctx, { tables }) => ({ row: await tables.updateRow(at(ctx), ctx.request.body) }),
  }),
  route({
    method: 'post',
    path: `${T}/rows/delete`,
    summary: 'Delete the rows named by their primary keys',
    auth,
    body: RowsDeleteBody,
    bodyParsedByService: true,
    response: { status: 200, schema: RowsDeletedView },
    handler: async (ctx, { tables }) => ({ deleted: await tables.deleteRows(at(ctx), ctx.request.body) }),
  }),
];

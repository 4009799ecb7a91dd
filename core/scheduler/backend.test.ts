// The Agenda backend contract on SQLite (always) and on MongoDB (when MONGODB_URI is set).
import { randomUUID } from 'node:crypto';
import { MongoBackend } from '@agendajs/mongo-backend';
import { MongoClient } from 'mongodb';
import { discardCollections } from '../../test/helpers/mongo.js';
import { createSqliteStore } from '../store/sqlite/index.js';
import { agendaBackendContract } from './backend.contract.js';
import { AGENDA_COLLECTION } from './scheduler.js';
import { SqliteBackend } from './sqlite-backend.js';

agendaBackendContract('SQLite', async () => {
  const store = createSqliteStore(':memory:');
  return { backend: new SqliteBackend(store.db), cleanup: () => store.close() };
});

const uri = process.env.MONGODB_URI;
if (uri) {
  agendaBackendContract('MongoDB', async () => {
    const client = await MongoClient.connect(uri);
    const db = client.db(`agenda_contract_${randomUUID().replace(/-/g, '')}`);
    return {
      backend: new MongoBackend({ mongo: db, collection: AGENDA_COLLECTION }),
      async cleanup() {
        await discardCollections(db, [AGENDA_COLLECTION]);
        await client.close();
      },
    };
  });
}

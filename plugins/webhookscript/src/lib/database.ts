// database.md: Webhook.site Database is a hosted service this server does not have.
import { fail } from '../lang/errors.js';
import type { Library } from './host.js';

export function databaseLibrary(): Library {
  return {
    db: () =>
      fail('Webhook.site Database instances are not available on this server; use the Database Query action (database_query) with your own database instead'),
  };
}

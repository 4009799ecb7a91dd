// What the MongoDB server behind a connection can do, found out by trying, never from its name or
// version: a standalone mongod has no change streams, and wire-compatible servers (such as the
// emulator CI runs against) lack some features that a replica set has.
import type { Collection, Document } from 'mongodb';

/**
 * Whether a change stream opens on `collection` (a replica set or sharded cluster can; a standalone
 * mongod or a server without the `$changeStream` stage refuses). Opens one and closes it at once.
 */
export async function supportsChangeStreams<T extends Document>(collection: Collection<T>): Promise<boolean> {
  const probe = collection.watch([], { maxAwaitTimeMS: 1 });
  try {
    await probe.tryNext();
    return true;
  } catch {
    return false;
  } finally {
    await probe.close().catch(() => undefined);
  }
}

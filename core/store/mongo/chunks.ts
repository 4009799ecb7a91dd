// Deleting many documents a chunk at a time: one deleteMany over a million documents is one long
// operation on the server, while chunks of DELETE_CHUNK ids let captures and reads run in between.
import type { Collection, Filter } from 'mongodb';

/** Documents one deleteMany removes at most. */
export const DELETE_CHUNK = 1000;

/** Deletes every document matching `filter`, DELETE_CHUNK ids per deleteMany; returns how many. */
export async function deleteInChunks<T extends { _id: string }>(col: Collection<T>, filter: Filter<T>): Promise<number> {
  let deleted = 0;
  for (;;) {
    // Deleted documents no longer match, so each read starts over at the remaining ones.
    const batch = await col
      .find(filter, { projection: { _id: 1 } })
      .limit(DELETE_CHUNK)
      .toArray();
    if (batch.length === 0) return deleted;
    const ids = batch.map((d) => d._id);
    deleted += (await col.deleteMany({ $and: [filter, { _id: { $in: ids } }] } as Filter<T>)).deletedCount;
    if (batch.length < DELETE_CHUNK) return deleted;
  }
}

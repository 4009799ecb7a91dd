// Heavy packages (database and broker drivers, image and PDF libraries, parsers) are imported the
// first time an action needs them rather than at start-up, so an idle service holds only what it
// uses: `const loadPg = lazyImport(() => import('pg'))`, then `const pg = await loadPg()` where
// the work is. Every call shares one import; a failed one (a missing optional native module) is
// not kept, so each use reports the loader's error and a package installed later is picked up.

/** A function that imports on its first call and hands every later call the same module. */
export function lazyImport<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= load().catch((err: unknown) => {
      pending = undefined;
      throw err;
    }));
}

// Opens the configured store for one command and closes it afterwards, whatever happens.
import type { Store } from '../../app/ports/store.ts';
import { openMigratedStore } from '../../bootstrap.ts';
import type { CommandContext } from './context.ts';

export async function withStore<T>(ctx: CommandContext, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openMigratedStore(ctx.config);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

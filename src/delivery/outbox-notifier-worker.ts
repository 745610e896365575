// What an API process runs instead of a delivery worker (DELIVERY_WORKER=false, PostgreSQL only):
// after the payments it finalises, it tells the delivery processes (`deliver`) to look now. Their
// poll would find the events too, a poll interval later (docs/deployment.md).
import type { Worker, WorkerFactory } from '../app/worker.ts';

export const outboxNotifierWorker: WorkerFactory = (services, logger): Worker => {
  const wakeups = services.store.deliveries.wakeups;
  if (!wakeups) return { start() {}, async stop() {} };
  const notifier = wakeups.notifier('api', logger.child({ component: 'delivery' }));
  const onFinalised = () => notifier.notify();
  return {
    start() {
      services.finalisedListeners.push(onFinalised);
    },
    async stop() {
      const index = services.finalisedListeners.indexOf(onFinalised);
      if (index >= 0) services.finalisedListeners.splice(index, 1);
      notifier.stop();
    },
  };
};

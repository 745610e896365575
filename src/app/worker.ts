// What the composition root (server.ts) starts beside the HTTP server: the expiry sweeper, the
// delivery worker. Kept beside its users so they do not import the top of the program.
import type { Logger } from 'pino';
import type { Services } from './services.ts';

/** Something that runs in the background and finishes its in-flight work on stop(). */
export type Worker = { start(): void; stop(): Promise<void> };
export type WorkerFactory = (services: Services, logger: Logger) => Worker;

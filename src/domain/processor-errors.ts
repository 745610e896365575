// What a processor call can fail with besides a refusal (docs/architecture.md "Connectors").
import { GatewayError } from './errors.ts';

/**
 * The processor could not be reached, or did not answer in time. `outcomeUnknown`: the request
 * may have been applied (a timeout after sending, a 5xx), so the caller must settle it by a
 * query before acting on it again; false when it certainly was not (refused connection, 429,
 * the token endpoint down). Answered 503 where a request is waiting for it.
 */
export class ProcessorUnavailable extends GatewayError {
  readonly outcomeUnknown: boolean;
  constructor(message: string, outcomeUnknown: boolean) {
    super('SERVICE_UNAVAILABLE', message);
    this.name = 'ProcessorUnavailable';
    this.outcomeUnknown = outcomeUnknown;
  }
}

/** The processor answered something that does not match what we asked (ids, merchant, amount): never acted on. */
export class ProcessorMismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProcessorMismatch';
  }
}

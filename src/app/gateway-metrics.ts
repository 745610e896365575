// What /metrics reports, as prom-client instruments in a registry of our own (not the global
// one, so several gateways in one process — the tests — keep separate counts).
//
// Every figure is kept in memory and updated where the event happens (a request answered, a
// payment finalised, a notification attempt recorded), so a scrape costs the same whatever the
// size of the tables: it used to count every row by state, and with ~1M rows a few scrapers
// stalled payments. Counters are per process since its start; with several instances,
// Prometheus sums them (`sum(rate(...))`). Nothing here starts a timer until
// `collectProcessMetrics()` is called (by the HTTP server), so the CLI stays timer-free.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { gatewayPackage } from '../version.ts';

// Seconds; payments are answered in milliseconds, notifications may take up to the timeout.
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const DELIVERY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const RENDER_REUSE_MS = 1000;

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed';

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'route' | 'method' | 'status'>;
  readonly #requestSeconds: Histogram<'route' | 'method'>;
  readonly #shed: Counter;
  readonly #initiations: Counter<'result'>;
  readonly #finalised: Counter<'status' | 'tag'>;
  readonly #attempts: Counter<'outcome' | 'result'>;
  readonly #attemptSeconds: Histogram<'result'>;
  /** The bound counters of each route and method seen (`requestAnswered`). */
  readonly #routes = new Map<string, Map<string, (status: number, seconds: number) => void>>();
  #processMetrics = false;
  #inFlight: () => number = () => 0;
  #attentionOpen: (() => number | undefined) | undefined;
  #rendered: Promise<{ contentType: string; body: string }> | undefined;
  #renderedAt = 0;

  constructor(labels: { mode: string; store: string }) {
    const registers = [this.registry];
    new Gauge({
      name: 'gateway_build_info',
      help: 'Gateway version (from package.json), mode and store; always 1.',
      labelNames: ['version', 'mode', 'store'],
      registers,
    }).set({ version: gatewayPackage().version, ...labels }, 1);
    this.#requests = new Counter({
      name: 'gateway_http_requests_total',
      help: 'HTTP requests answered, by route, method and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.#requestSeconds = new Histogram({
      name: 'gateway_http_request_duration_seconds',
      help: 'Time from request to response, by route and method.',
      labelNames: ['route', 'method'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.#shed = new Counter({
      name: 'gateway_http_requests_shed_total',
      help:
        'Requests answered 503 (after SHED_DELAY, without being worked on) ' +
        'because MAX_IN_FLIGHT requests were in flight.',
      registers,
    });
    this.#initiations = new Counter({
      name: 'gateway_initiations_total',
      help: 'Accepted initiations: new transactions and idempotent replays.',
      labelNames: ['result'],
      registers,
    });
    this.#finalised = new Counter({
      name: 'gateway_transactions_finalised_total',
      help: 'Transactions that reached a final state, by status and error tag.',
      labelNames: ['status', 'tag'],
      registers,
    });
    this.#attempts = new Counter({
      name: 'gateway_notification_attempts_total',
      help:
        'Notification attempts, by what happened next (delivered, retry, failed) ' +
        'and the result (HTTP status class or error).',
      labelNames: ['outcome', 'result'],
      registers,
    });
    const inFlight = () => this.#inFlight();
    new Gauge({
      name: 'gateway_http_requests_in_flight',
      help: 'Requests being worked on now (bounded by MAX_IN_FLIGHT).',
      registers,
      collect() {
        this.set(inFlight());
      },
    });
    this.#attemptSeconds = new Histogram({
      name: 'gateway_notification_attempt_duration_seconds',
      help: 'Time of one notification attempt, by result.',
      labelNames: ['result'],
      buckets: DELIVERY_BUCKETS,
      registers,
    });
  }

  /** Process CPU / memory / handles, GC and event-loop delay (prom-client's defaults). */
  collectProcessMetrics(): void {
    if (this.#processMetrics) return;
    this.#processMetrics = true;
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 20 });
  }

  /** Where the in-flight gauge reads its value at scrape time (the HTTP app's load shedder). */
  trackInFlight(inFlight: () => number): void {
    this.#inFlight = inFlight;
  }

  /**
   * Exports `gateway_attention_open`, read at scrape time from `count` (app/open-attention.ts, kept
   * in memory and re-read in the background, so a scrape still reads nothing from the store). Only
   * a process that keeps that count (`serve`) calls this, so the others export no stale figure.
   * Every instance reports the same deployment-wide count: aggregate with max(), not sum().
   */
  trackAttentionOpen(count: () => number | undefined): void {
    const registered = this.#attentionOpen !== undefined;
    this.#attentionOpen = count;
    if (registered) return;
    const read = () => this.#attentionOpen?.();
    this.#rendered = undefined; // the next scrape shows the new gauge, not a render from before it
    new Gauge({
      name: 'gateway_attention_open',
      help: 'Open needs-attention items (payments a person must look at), re-read from the store every 30 s.',
      registers: [this.registry],
      collect() {
        const value = read();
        if (value !== undefined) this.set(value);
      },
    });
  }

  /**
   * Exports `gateway_data_dir_free_bytes` (SQLite only: `free` is undefined on PostgreSQL, whose
   * disk is the database server's), read at scrape time: one statfs call, no database read.
   */
  trackDataDirFree(free: () => number | undefined): void {
    if (free() === undefined) return;
    this.#rendered = undefined;
    new Gauge({
      name: 'gateway_data_dir_free_bytes',
      help: 'Bytes free to the gateway on the file system of its SQLite data directory.',
      registers: [this.registry],
      collect() {
        const value = free();
        if (value !== undefined) this.set(value);
      },
    });
  }

  /**
   * Counts an answered request, whichever path of the HTTP edge answered it (Fastify or the JSON
   * fast lane): the route's counters are bound once (`routeCounter`) and found again by route
   * and method, so a request builds no label objects.
   */
  requestAnswered(route: string, method: string, status: number, seconds: number): void {
    let byMethod = this.#routes.get(route);
    if (byMethod === undefined) this.#routes.set(route, (byMethod = new Map()));
    let counter = byMethod.get(method);
    if (counter === undefined) byMethod.set(method, (counter = this.routeCounter(route, method)));
    counter(status, seconds);
  }

  /**
   * The answer counter of one route and method, with its label children bound once (per status
   * as each is first seen): what the JSON fast lane holds for each of its operations.
   */
  routeCounter(route: string, method: string): (status: number, seconds: number) => void {
    const requests = this.#requests;
    const byStatus = new Map<number, { inc(): void }>();
    const latency = this.#requestSeconds.labels(route, method);
    return (status, seconds) => {
      let count = byStatus.get(status);
      if (count === undefined) byStatus.set(status, (count = requests.labels(route, method, String(status))));
      count.inc();
      latency.observe(seconds);
    };
  }

  requestShed(): void {
    this.#shed.inc();
  }

  initiated(replayed: boolean): void {
    this.#initiations.inc({ result: replayed ? 'replayed' : 'created' });
  }

  finalised(status: string, tag: string | null): void {
    this.#finalised.inc({ status, tag: tag ?? '' });
  }

  /** `result`: `2xx`…`5xx` for an HTTP answer, `error` for a network error or timeout. */
  notificationAttempt(outcome: DeliveryOutcome, httpStatus: number | null, seconds: number): void {
    const result = httpStatus === null ? 'error' : `${Math.trunc(httpStatus / 100)}xx`;
    this.#attempts.inc({ outcome, result });
    this.#attemptSeconds.observe({ result }, seconds);
  }

  /**
   * The exposition text. prom-client's process collectors cost ~2 ms of CPU per render (they
   * read /proc and list handles), so a render is reused for up to a second: however many
   * scrapers poll however often, rendering costs at most one per second (Prometheus scrapes
   * every 15 s or so; a figure at most 1 s old is as good).
   */
  text(): Promise<{ contentType: string; body: string }> {
    const now = performance.now();
    if (!this.#rendered || now - this.#renderedAt >= RENDER_REUSE_MS) {
      this.#renderedAt = now;
      this.#rendered = this.registry.metrics().then(
        (body) => ({ contentType: this.registry.contentType, body }),
        (error: unknown) => {
          this.#rendered = undefined;
          throw error;
        },
      );
    }
    return this.#rendered;
  }
}

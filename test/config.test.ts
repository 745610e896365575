// config.ts: defaults, and the rule that every problem is reported at once.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('configuration', () => {
  test('PUBLIC_BASE_URL defaults to HOST:PORT', () => {
    assert.equal(loadConfig({ HOST: '127.0.0.1', PORT: '9090' }).publicBaseUrl, 'http://127.0.0.1:9090');
    assert.equal(loadConfig({ HOST: '::1', PORT: '9090' }).publicBaseUrl, 'http://[::1]:9090');
  });

  test('listening on every interface does not make 0.0.0.0 the URL browsers are sent to', () => {
    assert.equal(loadConfig({ HOST: '0.0.0.0' }).publicBaseUrl, 'http://localhost:8080');
    assert.equal(loadConfig({ HOST: '::', PORT: '80' }).publicBaseUrl, 'http://localhost:80');
    assert.equal(
      loadConfig({ HOST: '0.0.0.0', PUBLIC_BASE_URL: 'https://pay.example/' }).publicBaseUrl,
      'https://pay.example',
    );
  });

  test('SHED_DELAY: 100 ms by default, 0 answers shed requests at once, at most 5 s', () => {
    assert.equal(loadConfig({}).shedDelayMs, 100);
    assert.equal(loadConfig({ SHED_DELAY: '0' }).shedDelayMs, 0);
    assert.equal(loadConfig({ SHED_DELAY: '250ms' }).shedDelayMs, 250);
    assert.throws(() => loadConfig({ SHED_DELAY: '6s' }), /SHED_DELAY/);
    assert.throws(() => loadConfig({ SHED_DELAY: 'later' }), /SHED_DELAY/);
  });

  test('DELIVERY_PER_HOST_MAX_CONCURRENCY: 32 by default (or the floor when higher), never below the floor', () => {
    const defaults = loadConfig({});
    assert.equal(defaults.deliveryConcurrency, 64);
    assert.equal(defaults.deliveryPerHostConcurrency, 4);
    assert.equal(defaults.deliveryPerHostMaxConcurrency, 32);
    assert.equal(loadConfig({ DELIVERY_PER_HOST_CONCURRENCY: '48' }).deliveryPerHostMaxConcurrency, 48);
    const fixed = loadConfig({ DELIVERY_PER_HOST_CONCURRENCY: '2', DELIVERY_PER_HOST_MAX_CONCURRENCY: '2' });
    assert.equal(fixed.deliveryPerHostMaxConcurrency, 2);
    assert.throws(
      () => loadConfig({ DELIVERY_PER_HOST_CONCURRENCY: '8', DELIVERY_PER_HOST_MAX_CONCURRENCY: '4' }),
      /DELIVERY_PER_HOST_MAX_CONCURRENCY="4" must be a whole number from 8 to 1024/,
    );
  });

  test('RETURN_WAIT_FOR_NOTIFICATION: 5 s by default, 0 disables, at most 60 s', () => {
    assert.equal(loadConfig({}).returnWaitForNotificationMs, 5000);
    assert.equal(loadConfig({ RETURN_WAIT_FOR_NOTIFICATION: '0' }).returnWaitForNotificationMs, 0);
    assert.equal(loadConfig({ RETURN_WAIT_FOR_NOTIFICATION: '750ms' }).returnWaitForNotificationMs, 750);
    assert.throws(() => loadConfig({ RETURN_WAIT_FOR_NOTIFICATION: '2m' }), /RETURN_WAIT_FOR_NOTIFICATION/);
    assert.throws(() => loadConfig({ RETURN_WAIT_FOR_NOTIFICATION: 'soon' }), /RETURN_WAIT_FOR_NOTIFICATION/);
  });

  test('DELIVERY_WORKER: on by default; false only with PostgreSQL, where `deliver` runs beside', () => {
    assert.equal(loadConfig({}).deliveryWorker, true);
    assert.equal(
      loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/gw', DELIVERY_WORKER: 'false' }).deliveryWorker,
      false,
    );
    assert.throws(() => loadConfig({ DELIVERY_WORKER: 'false' }), /DELIVERY_WORKER=false needs PostgreSQL/);
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/gw', DELIVERY_WORKER: 'off' }),
      /DELIVERY_WORKER="off" must be true or false/,
    );
  });

  test('OUTBOUND_PUBLIC_ONLY: off by default; on, the sandbox policy reaches public addresses only', () => {
    assert.equal(loadConfig({}).outboundPublicOnly, false);
    assert.equal(loadConfig({ OUTBOUND_PUBLIC_ONLY: 'true' }).outboundPublicOnly, true);
    assert.throws(() => loadConfig({ OUTBOUND_PUBLIC_ONLY: 'yes please' }), /OUTBOUND_PUBLIC_ONLY/);
  });

  test('every bad key is named in one error', () => {
    assert.throws(
      () => loadConfig({ PORT: 'x', LOG_LEVEL: 'loud', GATEWAY_SECRET_KEY: 'short' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems.length === 3 &&
        /PORT/.test(error.message) &&
        /LOG_LEVEL/.test(error.message) &&
        /GATEWAY_SECRET_KEY/.test(error.message),
    );
  });
});

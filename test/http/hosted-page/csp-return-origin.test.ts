// The hosted page's Content-Security-Policy lists the return URLs' origins in form-action
// (docs/hosted-page.md). Initiation refuses a host that is not a DNS name or an IP literal; a
// payment stored before it did must not put its host into the header either.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentSecurityPolicy, originOf } from '../../../src/http/hosted-page/security.ts';

test('a return URL whose host is not a DNS name or an IP literal stays out of form-action', () => {
  assert.equal(originOf('https://a,script-src/x'), undefined);
  assert.equal(originOf('https://*/x'), undefined);
  const csp = contentSecurityPolicy('n0nce', [originOf('https://a,script-src/x'), originOf('https://*/x')]);
  assert.ok(!csp.includes(','), csp);
  assert.match(csp, /form-action 'self';/);
});

test('DNS names and IP literals are listed by their origin', () => {
  assert.equal(originOf('https://shop.example:8443/r?x=1'), 'https://shop.example:8443');
  assert.equal(originOf('http://[::1]:3000/r'), 'http://[::1]:3000');
  assert.equal(originOf('http://127.0.0.1/r'), 'http://127.0.0.1');
  assert.match(
    contentSecurityPolicy('n', [originOf('https://shop.example/r')]),
    /form-action 'self' https:\/\/shop\.example;/,
  );
});

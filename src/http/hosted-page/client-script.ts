// The hosted page's only script, inlined under the response's CSP nonce. It is an
// enhancement: without JavaScript the page still shows everything, the forms still post,
// and a reload shows the result. With it: a live countdown, polling of the page's own
// status route, and the way back to the merchant once the payment is final.
//
// Plain ES2017 in a string (it runs in the customer's browser, not in Node); the values it
// needs come from data-* attributes, so no server value is ever spliced into the code.
export const PAGE_SCRIPT = `
(function () {
  'use strict';
  var root = document.getElementById('payment');
  if (!root) return;
  var statusUrl = root.getAttribute('data-status-url');
  var deadline = Date.now() + Number(root.getAttribute('data-remaining-ms'));
  var pollMs = Number(root.getAttribute('data-poll-ms')) || 3000;
  var stopPollingAt = Date.now() + 60 * 60 * 1000; // a forgotten tab stops asking after an hour
  var countdown = document.getElementById('countdown');
  var timer = document.getElementById('timer');
  var live = document.getElementById('live-status');
  var finished = false;

  function two(n) { return (n < 10 ? '0' : '') + n; }
  function remainingText(ms) {
    var total = Math.max(0, Math.ceil(ms / 1000));
    var h = Math.floor(total / 3600), m = Math.floor((total % 3600) / 60), s = total % 60;
    return h > 0 ? h + ':' + two(m) + ':' + two(s) : m + ':' + two(s);
  }

  function tick() {
    if (finished || !countdown) return;
    var left = deadline - Date.now();
    countdown.textContent = remainingText(left);
    if (left <= 0) {
      timer.className = 'timer expired';
      countdown.textContent = root.getAttribute('data-expired-text');
      poll();
      return;
    }
    setTimeout(tick, (left % 1000 || 1000) + 20); // just after the shown second changes
  }

  function finish(state) {
    finished = true;
    var buttons = document.querySelectorAll('.sandbox button');
    for (var i = 0; i < buttons.length; i++) buttons[i].disabled = true;
    if (!state.returnUrl) { window.location.reload(); return; }
    live.textContent = '';
    var text = document.createElement('span');
    text.textContent = root.getAttribute('data-redirecting-text') + ' ';
    var link = document.createElement('a');
    link.href = state.returnUrl;
    link.textContent = root.getAttribute('data-return-text');
    live.appendChild(text);
    live.appendChild(link);
    setTimeout(function () { window.location.assign(state.returnUrl); }, 2500);
  }

  var polling = false;
  function poll() {
    if (finished || polling || !statusUrl) return;
    polling = true;
    fetch(statusUrl, { cache: 'no-store', credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (s) { if (s && s.state && s.state !== 'PROCESSING') finish(s); })
      .catch(function () { /* offline for a moment: the next poll retries */ })
      .then(function () {
        polling = false;
        if (!finished && Date.now() < stopPollingAt) setTimeout(poll, pollMs);
      });
  }

  var forms = document.querySelectorAll('form[data-once]');
  for (var f = 0; f < forms.length; f++) {
    forms[f].addEventListener('submit', function () {
      // Buttons only: disabled inputs would be left out of the posted form.
      // Deferred so the submission already under way is not affected.
      setTimeout(function () {
        var all = document.querySelectorAll('.sandbox button');
        for (var b = 0; b < all.length; b++) all[b].disabled = true;
      }, 0);
    });
  }

  tick();
  setTimeout(poll, pollMs);
})();
`;

// The hosted page's stylesheet, inlined in a <style nonce> (no extra request, allowed by the
// CSP by its nonce). Mobile-first: one column from 320 px, two columns from 820 px.
// Colours meet WCAG AA contrast (body text #1f2937 on white ≈ 14:1, muted #4b5563 ≈ 7.5:1,
// white on the primary #1d4ed8 ≈ 6.7:1); focus is always visible.
export const PAGE_CSS =
  `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:#eef2f7;color:#1f2937;` +
  `font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans Thai","Noto Sans","Sarabun","Loma",sans-serif}
a{color:#1d4ed8}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:8px 12px;z-index:2}
.skip:focus{left:8px;top:8px}
.wrap{max-width:440px;margin:0 auto;padding:12px 12px 24px}
.top{display:flex;align-items:center;justify-content:space-between;gap:8px;margin:4px 2px 12px}
.brand{display:flex;align-items:center;gap:8px;font-weight:600;color:#0b2545;font-size:.95rem}
.brand-mark{display:inline-grid;place-items:center;width:28px;height:28px;border-radius:8px;background:#0b2545;` +
  `color:#fff;font-size:.8rem;font-weight:700}
.lang a{display:inline-block;padding:6px 12px;border:1px solid #94a3b8;border-radius:999px;background:#fff;` +
  `color:#1f2937;text-decoration:none;font-size:.9rem;min-height:36px}
.lang a:hover{border-color:#1d4ed8;color:#1d4ed8}
.card{background:#fff;border-radius:16px;box-shadow:0 1px 3px rgba(15,23,42,.12),0 8px 24px rgba(15,23,42,.06);` +
  `overflow:hidden}
.summary{padding:20px 20px 16px;border-bottom:1px solid #e5e7eb}
.label{margin:0;color:#4b5563;font-size:.875rem}
.merchant{margin:2px 0 12px;font-size:1.25rem;font-weight:700;color:#0b2545;overflow-wrap:anywhere}
.amount{margin:0;font-size:2.25rem;font-weight:800;letter-spacing:-.01em;color:#0b2545;` +
  `font-variant-numeric:tabular-nums}
.desc{margin:4px 0 0;color:#4b5563;overflow-wrap:anywhere}
.qr-panel{padding:20px;text-align:center}
.qr-panel h2{margin:0 0 4px;font-size:1.05rem}
.hint{margin:0 auto 14px;color:#4b5563;font-size:.9rem;max-width:32ch}
.qr-frame{display:inline-block;border:1px solid #cbd5e1;border-radius:12px;overflow:hidden;background:#fff}
.qr-head{background:#0b2545;color:#fff;font-weight:700;letter-spacing:.08em;font-size:.8rem;padding:8px 12px}
.qr{width:232px;height:232px;padding:8px}
.qr svg{display:block;width:100%;height:100%}
.timer{display:flex;align-items:center;justify-content:center;gap:8px;margin:14px 0 0;font-size:.95rem;color:#1f2937}
.timer strong{font-variant-numeric:tabular-nums;font-size:1.1rem;color:#0b2545}
.timer.expired strong{color:#b91c1c}
.deadline{display:block;color:#4b5563;font-size:.8rem}
.details{padding:4px 20px 16px}
.details h2{font-size:1rem;margin:12px 0 8px}
dl{margin:0;display:grid;grid-template-columns:auto 1fr;gap:8px 16px}
dt{color:#4b5563;font-size:.9rem}
dd{margin:0;text-align:right;font-weight:600;overflow-wrap:anywhere}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-weight:600}
.status{margin:0 20px 16px;padding:12px 14px;border-radius:10px;background:#eff6ff;color:#1e3a8a;font-size:.95rem}
.status:empty{display:none}
.sandbox{margin:0 20px 20px;padding:14px;border:2px dashed #d97706;border-radius:12px;background:#fffbeb}
.sandbox h2{margin:0;font-size:.95rem;color:#92400e}
.sandbox p{margin:2px 0 12px;color:#78350f;font-size:.875rem}
.actions{display:grid;gap:10px}
.customer-actions{margin:0 20px 20px}
.actions form{margin:0}
.btn{display:block;width:100%;min-height:48px;padding:12px 16px;border-radius:10px;border:2px solid transparent;` +
  `font:inherit;font-weight:700;text-align:center;text-decoration:none;cursor:pointer}
.btn-primary{background:#1d4ed8;color:#fff}
.btn-primary:hover{background:#1e40af}
.btn-secondary{background:#fff;color:#1f2937;border-color:#94a3b8}
.btn-secondary:hover{border-color:#1f2937}
.btn[disabled]{opacity:.6;cursor:wait}
.result{padding:28px 20px 24px;text-align:center}
.result-icon{display:inline-grid;place-items:center;width:64px;height:64px;border-radius:50%;font-size:2rem;` +
  `font-weight:800;color:#fff;margin-bottom:8px}
.result-icon.ok{background:#15803d}
.result-icon.fail{background:#b91c1c}
.result h1{margin:4px 0;font-size:1.4rem;color:#0b2545}
.result p{margin:4px 0 16px;color:#374151}
.result dl{text-align:left;margin:16px 0 20px}
.message{padding:28px 20px;text-align:center}
.message h1{font-size:1.3rem;margin:0 0 8px;color:#0b2545}
.message p{color:#374151;margin:0 0 8px}
.footer{margin:14px 4px 0;text-align:center;color:#4b5563;font-size:.8rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (min-width:820px){
  .wrap{max-width:880px;padding-top:32px}
  .pay{display:grid;grid-template-columns:minmax(0,1fr) 380px}
  .pay .summary{grid-column:1/-1;display:flex;justify-content:space-between;align-items:flex-end;gap:16px;` +
  `padding:24px 28px}
  .pay .amount{font-size:2.5rem}
  .pay .qr-panel{grid-column:1;grid-row:2/span 4;border-right:1px solid #e5e7eb;padding:28px}
  .pay .qr{width:272px;height:272px}
  .pay .details,.pay .status,.pay .sandbox,.pay .customer-actions{grid-column:2}
  .pay .details{padding:8px 28px 16px}
  .pay .status{margin:0 28px 16px}
  .pay .sandbox,.pay .customer-actions{margin:0 28px 28px}
  .narrow{max-width:520px;margin:0 auto}
}
.test-banner{margin:0 0 12px;padding:8px 12px;border:2px dashed #d97706;border-radius:10px;background:#fffbeb;` +
  `color:#78350f;font-weight:700;text-align:center;font-size:.9rem}
.save-qr{max-width:240px;margin:14px auto 0}
.same-device{margin:8px auto 0}
@media (prefers-reduced-motion:no-preference){.btn{transition:background-color .15s,border-color .15s}}
`;

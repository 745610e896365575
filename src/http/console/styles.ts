// The console's stylesheet, inlined in a <style nonce> like the hosted page's. Forms stack on a
// phone; up to 640 px wide every headed table is a list of cards (table-cards.ts labels the cells:
// each value after its column's name, the `key` columns first), so nothing needs sideways
// scrolling from 360 px up (docs/console.md, "On a phone"); wider screens get rows.
// Contrast meets WCAG AA (text #1f2937 on white, white on #1d4ed8); focus is always visible.
const FONTS = 'system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans Thai","Noto Sans","Sarabun","Loma",sans-serif';

// The value takes what the label leaves (a fixed layout: a long value wraps, never widens the card).
const PHONE_CARDS =
  `
@media (max-width:640px){
.scroll{overflow-x:visible}
table.cards,table.cards tbody{display:block}
table.cards thead{display:none}
table.cards tr{display:flex;flex-direction:column;border:1px solid #e5e7eb;border-radius:10px;` +
  `padding:4px 0;margin:0 0 10px}
table.cards td{display:table;table-layout:fixed;width:100%;border:0;padding:3px 10px;text-align:left;` +
  `white-space:normal;overflow-wrap:anywhere}
table.cards td[data-label]::before{content:attr(data-label);display:table-cell;width:38%;padding-right:10px;` +
  `color:#4b5563;font:600 .8rem/1.6 ${FONTS};overflow-wrap:normal}
table.cards td.key{order:-1;font-weight:600}
table.cards td:empty{display:none}
}
`;

export const CONSOLE_CSS =
  `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:#eef2f7;color:#1f2937;` +
  `font:15px/1.5 ${FONTS}}
a{color:#1d4ed8}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
header{background:#0b2545;color:#fff}
.bar{max-width:1200px;margin:0 auto;padding:8px 12px;display:flex;flex-wrap:wrap;align-items:center;gap:8px 16px}
.brand{font-weight:700;color:#fff;text-decoration:none;margin-right:auto}
nav.main{display:flex;flex-wrap:wrap;gap:4px}
nav.main a{color:#dbeafe;text-decoration:none;padding:6px 10px;border-radius:8px;min-height:36px;display:inline-block}
nav.main a[aria-current=page]{background:#1d4ed8;color:#fff}
.who{font-size:.85rem;color:#cbd5e1}
.inline{display:inline}
.linkish{background:none;border:1px solid #94a3b8;color:#fff;border-radius:8px;padding:5px 10px;font:inherit;` +
  `cursor:pointer;min-height:36px}
.lang{color:#fff;font-size:.9rem}
main{max-width:1200px;margin:0 auto;padding:12px}
h1{font-size:1.35rem;margin:8px 0 12px;color:#0b2545;overflow-wrap:anywhere}
h2{font-size:1.05rem;margin:18px 0 8px;color:#0b2545}
.card{background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(15,23,42,.12);padding:12px 14px;margin:0 0 12px}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #e5e7eb;vertical-align:top}
th{color:#4b5563;font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.mono,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem;overflow-wrap:anywhere}
dl.kv{display:grid;grid-template-columns:minmax(110px,max-content) 1fr;gap:4px 14px;margin:0}
dl.kv dt{color:#4b5563}
dl.kv dd{margin:0;overflow-wrap:anywhere}
form.filters{display:grid;grid-template-columns:1fr;gap:8px}
@media (min-width:720px){form.filters{grid-template-columns:repeat(3,1fr)}form.filters .wide{grid-column:span 3}}
label{display:block;font-size:.85rem;color:#374151}
input,select{display:block;width:100%;font:inherit;padding:8px 10px;border:1px solid #94a3b8;border-radius:8px;` +
  `background:#fff;min-height:40px}
button,.button{display:inline-block;font:inherit;font-weight:600;padding:8px 14px;border-radius:8px;` +
  `border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;cursor:pointer;min-height:40px;text-decoration:none}
button.secondary,.button.secondary{background:#fff;color:#1d4ed8}
button.danger{background:#b91c1c;border-color:#b91c1c}
.actions{display:flex;flex-wrap:wrap;gap:6px;align-items:flex-end}
.pill{display:inline-block;padding:1px 8px;border-radius:999px;font-size:.8rem;font-weight:600;white-space:nowrap}
.s-SUCCESS,.s-delivered,.s-active{background:#dcfce7;color:#166534}
.s-FAILED,.s-failed,.s-disabled{background:#fee2e2;color:#991b1b}
.s-PROCESSING,.s-pending{background:#fef3c7;color:#92400e}
.s-refunded,.s-partially-refunded{background:#e0e7ff;color:#3730a3}
.notice{border-left:4px solid #1d4ed8;background:#eff6ff;padding:10px 12px;border-radius:8px;margin:0 0 12px}
.notice.error{border-color:#b91c1c;background:#fef2f2}
.secret{font-family:ui-monospace,Menlo,Consolas,monospace;background:#0b2545;color:#fff;padding:8px 10px;` +
  `border-radius:8px;overflow-wrap:anywhere;user-select:all}
.muted{color:#4b5563}
.login{max-width:420px;margin:24px auto}
.login form{display:grid;gap:10px}
fieldset{border:1px solid #cbd5e1;border-radius:8px;padding:8px 10px;margin:0}
fieldset label{display:inline-flex;align-items:center;gap:6px;margin-right:14px;font-size:.95rem}
fieldset input{width:auto;min-height:0;display:inline}
.pager{display:flex;gap:12px;margin:10px 0}
.tabs{margin:0 0 10px}
` +
  PHONE_CARDS;

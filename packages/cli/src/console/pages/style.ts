/**
 * The console's one stylesheet, served as `/assets/console.css` (assets.ts): the CSP allows
 * no inline style. System fonts, a light theme, visible focus rings, contrast of at least
 * 4.5:1 for text.
 */
export const STYLESHEET = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f6f7f9}
a{color:#0b57d0}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,main:focus-visible{outline:3px solid #f29900;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px 8px;z-index:1}
header{display:flex;flex-wrap:wrap;align-items:center;gap:4px 24px;padding:8px 24px;background:#1b2733;color:#fff}
.brand{margin:0;font-weight:700}
nav ul{display:flex;gap:4px;list-style:none;margin:0;padding:0}
nav a{display:block;padding:6px 12px;color:#dfe6ee;text-decoration:none;border-radius:4px}
nav a:hover{background:#2c3e50}
nav a[aria-current=page]{background:#fff;color:#1b2733;font-weight:600}
.badge{margin:0 0 0 auto;padding:2px 10px;border-radius:12px;background:#fde68a;color:#3f2d00;font-size:13px}
main{max-width:1180px;margin:0 auto;padding:8px 24px 48px}
h1{font-size:24px;margin:16px 0}
h2{font-size:18px;margin:28px 0 8px}
section{margin-bottom:8px}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #d5d9de}
th,td{text-align:left;padding:6px 10px;border-bottom:1px solid #e4e7eb;vertical-align:top}
th{background:#eef1f4;font-weight:600}
th[scope=row]{background:#fff}
caption{text-align:left;padding:4px 0}
td pre.json{margin:0;max-height:160px}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
pre.json{background:#fff;border:1px solid #d5d9de;padding:10px;overflow:auto;max-height:360px;font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(140px,1fr));gap:10px;padding:0;margin:0;list-style:none}
.cards li{background:#fff;border:1px solid #d5d9de;border-radius:6px;padding:10px 12px}
.cards .n{display:block;font-size:26px;font-weight:700;font-variant-numeric:tabular-nums}
.cards a{text-decoration:none;color:inherit}
.status{display:inline-block;padding:0 8px;border-radius:10px;font-size:12px;font-weight:600;letter-spacing:.02em;background:#e4e7eb;color:#1b1f24}
.status-succeeded,.status-enabled{background:#d3f2dc;color:#0d4d22}
.status-dead{background:#fbd5d5;color:#7a1010}
.status-running{background:#d6e4ff;color:#0b3a8c}
.status-queued,.status-pending,.status-scheduled,.status-waiting{background:#fff0c2;color:#5a4300}
.status-cancelled,.status-disabled{background:#e4e7eb;color:#39424c}
.status-suspended{background:#e6dcfa;color:#3f1f7a}
.status-paused{background:#fde2c8;color:#6b3200}
.muted{color:#5c6670}
form.filters{display:flex;flex-wrap:wrap;gap:10px 16px;align-items:flex-end;background:#fff;border:1px solid #d5d9de;padding:12px;margin-bottom:12px}
form.filters label,form.inline label{display:flex;flex-direction:column;font-size:13px;font-weight:600;gap:2px}
input,select,button{font:inherit;padding:5px 8px;border:1px solid #8a949e;border-radius:4px;background:#fff;color:inherit}
button{cursor:pointer;background:#0b57d0;border-color:#0b57d0;color:#fff;font-weight:600}
button.secondary{background:#fff;color:#0b57d0}
button.danger{background:#b3261e;border-color:#b3261e}
.actions{display:flex;flex-wrap:wrap;gap:16px;align-items:center;margin:12px 0}
form.inline{display:inline-flex;gap:8px;align-items:flex-end;margin:0}
.notice{background:#fff;border-left:4px solid #0b57d0;padding:10px 14px;margin:12px 0}
.notice.error{border-color:#b3261e}
.confirm{background:#fff;border:1px solid #d5d9de;border-left:4px solid #b3261e;padding:12px 16px}
ol.timeline{list-style:none;padding:0;margin:0;border-left:2px solid #c4cad0}
ol.timeline li{position:relative;padding:4px 0 10px 16px}
ol.timeline li::before{content:"";position:absolute;left:-6px;top:10px;width:10px;height:10px;border-radius:50%;background:#1b2733}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;background:#fff;border:1px solid #d5d9de;padding:12px;margin:0}
dl.facts dt{font-weight:600}dl.facts dd{margin:0}
.pager{display:flex;gap:16px;margin:12px 0}
progress{width:200px}
.help{flex-basis:100%;margin:0}
form.filters .search{display:flex;gap:10px 16px;flex-basis:100%;align-items:flex-end}
form.filters .search input{min-width:320px}
form.filters .field{display:flex;flex-direction:column;font-size:13px;font-weight:600;gap:2px}
a.button{display:inline-block;padding:6px 14px;border-radius:4px;background:#0b57d0;color:#fff;font-weight:600;text-decoration:none;border:1px solid #0b57d0}
a.button.secondary{background:#fff;color:#0b57d0}
a.button:hover{background:#0842a0;color:#fff}
.pager{align-items:center}
.danger-link{color:#b3261e}
.row-actions{white-space:nowrap}.row-actions a{margin-right:12px}
.small{font-size:13px;font-weight:400}
ul.firings{list-style:none;margin:0;padding:0;font-size:13px}
ul.firings.paused{text-decoration:line-through;color:#5c6670}
.clock{display:flex;gap:12px;align-items:center;margin-left:auto}
.clock button{padding:2px 10px;font-size:13px}
.live-state{margin:0;font-size:13px;color:#dfe6ee}
.live-state::before{content:"● ";color:#81c995}
.live-state[data-state=problem]::before{color:#f28b82}
.notice.stale{border-color:#f29900}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(520px,1fr));gap:12px}
figure.chart{margin:0;background:#fff;border:1px solid #d5d9de;padding:8px 10px;min-width:0}
figure.chart figcaption{font-weight:600;margin-bottom:4px}
figure.chart figcaption .muted{font-weight:400;font-size:13px}
[data-chart]{min-height:220px}
table.summary{margin-top:8px}
ol.timeline li.tone-start::before{background:#0b57d0}
ol.timeline li.tone-ok::before{background:#1e8e3e}
ol.timeline li.tone-fail::before{background:#b3261e}
ol.timeline li.tone-wait::before{background:#f29900}
ol.timeline li.tone-operator::before{background:#5e35b1}
`;

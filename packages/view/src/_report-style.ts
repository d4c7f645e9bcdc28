// The report's one stylesheet, inlined: the file opens with no network.

export const STATUS_COLORS: Record<string, string> = {
  exited: '#2e9e4f',
  failed: '#e08a1e',
  'killed-timeout': '#d33c3c',
  'killed-stuck': '#b8336a',
  'killed-stop': '#7b5cc4',
  'refused-stop': '#a08bd6',
  'killed-signal': '#8c2f2f',
  'killed-external': '#5a1f1f',
  'failed-start': '#9a6b6b',
  running: '#2f6fd6',
  lost: '#8a8a8a',
};

export const REPORT_CSS = `${Object.entries(STATUS_COLORS)
  .map(([status, color]) => `.bar[data-status=${status}]{background-color:${color}}`)
  .join('')}
:root{--lbl:19rem;--fg:#1d232b;--mute:#5d6876;--line:#d9dee5;--bg:#fff;--band:#f5f7fa}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header{padding:16px 24px;border-bottom:1px solid var(--line);background:var(--band)}
h1{margin:0 0 4px;font-size:20px}h2{font-size:17px;margin:28px 0 10px}h3{font-size:15px;margin:16px 0 6px}
main{padding:0 24px 40px}
.meta{color:var(--mute);margin:0}
nav a{margin-right:14px;color:#2f6fd6;text-decoration:none}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin-top:14px}
.card{border:1px solid var(--line);border-radius:6px;padding:8px 12px;min-width:9rem;background:#fff}
.card b{display:block;font-size:18px}
.legend{display:flex;flex-wrap:wrap;gap:12px;margin:6px 0 10px;color:var(--mute);font-size:12px}
.sw{display:inline-block;width:12px;height:12px;border-radius:2px;vertical-align:-2px;margin-right:4px}
.tl{border:1px solid var(--line);border-radius:6px;overflow-x:auto}
.tlin{position:relative}
.axis .lbl,.row .lbl{position:sticky;left:0;z-index:4}.sub>span,details.grp>summary>span{position:sticky;left:8px;\
display:inline-block;z-index:4}
.axis .lbl{background:var(--band)}.row .lbl{background:#fff}
.axis{display:grid;grid-template-columns:var(--lbl) 1fr;border-bottom:1px solid var(--line);background:var(--band);\
font-size:11px;color:var(--mute)}
.axis .ticks{position:relative;height:20px;margin-right:14px}
.axis .ticks span{position:absolute;top:3px;transform:translateX(-50%);white-space:nowrap}
.axis .ticks span:first-child{transform:none}.axis .ticks span:last-child{transform:translateX(-100%)}
details.grp{border-top:1px solid var(--line)}
details.grp>summary{cursor:pointer;padding:4px 8px;font-weight:600;background:var(--band);list-style-position:inside}
.sub{padding:2px 8px 2px 18px;font-size:12px;color:var(--mute);border-top:1px dashed var(--line);overflow:hidden;\
white-space:nowrap;text-overflow:ellipsis}
.row{display:grid;grid-template-columns:var(--lbl) 1fr;min-height:18px}
.row .lbl{padding:1px 8px 1px 30px;font-size:12px;color:var(--mute);white-space:nowrap;overflow:hidden;\
text-overflow:ellipsis}
.trk{position:relative;border-left:1px solid var(--line);margin-right:14px}
.bar{position:absolute;height:16px;min-width:2px;border-radius:3px;color:#fff;font-size:11px;line-height:16px;\
padding:0 4px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}
.bar.rev{outline:2px dashed #e08a1e;outline-offset:-1px}
.bar[data-status=running]{background-image:repeating-linear-gradient(45deg,\
transparent 0 4px,rgba(255,255,255,.35) 4px 8px)}
.vm{position:absolute;width:14px;height:14px;transform:translateX(-50%);border-radius:50%;color:#fff;font-size:10px;\
font-weight:700;line-height:14px;text-align:center;z-index:2}
.vm-key{color:#fff;font-size:9px;font-weight:700;line-height:12px;text-align:center;border-radius:50%}
.v-PASS{background:#2e9e4f}.v-REJECT{background:#e08a1e}.v-ERROR{background:#d33c3c}.v-flaky{background:#7b5cc4}
.ov{position:absolute;top:0;bottom:0;left:var(--lbl);right:14px;pointer-events:none}
.ln{position:absolute;top:0;bottom:0;width:0;border-left:2px solid #d33c3c;z-index:3}
.ln.stop{border-left:2px dashed #7b5cc4}
.ln span{position:absolute;top:22px;left:3px;font-size:11px;background:rgba(255,255,255,.9);padding:0 3px;\
white-space:nowrap;color:#8c2f2f}
.ln.stop span{color:#5a3fa0}
table{border-collapse:collapse;width:100%;font-size:13px;margin:6px 0}
th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:var(--band);font-weight:600}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.t{white-space:nowrap;color:var(--mute)}
.reason{white-space:pre-wrap;overflow-wrap:anywhere;max-width:60rem}
.badge{display:inline-block;padding:0 6px;border-radius:9px;font-size:12px;font-weight:600;color:#fff}
.r1{background:#2e9e4f}.r0{background:#e0a21e}.r-1{background:#d33c3c}.rn{background:#9aa3ad}
.waves{display:flex;gap:16px;overflow-x:auto;padding:6px 0}
.wave{min-width:14rem;flex:0 0 auto}
.wave>h4{margin:0 0 6px;font-size:12px;color:var(--mute);text-transform:uppercase;letter-spacing:.04em}
.ball{border:1px solid var(--line);border-left:4px solid #9aa3ad;border-radius:6px;padding:6px 8px;margin-bottom:8px;\
background:#fff;max-width:22rem}
.ball.b1{border-left-color:#2e9e4f}.ball.b0{border-left-color:#e0a21e}.ball.b-1{border-left-color:#d33c3c}
.ball .id{font-weight:600;overflow-wrap:anywhere}
.ball .rounds pre{white-space:pre-wrap;overflow-wrap:anywhere;max-height:12em;overflow:auto;margin:2px 0;\
background:#f6f7f9}.ball .round-detail{margin-top:4px}
.ball .small{font-size:12px;color:var(--mute);overflow-wrap:anywhere}
.chip{display:inline-block;font-size:11px;border:1px solid var(--line);border-radius:4px;padding:0 4px;\
margin:2px 2px 0 0}
svg.prog{width:100%;max-width:760px;height:140px;border:1px solid var(--line);border-radius:6px;background:#fff}
.empty{color:var(--mute);font-style:italic}
#live{display:inline-block;margin-left:12px;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;\
color:#1f6b38;background:#e3f4e8;vertical-align:3px}
#live i{display:inline-block;width:8px;height:8px;border-radius:50%;background:#2e9e4f;margin-right:5px}
html[data-live=off] #live{color:#8c2f2f;background:#f8e3e3}html[data-live=off] #live i{background:#d33c3c}
.warn{color:#8c2f2f}
`;

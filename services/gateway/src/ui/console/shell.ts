/**
 * The operator page's shell: static markup with no data in it. Everything it shows is fetched by
 * /admin/app.js (console/index.ts) from /api/admin/* with the key the operator types (or none, from loopback when no
 * ADMIN_API_KEY is set). So the shell can be served to anyone, and the CSP can forbid inline script.
 */
export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>kbchat console</title>
<link rel="stylesheet" href="/admin/app.css">
<script src="/admin/app.js" defer></script>
</head>
<body>
<header class="top">
  <h1>kbchat console</h1>
  <form id="auth" class="auth" autocomplete="off">
    <label for="auth-key">Admin API key</label>
    <input id="auth-key" type="password" autocomplete="off" spellcheck="false" placeholder="not needed on loopback">
    <button type="submit">Use key</button>
    <button type="button" id="auth-forget">Forget key</button>
  </form>
</header>
<div id="notice" class="notice" role="status" aria-live="polite"></div>
<div id="alert" class="alert" role="alert"></div>
<main id="main">
  <noscript><p>This page needs JavaScript.</p></noscript>
</main>
</body>
</html>
`;

export const CONSOLE_CSS = `
:root{color-scheme:light;--a:#1f4fd1;--b:#d0d7de;--m:#57606a}
*{box-sizing:border-box}
body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f6f8fa}
.top{display:flex;flex-wrap:wrap;align-items:center;gap:16px;padding:12px 24px;background:#fff;border-bottom:1px solid var(--b)}
h1{font-size:18px;margin:0;flex:1}
h2{font-size:17px;margin:0 0 12px}
h3{font-size:15px;margin:0 0 8px}
.auth{display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.auth input{width:260px}
main{max-width:1200px;margin:0 auto;padding:16px 24px 48px;display:grid;gap:16px}
section,.card{background:#fff;border:1px solid var(--b);border-radius:8px;padding:16px;min-width:0}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:16px}
label{display:block;font-weight:600;margin:8px 0 2px}
input,select,textarea{font:inherit;padding:6px 8px;border:1px solid #8c959f;border-radius:6px;width:100%;background:#fff}
textarea{min-height:60px}
button{font:inherit;padding:6px 12px;border:1px solid var(--b);border-radius:6px;background:#f6f8fa;cursor:pointer}
button.primary{background:var(--a);border-color:var(--a);color:#fff;font-weight:600}
button.danger{color:#b42318;border-color:#e5a3a3}
button:disabled{opacity:.6;cursor:default}
.row{display:flex;gap:8px;flex-wrap:wrap;align-items:center;margin-top:10px}
table{border-collapse:collapse;width:100%;font-size:13px}
caption{text-align:left;font-weight:600;padding:4px 0}
th,td{border-bottom:1px solid #eaeef2;padding:6px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f6f8fa;font-weight:600;overflow-wrap:normal;white-space:nowrap}
tr.sel td{background:#eef4ff}
.scroll{overflow-x:auto}
code,.mono{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f8fa;border:1px solid var(--b);border-radius:6px;padding:8px;margin:6px 0}
.muted{color:var(--m)}
.notice{max-width:1200px;margin:8px auto 0;padding:0 24px;color:#1a7f37}
.alert{max-width:1200px;margin:8px auto 0;padding:0 24px;color:#b42318;font-weight:600}
.secret{border:2px solid #bf8700;background:#fff8c5;border-radius:8px;padding:12px}
progress{width:100%;height:18px}
dl.counters{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:4px 16px;margin:8px 0}
dl.counters div{display:flex;justify-content:space-between;gap:8px;border-bottom:1px dotted #d0d7de}
dt{color:var(--m)}
dd{margin:0;font-variant-numeric:tabular-nums;font-weight:600}
.status-completed,.status-delivered{color:#1a7f37;font-weight:600}
.status-failed,.status-rejected,.status-error{color:#b42318;font-weight:600}
:focus-visible{outline:3px solid var(--a);outline-offset:2px}
.stack{display:grid;gap:16px;min-width:0}
.split{display:grid;grid-template-columns:minmax(0,2fr) minmax(280px,1fr);gap:16px;align-items:start}
@media (max-width:900px){.split{grid-template-columns:1fr}}
.client{display:grid;gap:16px}
.tabs{display:flex;flex-wrap:wrap;gap:4px;border-bottom:1px solid var(--b)}
.tabs [role=tab]{border:1px solid transparent;border-bottom:0;border-radius:6px 6px 0 0;background:transparent;padding:8px 14px}
.tabs [role=tab][aria-selected=true]{background:#fff;border-color:var(--b);font-weight:600;margin-bottom:-1px}
[role=tabpanel]{min-width:0}
button.link{border:0;background:none;padding:0;color:var(--a);text-decoration:underline;text-align:left}
.row.tight{margin-top:0;gap:4px;flex-wrap:nowrap}
td .row.tight{flex-wrap:wrap}
.words{display:inline-block;min-width:9em;overflow-wrap:break-word}
td button,.nowrap{white-space:nowrap;overflow-wrap:normal}
.filters{display:flex;flex-wrap:wrap;gap:8px 12px;align-items:flex-end;margin-bottom:8px}
.filters>div{min-width:140px}
.filters .row{margin-top:0}
fieldset{border:1px solid var(--b);border-radius:6px;margin:10px 0 0;padding:4px 10px 10px}
legend{font-weight:600;padding:0 4px}
textarea.tall{min-height:140px}
.swatch{display:inline-block;width:14px;height:14px;border-radius:3px;border:1px solid #8c959f;vertical-align:middle}
.sched{display:flex;gap:4px;flex-wrap:wrap;min-width:220px}
.sched select,.sched input{width:auto}
.sched input{width:110px}
.clip{display:-webkit-box;-webkit-line-clamp:3;-webkit-box-orient:vertical;overflow:hidden}
ul.plain{margin:0;padding-left:1.1em}
.job{border-top:1px solid #eaeef2;padding-top:8px;margin-top:8px}
.job:first-child{border-top:0;margin-top:0;padding-top:0}
.transcript{list-style:none;margin:0;padding:0;display:grid;gap:8px}
.msg{border:1px solid #eaeef2;border-radius:8px;padding:8px 12px;max-width:85%}
.msg.user{justify-self:end;background:#eef4ff}
.msg p{margin:0}
.msg .who{font-size:12px;color:var(--m)}
.msg .content{white-space:pre-wrap}
.msg .src{font-size:12.5px;margin-top:6px}
.msg .src ol{margin:2px 0 0;padding-left:20px}
.feedback{font-weight:600;margin-top:4px!important}
.feedback-up{color:#1a7f37}
.feedback-down{color:#b42318}
.chart-box{margin:0;min-width:0}
.chart-box figcaption{font-weight:600;margin-bottom:4px}
svg.chart{width:100%;height:auto;display:block}
svg.chart .grid{stroke:#eaeef2}
svg.chart .tick{font-size:10px;fill:var(--m)}
.legend{list-style:none;display:flex;gap:12px;padding:0;margin:4px 0;font-size:12.5px}
.dot{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;

/**
 * The operator page's shell: static markup with no data in it. Everything it shows is fetched by
 * /admin/app.js from /api/admin/* with the key the operator types (or none, from loopback when no
 * ADMIN_API_KEY is set). So the shell can be served to anyone, and the CSP can forbid inline script.
 */
export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>kbchat admin</title>
<link rel="stylesheet" href="/admin/app.css">
<script src="/admin/app.js" defer></script>
</head>
<body>
<header class="top">
  <h1>kbchat admin</h1>
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
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;

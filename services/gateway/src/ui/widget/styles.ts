/** The widget's only stylesheet, adopted by its shadow root (docs/widget.md, "Style isolation"). */
export const STYLES = `
:host{all:initial!important;position:fixed!important;top:0!important;left:0!important;width:0!important;height:0!important;display:block!important;z-index:2147483000!important}
*{box-sizing:border-box}
.w{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1f2328;-webkit-font-smoothing:antialiased}
button,input,textarea{font:inherit;color:inherit;margin:0}
.launcher{position:fixed;right:20px;bottom:20px;width:56px;height:56px;border:0;border-radius:50%;padding:0;cursor:pointer;background:var(--a);color:var(--on);box-shadow:0 4px 14px rgba(0,0,0,.25);display:flex;align-items:center;justify-content:center}
.launcher svg{width:26px;height:26px;fill:currentColor}
button:focus-visible,a:focus-visible,input:focus-visible,textarea:focus-visible{outline:3px solid var(--a);outline-offset:2px}
.panel{position:fixed;right:20px;bottom:88px;width:380px;height:min(600px,calc(100vh - 108px));display:flex;flex-direction:column;background:#fff;border-radius:14px;box-shadow:0 10px 40px rgba(0,0,0,.25);overflow:hidden}
.panel[hidden]{display:none}
header{display:flex;align-items:center;gap:8px;padding:12px 12px 12px 16px;background:var(--a);color:var(--on)}
h2{flex:1;margin:0;font-size:16px;font-weight:600;line-height:1.3}
.x{border:0;background:transparent;cursor:pointer;width:32px;height:32px;border-radius:6px;font-size:22px;line-height:1;color:inherit}
.log{flex:1;overflow-y:auto;padding:14px;display:flex;flex-direction:column;gap:10px;background:#f6f7f9}
.m{max-width:85%;padding:8px 12px;border-radius:12px;white-space:pre-wrap;overflow-wrap:anywhere}
.bot{align-self:flex-start;background:#fff;border:1px solid #e3e6ea}
.user{align-self:flex-end;background:var(--a);color:var(--on)}
.m pre{margin:6px 0;padding:6px 8px;background:#f6f8fa;border:1px solid #e3e6ea;border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere;font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.err{color:#b42318}
.typing::after{content:"…";letter-spacing:2px}
.src{margin:8px 0 0;padding:8px 0 0;border-top:1px solid #e3e6ea;font-size:13px;white-space:normal}
.src p{margin:0;font-weight:600}
.src ol{margin:4px 0 0;padding-left:22px}
a{color:#0b57d0}
.lead{align-self:stretch;background:#fff;border:1px solid #e3e6ea;border-radius:12px;padding:12px;display:flex;flex-direction:column;gap:8px}
.lead p{margin:0}
label{display:block;font-size:13px;font-weight:600;margin-bottom:2px}
input,textarea{width:100%;border:1px solid #8c959f;border-radius:8px;padding:7px 9px;background:#fff}
input[aria-invalid=true]{border-color:#b42318}
.fe{font-size:12.5px;margin:2px 0 0}
.fe:empty{display:none}
.ok{font-weight:600}
.send-lead,.send{border:0;border-radius:8px;padding:8px 14px;cursor:pointer;background:var(--a);color:var(--on);font-weight:600}
.composer{display:flex;gap:8px;padding:10px;border-top:1px solid #e3e6ea;background:#fff}
.composer textarea{resize:none;height:40px;max-height:120px}
.left .launcher,.left .panel{right:auto;left:20px}
.starters{display:flex;flex-direction:column;align-items:flex-start;gap:6px}
.starters button{border:1px solid var(--a);border-radius:16px;padding:5px 12px;background:#fff;cursor:pointer;text-align:left}
.fb{display:flex;gap:6px;margin:8px 0 0}
.fb button{width:32px;height:28px;border:1px solid #d0d7de;border-radius:6px;background:#fff;cursor:pointer;display:inline-flex;align-items:center;justify-content:center;padding:0}
.fb svg{width:16px;height:16px;fill:currentColor}
.fb button[aria-pressed=true]{background:var(--a);border-color:var(--a);color:var(--on)}
button:disabled{opacity:.55;cursor:default}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:480px){.panel{inset:0;width:auto;height:auto;border-radius:0}.launcher[aria-expanded=true]{display:none}}
@media (prefers-reduced-motion:no-preference){.panel{animation:kbin .15s ease-out}@keyframes kbin{from{opacity:0;transform:translateY(8px)}}}
`;

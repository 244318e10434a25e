/**
 * The report page's style sheet, inlined as one `<style>` block (its SHA-256 is in the page's
 * Content-Security-Policy). Plain CSS: light and dark colour schemes, one column, tables that
 * scroll on their own.
 */
export const PAGE_STYLE = `
:root { color-scheme: light dark; --bg: #fff; --fg: #1d2430; --muted: #5c6673; --line: #d9dee5; --panel: #f5f7fa; --ok: #1a7f37; --bad: #c62828; --warn: #9a6700; --bar: #4f7cc8; }
@media (prefers-color-scheme: dark) { :root { --bg: #14171c; --fg: #e4e8ee; --muted: #98a2ae; --line: #323842; --panel: #1c2027; --ok: #4ac26b; --bad: #ff7b72; --warn: #d29922; --bar: #6d9be6; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 16px 20px 48px; }
h1 { font-size: 22px; margin: 8px 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 17px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 14px; margin: 14px 0 6px; }
.muted { color: var(--muted); }
.note { color: var(--muted); font-size: 13px; margin: 4px 0 8px; }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; overflow-wrap: anywhere; }
.verdict { display: inline-block; padding: 2px 10px; border-radius: 12px; font-weight: 600; color: #fff; }
.verdict.ok { background: var(--ok); } .verdict.bad { background: var(--bad); } .verdict.warn { background: var(--warn); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: anywhere; }
th { font-weight: 600; white-space: nowrap; }
th.sortable { cursor: pointer; user-select: none; }
th.sortable[aria-sort="ascending"]::after { content: " ▲"; } th.sortable[aria-sort="descending"]::after { content: " ▼"; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.scroll { max-height: 420px; overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
.scroll table th { position: sticky; top: 0; background: var(--panel); }
tr.selected td { background: var(--panel); }
tbody tr.clickable { cursor: pointer; }
input[type=search] { width: 100%; max-width: 420px; padding: 5px 8px; margin: 4px 0 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); font: inherit; }
pre.doc { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; max-height: 480px; overflow: auto; margin: 8px 0; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: 12px 24px; }
.chart { margin: 4px 0 8px; }
.chart .row { display: grid; grid-template-columns: minmax(48px, max-content) 1fr minmax(48px, max-content); gap: 8px; align-items: center; font-size: 12.5px; }
.chart .label { color: var(--muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 180px; }
.chart .track { background: var(--panel); height: 12px; border-radius: 2px; }
.chart .fill { background: var(--bar); height: 12px; border-radius: 2px; min-width: 1px; }
.chart .value { text-align: right; font-variant-numeric: tabular-nums; }
#graph-wrap { display: grid; grid-template-columns: 1fr 320px; gap: 12px; }
@media (max-width: 900px) { #graph-wrap { grid-template-columns: 1fr; } }
#graph { height: 560px; border: 1px solid var(--line); border-radius: 6px; position: relative; background: var(--bg); }
#node-details { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; max-height: 560px; overflow: auto; }
#node-details ul { margin: 4px 0; padding-left: 18px; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12.5px; margin: 6px 0; }
.legend .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 5px; vertical-align: -1px; }
.issues td.code { white-space: nowrap; }
.sev-error { color: var(--bad); } .sev-warning { color: var(--warn); }
`;

(() => {
"use strict";
const rows = JSON.parse(document.getElementById("rows").textContent);
const list = document.getElementById("list");
const PAGE = Number(list.dataset.page);
const shown = document.getElementById("shown");
const pageLabel = document.getElementById("page");
const prev = document.getElementById("prev");
const next = document.getElementById("next");
const fields = ["status", "runner", "tag", "variant", "q"];
const control = (name) => document.getElementById("f-" + name);
const opened = new Map();
const count = (n) => n.toLocaleString("en-US");
for (const r of rows) {
  r.k = [r.n, r.t.join(" "), r.x].join(" ").toLowerCase();
}
const fragment = () => {
  try {
    return decodeURIComponent(location.hash.slice(1));
  } catch {
    return location.hash.slice(1);
  }
};
const state = () => {
  const params = new URLSearchParams(fragment().startsWith("exec:") ? "" : location.hash.slice(1));
  const s = { page: Math.max(1, parseInt(params.get("page"), 10) || 1) };
  for (const f of fields) s[f] = params.get(f) || "";
  return s;
};
const matches = (r, s) =>
  (!s.status || r.s === s.status) &&
  (!s.runner || r.r === s.runner) &&
  (!s.tag || r.t.includes(s.tag)) &&
  (!s.variant || r.v === s.variant) &&
  (!s.q || r.k.includes(s.q.toLowerCase()));
const span = (cls, text) => {
  const el = document.createElement("span");
  el.className = cls;
  el.textContent = text;
  return el;
};
const fill = (el) => {
  if (el.dataset.filled) return;
  const source = document.getElementById("detail-" + el.dataset.i);
  if (!source) return;
  el.insertAdjacentHTML("beforeend", source.textContent);
  source.remove();
  el.dataset.filled = "1";
};
const item = (r) => {
  if (opened.has(r.i)) return opened.get(r.i);
  const el = document.createElement("details");
  el.className = "row";
  el.dataset.i = r.i;
  el.dataset.status = r.s;
  const summary = document.createElement("summary");
  summary.append(span("badge s-" + r.s, r.s), " ");
  if (r.f) summary.append(span("badge s-skipped", "flaky"), " ");
  summary.append(span("name", r.n));
  if (r.t.length) summary.append(" ", span("tags", r.t.join(", ")));
  summary.append(" ", span("at", r.d));
  if (r.x) summary.append(span("why", r.x));
  el.append(summary);
  opened.set(r.i, el);
  return el;
};
const draw = (s) => {
  const hits = rows.filter((r) => matches(r, s));
  const pages = Math.max(1, Math.ceil(hits.length / PAGE));
  const page = Math.min(s.page, pages);
  const start = (page - 1) * PAGE;
  const slice = hits.slice(start, start + PAGE);
  const all = rows.length <= PAGE;
  list.replaceChildren(...slice.map(item));
  if (all) {
    for (const el of list.children) {
      fill(el);
      el.open = true;
    }
  }
  const of = hits.length < rows.length ? " (of " + count(rows.length) + ")" : "";
  shown.textContent = hits.length
    ? "Executions " + count(start + 1) + "\u2013" + count(start + slice.length) + " of " +
      count(hits.length) + of + ", failures first."
    : "No execution matches" + of + ".";
  pageLabel.textContent = "page " + page + " of " + pages;
  prev.disabled = page <= 1;
  next.disabled = page >= pages;
  for (const f of fields) {
    const c = control(f);
    if (c) c.value = s[f];
  }
  return page;
};
const go = (s) => {
  const params = new URLSearchParams();
  for (const f of fields) if (s[f]) params.set(f, s[f]);
  if (s.page > 1) params.set("page", s.page);
  location.replace("#" + params.toString());
};
const reveal = (anchor) => {
  const at = rows.findIndex((r) => anchor === r.a || anchor.startsWith(r.a + ":"));
  if (at < 0) return draw(state());
  const s = { page: Math.floor(at / PAGE) + 1 };
  for (const f of fields) s[f] = "";
  draw(s);
  const el = item(rows[at]);
  fill(el);
  el.open = true;
  const target = document.getElementById(anchor) || el;
  if (target.tagName === "DETAILS") target.open = true;
  target.scrollIntoView();
};
const route = () => {
  const hash = fragment();
  if (hash.startsWith("exec:")) reveal(hash);
  else draw(state());
};
list.addEventListener("toggle", (event) => {
  if (event.target.classList.contains("row") && event.target.open) fill(event.target);
}, true);
for (const f of fields) {
  const c = control(f);
  if (c) c.addEventListener(f === "q" ? "input" : "change", () => {
    const s = state();
    s[f] = c.value;
    s.page = 1;
    go(s);
  });
}
prev.addEventListener("click", () => { const s = state(); s.page = draw(s) - 1; go(s); });
next.addEventListener("click", () => { const s = state(); s.page = draw(s) + 1; go(s); });
document.addEventListener("click", (event) => {
  const button = event.target.closest("button.more");
  if (!button) return;
  const source = document.getElementById(button.dataset.more);
  const into = document.getElementById(button.dataset.into);
  if (source && into) {
    into.insertAdjacentHTML("beforeend", source.textContent);
    source.remove();
  }
  button.remove();
});
window.addEventListener("hashchange", route);
route();
})();

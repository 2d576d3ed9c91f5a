// Dashboards: JSON from /api/analytics/*, drawn as inline SVG (no chart library, no CDN).
(() => {
  "use strict";
  const root = document.getElementById("dashboard");
  const page = root.dataset.page, mine = root.dataset.mine === "true";
  const cards = document.getElementById("cards"), panels = document.getElementById("panels");
  const status = document.getElementById("dash-status");
  const NS = "http://www.w3.org/2000/svg";
  const el = (tag, attrs = {}, text) => {
    const node = tag === "svg" || ["rect", "text", "polyline", "line", "g"].includes(tag)
      ? document.createElementNS(NS, tag) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const usd = (s) => `$${Number(s).toFixed(Number(s) < 1 ? 4 : 2)}`;
  const pct = (x) => `${Math.round(Number(x) * 100)}%`;

  function card(label, value, note) {
    const c = el("div", { class: "card" });
    c.append(el("div", { class: "card-label" }, label), el("div", { class: "card-value" }, value));
    if (note) c.append(el("div", { class: "card-note" }, note));
    cards.append(c);
  }
  function panel(title, note, wide = false) {
    const p = el("div", { class: wide ? "panel wide" : "panel" });
    p.append(el("h2", {}, title));
    if (note) p.append(el("p", { class: "card-note" }, note));
    panels.append(p);
    return p;
  }
  function bars(parent, items, label, value, fmt = (v) => v) {
    const max = Math.max(1e-12, ...items.map((i) => Number(value(i))));
    const rowH = 22, w = 520, h = Math.max(rowH, items.length * rowH);
    const svg = el("svg", { viewBox: `0 0 ${w} ${h}`, class: "chart", role: "img" });
    items.forEach((item, i) => {
      const y = i * rowH, barW = (Number(value(item)) / max) * (w - 260);
      svg.append(el("text", { x: 0, y: y + 15, class: "axis" }, String(label(item)).slice(0, 28)));
      svg.append(el("rect", { x: 180, y: y + 4, width: Math.max(1, barW), height: rowH - 8, class: "bar" }));
      svg.append(el("text", { x: 186 + barW, y: y + 15, class: "value" }, fmt(value(item))));
    });
    parent.append(items.length ? svg : el("p", { class: "empty" }, "Nothing in this range."));
  }
  function line(parent, series, value = (p) => p.cost_usd, top = (max) => `max ${usd(max)}/day`) {
    const w = 520, h = 160, pad = 24;
    const values = series.map((p) => Number(value(p))), max = Math.max(1e-12, ...values);
    const svg = el("svg", { viewBox: `0 0 ${w} ${h}`, class: "chart", role: "img" });
    const x = (i) => pad + (i * (w - 2 * pad)) / Math.max(1, series.length - 1);
    const y = (v) => h - pad - (v / max) * (h - 2 * pad);
    svg.append(el("line", { x1: pad, y1: h - pad, x2: w - pad, y2: h - pad, class: "axis-line" }));
    svg.append(el("polyline", { points: values.map((v, i) => `${x(i)},${y(v)}`).join(" "), class: "line" }));
    svg.append(el("text", { x: pad, y: h - 6, class: "axis" }, series.length ? series[0].day : ""));
    svg.append(el("text", { x: w - pad - 70, y: h - 6, class: "axis" }, series.length ? series[series.length - 1].day : ""));
    svg.append(el("text", { x: pad, y: 14, class: "axis" }, top(max)));
    parent.append(svg);
  }
  function table(parent, rows, columns) {
    const t = el("table", { class: "grid" }), head = el("tr");
    columns.forEach(([title]) => head.append(el("th", {}, title)));
    t.append(head);
    rows.forEach((r) => {
      const tr = el("tr");
      columns.forEach(([, get]) => tr.append(el("td", {}, String(get(r) ?? ""))));
      t.append(tr);
    });
    parent.append(rows.length ? t : el("p", { class: "empty" }, "Nothing in this range."));
  }

  async function get(path) {
    const form = new FormData(document.getElementById("range"));
    const q = new URLSearchParams();
    for (const [k, v] of form) if (v) q.set(k, v);
    if (mine) q.set("mine", "true");
    const res = await fetch(`/api/analytics/${path}${path.includes("?") ? "&" : "?"}${q}`, { credentials: "same-origin" });
    if (!res.ok) throw new Error((await res.json()).detail || `HTTP ${res.status}`);
    return res.json();
  }

  async function showCost() {
    const d = await get("cost");
    card("Total spend", usd(d.total_usd), `${d.calls} calls`);
    card("Savings", usd(d.baseline.savings_usd), `vs ${d.baseline.model} (${usd(d.baseline.cost_usd)})`);
    card("Cache hit rate", `${Math.round(d.cache.hit_rate * 100)}%`, `${d.cache.cache_read_tokens} of ${d.cache.prompt_tokens} prompt tokens`);
    card("Served from memory", String(d.memory.served_from_memory), `of ${d.memory.turns} turns, no model call`);
    line(panel("Spend over time"), d.series);
    bars(panel("Cost by model"), d.by_model, (m) => m.model, (m) => m.cost_usd, usd);
  }
  async function showActivity() {
    const d = await get("activity");
    bars(panel("Routing: the slot that chose the model"), d.routing, (r) => r.slot, (r) => r.calls);
    table(panel("Models"), d.models, [["model", (m) => m.model], ["calls", (m) => m.calls], ["errors", (m) => m.errors],
      ["p50 ms", (m) => m.p50_ms], ["p95 ms", (m) => m.p95_ms]]);
    table(panel("Recent failures"), d.recent_failures, [["when", (f) => f.created_at.slice(0, 19)], ["model", (f) => f.model],
      ["status", (f) => f.status], ["error", (f) => (f.error || "").slice(0, 80)]]);
    table(panel("Recent sessions"), d.recent_sessions, [["title", (s) => s.title || "Untitled"], ["owner", (s) => s.owner],
      ["updated", (s) => s.updated_at.slice(0, 19)]]);
  }
  async function showSpend() {
    for (const group of ["team", "user", "key"]) {
      const d = await get(`spend?group_by=${group}`);
      bars(panel(`Spend by ${group}`), d.rows.slice(0, 15), (r) => r.name, (r) => r.cost_usd, usd);
    }
  }
  async function showMemory() {
    const d = await get("memory"), t = d.totals, lifetime = gettext("since each plan was remembered");
    card(gettext("Served from memory"), pct(t.hit_rate),
      interpolate(gettext("%(served)s of %(turns)s turns"), { served: t.served_from_memory, turns: t.turns }, true));
    card(gettext("Model calls avoided"), String(t.calls_avoided), lifetime);
    card(gettext("Time saved"), interpolate(gettext("%s s"), [t.seconds_saved]), lifetime);
    card(gettext("Money saved"), usd(t.usd_saved), lifetime);
    line(panel(gettext("Served from memory, per day")), d.series, (p) => p.hit_rate,
      (max) => interpolate(gettext("max %s of the day's turns"), [pct(max)]));
    bars(panel(gettext("Turns by layer")), d.by_layer, (r) => r.layer, (r) => r.count,
      (n) => `${n} (${pct(d.totals.turns ? n / d.totals.turns : 0)})`);
    const columns = [[gettext("layer"), (e) => e.layer], [gettext("request"), (e) => e.masked_request.slice(0, 80)],
      [gettext("source"), (e) => e.source], [gettext("hits"), (e) => e.uses], [gettext("failures"), (e) => e.failures],
      [gettext("feedback"), (e) => `+${e.feedback_up} / −${e.feedback_down}`],
      [gettext("saved"), (e) => `${e.saved_s} s, ${usd(e.saved_usd)}`], [gettext("trial"), (e) => e.trial || "—"],
      [gettext("bound"), (e) => (e.min_cosine === null ? gettext("floor") : e.min_cosine.toFixed(3))]];
    table(panel(gettext("Plans that saved the most"), lifetime, true), d.top_entries, columns);
    table(panel(gettext("Plans that failed the most"), gettext("failures and thumbs down, then the lowest success rate"), true),
      d.worst_entries, [...columns.slice(0, 5),
        [gettext("success rate"), (e) => (e.success_rate === null ? "—" : pct(e.success_rate))], ...columns.slice(5)]);
    const share = (cell) => (cell.count ? `${cell.count} (${pct(cell.share)})` : "");
    table(panel(gettext("Turns per day by layer"), "", true), d.series.filter((day) => day.turns),
      [[gettext("day"), (day) => day.day], [gettext("turns"), (day) => day.turns],
        ...d.layers.map((layer) => [layer, (day) => share(day.layers[layer])])]);
  }
  async function render() {
    cards.replaceChildren(); panels.replaceChildren(); status.textContent = "Loading…";
    try {
      await ({ cost: showCost, activity: showActivity, spend: showSpend, memory: showMemory }[page])();
      status.textContent = "";
    } catch (e) { status.textContent = `Could not load: ${e.message}`; }
  }
  document.getElementById("range").addEventListener("submit", (ev) => { ev.preventDefault(); render(); });
  render();
})();

// The chat page: sessions list, turn history from the REST API, live turns over the websocket.
(() => {
  "use strict";
  const app = document.getElementById("app");
  const csrf = document.querySelector("input[name=csrfmiddlewaretoken]").value;
  const sessionId = app.dataset.sessionId;
  const $ = (id) => document.getElementById(id);
  const turnsEl = $("turns"), statusEl = $("status"), input = $("message");
  const sendBtn = $("send"), cancelBtn = $("cancel");
  const bubbles = new Map(); // turn_id -> assistant bubble element
  let ws = null, retry = 0, runningTurn = null, pendingUser = null;
  let workspaces = [], sessionWorkspace = null, attached = [], uploading = false;

  const api = async (method, path, body) => {
    const res = await fetch(`/api${path}`, {
      method, credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status}`);
    return res.json();
  };
  const setStatus = (text) => { statusEl.textContent = text || ""; };

  function bubble(role, text, extraClass) {
    const li = document.createElement("li");
    li.className = `msg ${role}${extraClass ? " " + extraClass : ""}`;
    const body = document.createElement("div");
    body.className = "body";
    body.textContent = text || "";
    li.appendChild(body);
    turnsEl.appendChild(li);
    turnsEl.scrollTop = turnsEl.scrollHeight;
    return li;
  }
  function stepList(el) {
    let list = el.querySelector(".steps");
    if (!list) {
      list = document.createElement("ol");
      list.className = "steps";
      el.insertBefore(list, el.querySelector(".body"));
    }
    return list;
  }
  function showStep(el, step) {
    const list = stepList(el);
    let item = list.querySelector(`[data-index="${step.index}"]`);
    if (!item) {
      item = document.createElement("li");
      item.dataset.index = step.index;
      list.appendChild(item);
    }
    item.className = `step ${step.status}`;
    item.textContent = `${step.tool} — ${step.status}${step.error_class ? ` (${step.error_class})` : ""}`;
  }
  // The route the turn took ("answered directly", "used tools: read_files", "from memory"), in
  // small muted text right under the answer.
  function setRoute(el, label) {
    let route = el.querySelector(".route");
    if (!label) { if (route) route.remove(); return; }
    if (!route) {
      route = document.createElement("div");
      route.className = "route";
      el.querySelector(".body").after(route);
    }
    route.textContent = label;
  }
  function setMeta(el, t) {
    setRoute(el, t.route_label);
    let meta = el.querySelector(".meta");
    if (!meta) { meta = document.createElement("div"); meta.className = "meta"; el.appendChild(meta); }
    const usage = t.usage || {};
    const parts = [t.final_kind, t.layer, t.route && t.route.winner, `${usage.output_tokens || 0} tokens out`,
      `${t.latency_ms} ms`, `$${t.cost_usd}`];
    meta.textContent = parts.filter(Boolean).join(" · ");
    if (t.final_kind === "error") el.classList.add("error");
    if (t.final_kind !== "awaiting") feedbackBar(el, t.id || t.turn_id, t.feedback || "");
  }
  // 👍 / 👎 / "wrong plan" under each answer. A 👎 on an answer served from memory stops that
  // plan from being served again; a success with no feedback counts as a weak positive.
  // Words as well as the thumbs: a system without an emoji font still shows what each button means.
  const FEEDBACK = [["up", "👍 good", "Good answer"], ["down", "👎 bad", "Bad answer"], ["wrong_plan", "wrong plan", "The plan was wrong"]];
  function feedbackBar(el, turnId, chosen) {
    if (!turnId || el.querySelector(".feedback")) return;
    const bar = document.createElement("div");
    bar.className = "feedback";
    for (const [value, label, title] of FEEDBACK) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.title = title;
      b.dataset.value = value;
      if (value === chosen) b.classList.add("chosen");
      b.addEventListener("click", () => {
        if (!ws || ws.readyState !== WebSocket.OPEN) return;
        ws.send(JSON.stringify({ type: "feedback", turn_id: turnId, value }));
        bar.querySelectorAll("button").forEach((x) => x.classList.toggle("chosen", x === b));
      });
      bar.appendChild(b);
    }
    el.appendChild(bar);
  }
  // A step that writes, runs a command or goes online waits for the user: allow, deny, or allow
  // that tool for the rest of the session. The turn holds no worker meanwhile; after a reload the
  // dialog comes back from the turn's `pending`.
  const DECISIONS = [["allow", "Allow"], ["deny", "Deny"], ["always", "Always allow in this session"]];
  function approvalBox(el, req) {
    if (!req || !req.request_id || el.querySelector(".approval")) return;
    const box = document.createElement("div");
    box.className = "approval";
    box.dataset.requestId = req.request_id;
    const title = document.createElement("div");
    title.className = "approval-title";
    title.textContent = `Step ${req.step || "?"} wants to run ${req.tool}:`;
    const args = document.createElement("pre");
    args.className = "approval-args";
    args.textContent = JSON.stringify(req.args || {}, null, 2);
    box.append(title, args);
    for (const [decision, label] of DECISIONS) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.dataset.decision = decision;
      b.addEventListener("click", () => {
        if (!ws || ws.readyState !== WebSocket.OPEN) return;
        ws.send(JSON.stringify({ type: "approve", request_id: req.request_id, decision }));
        box.querySelectorAll("button").forEach((x) => { x.disabled = true; });
        b.classList.add("chosen");
      });
      box.appendChild(b);
    }
    el.appendChild(box);
    turnsEl.scrollTop = turnsEl.scrollHeight;
  }

  function renderTurn(t) {
    const user = t.messages.find((m) => m.role === "user");
    const reply = t.messages.find((m) => m.role === "assistant");
    if (user) bubble("user", user.text);
    const el = bubble("assistant", reply ? reply.text : (t.status === "completed" ? t.error : "…"));
    bubbles.set(t.id, el);
    (t.steps || []).forEach((step) => showStep(el, step));
    if (t.status === "completed") setMeta(el, t); else runningTurn = t.id;
    const p = t.pending || {};
    if (t.status === "completed" && t.final_kind === "awaiting" && p.kind === "approval" && !p.decision) {
      approvalBox(el, p);
      setStatus("A step is waiting for your approval.");
    }
  }

  // The agent's task list (todo_update), beside the chat; plan mode shows as a "plan>" prefix.
  function renderTodos(items) {
    const list = $("todo-list");
    list.replaceChildren();
    for (const item of items || []) {
      const li = document.createElement("li");
      li.className = item.status;
      li.textContent = item.text;
      list.appendChild(li);
    }
    $("todo-empty").hidden = (items || []).length > 0;
  }
  function showMode(s) {
    $("mode-badge").hidden = !s.plan_mode;
    input.placeholder = s.plan_mode ? "Plan mode: ask for a plan (/done to leave)" : "Ask something… (Enter to send, Shift+Enter for a new line)";
  }

  async function loadSessions() {
    const list = $("session-list");
    const q = $("session-search").value.trim();
    list.replaceChildren();
    for (const s of await api("GET", `/sessions${q ? `?q=${encodeURIComponent(q)}` : ""}`)) {
      const li = document.createElement("li"), a = document.createElement("a");
      a.href = `/s/${s.id}/`;
      a.textContent = s.title || "Untitled";
      if (s.id === sessionId) { a.className = "active"; renderTodos(s.todos); showMode(s); sessionWorkspace = s.workspace_id; }
      li.appendChild(a);
      list.appendChild(li);
    }
  }
  async function loadTurns() {
    turnsEl.replaceChildren();
    bubbles.clear();
    runningTurn = null;
    for (const t of await api("GET", `/sessions/${sessionId}/turns`)) renderTurn(t);
    setBusy(runningTurn !== null);
  }
  function setBusy(busy) {
    sendBtn.disabled = busy || !ws || ws.readyState !== WebSocket.OPEN;
    cancelBtn.hidden = !busy;
    input.disabled = !ws || ws.readyState !== WebSocket.OPEN;
  }

  function onFrame(frame) {
    switch (frame.type) {
      case "turn.started": {
        runningTurn = frame.turn_id;
        if (!pendingUser) bubble("user", "(sent from another tab)");
        pendingUser = null;
        bubbles.set(frame.turn_id, bubble("assistant", ""));
        setStatus("Thinking…");
        setBusy(true);
        break;
      }
      case "delta": {
        const el = bubbles.get(frame.turn_id);
        if (el) { el.querySelector(".body").textContent += frame.text; turnsEl.scrollTop = turnsEl.scrollHeight; }
        setStatus("Answering…");
        break;
      }
      case "step": {
        const el = bubbles.get(frame.turn_id);
        if (el) showStep(el, frame);
        setStatus(`Step ${frame.index}: ${frame.tool} ${frame.status}…`);
        break;
      }
      case "turn.completed": {
        const el = bubbles.get(frame.turn_id) || bubble("assistant", "");
        el.querySelector(".body").textContent = frame.text || frame.error || "";
        setMeta(el, frame);
        if (runningTurn === frame.turn_id) runningTurn = null;
        setStatus(frame.final_kind === "error" ? "The turn ended with an error." : "");
        setBusy(false);
        loadSessions();
        MetnosFiles.refresh(); // the turn may have written files
        break;
      }
      case "approval.request": {
        const el = bubbles.get(frame.turn_id) || bubble("assistant", "");
        approvalBox(el, frame);
        setStatus("A step is waiting for your approval.");
        break;
      }
      case "turn.resumed": {
        const el = bubbles.get(frame.turn_id);
        if (el) {
          const box = el.querySelector(".approval");
          if (box) box.remove();
          el.querySelector(".body").textContent = "";
          for (const sel of [".route", ".meta", ".feedback"]) { const x = el.querySelector(sel); if (x) x.remove(); }
        }
        runningTurn = frame.turn_id;
        setStatus(frame.decision === "deny" ? "Denied; finishing the turn…" : "Approved; running…");
        setBusy(true);
        break;
      }
      case "todos":
        renderTodos(frame.items);
        break;
      case "command.result": {
        if (pendingUser) pendingUser = null;
        if (["/plan", "/done", "/yolo"].includes(frame.command)) loadSessions();
        bubble("assistant", frame.text, "command");
        setBusy(runningTurn !== null);
        break;
      }
      case "error":
        setStatus(`Error: ${frame.message}`);
        if (pendingUser) { pendingUser.classList.add("error"); pendingUser = null; setBusy(runningTurn !== null); }
        break;
    }
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    ws = new WebSocket(`${scheme}://${location.host}/ws/sessions/${sessionId}/`);
    ws.onopen = () => { retry = 0; setStatus(""); loadTurns().catch((e) => setStatus(e.message)); };
    ws.onmessage = (ev) => onFrame(JSON.parse(ev.data));
    ws.onclose = () => {
      setBusy(runningTurn !== null);
      const delay = Math.min(10000, 500 * 2 ** retry++);
      setStatus(`Disconnected; reconnecting in ${Math.round(delay / 1000)} s…`);
      setTimeout(connect, delay);
    };
  }

  $("session-search").addEventListener("input", () => { loadSessions().catch((e) => setStatus(e.message)); });
  if (sessionId) {
    $("session-actions").hidden = false;
    $("export-session").href = `/api/sessions/${sessionId}/export?format=md`;
    $("rename-session").addEventListener("click", async () => {
      const title = prompt("New title for this session:");
      if (title && title.trim()) {
        try { await api("PATCH", `/sessions/${sessionId}`, { title: title.trim() }); await loadSessions(); }
        catch (e) { setStatus(e.message); }
      }
    });
    $("delete-session").addEventListener("click", async () => {
      if (!confirm("Delete this session, its turns and traces?")) return;
      const res = await fetch(`/api/sessions/${sessionId}`, { method: "DELETE", credentials: "same-origin",
        headers: { "X-CSRFToken": csrf } });
      if (res.status === 204) location.href = "/"; else setStatus(`Could not delete: HTTP ${res.status}`);
    });
  }
  // Workspaces: yours and those shared with you (read or write); a new session opens in the chosen one.
  async function loadWorkspaces() {
    const select = $("workspace-select");
    select.replaceChildren();
    workspaces = await api("GET", "/workspaces");
    for (const w of workspaces) {
      const o = document.createElement("option");
      o.value = w.id;
      o.textContent = w.access === "owner" ? w.name : `${w.name} (shared, ${w.access})`;
      select.appendChild(o);
    }
  }
  $("new-session").addEventListener("click", async () => {
    const workspace = $("workspace-select").value;
    const s = await api("POST", "/sessions", workspace ? { workspace_id: workspace } : {});
    location.href = `/s/${s.id}/`;
  });
  // The files panel shows the session's workspace (a session from before workspaces: the
  // default one), or on the start page the one chosen for a new session.
  function showFiles() {
    const id = sessionId ? sessionWorkspace : $("workspace-select").value;
    const w = workspaces.find((x) => x.id === id) || workspaces.find((x) => x.access === "owner" && x.name === "default");
    if (!w) return;
    MetnosFiles.show(w.id).catch((e) => setStatus(e.message));
    $("attach-label").hidden = !sessionId || w.access === "read";
  }
  $("workspace-select").addEventListener("change", () => { if (!sessionId) showFiles(); });

  // Attachments go up over REST first (a websocket frame is capped at 64 KiB), into uploads/;
  // the message then names them, so the turn sees their paths ("summarise this" + a file).
  function renderAttachments() {
    const list = $("attachments");
    list.replaceChildren();
    attached.forEach((file, i) => {
      const li = document.createElement("li"), x = document.createElement("button");
      li.textContent = file.name;
      x.type = "button";
      x.className = "link";
      x.textContent = "×";
      x.title = `Remove ${file.name}`;
      x.addEventListener("click", () => { attached.splice(i, 1); renderAttachments(); });
      li.appendChild(x);
      list.appendChild(li);
    });
    list.hidden = attached.length === 0;
  }
  $("attach").addEventListener("change", (ev) => { attached.push(...ev.target.files); ev.target.value = ""; renderAttachments(); });
  $("composer").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    let text = input.value.trim();
    if ((!text && !attached.length) || uploading || !ws || ws.readyState !== WebSocket.OPEN) return;
    if (attached.length) {
      uploading = sendBtn.disabled = true;
      setStatus(`Uploading ${attached.length} attachment(s)…`);
      try {
        const entries = await MetnosFiles.upload(attached, "uploads");
        text = [text, ...entries.map((e) => `[attached: ${e.path}]`)].filter(Boolean).join("\n");
      } catch (e) {
        setStatus(`Attachment refused: ${e.message}`);
        setBusy(runningTurn !== null);
        return;
      } finally {
        uploading = false;
      }
      attached = [];
      renderAttachments();
      setStatus("");
    }
    pendingUser = bubble("user", text);
    ws.send(JSON.stringify({ type: "message", text }));
    input.value = "";
    setBusy(true);
  });
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); $("composer").requestSubmit(); }
  });
  cancelBtn.addEventListener("click", () => {
    if (runningTurn && ws) ws.send(JSON.stringify({ type: "cancel", turn_id: runningTurn }));
  });

  Promise.all([loadWorkspaces(), loadSessions()]).then(showFiles).catch((e) => setStatus(e.message));
  if (sessionId) connect(); else setStatus("Create a session to start chatting.");
})();

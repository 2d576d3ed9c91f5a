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
  const asked = new Map(); // turn_id -> the user's bubble
  const superseded = new Map(); // a replacing turn's id -> "edit" | "regenerate"
  let ws = null, retry = 0, runningTurn = null, pendingUser = null, lastTurn = null;
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

  // An answer is rendered as Markdown (static/metnos/markdown.js); what the user typed and the
  // commands' replies show as the plain text they are.
  function bubble(role, text, extraClass) {
    const li = document.createElement("li");
    li.className = `msg ${role}${extraClass ? " " + extraClass : ""}`;
    const body = document.createElement("div");
    body.className = "body";
    li.appendChild(body);
    setText(li, text);
    turnsEl.appendChild(li);
    turnsEl.scrollTop = turnsEl.scrollHeight;
    return li;
  }
  function setText(el, text, streaming) {
    const body = el.querySelector(".body");
    if (el.classList.contains("assistant") && !el.classList.contains("command")) {
      MetnosMarkdown.render(body, text || "", { streaming });
    } else {
      body.textContent = text || "";
    }
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
    const parts = [t.final_kind, t.layer, t.route && t.route.winner, interpolate(gettext("%s tokens out"), [usage.output_tokens || 0]),
      `${t.latency_ms} ms`, `$${t.cost_usd}`];
    meta.textContent = parts.filter(Boolean).join(" · ");
    if (t.final_kind === "error") el.classList.add("error");
    if (t.final_kind !== "awaiting") feedbackBar(el, t.id || t.turn_id, t.feedback || "");
    answerTools(el, t.id || t.turn_id);
  }
  // 👍 / 👎 / "wrong plan" under each answer. A 👎 on an answer served from memory stops that
  // plan from being served again; a success with no feedback counts as a weak positive.
  // Words, not emoji: a system without an emoji font would show empty boxes.
  const FEEDBACK = [["up", gettext("Good"), gettext("Good answer")], ["down", gettext("Bad"), gettext("Bad answer")],
    ["wrong_plan", gettext("Wrong plan"), gettext("The plan was wrong")]];
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
  const DECISIONS = [["allow", gettext("Allow")], ["deny", gettext("Deny")], ["always", gettext("Always allow in this session")]];
  function approvalBox(el, req) {
    if (!req || !req.request_id || el.querySelector(".approval")) return;
    const box = document.createElement("div");
    box.className = "approval";
    box.dataset.requestId = req.request_id;
    const title = document.createElement("div");
    title.className = "approval-title";
    title.textContent = interpolate(gettext("Step %(step)s wants to run %(tool)s:"), { step: req.step || "?", tool: req.tool }, true);
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

  // Copy the whole answer; on the session's last turn, ask again (optionally of another model).
  function answerTools(el, turnId) {
    if (!turnId || el.querySelector(".answer-tools")) return;
    const bar = document.createElement("div");
    bar.className = "answer-tools";
    const body = el.querySelector(".body");
    bar.appendChild(MetnosMarkdown.copyButton(gettext("Copy"), () => body.dataset.markdown || body.textContent));
    const again = document.createElement("button");
    again.type = "button";
    again.className = "regenerate";
    again.textContent = gettext("Regenerate");
    again.title = gettext("Plan and answer again (plan memory is skipped; steps ask for approval again)");
    const other = document.createElement("select");
    other.className = "regenerate-model";
    other.setAttribute("aria-label", gettext("Model for the regeneration"));
    other.append(new Option(gettext("same model"), ""), ...MetnosPicker.available().map((name) => new Option(name, name)));
    again.addEventListener("click", () => redo("regenerate", turnId, "", other.value));
    bar.append(again, other);
    el.appendChild(bar);
    markLast();
  }
  // Only the last live turn may be edited or regenerated: the tools show there alone.
  function markLast() {
    const idle = runningTurn === null;
    turnsEl.querySelectorAll(".answer-tools .regenerate, .answer-tools .regenerate-model").forEach((x) => {
      x.hidden = !idle || x.closest(".msg") !== bubbles.get(lastTurn);
    });
    turnsEl.querySelectorAll(".msg.user .edit-btn").forEach((x) => {
      x.hidden = !idle || x.closest(".msg") !== asked.get(lastTurn);
    });
  }
  function redo(kind, turnId, text, model) {
    if (!ws || ws.readyState !== WebSocket.OPEN || runningTurn) return;
    ws.send(JSON.stringify({ type: kind, turn_id: turnId, text, model }));
    setStatus(kind === "edit" ? gettext("Sending the edited message…") : gettext("Asking again…"));
  }
  // The user's message, editable in place while it is the last one.
  function linkUser(el, turnId) {
    asked.set(turnId, el);
    if (el.querySelector(".edit-btn")) return;
    const edit = document.createElement("button");
    edit.type = "button";
    edit.className = "link edit-btn";
    edit.textContent = gettext("Edit");
    edit.title = gettext("Edit this message and send it again (↑ in an empty composer)");
    edit.addEventListener("click", () => startEdit(turnId));
    el.appendChild(edit);
  }
  function startEdit(turnId) {
    const el = asked.get(turnId);
    if (!el || el.classList.contains("editing") || runningTurn) return;
    const body = el.querySelector(".body"), before = body.textContent;
    el.classList.add("editing");
    const area = document.createElement("textarea");
    area.value = before;
    area.rows = Math.min(10, before.split("\n").length + 1);
    area.setAttribute("aria-label", gettext("Edit your message"));
    const actions = document.createElement("div");
    actions.className = "edit-actions";
    const save = document.createElement("button"), cancel = document.createElement("button");
    save.type = cancel.type = "button";
    save.textContent = gettext("Send");
    save.className = "edit-send";
    cancel.textContent = gettext("Cancel");
    cancel.className = "link";
    const stop = () => { area.remove(); actions.remove(); body.hidden = false; el.classList.remove("editing"); };
    cancel.addEventListener("click", stop);
    save.addEventListener("click", () => {
      const text = area.value.trim();
      if (!text || text === before) return;
      stop();
      redo("edit", turnId, text, "");
    });
    area.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); save.click(); }
      if (ev.key === "Escape") { ev.stopPropagation(); stop(); input.focus(); }
    });
    actions.append(cancel, save);
    body.hidden = true;
    el.insertBefore(area, body);
    body.after(actions);
    area.focus();
  }
  function supersede(turnId, kind) {
    const note = kind === "edit" ? gettext("Replaced by an edited message") : gettext("Replaced by a regenerated answer");
    for (const el of [asked.get(turnId), bubbles.get(turnId)]) {
      if (!el) continue;
      el.classList.add("superseded");
      el.dataset.superseded = note;
      el.querySelectorAll(".approval button").forEach((b) => { b.disabled = true; });
    }
  }

  function renderTurn(t) {
    const user = t.messages.find((m) => m.role === "user");
    const reply = t.messages.find((m) => m.role === "assistant");
    if (user) linkUser(bubble("user", user.text), t.id);
    const el = bubble("assistant", reply ? reply.text : (t.status === "completed" ? t.error : "…"));
    bubbles.set(t.id, el);
    if (t.redo) superseded.set(t.id, t.redo.kind);
    if (!t.superseded_by) lastTurn = t.id;
    (t.steps || []).forEach((step) => showStep(el, step));
    if (t.status === "completed") setMeta(el, t); else runningTurn = t.id;
    const p = t.pending || {};
    if (t.status === "completed" && t.final_kind === "awaiting" && p.kind === "approval" && !p.decision) {
      approvalBox(el, p);
      setStatus(gettext("A step is waiting for your approval."));
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
    input.placeholder = s.plan_mode ? gettext("Plan mode: ask for a plan (/done to leave)") : gettext("Ask something… (Enter to send, Shift+Enter for a new line)");
  }

  async function loadSessions() {
    const list = $("session-list");
    const q = $("session-search").value.trim();
    list.replaceChildren();
    for (const s of await api("GET", `/sessions${q ? `?q=${encodeURIComponent(q)}` : ""}`)) {
      const li = document.createElement("li"), a = document.createElement("a");
      a.href = `/s/${s.id}/`;
      a.textContent = s.title || gettext("Untitled");
      if (s.id === sessionId) {
        a.className = "active";
        renderTodos(s.todos);
        showMode(s);
        sessionWorkspace = s.workspace_id;
        MetnosPicker.setPinned(s.sticky_model);
      }
      li.appendChild(a);
      list.appendChild(li);
    }
  }
  async function loadTurns() {
    turnsEl.replaceChildren();
    bubbles.clear();
    asked.clear();
    runningTurn = lastTurn = null;
    const turns = await api("GET", `/sessions/${sessionId}/turns`);
    for (const t of turns) renderTurn(t);
    for (const t of turns) if (t.superseded_by) supersede(t.id, superseded.get(t.superseded_by));
    setBusy(runningTurn !== null);
  }
  function setBusy(busy) {
    sendBtn.disabled = busy || !ws || ws.readyState !== WebSocket.OPEN;
    cancelBtn.hidden = !busy;
    input.disabled = !ws || ws.readyState !== WebSocket.OPEN;
    markLast();
  }

  function onFrame(frame) {
    switch (frame.type) {
      case "turn.started": {
        runningTurn = lastTurn = frame.turn_id;
        if (frame.replaces) {
          superseded.set(frame.turn_id, frame.redo);
          supersede(frame.replaces, frame.redo);
          linkUser(bubble("user", frame.text), frame.turn_id);
        } else {
          linkUser(pendingUser || bubble("user", gettext("(sent from another tab)")), frame.turn_id);
        }
        pendingUser = null;
        bubbles.set(frame.turn_id, bubble("assistant", ""));
        setStatus(gettext("Thinking…"));
        setBusy(true);
        break;
      }
      case "turn.queued": {
        setStatus(interpolate(gettext("Waiting: %(running)s of your turns are running, the most at once; this one starts when one of them ends."), { running: frame.running }, true));
        break;
      }
      case "delta": {
        const el = bubbles.get(frame.turn_id);
        if (el) {
          setText(el, (el.querySelector(".body").dataset.markdown || "") + frame.text, true);
          turnsEl.scrollTop = turnsEl.scrollHeight;
        }
        setStatus(gettext("Answering…"));
        break;
      }
      case "step": {
        const el = bubbles.get(frame.turn_id);
        if (el) showStep(el, frame);
        setStatus(interpolate(gettext("Step %(index)s: %(tool)s %(status)s…"), { index: frame.index, tool: frame.tool, status: frame.status }, true));
        break;
      }
      case "turn.completed": {
        const el = bubbles.get(frame.turn_id) || bubble("assistant", "");
        setText(el, frame.text || frame.error || "");
        if (runningTurn === frame.turn_id) runningTurn = null;
        setMeta(el, frame);
        setStatus(frame.final_kind === "error" ? gettext("The turn ended with an error.") : "");
        setBusy(false);
        loadSessions();
        MetnosFiles.refresh(); // the turn may have written files
        break;
      }
      case "approval.request": {
        const el = bubbles.get(frame.turn_id) || bubble("assistant", "");
        approvalBox(el, frame);
        setStatus(gettext("A step is waiting for your approval."));
        break;
      }
      case "turn.resumed": {
        const el = bubbles.get(frame.turn_id);
        if (el) {
          const box = el.querySelector(".approval");
          if (box) box.remove();
          setText(el, "");
          for (const sel of [".route", ".meta", ".feedback", ".answer-tools"]) { const x = el.querySelector(sel); if (x) x.remove(); }
        }
        runningTurn = frame.turn_id;
        setStatus(frame.decision === "deny" ? gettext("Denied; finishing the turn…") : gettext("Approved; running…"));
        setBusy(true);
        break;
      }
      case "todos":
        renderTodos(frame.items);
        break;
      case "command.result": {
        if (pendingUser) pendingUser = null;
        if (["/plan", "/done", "/yolo", "/model"].includes(frame.command)) loadSessions();
        bubble("assistant", frame.text, "command");
        setBusy(runningTurn !== null);
        break;
      }
      case "error":
        setStatus(interpolate(gettext("Error: %s"), [frame.message]));
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
      setStatus(interpolate(gettext("Disconnected; reconnecting in %s s…"), [Math.round(delay / 1000)]));
      setTimeout(connect, delay);
    };
  }

  $("session-search").addEventListener("input", () => { loadSessions().catch((e) => setStatus(e.message)); });
  if (sessionId) {
    $("session-actions").hidden = false;
    $("export-session").href = `/api/sessions/${sessionId}/export?format=md`;
    $("rename-session").addEventListener("click", async () => {
      const title = prompt(gettext("New title for this session:"));
      if (title && title.trim()) {
        try { await api("PATCH", `/sessions/${sessionId}`, { title: title.trim() }); await loadSessions(); }
        catch (e) { setStatus(e.message); }
      }
    });
    $("delete-session").addEventListener("click", async () => {
      if (!confirm(gettext("Delete this session, its turns and traces?"))) return;
      const res = await fetch(`/api/sessions/${sessionId}`, { method: "DELETE", credentials: "same-origin",
        headers: { "X-CSRFToken": csrf } });
      if (res.status === 204) location.href = "/"; else setStatus(interpolate(gettext("Could not delete: HTTP %s"), [res.status]));
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
      o.textContent = w.access === "owner" ? w.name : interpolate(gettext("%(name)s (shared, %(access)s)"), { name: w.name, access: w.access }, true);
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
      x.title = interpolate(gettext("Remove %s"), [file.name]);
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
      setStatus(interpolate(ngettext("Uploading %s attachment…", "Uploading %s attachments…", attached.length), [attached.length]));
      try {
        const entries = await MetnosFiles.upload(attached, "uploads");
        text = [text, ...entries.map((e) => `[attached: ${e.path}]`)].filter(Boolean).join("\n");
      } catch (e) {
        setStatus(interpolate(gettext("Attachment refused: %s"), [e.message]));
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
    const model = MetnosPicker.takeOnce();
    ws.send(JSON.stringify(model ? { type: "message", text, model } : { type: "message", text }));
    input.value = "";
    setBusy(true);
  });
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); $("composer").requestSubmit(); }
    if (ev.key === "ArrowUp" && !input.value && lastTurn && !runningTurn) { ev.preventDefault(); startEdit(lastTurn); }
  });
  // Esc stops the running turn; Ctrl/Cmd+K starts a new session.
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && runningTurn && ws && !ev.defaultPrevented) ws.send(JSON.stringify({ type: "cancel", turn_id: runningTurn }));
    if (ev.key.toLowerCase() === "k" && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); $("new-session").click(); }
  });
  // The side panels: hidden on a desktop by a click, slid over the chat on a phone.
  const narrow = window.matchMedia("(max-width: 900px)");
  for (const [button, panel] of [["toggle-sessions", "sessions"], ["toggle-side", "side"]]) {
    const key = `metnos.panel.${panel}`;
    if (localStorage.getItem(key) === "hidden") app.classList.add(`no-${panel}`);
    $(button).addEventListener("click", () => {
      if (narrow.matches) {
        const other = panel === "sessions" ? "side" : "sessions";
        app.classList.remove(`open-${other}`);
        app.classList.toggle(`open-${panel}`);
      } else {
        localStorage.setItem(key, app.classList.toggle(`no-${panel}`) ? "hidden" : "shown");
      }
    });
  }
  $("turns").addEventListener("click", () => app.classList.remove("open-sessions", "open-side"));
  cancelBtn.addEventListener("click", () => {
    if (runningTurn && ws) ws.send(JSON.stringify({ type: "cancel", turn_id: runningTurn }));
  });

  const pin = async (name) => {
    if (!sessionId) { setStatus(gettext("Create a session first, then pick its model.")); throw new Error("no session"); }
    await api("PUT", `/sessions/${sessionId}/model`, { model: name });
    setStatus(name ? interpolate(gettext("Pinned %s for this session."), [name]) : gettext("Unpinned: the routing chain chooses."));
  };
  MetnosPicker.load(() => api("GET", "/chat/models"), "", pin)
    .then(() => Promise.all([loadWorkspaces(), loadSessions()]))
    .then(showFiles).catch((e) => setStatus(e.message));
  if (sessionId) connect(); else setStatus(gettext("Create a session to start chatting."));
})();

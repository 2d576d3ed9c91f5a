// The files panel beside the chat: the workspace's folders and files over
// /api/workspaces/<id>/files (agents/files_api.py). Open a text file in the panel, download any
// file, upload with the button or by dropping files on the panel (into the folder shown), make a
// folder, delete after a confirmation. chat.js picks the workspace (MetnosFiles.show) and
// uploads message attachments through MetnosFiles.upload.
window.MetnosFiles = (() => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const panel = $("files-panel");
  const csrf = document.querySelector("input[name=csrfmiddlewaretoken]").value;
  const SHOW_MAX_BYTES = 1024 * 1024;
  let workspace = null, folder = "", writable = false;

  const urlOf = (path) => {
    const base = `/api/workspaces/${workspace}/files`;
    return path && path !== "." ? `${base}/${path.split("/").map(encodeURIComponent).join("/")}` : base;
  };
  const say = (text) => { $("files-status").textContent = text || ""; };
  const reason = async (res) => {
    try { return (await res.json()).detail || `HTTP ${res.status}`; } catch { return `HTTP ${res.status}`; }
  };
  const sizeText = (n) => n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`;

  async function send(method, path, body, query = "") {
    const headers = { "X-CSRFToken": csrf };
    if (body && !(body instanceof FormData)) { headers["Content-Type"] = "application/json"; body = JSON.stringify(body); }
    const res = await fetch(urlOf(path) + query, { method, credentials: "same-origin", headers, body });
    if (!res.ok) throw new Error(await reason(res));
    return res.status === 204 ? null : res.json();
  }

  async function list(path) {
    const res = await fetch(urlOf(path), { credentials: "same-origin" });
    if (!res.ok) { say(await reason(res)); return; }
    const data = await res.json();
    if ((data.path === "." ? "" : data.path) !== folder) say(""); // a message about another folder
    folder = data.path === "." ? "" : data.path;
    writable = data.writable;
    $("files-actions").hidden = !writable;
    crumbs();
    const items = $("files-list");
    items.replaceChildren();
    for (const entry of data.entries) items.appendChild(row(entry));
    if (!data.entries.length) {
      const empty = document.createElement("li");
      empty.className = "muted";
      empty.textContent = writable ? gettext("This folder is empty: drop files here.") : gettext("This folder is empty.");
      items.appendChild(empty);
    }
  }

  function crumbs() {
    const nav = $("files-crumbs");
    nav.replaceChildren();
    const parts = folder ? folder.split("/") : [];
    [[gettext("workspace"), ""], ...parts.map((name, i) => [name, parts.slice(0, i + 1).join("/")])].forEach(([name, path], i) => {
      if (i) nav.append(" / ");
      const b = document.createElement("button");
      b.type = "button";
      b.className = "link";
      b.textContent = name;
      b.addEventListener("click", () => list(path));
      nav.appendChild(b);
    });
  }

  function row(entry) {
    const li = document.createElement("li");
    li.className = `file-entry ${entry.type}`;
    li.dataset.path = entry.path;
    const name = document.createElement("button");
    name.type = "button";
    name.className = "link file-name";
    name.textContent = entry.type === "dir" ? `${entry.name}/` : entry.name;
    name.title = interpolate(gettext("%(path)s, changed %(when)s"), { path: entry.path, when: new Date(entry.modified).toLocaleString() }, true);
    name.addEventListener("click", () => (entry.type === "dir" ? list(entry.path) : open(entry)));
    li.appendChild(name);
    const side = document.createElement("span");
    side.className = "file-side";
    if (entry.type === "file") {
      side.append(sizeText(entry.size), " ");
      const a = document.createElement("a");
      a.href = `${urlOf(entry.path)}?download=1`;
      a.textContent = gettext("Download");
      a.className = "file-download";
      side.appendChild(a);
    }
    if (writable) {
      const del = document.createElement("button");
      del.type = "button";
      del.className = "link file-delete";
      del.textContent = gettext("Delete");
      del.addEventListener("click", () => remove(entry));
      side.append(" ", del);
    }
    li.appendChild(side);
    return li;
  }

  async function open(entry) {
    const view = $("file-view"), text = $("file-view-text"), image = $("file-view-image");
    view.hidden = false;
    $("file-view-name").textContent = entry.path;
    $("file-view-download").href = `${urlOf(entry.path)}?download=1`;
    image.hidden = true;
    text.hidden = false;
    if (entry.size > SHOW_MAX_BYTES) { text.textContent = interpolate(gettext("Too large to show here (%s): download it."), [sizeText(entry.size)]); return; }
    const res = await fetch(urlOf(entry.path), { credentials: "same-origin" });
    const type = res.headers.get("Content-Type") || "";
    if (!res.ok) text.textContent = await reason(res);
    else if (type.startsWith("text/plain")) text.textContent = await res.text();
    else if (type.startsWith("image/")) { image.src = urlOf(entry.path); image.alt = entry.name; image.hidden = false; text.hidden = true; }
    else text.textContent = gettext("Not a text file: download it to open it.");
  }

  async function upload(files, into) {
    const form = new FormData();
    for (const file of files) form.append("file", file, file.name);
    return (await send("POST", into, form)).entries;
  }

  async function uploadHere(files) {
    if (!files.length) return;
    say(interpolate(ngettext("Uploading %s file…", "Uploading %s files…", files.length), [files.length]));
    try {
      const entries = await upload(files, folder);
      say(interpolate(gettext("Uploaded %s."), [entries.map((e) => e.name).join(", ")]));
      await list(folder);
    } catch (e) { say(interpolate(gettext("Upload refused: %s"), [e.message])); }
  }

  async function remove(entry) {
    const dir = entry.type === "dir";
    if (!confirm(interpolate(dir ? gettext("Delete the folder %s and everything in it?") : gettext("Delete %s?"), [entry.path]))) return;
    try {
      await send("DELETE", entry.path, null, dir ? "?recursive=1" : "");
      say(interpolate(gettext("Deleted %s."), [entry.path]));
      if ($("file-view-name").textContent === entry.path) $("file-view").hidden = true;
      await list(folder);
    } catch (e) { say(interpolate(gettext("Not deleted: %s"), [e.message])); }
  }

  $("files-upload").addEventListener("change", (ev) => { uploadHere([...ev.target.files]); ev.target.value = ""; });
  $("files-mkdir").addEventListener("click", async () => {
    const name = prompt(gettext("New folder name:"));
    if (!name || !name.trim()) return;
    try { await send("POST", folder, { mkdir: name.trim() }); await list(folder); } catch (e) { say(interpolate(gettext("No folder made: %s"), [e.message])); }
  });
  $("file-view-close").addEventListener("click", () => { $("file-view").hidden = true; });
  const carriesFiles = (ev) => writable && [...ev.dataTransfer.types].includes("Files");
  panel.addEventListener("dragover", (ev) => { if (carriesFiles(ev)) { ev.preventDefault(); panel.classList.add("dropping"); } });
  panel.addEventListener("dragleave", () => panel.classList.remove("dropping"));
  panel.addEventListener("drop", (ev) => {
    panel.classList.remove("dropping");
    if (!carriesFiles(ev)) return;
    ev.preventDefault();
    uploadHere([...ev.dataTransfer.files]);
  });
  // On a narrow screen the panel starts folded under the conversation.
  if (window.matchMedia("(max-width: 900px)").matches) panel.open = false;

  return {
    // Show a workspace: from its top folder when it changes, else the folder shown, refreshed.
    show(id) {
      if (id !== workspace) { workspace = id; folder = ""; $("file-view").hidden = true; }
      return list(folder);
    },
    refresh() { return workspace ? list(folder) : Promise.resolve(); },
    // Upload files into a folder of the workspace shown; resolves to their entries ({path, …}).
    upload: (files, into) => upload(files, into).finally(() => list(folder)),
  };
})();

// The model picker in the composer. Choosing a model pins it for the session (slot 2 of the
// routing chain); "once" uses it for the next message only (slot 1); "Auto" unpins. A model that
// cannot serve is listed, disabled, with the reason.
window.MetnosPicker = (() => {
  "use strict";
  const button = document.getElementById("picker-button");
  const menu = document.getElementById("picker-menu");
  const chip = document.getElementById("once-chip");
  let models = [], pinned = "", once = "", onPin = async () => {};

  const price = (m) => (m.input_per_mtok === null ? gettext("no price on file")
    : interpolate(gettext("$%(input)s in / $%(output)s out per 1M tokens"), { input: m.input_per_mtok, output: m.output_per_mtok }, true));
  const context = (n) => (n >= 1000 ? `${Math.round(n / 1000)}k` : `${n}`);

  function label() {
    button.textContent = interpolate(gettext("Model: %s"), [pinned || gettext("auto")]);
    chip.hidden = !once;
    chip.textContent = once ? interpolate(gettext("next message: %s"), [once]) : "";
  }
  function row(m) {
    const li = document.createElement("li");
    li.setAttribute("role", "option");
    li.dataset.model = m.name;
    li.tabIndex = m.available ? 0 : -1;
    li.setAttribute("aria-disabled", String(!m.available));
    li.setAttribute("aria-selected", String(m.name === pinned));
    if (!m.available) li.classList.add("off");
    if (m.name === pinned) li.classList.add("current");
    const main = document.createElement("div");
    main.className = "pick-main";
    const name = document.createElement("div");
    name.className = "pick-name";
    name.textContent = m.name;
    const where = document.createElement("span");
    where.className = `badge ${m.where}`;
    where.textContent = m.where === "local" ? gettext("(local)") : gettext("(cloud)");
    name.appendChild(where);
    const info = document.createElement("div");
    info.className = "pick-info";
    info.textContent = [m.tier && interpolate(gettext("tier %s"), [m.tier]), interpolate(gettext("%s context"), [context(m.context_window)]), price(m)].filter(Boolean).join(" · ");
    main.append(name, info);
    if (!m.available) {
      const why = document.createElement("div");
      why.className = "pick-why";
      why.textContent = interpolate(gettext("Unavailable: %s"), [m.unavailable_reason]);
      main.appendChild(why);
    }
    li.appendChild(main);
    if (m.available) {
      const single = document.createElement("button");
      single.type = "button";
      single.className = "once";
      single.textContent = gettext("once");
      single.title = interpolate(gettext("Use %s for the next message only"), [m.name]);
      single.addEventListener("click", (ev) => { ev.stopPropagation(); once = m.name; label(); close(); });
      li.appendChild(single);
      li.addEventListener("click", () => choose(m.name));
      li.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); choose(m.name); } });
    }
    return li;
  }
  function auto() {
    const li = document.createElement("li");
    li.setAttribute("role", "option");
    li.tabIndex = 0;
    li.dataset.model = "";
    if (!pinned) li.classList.add("current");
    li.innerHTML = `<div class="pick-main"><div class="pick-name">${gettext("Auto")}</div><div class="pick-info">${gettext("The routing chain chooses for each message")}</div></div>`;
    li.addEventListener("click", () => choose(""));
    li.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); choose(""); } });
    return li;
  }
  async function choose(name) {
    try {
      await onPin(name);
      pinned = name;
      label();
    } finally {
      close();
    }
  }
  function open() {
    menu.replaceChildren(auto(), ...models.map(row));
    menu.hidden = false;
    button.setAttribute("aria-expanded", "true");
    (menu.querySelector("li.current") || menu.querySelector("li")).focus();
  }
  function close() {
    menu.hidden = true;
    button.setAttribute("aria-expanded", "false");
  }
  button.addEventListener("click", () => (menu.hidden ? open() : close()));
  document.addEventListener("click", (ev) => { if (!menu.hidden && !ev.target.closest(".picker")) close(); });
  menu.addEventListener("keydown", (ev) => {
    const items = [...menu.querySelectorAll("li[tabindex='0']")];
    const at = items.indexOf(document.activeElement);
    if (ev.key === "ArrowDown") { ev.preventDefault(); (items[at + 1] || items[0]).focus(); }
    if (ev.key === "ArrowUp") { ev.preventDefault(); (items[at - 1] || items[items.length - 1]).focus(); }
    if (ev.key === "Escape") { ev.stopPropagation(); close(); button.focus(); }
  });

  return {
    // `load` fills the list; `pin` is called with the chosen name ("" to unpin) and saves it.
    async load(fetchModels, current, pin) {
      models = await fetchModels();
      pinned = current || "";
      onPin = pin;
      label();
    },
    available: () => models.filter((m) => m.available).map((m) => m.name),
    // The model for the message being sent: a "once" choice is used up by it.
    takeOnce() { const m = once; once = ""; label(); return m; },
    setPinned(name) { pinned = name || ""; label(); },
  };
})();

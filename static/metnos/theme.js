// Light or dark: the system's choice (prefers-color-scheme) until the person picks one with the
// toggle, which is remembered in this browser. Loaded in <head>, so the page never flashes.
(() => {
  "use strict";
  const root = document.documentElement;
  const saved = localStorage.getItem("metnos.theme");
  if (saved === "dark" || saved === "light") root.dataset.theme = saved;
  const system = window.matchMedia("(prefers-color-scheme: dark)");
  const current = () => root.dataset.theme || (system.matches ? "dark" : "light");
  document.addEventListener("DOMContentLoaded", () => {
    const button = document.getElementById("theme-toggle");
    if (!button) return;
    const label = () => {
      const next = current() === "dark" ? "light" : "dark";
      button.textContent = next === "dark" ? gettext("Dark") : gettext("Light");
      button.title = next === "dark" ? gettext("Switch to the dark theme") : gettext("Switch to the light theme");
      button.setAttribute("aria-label", button.title);
    };
    button.addEventListener("click", () => {
      root.dataset.theme = current() === "dark" ? "light" : "dark";
      localStorage.setItem("metnos.theme", root.dataset.theme);
      label();
    });
    system.addEventListener("change", label);
    label();
  });
})();

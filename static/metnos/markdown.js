// Answers rendered as Markdown, safely: marked parses, DOMPurify keeps only harmless HTML (no
// scripts, no event handlers, no javascript: or data: links), highlight.js colours code blocks.
// All three are vendored in static/metnos/vendor/: no CDN, and the CSP stays 'self' + nonce.
window.MetnosMarkdown = (() => {
  "use strict";
  const FORBID_TAGS = ["style", "form", "input", "button", "textarea", "select", "iframe", "object", "embed", "svg", "math"];
  // Links leave the page in a new tab and tell the other site nothing about this one.
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A" && node.getAttribute("href")) {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer nofollow");
    }
    if (node.tagName === "IMG") node.setAttribute("loading", "lazy");
  });
  // Only a code block's language survives as a class: nothing in an answer may borrow the page's own.
  DOMPurify.addHook("uponSanitizeAttribute", (node, data) => {
    if (data.attrName === "class" && !/^language-[\w+-]+$/.test(data.attrValue)) data.keepAttr = false;
  });
  // Raw HTML in an answer shows as the text it is: an answer that says "<path>" keeps it, and
  // nothing typed as markup reaches the page (DOMPurify stays as the second line of defence).
  const escape = (text) => text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  marked.use({ renderer: { html: (token) => escape(token.text || token.raw || "") } });
  const SAFE_URL = /^(?:https?:|mailto:|\/|#|\.\.?\/)/i;

  function html(text) {
    const raw = marked.parse(text || "", { gfm: true, breaks: true, async: false });
    return DOMPurify.sanitize(raw, {
      FORBID_TAGS, FORBID_ATTR: ["style", "id", "srcset"],
      ALLOWED_URI_REGEXP: SAFE_URL, ALLOW_DATA_ATTR: false,
    });
  }

  async function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "offscreen";
    document.body.appendChild(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
  function copyButton(label, getText) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "copy";
    b.textContent = label;
    b.title = label === gettext("Copy") ? gettext("Copy to the clipboard") : label;
    b.addEventListener("click", () => {
      copyText(getText()).then(() => {
        b.textContent = gettext("Copied");
        setTimeout(() => { b.textContent = label; }, 1200);
      }, () => { b.textContent = gettext("Copy failed"); });
    });
    return b;
  }

  // Code blocks get their colours and a copy button once the text is final; while an answer
  // streams they show plain, so a half-written block does not flash through highlighting.
  function finish(body) {
    body.querySelectorAll("pre > code").forEach((code) => {
      const lang = (code.className.match(/language-([\w+-]+)/) || [])[1];
      if (lang && !hljs.getLanguage(lang)) code.className = "";
      if (!code.dataset.highlighted) hljs.highlightElement(code);
      const pre = code.parentElement;
      if (!pre.querySelector(".copy")) pre.appendChild(copyButton(gettext("Copy"), () => code.textContent));
    });
  }

  // Renders `text` into `body`. `streaming` skips highlighting; frames come faster than paint,
  // so a streamed body is rendered at most once per animation frame.
  const queued = new WeakMap();
  function render(body, text, { streaming = false } = {}) {
    body.dataset.markdown = text || "";
    if (streaming) {
      if (queued.has(body)) return;
      queued.set(body, requestAnimationFrame(() => {
        queued.delete(body);
        body.innerHTML = html(body.dataset.markdown);
      }));
      return;
    }
    if (queued.has(body)) { cancelAnimationFrame(queued.get(body)); queued.delete(body); }
    body.innerHTML = html(text);
    body.classList.add("md");
    finish(body);
  }

  return { render, html, copyButton, copyText };
})();

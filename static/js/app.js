// Small progressive enhancements; no inline scripts anywhere (strict CSP).
(function () {
  "use strict";

  // Render every Plotly figure whose JSON sits in <script type="application/json" id=...>
  // and whose target element carries data-plotly="<that id>".
  function renderCharts(root) {
    if (typeof window.Plotly === "undefined") return;
    root.querySelectorAll("[data-plotly]").forEach(function (el) {
      if (el.dataset.rendered) return;
      // A chart in a closed <details> would be drawn at a guessed width: wait until opened.
      var fold = el.closest("details");
      if (fold && !fold.open) return;
      var src = document.getElementById(el.dataset.plotly);
      if (!src) return;
      var fig = JSON.parse(src.textContent);
      window.Plotly.newPlot(el, fig.data || [], fig.layout || {},
        Object.assign({ responsive: true, displaylogo: false }, fig.config || {}));
      el.dataset.rendered = "1";
    });
  }

  // Confirm buttons: <button data-confirm="Are you sure?">
  document.addEventListener("click", function (ev) {
    var t = ev.target.closest("[data-confirm]");
    if (t && !window.confirm(t.dataset.confirm)) ev.preventDefault();
  });

  // Auto-submit filter forms: <form data-autosubmit>
  document.addEventListener("change", function (ev) {
    var form = ev.target.closest("form[data-autosubmit]");
    if (form) form.requestSubmit();
  });

  // Collapsible rows (U9): <button data-toggle-rows="<tbody id>" hidden>. Without JS every
  // row shows; with it the target starts collapsed and the button says how many it holds.
  function setRows(btn, open) {
    var target = document.getElementById(btn.dataset.toggleRows);
    if (!target) return;
    var n = target.querySelectorAll(":scope > tr").length;  // not the rows of nested tables
    target.hidden = !open;
    btn.setAttribute("aria-expanded", open ? "true" : "false");
    btn.textContent = (open ? "Hide " : "Show ") + n + " ineligible";
  }
  function initToggles(root) {
    root.querySelectorAll("button[data-toggle-rows]").forEach(function (btn) {
      if (btn.dataset.ready) return;
      btn.dataset.ready = "1";
      btn.hidden = false;
      setRows(btn, false);
    });
  }
  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest("button[data-toggle-rows]");
    if (btn) { setRows(btn, btn.getAttribute("aria-expanded") !== "true"); fitTables(document); }
  });

  // U15: a table wider than its place scrolls inside its own box, never the page. Each table
  // gets a .table-scroll box; a box that does scroll becomes a named, focusable region (the
  // arrow keys scroll it) under a line that says so.
  function fitTables(root) {
    root.querySelectorAll("main table").forEach(function (table) {
      if (table.closest(".table-scroll") || table.parentElement.closest("table")) return;
      var box = document.createElement("div");
      box.className = "table-scroll";
      table.parentNode.insertBefore(box, table);
      box.appendChild(table);
    });
    root.querySelectorAll(".table-scroll").forEach(function (box) {
      var wide = box.scrollWidth > box.clientWidth + 1;
      var scrolls = wide || box.scrollHeight > box.clientHeight + 1;
      var hint = box.previousElementSibling;
      if (!hint || !hint.classList.contains("scroll-hint")) {
        if (!wide) hint = null;
        else {
          hint = document.createElement("p");
          hint.className = "scroll-hint";
          hint.textContent = "The table is wider than the screen: scroll it sideways for more columns →";
          box.parentNode.insertBefore(hint, box);
        }
      }
      if (hint) hint.hidden = !wide;
      if (scrolls) {
        var caption = box.querySelector("caption");
        box.tabIndex = 0;
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", (caption ? caption.textContent.trim() + ": " : "") + "table, scrolls inside its box");
      } else if (box.hasAttribute("role")) {
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
      }
    });
  }
  // On a phone the navigation scrolls sideways in its row: show the current page's link.
  function showCurrentNav() {
    var nav = document.querySelector(".mainnav");
    var current = nav && nav.querySelector("a.active");
    if (current && nav.scrollWidth > nav.clientWidth) {
      nav.scrollLeft = current.offsetLeft - nav.offsetLeft - (nav.clientWidth - current.offsetWidth) / 2;
    }
  }
  document.addEventListener("DOMContentLoaded", showCurrentNav);
  var fitPending = false;
  window.addEventListener("resize", function () {
    if (fitPending) return;
    fitPending = true;
    window.requestAnimationFrame(function () { fitPending = false; fitTables(document); });
  });

  // U38: after a refused save, focus the error summary (or the first invalid field), so the
  // keyboard and the screen start where the work is; a summary link focuses its item.
  function focusFirstError() {
    var target = document.querySelector("[data-error-summary]") ||
      document.querySelector("[aria-invalid=true]");
    if (!target) return;
    target.scrollIntoView({ block: "start" });
    target.focus({ preventScroll: true });
  }
  document.addEventListener("click", function (ev) {
    var link = ev.target.closest("[data-error-summary] a[href^='#']");
    if (!link) return;
    var item = document.getElementById(link.getAttribute("href").slice(1));
    // A checklist link names an item holding fields; a form's summary names the field itself.
    var fields = "input:not([type=hidden]), select, textarea";
    var field = item && (item.matches(fields) ? item : item.querySelector(fields));
    if (field) { ev.preventDefault(); item.scrollIntoView({ block: "start" }); field.focus({ preventScroll: true }); }
  });
  document.addEventListener("DOMContentLoaded", focusFirstError);

  // "toggle" does not bubble: listen in the capture phase for every <details> on the page.
  document.addEventListener("toggle", function (ev) {
    if (ev.target.open) { renderCharts(ev.target); fitTables(ev.target); }
  }, true);

  function init(root) {
    renderCharts(root || document);
    initToggles(root || document);
    fitTables(root || document);
  }
  document.addEventListener("DOMContentLoaded", function () { init(document); });
  window.addEventListener("load", function () { init(document); });
  document.addEventListener("htmx:afterSettle", function (ev) { init(ev.target); });
  window.workbench = { renderCharts: renderCharts };
})();

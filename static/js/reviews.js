// Review screens: print button and printed decision records with every detail open; the
// decision form follows the candidate chosen.
(function () {
  "use strict";
  document.addEventListener("click", function (ev) {
    if (ev.target.closest("[data-print]")) window.print();
  });
  // U13: the sticky decision bar never hides the control that has the focus: the page keeps
  // the bar's height clear when it scrolls a focused control into view.
  function keepClearOfBar() {
    var bar = document.querySelector(".decision-bar");
    var sticky = bar && window.getComputedStyle(bar).position === "sticky";
    document.documentElement.style.scrollPaddingTop = sticky ? (bar.offsetHeight + 8) + "px" : "";
  }
  window.addEventListener("load", keepClearOfBar);
  window.addEventListener("resize", keepClearOfBar);

  // U18: choosing another candidate than the recommended row (or the plan) asks for the
  // justification at once; the warnings ticked for one candidate never count for another.
  document.addEventListener("change", function (ev) {
    var select = ev.target.closest(".decision-form select[name=candidate]");
    if (!select) return;
    var form = select.form;
    var justification = form.querySelector("details.decision-justification");
    if (justification && select.value !== (select.dataset.recommended || "")) {
      justification.open = true;
    }
    // U18: the decision line says what is chosen: the plan's parts, or which other row.
    var lines = document.querySelectorAll("#decision-line [data-summary-for]");
    var shown = null;
    lines.forEach(function (line) {
      if (line.dataset.summaryFor === select.value) shown = line;
    });
    if (!shown) {
      shown = document.querySelector('#decision-line [data-summary-for=""]');
      var label = shown && shown.querySelector("[data-chosen-label]");
      if (label) label.textContent = select.options[select.selectedIndex].text;
    }
    lines.forEach(function (line) { line.hidden = line !== shown; });
    var ticks = form.querySelector("[data-acknowledge-for]");
    if (!ticks) return;
    var elsewhere = ticks.dataset.acknowledgeFor !== select.value;
    ticks.hidden = elsewhere;
    ticks.querySelectorAll("input").forEach(function (box) { box.disabled = elsewhere; });
    var asked = form.querySelector("[data-acknowledge-later]");
    if (asked) asked.hidden = !elsewhere;
  });
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  });
})();

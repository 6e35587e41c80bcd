// Candidate picker of the new-comparison form: provider toggles, select all / none, count.
// No inline scripts (strict CSP); everything is wired through data- attributes.
(function () {
  "use strict";

  function boxes(root) {
    return Array.prototype.slice.call(
      root.querySelectorAll('input[type=checkbox][name="quotes"], input[type=checkbox][name="api_routes"]'));
  }

  function refresh(root) {
    var all = boxes(root);
    var checked = all.filter(function (b) { return b.checked; }).length;
    document.querySelectorAll("[data-selected-count]").forEach(function (el) {
      el.textContent = checked + " of " + all.length + " selected";
    });
    root.querySelectorAll("[data-group-toggle]").forEach(function (toggle) {
      var list = root.querySelector('[data-group="' + toggle.dataset.groupToggle + '"]');
      if (!list) return;
      var inGroup = boxes(list);
      var on = inGroup.filter(function (b) { return b.checked; }).length;
      toggle.checked = on === inGroup.length && on > 0;
      toggle.indeterminate = on > 0 && on < inGroup.length;
    });
  }

  function init() {
    var root = document.querySelector("[data-candidates]");
    if (!root) return;
    root.addEventListener("change", function (ev) {
      var toggle = ev.target.closest("[data-group-toggle]");
      if (toggle) {
        var list = root.querySelector('[data-group="' + toggle.dataset.groupToggle + '"]');
        if (list) boxes(list).forEach(function (b) { b.checked = toggle.checked; });
      }
      refresh(root);
    });
    document.querySelectorAll("[data-check-all], [data-check-none]").forEach(function (button) {
      button.addEventListener("click", function () {
        var on = button.hasAttribute("data-check-all");
        boxes(root).forEach(function (b) { b.checked = on; });
        refresh(root);
      });
    });
    refresh(root);
  }

  document.addEventListener("DOMContentLoaded", init);
})();

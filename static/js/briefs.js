// Briefs: show only the fieldsets that matter for the chosen workload class, and on the
// calculator hide the custom-model numbers while a catalog model is chosen. Without
// JavaScript everything stays visible (each fieldset says which classes it applies to).
(function () {
  "use strict";

  function syncBriefGroups(select) {
    var chosen = select.value;
    document.querySelectorAll("fieldset[data-classes]").forEach(function (fs) {
      var classes = fs.dataset.classes.split(" ");
      var hasError = fs.querySelector(".has-error, .errorlist") !== null;
      fs.hidden = Boolean(chosen) && classes.indexOf(chosen) === -1 && !hasError;
    });
  }

  function syncCustomModel(select) {
    var box = document.querySelector("[data-custom-model]");
    if (!box) return;
    var hasError = box.querySelector(".has-error, .errorlist") !== null;
    box.hidden = Boolean(select.value) && !hasError;
  }

  document.addEventListener("DOMContentLoaded", function () {
    var klass = document.querySelector("select[data-brief-class]");
    if (klass) {
      syncBriefGroups(klass);
      klass.addEventListener("change", function () { syncBriefGroups(klass); });
    }
    var model = document.querySelector(".fit-form select[name=model]");
    if (model) {
      syncCustomModel(model);
      model.addEventListener("change", function () { syncCustomModel(model); });
    }
  });
})();

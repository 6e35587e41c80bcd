// Quote form: show the purchase fields only for purchase quotes (progressive enhancement;
// without JavaScript every field stays visible and the server still checks the rules).
(function () {
  "use strict";

  function syncPurchaseGroup(form) {
    var select = form.querySelector("select[name=capacity_model]");
    var group = form.querySelector("fieldset[data-group=purchase]");
    if (!select || !group) return;
    var hasValues = Array.prototype.some.call(group.querySelectorAll("input"), function (el) {
      return el.value !== "";
    });
    var hide = select.value !== "purchase" && !hasValues;
    group.classList.toggle("is-hidden", hide);
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("form.quote-form").forEach(function (form) {
      syncPurchaseGroup(form);
      form.addEventListener("change", function (ev) {
        if (ev.target && ev.target.name === "capacity_model") syncPurchaseGroup(form);
      });
    });
  });
})();

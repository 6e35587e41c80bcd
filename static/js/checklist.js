// Checklist review page: show the re-rendered item when the server refuses a review (400),
// so the reviewer sees why (htmx does not swap error responses by default).
(function () {
  "use strict";
  document.addEventListener("htmx:beforeSwap", function (ev) {
    var elt = ev.detail.requestConfig && ev.detail.requestConfig.elt;
    if (ev.detail.xhr.status === 400 && elt && elt.closest(".review-form")) {
      ev.detail.shouldSwap = true;
      ev.detail.isError = false;
    }
  });
})();

// Review screens: print button and printed decision records with every detail open.
(function () {
  "use strict";
  document.addEventListener("click", function (ev) {
    if (ev.target.closest("[data-print]")) window.print();
  });
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  });
})();

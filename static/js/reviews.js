// Review screens: print button and printed decision records with every detail open.
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
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  });
})();

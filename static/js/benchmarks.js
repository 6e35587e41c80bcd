// Benchmark upload: drag-and-drop onto the form and an XHR post with upload progress.
// Without JavaScript the same form posts normally; the server answers both the same way.
(function () {
  "use strict";

  function human(bytes) {
    if (bytes >= 1e9) return (bytes / 1e9).toFixed(1) + " GB";
    if (bytes >= 1e6) return (bytes / 1e6).toFixed(1) + " MB";
    if (bytes >= 1e3) return (bytes / 1e3).toFixed(1) + " kB";
    return bytes + " bytes";
  }

  function setup(form) {
    if (!form || form.dataset.ready) return;
    form.dataset.ready = "1";
    var input = form.querySelector("input[type=file]");
    var zone = form.querySelector("[data-dropzone]");
    var nameEl = form.querySelector("[data-file-name]");
    var box = form.querySelector("[data-progress]");
    var bar = form.querySelector("[data-progress-bar]");
    var text = form.querySelector("[data-progress-text]");
    var submit = form.querySelector("[data-submit]");
    var maxBytes = parseInt(form.dataset.maxBytes || "0", 10);

    function showName() {
      var f = input.files && input.files[0];
      nameEl.textContent = f ? f.name + " (" + human(f.size) + ")" : "";
    }
    input.addEventListener("change", showName);

    ["dragenter", "dragover"].forEach(function (type) {
      zone.addEventListener(type, function (ev) { ev.preventDefault(); zone.classList.add("over"); });
    });
    ["dragleave", "drop"].forEach(function (type) {
      zone.addEventListener(type, function () { zone.classList.remove("over"); });
    });
    zone.addEventListener("drop", function (ev) {
      ev.preventDefault();
      if (ev.dataTransfer && ev.dataTransfer.files.length) {
        input.files = ev.dataTransfer.files;
        showName();
      }
    });

    function say(message) { box.hidden = false; text.textContent = message; }

    form.addEventListener("submit", function (ev) {
      if (!window.FormData || !window.XMLHttpRequest) return; // plain post
      var f = input.files && input.files[0];
      if (f && maxBytes && f.size > maxBytes) {
        ev.preventDefault();
        say("The file is " + human(f.size) + ": the limit is " + human(maxBytes) + ". Nothing was sent.");
        return;
      }
      ev.preventDefault();
      var xhr = new XMLHttpRequest();
      xhr.open("POST", form.action);
      xhr.setRequestHeader("X-Requested-With", "XMLHttpRequest");
      xhr.upload.addEventListener("progress", function (e) {
        if (!e.lengthComputable) return;
        var pct = Math.round((e.loaded / e.total) * 100);
        bar.value = pct;
        say(pct < 100 ? "Uploading… " + pct + " %" : "Checking the file…");
      });
      xhr.addEventListener("load", function () {
        if (xhr.status >= 200 && xhr.status < 300) {
          say("Done. Opening the result…");
          window.location.assign(xhr.responseURL || form.action);
          return;
        }
        var doc = new DOMParser().parseFromString(xhr.responseText, "text/html");
        var fresh = doc.getElementById("upload-panel");
        var panel = document.getElementById("upload-panel");
        if (fresh && panel) {
          var chosen = input.files && input.files[0];
          panel.replaceWith(fresh);
          var freshForm = fresh.querySelector("form[data-upload]");
          // Keep the chosen file when the form asks for more (e.g. the model the file does
          // not name), so only the missing field has to be filled in.
          var freshInput = freshForm && freshForm.querySelector("input[type=file]");
          if (chosen && freshInput && window.DataTransfer) {
            try {
              var kept = new DataTransfer();
              kept.items.add(chosen);
              freshInput.files = kept.files;
            } catch (e) { /* the browser cannot set files: the file is chosen again */ }
          }
          setup(freshForm);
          if (freshInput) freshInput.dispatchEvent(new Event("change"));
          var err = fresh.querySelector("[role=alert], .errorlist");
          if (err) err.scrollIntoView({ block: "center" });
        } else {
          submit.disabled = false;
          say("The upload was refused (HTTP " + xhr.status + ").");
        }
      });
      xhr.addEventListener("error", function () {
        submit.disabled = false;
        say("The upload failed: the connection closed (is the file over the limit?). Nothing was saved.");
      });
      submit.disabled = true;
      bar.value = 0;
      say("Uploading… 0 %");
      xhr.send(new FormData(form));
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    setup(document.querySelector("form[data-upload]"));
  });
})();

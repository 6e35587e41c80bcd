// Benchmark upload: one file or several (the files of one sweep), dropped or chosen.
// - Each chosen file is checked at once (POST upload/check/: nothing stored): its line says
//   what it states (format, model, precision) and the form says what it will ask.
// - One file posts by XHR with a progress bar, as the form; the answer is the result page,
//   or the form again with what the file does not say.
// - Several files are sent one by one (JSON answers), each with its own progress and
//   outcome; a refused file stays chosen (send again: only the files not stored go).
// Without JavaScript the form posts every file at once and the page lists each outcome.
(function () {
  "use strict";

  function human(bytes) {
    if (bytes >= 1e9) return (bytes / 1e9).toFixed(1) + " GB";
    if (bytes >= 1e6) return (bytes / 1e6).toFixed(1) + " MB";
    if (bytes >= 1e3) return (bytes / 1e3).toFixed(1) + " kB";
    return bytes + " bytes";
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function csrf(form) {
    var token = form.querySelector("input[name=csrfmiddlewaretoken]");
    return token ? token.value : "";
  }

  // The quote picker's filter: options (and empty provider groups) that do not match hide.
  function setupFilter(form) {
    form.querySelectorAll("[data-filter-select]").forEach(function (box) {
      var select = document.getElementById(box.dataset.filterSelect);
      if (!select) return;
      box.addEventListener("input", function () {
        var words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
        select.querySelectorAll("option").forEach(function (opt) {
          if (!opt.value) return;
          var text = opt.textContent.toLowerCase();
          opt.hidden = !words.every(function (w) { return text.indexOf(w) !== -1; });
        });
        select.querySelectorAll("optgroup").forEach(function (group) {
          group.hidden = !group.querySelector("option:not([hidden])");
        });
      });
    });
  }

  // A hosted API has no quote, accelerator, GPU count or precision to give: hidden, emptied.
  function setupRoute(form) {
    var route = form.querySelector("#id_api_route");
    if (!route) return function () { return false; };
    function apply() {
      var hosted = !!route.value;
      form.querySelectorAll("[data-gpu-field], [data-precision-field]").forEach(function (box) {
        box.hidden = hosted;
        if (hosted) {
          box.querySelectorAll("select, input").forEach(function (f) { f.value = ""; });
        }
      });
    }
    route.addEventListener("change", apply);
    apply();
    return function () { return !!route.value; };
  }

  function setup(form) {
    if (!form || form.dataset.ready) return;
    form.dataset.ready = "1";
    var input = form.querySelector("input[type=file]");
    var zone = form.querySelector("[data-dropzone]");
    var nameEl = form.querySelector("[data-file-name]");
    var list = form.querySelector("[data-file-list]");
    var asked = form.querySelector("[data-asked]");
    var box = form.querySelector("[data-progress]");
    var bar = form.querySelector("[data-progress-bar]");
    var text = form.querySelector("[data-progress-text]");
    var submit = form.querySelector("[data-submit]");
    var precision = form.querySelector("#id_precision");
    var model = form.querySelector("#id_model_profile");
    var maxBytes = parseInt(form.dataset.maxBytes || "0", 10);
    var maxFiles = parseInt(form.dataset.maxFiles || "0", 10);
    var entries = [];
    setupFilter(form);
    var hosted = setupRoute(form);

    function say(message) { box.hidden = false; text.textContent = message; }

    function describe(entry) {
      var c = entry.check;
      if (!c) return entry.checking ? "checking…" : "";
      if (c.status !== "checked") return "will be refused: " + (c.detail || "unreadable");
      var parts = [c.format_name];
      parts.push(c.model ? "model " + c.model : "no model named");
      if (!c.parsed) parts.push("read in full after its upload");
      else if (c.precision) parts.push("precision " + c.precision.toUpperCase() + (c.precision_note ? " (" + c.precision_note + ")" : ""));
      else if (c.asks.indexOf("precision") !== -1) parts.push("precision not stated: asked");
      if (c.concurrency !== null) parts.push("concurrency " + c.concurrency);
      return parts.join(" · ");
    }

    function render() {
      list.hidden = entries.length === 0;
      list.textContent = "";
      entries.forEach(function (entry) {
        var li = el("li", "bm-file" + (entry.outcome ? " outcome-" + entry.outcome.status : ""));
        li.appendChild(el("span", "bm-file-title", entry.file.name + " (" + human(entry.file.size) + ")"));
        li.appendChild(el("span", "bm-file-facts muted", describe(entry)));
        if (entry.progress !== undefined && !entry.outcome) {
          var p = el("progress");
          p.max = 100; p.value = entry.progress;
          p.setAttribute("aria-label", "Upload of " + entry.file.name);
          li.appendChild(p);
        }
        if (entry.outcome) {
          var o = entry.outcome;
          var out = el("span", "bm-file-outcome");
          if (o.status === "created" || o.status === "existing") {
            out.appendChild(el("span", "badge" + (o.status === "created" ? " ok" : ""), o.status === "created" ? "stored" : "already uploaded"));
            out.appendChild(document.createTextNode(" "));
            var a = el("a", "", "open the result");
            a.href = o.url;
            out.appendChild(a);
          } else {
            out.appendChild(el("span", "badge bad", "refused"));
            out.appendChild(document.createTextNode(" " + (o.detail || "")));
          }
          li.appendChild(out);
        }
        list.appendChild(li);
      });
      nameEl.textContent = entries.length === 1
        ? entries[0].file.name + " (" + human(entries[0].file.size) + ")"
        : entries.length ? entries.length + " files chosen" : "";
      updateAsked();
    }

    // What the upload will ask, said before anything is sent, not after a refusal.
    function updateAsked() {
      var pending = entries.filter(function (e) { return !e.outcome || e.outcome.status === "refused"; });
      var needPrecision = pending.filter(function (e) { return e.check && e.check.asks && e.check.asks.indexOf("precision") !== -1; });
      var needModel = pending.filter(function (e) { return e.check && e.check.asks && e.check.asks.indexOf("model_profile") !== -1; });
      var lines = [];
      function who(count, verb, what) {
        if (pending.length === 1) return "The file does not " + verb + " " + what;
        if (count === pending.length) return "None of the " + count + " files " + verb + "s " + what;
        return count + " of " + pending.length + " files do not " + verb + " " + what;
      }
      var keep = needPrecision.length < pending.length ? " (the files that state one keep theirs)." : ".";
      if (needPrecision.length && !hosted()) {
        lines.push(who(needPrecision.length, "state", "the precision measured") + (precision && precision.value
          ? ": " + precision.value.toUpperCase() + ", chosen under \u201cPrecision measured\u201d, is given to " + (needPrecision.length === 1 ? "it" : "them") + keep
          : ": choose it under \u201cPrecision measured\u201d before uploading" + keep));
      }
      if (needModel.length && !hosted()) {
        lines.push(who(needModel.length, "name", "the model measured") + (model && model.value
          ? ": the model chosen under \u201cModel measured\u201d is given to " + (needModel.length === 1 ? "it." : "them.")
          : ": choose it under \u201cModel measured\u201d before uploading."));
      }
      asked.hidden = lines.length === 0;
      asked.textContent = lines.join(" ");
      if (precision) precision.classList.toggle("bm-asked", needPrecision.length > 0 && !hosted() && !precision.value);
      if (model) model.classList.toggle("bm-asked", needModel.length > 0 && !hosted() && !model.value);
    }
    if (precision) precision.addEventListener("change", updateAsked);
    if (model) model.addEventListener("change", updateAsked);
    var route = form.querySelector("#id_api_route");
    if (route) route.addEventListener("change", updateAsked);

    function check(entry) {
      if (!window.fetch || !form.dataset.checkUrl) return Promise.resolve();
      if (maxBytes && entry.file.size > maxBytes) {
        entry.check = { status: "refused", detail: "the file is " + human(entry.file.size) + ", over the limit of " + human(maxBytes) };
        return Promise.resolve();
      }
      var data = new FormData();
      data.append("file", entry.file);
      entry.checking = true;
      return fetch(form.dataset.checkUrl, {
        method: "POST", body: data, credentials: "same-origin",
        headers: { "X-CSRFToken": csrf(form), "Accept": "application/json" }
      }).then(function (r) { return r.json(); })
        .then(function (json) { entry.check = json; })
        .catch(function () { entry.check = null; })
        .then(function () { entry.checking = false; render(); });
    }

    function choose(files) {
      entries = Array.prototype.slice.call(files).map(function (f) { return { file: f }; });
      render();
      // One at a time: the checks share the server with the upload that follows.
      entries.reduce(function (chain, entry) {
        return chain.then(function () { return check(entry); });
      }, Promise.resolve());
    }

    input.addEventListener("change", function () { choose(input.files || []); });

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
        choose(input.files);
      }
    });

    // Several files: one request each, in turn; each line shows its progress and outcome.
    function sendOne(entry) {
      return new Promise(function (resolve) {
        var data = new FormData(form);
        data.delete("file");
        data.append("file", entry.file);
        var c = entry.check;
        if (c && c.status === "checked" && c.parsed) {
          // What the file states is never sent over it: only the files that ask get the answer.
          if (c.asks.indexOf("precision") === -1) data.set("precision", "");
          if (c.asks.indexOf("model_profile") === -1) data.set("model_profile", "");
        }
        var xhr = new XMLHttpRequest();
        xhr.open("POST", form.action);
        xhr.setRequestHeader("X-Requested-With", "XMLHttpRequest");
        xhr.setRequestHeader("Accept", "application/json");
        entry.progress = 0;
        xhr.upload.addEventListener("progress", function (e) {
          if (!e.lengthComputable) return;
          entry.progress = Math.round((e.loaded / e.total) * 100);
          render();
        });
        xhr.addEventListener("load", function () {
          var json = null;
          try { json = JSON.parse(xhr.responseText); } catch (e) { /* not JSON: see below */ }
          entry.outcome = json && json.status ? json : { status: "refused", detail: "HTTP " + xhr.status };
          render();
          resolve();
        });
        xhr.addEventListener("error", function () {
          entry.outcome = { status: "refused", detail: "the connection closed (is the file over the limit?); nothing was saved" };
          render();
          resolve();
        });
        xhr.send(data);
      });
    }

    function sendMany(ev) {
      ev.preventDefault();
      var todo = entries.filter(function (e) { return !e.outcome || e.outcome.status === "refused"; });
      if (!todo.length) {
        say("Every chosen file is stored: choose more files to upload others.");
        return;
      }
      if (maxFiles && todo.length > maxFiles) {
        say(todo.length + " files: at most " + maxFiles + " can be uploaded at once.");
        return;
      }
      todo.forEach(function (e) { e.outcome = null; e.progress = undefined; });
      submit.disabled = true;
      bar.value = 0;
      say("Uploading " + todo.length + " files, one at a time…");
      var done = 0;
      todo.reduce(function (chain, entry) {
        return chain.then(function () { return sendOne(entry); }).then(function () {
          done += 1;
          bar.value = Math.round((done / todo.length) * 100);
        });
      }, Promise.resolve()).then(function () {
        submit.disabled = false;
        var stored = entries.filter(function (e) { return e.outcome && e.outcome.status !== "refused"; }).length;
        var refused = entries.length - stored;
        say(stored + " of " + entries.length + " files stored" +
          (refused ? "; " + refused + " refused (see each line). Fix what they need and upload again: only those are sent." : "."));
        var firstBad = list.querySelector(".outcome-refused");
        if (firstBad) firstBad.scrollIntoView({ block: "center" });
      });
    }

    form.addEventListener("submit", function (ev) {
      if (!window.FormData || !window.XMLHttpRequest) return; // plain post
      if (entries.length > 1) { sendMany(ev); return; }
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

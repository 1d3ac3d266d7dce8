// Parley console: optional niceties. Every page works without this script.
(function () {
  "use strict";
  // Times arrive as "2 Dec 2026, 18:49 UTC"; show them in the reader's own zone.
  var full = new Intl.DateTimeFormat(undefined, {year: "numeric", month: "short", day: "numeric", hour: "2-digit",
                                                 minute: "2-digit", timeZoneName: "short"});
  var day = new Intl.DateTimeFormat(undefined, {year: "numeric", month: "short", day: "numeric"});
  document.querySelectorAll("time[data-local]").forEach(function (node) {
    var moment = new Date(node.getAttribute("datetime"));
    if (isNaN(moment)) { return; }
    node.title = node.textContent;
    node.textContent = (node.dataset.local === "date" ? day : full).format(moment);
  });
  // Copy buttons: shown only when the clipboard can be used.
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var source = document.getElementById(button.dataset.copy);
    if (!source || !navigator.clipboard) { return; }
    var label = button.textContent;
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(source.textContent.trim()).then(function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = label; }, 2000);
      });
    });
  });
})();

// The rule editor, live. Without this script every button posts the form and the server answers the
// whole page; with it, structural changes (a row added, an operator changed, CEL) ask the server for
// the form alone and swap it in, "Reads as" follows each keystroke, and lists are edited as chips.
(function () {
  "use strict";
  var form = document.getElementById("rule-editor");
  if (!form || !window.fetch || !window.FormData) { return; }
  form.classList.add("live");
  var timer = null;
  // not form.action: the buttons named "action" shadow that property
  var target = form.getAttribute("action");

  function body(action) {
    var data = new FormData(form);
    data.set("action", action);
    return new URLSearchParams(data);
  }

  function focusAfter() {
    var marker = document.getElementById("editor-focus");
    var target = marker && marker.dataset.focus ? document.getElementById(marker.dataset.focus) : null;
    if (target) { target.focus(); }
    return Boolean(target);
  }

  function focused() {
    var active = document.activeElement;
    return active && active !== form && form.contains(active) && active.id ? active.id : "";
  }

  // The box the member is in stays theirs across a redraw: same box, same caret.
  function refocus(id, caret) {
    var field = id ? document.getElementById(id) : null;
    if (!field) { return; }
    field.focus();
    try { field.setSelectionRange(caret[0], caret[1]); } catch (ignored) { /* no caret here */ }
  }

  function caretOf(id) {
    var field = id ? document.getElementById(id) : null;
    try { return field ? [field.selectionStart, field.selectionEnd] : null; } catch (ignored) { return null; }
  }

  // Swaps run one at a time, and what is typed while one is on its way is carried into the form that
  // replaces it: a value typed after choosing an operator must not vanish when the server's form for
  // that operator arrives.
  var queue = [];
  var busy = false;
  var typed = {};
  var chipped = [];
  var swaps = 0;

  function carry(values) {
    var refresh = false;
    Object.keys(values).forEach(function (id) {
      var field = document.getElementById(id);
      if (!field || !("value" in field)) { return; }
      field.value = values[id];
      if (field.matches("[data-refresh]")) { refresh = true; }
    });
    return refresh;
  }

  function next() {
    var action = queue.shift();
    if (action === undefined) { busy = false; form.removeAttribute("aria-busy"); return; }
    busy = true;
    swaps += 1;
    typed = {};
    chipped = [];
    var sentFrom = focused();
    form.setAttribute("aria-busy", "true");
    fetch(target, {method: "POST", body: body(action), credentials: "same-origin",
                   headers: {"X-Parley-Fragment": "1"}})
      .then(function (response) { return response.text(); })
      .then(function (html) {
        var values = typed;
        var chips = chipped;
        var now = focused();
        var caret = caretOf(now);
        form.innerHTML = html;
        var refresh = carry(values);
        if (now !== sentFrom || !focusAfter()) { refocus(now, caret); }
        if (refresh) { queue.push("update"); }
        busy = false;
        chips.forEach(function (added) {
          var input = form.querySelector("input[data-chips='" + added.row + "']");
          if (input) { addChip(input, added.text); }
        });
        if (!queue.length && Object.keys(values).length) { preview(); }
        next();
      })
      .catch(function () { busy = false; form.removeAttribute("aria-busy"); form.submit(); });
  }

  function swap(action) {
    queue.push(action);
    if (!busy) { next(); }
  }

  function preview() {
    clearTimeout(timer);
    timer = setTimeout(function () {
      // a swap on its way carries this edit and asks again; an answer that comes back after a swap
      // began reads an older form than the one on screen
      if (busy) { return; }
      var since = swaps;
      fetch(target, {method: "POST", body: body("preview"), credentials: "same-origin"})
        .then(function (response) { return response.json(); })
        .then(function (found) {
          if (busy || since !== swaps) { return; }
          var out = document.getElementById("reads-as");
          if (out) { out.textContent = found.reads_as || "—"; }
          var cel = document.getElementById("cel-error");
          var field = document.getElementById("cel");
          if (cel && field) {
            cel.textContent = found.errors.cel || "";
            cel.classList.toggle("empty", !found.errors.cel);
            if (found.errors.cel) { field.setAttribute("aria-invalid", "true"); }
            else { field.removeAttribute("aria-invalid"); }
          }
        })
        .catch(function () {});
    }, 200);
  }

  function addChip(input, text) {
    var row = input.dataset.chips;
    if (busy) { chipped.push({row: row, text: text}); return; }
    var list = document.getElementById("chips_" + row);
    text.split(/[,\n\t;]+/).forEach(function (part) {
      var value = part.trim();
      if (!value || !list) { return; }
      var chip = document.createElement("li");
      chip.className = "chip";
      chip.appendChild(document.createTextNode(value));
      var hidden = document.createElement("input");
      hidden.type = "hidden";
      hidden.name = "list_" + row;
      hidden.value = value;
      chip.appendChild(hidden);
      var remove = document.createElement("button");
      remove.type = "submit";
      remove.name = "action";
      remove.value = "unchip";
      remove.className = "unchip";
      remove.setAttribute("aria-label", "Remove " + value);
      remove.textContent = "×";
      chip.appendChild(remove);
      list.appendChild(chip);
    });
    preview();
  }

  form.addEventListener("click", function (event) {
    var button = event.target.closest("button[name=action]");
    if (!button || button.value === "draft") { return; }
    event.preventDefault();
    if (button.classList.contains("unchip")) {
      var chip = button.closest("li");
      var input = chip.closest(".chips-edit").querySelector("input[data-chips]");
      chip.remove();
      if (input) { input.focus(); }
      preview();
      return;
    }
    swap(button.value);
  });

  form.addEventListener("keydown", function (event) {
    var input = event.target;
    if (!input.matches("input[data-chips]")) { return; }
    if (event.key === "Enter" || event.key === ",") {
      event.preventDefault();
      addChip(input, input.value);
      input.value = "";
    } else if (event.key === "Backspace" && !input.value) {
      var chips = document.getElementById("chips_" + input.dataset.chips);
      if (chips && chips.lastElementChild) { chips.lastElementChild.remove(); preview(); }
    }
  });

  form.addEventListener("paste", function (event) {
    var input = event.target;
    if (!input.matches("input[data-chips]") || !event.clipboardData) { return; }
    event.preventDefault();
    addChip(input, input.value + "," + event.clipboardData.getData("text"));
    input.value = "";
  });

  form.addEventListener("change", function (event) {
    if (busy && event.target.id) { typed[event.target.id] = event.target.value; return; }
    if (event.target.matches("[data-refresh]")) { swap("update"); } else { preview(); }
  });
  form.addEventListener("input", function (event) {
    if (busy && event.target.id) { typed[event.target.id] = event.target.value; return; }
    if (!event.target.matches("[data-refresh]")) { preview(); }
  });
  focusAfter();
})();

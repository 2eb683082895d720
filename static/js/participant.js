// Keyboard answers: a key listed in a button's data-keys clicks it. Text boxes keep their keys.
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    const target = event.target;
    const inBox = target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA");
    // Ctrl/Cmd+Enter sends a written answer (plain Enter starts a new line in a text area).
    if (inBox && target.tagName === "TEXTAREA" && event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      if (target.form) target.form.requestSubmit();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
    if (inBox) return;
    const key = event.key.toLowerCase();
    const buttons = document.querySelectorAll("#item-area button[data-keys]");
    for (const button of buttons) {
      if (button.disabled) continue;
      if (button.dataset.keys.split(",").includes(key)) {
        event.preventDefault();
        button.click();
        return;
      }
    }
  });
  // Pasting is allowed but recorded: the answer is stored with pasted=true.
  document.addEventListener("paste", function (event) {
    const box = event.target;
    if (!box || !box.matches || !box.matches("[data-track-paste]") || !box.form) return;
    const flag = box.form.querySelector("[data-paste-flag]");
    if (flag) flag.value = "true";
  });
  // After each swap, focus the new answer box so typing continues without the mouse.
  document.addEventListener("htmx:afterSwap", function () {
    const box = document.querySelector("#item-area [autofocus]");
    if (!box) return;
    box.focus();
    if (typeof box.setSelectionRange === "function" && box.value) {
      box.setSelectionRange(box.value.length, box.value.length);
    }
  });
})();

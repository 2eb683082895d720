// Keyboard answers: a key listed in a button's data-keys clicks it. Text boxes keep their keys.
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) return;
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
  // After each swap, focus the new answer box so typing continues without the mouse.
  document.addEventListener("htmx:afterSwap", function () {
    const box = document.querySelector("#item-area [autofocus]");
    if (box) box.focus();
  });
})();

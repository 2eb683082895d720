// Keyboard answers: a key listed in a button's data-keys clicks it. Text boxes keep their keys.
(function () {
  "use strict";
  // An item takes no answer in its first moments on the screen: a second key press or tap meant for
  // the item before (a double press, a bouncing tap) would otherwise answer this one unseen. The
  // wait is the study's floor (the server refuses answers sooner than it) and never less than
  // FIRST_MOMENT_MS. When it is over the item area carries data-ready.
  const FIRST_MOMENT_MS = 300;
  let readyAt = 0;
  function arm() {
    const area = document.getElementById("item-area");
    if (!area) return;
    const wait = Math.max(parseInt(area.dataset.minAnswerMs || "0", 10) || 0, FIRST_MOMENT_MS);
    area.removeAttribute("data-ready");
    readyAt = performance.now() + wait;
    window.setTimeout(function () { area.dataset.ready = ""; }, wait);
  }
  function tooSoon() {
    return performance.now() < readyAt;
  }
  // Behaviour on the page, per answer: counts and durations only, never what was typed or pasted.
  // Sent with the answer in the form's behaviour-* fields (see docs/integrity.md). An item shown
  // again after a refused answer keeps its counts: the refused answer was not stored.
  let record = null;
  function itemKey(area) {
    const form = area.querySelector("#answer-form");
    if (!form || !form.elements.item || !form.elements.position) return "";
    return form.elements.item.value + "/" + form.elements.position.value;
  }
  function track() {
    const area = document.getElementById("item-area");
    if (!area) {
      record = null;
      return;
    }
    const key = itemKey(area);
    if (record && record.key === key) return;
    const now = performance.now();
    record = {
      key: key, shownAt: now, firstInput: null, pastes: 0, blurs: 0, hidden: 0, hiddenMs: 0,
      hiddenSince: document.visibilityState === "hidden" ? now : null, keys: 0,
    };
  }
  function touched() {
    if (record && record.firstInput === null) record.firstInput = performance.now();
  }
  function textBox(form) {
    const box = form.elements.answer;
    return box && (box.tagName === "TEXTAREA" || box.type === "text") ? box : null;
  }
  function fill(form) {
    if (!record) return;
    const now = performance.now();
    const away = record.hiddenSince === null ? 0 : now - record.hiddenSince;
    const figures = {
      pastes: record.pastes,
      blurs: record.blurs,
      hidden: record.hidden,
      hidden_ms: Math.round(record.hiddenMs + away),
      keys: textBox(form) ? record.keys : "",
      first_input_ms: record.firstInput === null ? "" : Math.round(record.firstInput - record.shownAt),
    };
    for (const input of form.querySelectorAll("[data-behaviour]")) {
      const value = figures[input.dataset.behaviour];
      input.value = value === undefined ? "" : String(value);
    }
  }
  document.addEventListener("visibilitychange", function () {
    if (!record) return;
    const now = performance.now();
    if (document.visibilityState === "hidden") {
      record.hidden += 1;
      record.hiddenSince = now;
    } else if (record.hiddenSince !== null) {
      record.hiddenMs += now - record.hiddenSince;
      record.hiddenSince = null;
    }
  });
  window.addEventListener("blur", function () {
    if (record) record.blurs += 1;
  });
  document.addEventListener("pointerdown", function (event) {
    if (event.target && event.target.closest && event.target.closest("#item-area")) touched();
  }, true);
  document.addEventListener("paste", function (event) {
    if (!record || !event.target || !event.target.closest || !event.target.closest("#item-area")) return;
    record.pastes += 1;
    touched();
  }, true);
  document.addEventListener("keydown", function (event) {
    if (!record || ["Shift", "Control", "Alt", "Meta", "CapsLock"].includes(event.key)) return;
    touched();
    const target = event.target;
    // keys that write into the answer box; Ctrl/Cmd combinations (paste, submit, select) do not
    if (target && target.name === "answer" && target.form && target === textBox(target.form) &&
        !event.ctrlKey && !event.metaKey) {
      record.keys += 1;
    }
  }, true);

  // An item page the browser kept (its back-forward cache: Back, or a tab restored) shows an item
  // that may have been answered since: the participant's current step is fetched in its place.
  window.addEventListener("pageshow", function (event) {
    const area = document.getElementById("item-area");
    if (event.persisted && area && area.dataset.stepUrl) window.location.replace(area.dataset.stepUrl);
  });
  function start() {
    arm();
    track();
  }
  start();
  document.addEventListener("htmx:afterSwap", start);
  // Every way of answering ends in the form's submit: keys, clicks, taps, Enter in a box.
  window.addEventListener(
    "submit",
    function (event) {
      if (!event.target || event.target.id !== "answer-form") return;
      if (tooSoon()) {
        event.preventDefault();
        event.stopImmediatePropagation();
        return;
      }
      fill(event.target);
    },
    true
  );
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
    if (inBox || tooSoon()) return;
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
  // After each swap, focus the new answer box so typing continues without the mouse. Where there is
  // none (answer buttons), the item area takes the focus: the button pressed is gone with the old
  // item, and the next Tab should reach this item's first button, not the top of the page.
  document.addEventListener("htmx:afterSwap", function () {
    const box = document.querySelector("#item-area [autofocus]");
    if (!box) {
      const area = document.getElementById("item-area");
      if (area) area.focus({ preventScroll: true });
      return;
    }
    box.focus();
    if (typeof box.setSelectionRange === "function" && box.value) {
      box.setSelectionRange(box.value.length, box.value.length);
    }
  });
  // The answer in view (AmbiBench: the sentence to label and its box, under a history that grows
  // with every answer). A list marked data-scroll-end scrolls in its own box to its latest entry,
  // and the page then scrolls, if it must, just enough to show what is marked data-keep-in-view.
  // Focusing the box alone does not do it: it may already hold the focus (autofocus) when the new
  // item is in place, and focusing it again scrolls nothing.
  function keepInView() {
    document.querySelectorAll("[data-scroll-end]").forEach(function (list) {
      list.scrollTop = list.scrollHeight;
    });
    const kept = document.querySelector("[data-keep-in-view]");
    if (kept) kept.scrollIntoView({ block: "nearest" });
  }
  document.addEventListener("DOMContentLoaded", keepInView);
  document.addEventListener("htmx:afterSettle", keepInView);
  // A screen reader is told what changed: the page's live region (outside the swapped area, so that
  // it stays the same region) gets the new item's announcement (the revealed label, the progress).
  // An error is announced by its own role=alert instead.
  document.addEventListener("htmx:afterSwap", function () {
    const region = document.getElementById("announcer");
    if (!region) return;
    const note = document.querySelector("#item-area template#announcement");
    region.textContent = note ? note.content.textContent.replace(/\s+/g, " ").trim() : "";
  });
  // The done page goes back to Prolific by itself after a few seconds (the code travels in the
  // URL), unless the participant stops it: a time limit that can be turned off (WCAG 2.2.1).
  const back = document.querySelector("[data-return-after]");
  if (back) {
    const timer = window.setTimeout(function () {
      window.location.assign(back.getAttribute("href"));
    }, 1000 * parseInt(back.dataset.returnAfter, 10));
    const stay = document.getElementById("stay-here");
    if (stay) {
      stay.hidden = false;
      stay.addEventListener("click", function () {
        window.clearTimeout(timer);
        stay.hidden = true;
        const notice = document.getElementById("return-notice");
        if (notice) notice.textContent = stay.dataset.stayed;
      });
    }
  }
})();

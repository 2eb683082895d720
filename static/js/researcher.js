// Researcher pages: the implied hourly pay as the reward and the minutes are typed, the time and reward
// following the design's estimate, copy buttons, and the keys of the verification queue.
(function () {
  "use strict";
  function updatePay() {
    const out = document.getElementById("hourly-pay");
    const reward = document.getElementById("id_reward");
    const minutes = document.getElementById("id_estimated_minutes");
    if (!out || !reward || !minutes) return;
    const pence = Math.round(parseFloat(reward.value) * 100);
    const mins = parseInt(minutes.value, 10);
    const value = document.getElementById("hourly-pay-value");
    const verdict = document.getElementById("hourly-pay-verdict");
    if (!(pence > 0) || !(mins > 0)) {
      value.textContent = "—";
      verdict.textContent = "enter a reward and the minutes";
      out.className = "pay-low";
      return;
    }
    // participants take the design's time whatever is typed: a shorter time would overstate the pay
    const box = document.getElementById("time-estimate");
    const estimated = box && box.dataset.minutes ? parseInt(box.dataset.minutes, 10) : 0;
    const judged = Math.max(mins, estimated);
    const basis = document.getElementById("hourly-pay-basis");
    if (basis) basis.textContent = judged > mins ? "at the design's estimated " + judged + " minutes " : "";
    const perHour = pence / judged * 60;
    // the recruiting panel's rates (Prolific's: £6 and £9); a panel without a minimum is judged against none
    const minimum = Number(out.dataset.minimum), recommended = Number(out.dataset.recommended);
    const symbol = out.dataset.symbol || "£", panel = out.dataset.panel || "Prolific";
    const rate = function (minor) { return symbol + (minor / 100).toFixed(minor % 100 ? 2 : 0); };
    value.textContent = symbol + (perHour / 100).toFixed(2) + "/h";
    if (!minimum) {
      verdict.textContent = panel + " sets no minimum";
      out.className = "pay-ok";
    } else if (perHour < minimum) {
      verdict.textContent = "below " + panel + "'s " + rate(minimum) + "/h minimum";
      out.className = "pay-bad";
    } else if (perHour < recommended) {
      verdict.textContent = "below the recommended " + rate(recommended) + "/h";
      out.className = "pay-low";
    } else {
      verdict.textContent = "ok";
      out.className = "pay-ok";
    }
  }
  // another panel chosen: its rates judge the pay (the page's JSON of every panel's, `panel-floors`)
  document.addEventListener("change", function (event) {
    if (!event.target || event.target.id !== "id_panel") return;
    const out = document.getElementById("hourly-pay");
    const data = document.getElementById("panel-floors");
    if (!out || !data) return;
    const floor = JSON.parse(data.textContent)[event.target.value];
    if (!floor) return;
    out.dataset.minimum = floor.minimum;
    out.dataset.recommended = floor.recommended;
    out.dataset.symbol = floor.symbol;
    out.dataset.panel = floor.name;
    const label = document.querySelector("label[for=id_reward]");
    if (label) label.textContent = "Reward (" + floor.symbol + ")";
    const said = document.getElementById("hourly-pay-floor");
    const rate = function (minor) { return floor.symbol + (minor / 100).toFixed(minor % 100 ? 2 : 0); };
    if (said) {
      said.textContent = floor.minimum
        ? floor.name + "'s minimum " + rate(floor.minimum) + "/h, recommended " + rate(floor.recommended) +
          "/h, judged on the median completion time"
        : floor.name + " sets no minimum; the study's page judges the pay at the median completion time";
    }
    updatePay();
  });
  document.addEventListener("input", function (event) {
    if (event.target && (event.target.id === "id_reward" || event.target.id === "id_estimated_minutes")) {
      // typed by the researcher: the design's estimate no longer replaces them
      const fields = document.getElementById("prolific-fields");
      if (fields) fields.dataset.followsEstimate = "false";
      updatePay();
    }
  });
  // typed before this script ran (a slow page): the typed values are kept and judged as if typed now
  (function () {
    const reward = document.getElementById("id_reward");
    const minutes = document.getElementById("id_estimated_minutes");
    const fields = document.getElementById("prolific-fields");
    if (!reward || !minutes) return;
    if (fields && (reward.value !== reward.defaultValue || minutes.value !== minutes.defaultValue)) {
      fields.dataset.followsEstimate = "false";
    }
    updatePay();
  })();
  // the time and reward follow the design's estimate until typed (htmx brings it again as the design changes)
  document.addEventListener("htmx:load", function (event) {
    const estimate = event.target;
    const fields = document.getElementById("prolific-fields");
    if (!estimate || estimate.id !== "time-estimate" || !fields) return;
    // never under the researcher's cursor: a value replaced while they select it and type would
    // join what they type ("5" then "10" typed makes "510")
    const active = document.activeElement;
    const editing = active && (active.id === "id_estimated_minutes" || active.id === "id_reward");
    if (fields.dataset.followsEstimate === "true" && estimate.dataset.minutes && !editing) {
      document.getElementById("id_estimated_minutes").value = estimate.dataset.minutes;
      document.getElementById("id_reward").value = estimate.dataset.reward;
    }
    // the pay is judged again against the new estimate, followed or not
    updatePay();
  });
  document.addEventListener("click", function (event) {
    const button = event.target.closest ? event.target.closest("[data-copy]") : null;
    if (!button) return;
    const source = document.querySelector(button.dataset.copy);
    if (!source) return;
    const text = source.textContent.trim();
    const done = function () { button.textContent = "Copied"; button.dataset.copied = "true"; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
    } else {
      fallbackCopy(text);
      done();
    }
  });
  // keys for the page's buttons and links marked `data-key` (the verification queue: r right, w wrong,
  // s skip, arrows previous and next); never while typing, nor with a modifier (the browser's own)
  let keyUsed = false;
  document.addEventListener("keydown", function (event) {
    if (keyUsed || event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
    const typing = event.target.closest && event.target.closest("input, textarea, select, [contenteditable]");
    if (typing) return;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    const target = document.querySelector('[data-key="' + key + '"]');
    if (!target) return;
    event.preventDefault();
    keyUsed = true;  // one key, one mark: a second press before the next page must not mark it twice
    target.click();
  });
  window.addEventListener("pageshow", function () { keyUsed = false; });
  // the copy buttons come hidden: a click before this script ran would do nothing
  document.querySelectorAll("button[data-copy][hidden]").forEach(function (button) { button.hidden = false; });
  function fallbackCopy(text) {
    const area = document.createElement("textarea");
    area.value = text;
    document.body.appendChild(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
})();

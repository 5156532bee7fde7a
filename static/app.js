// Chicago Scorekeeper's only script besides the vendored htmx and NoSleep.js. Each part does nothing where
// the browser lacks what it needs (plain HTTP on a table's network has no service worker; the screen is
// kept on there by NoSleep.js, which is loaded only where the Wake Lock API is missing).
(function () {
  "use strict";

  // A tap that got no answer must not look saved: show "not saved – tap again" until a tap is saved.
  // A tap refused with an error page (503 while nothing can be saved, with the reason; a form that
  // expired) shows that page's own words there instead: htmx swaps no error page in.
  function banner() { return document.getElementById("offline"); }
  var noAnswer = banner() ? banner().textContent : "";
  function show(text) { var el = banner(); if (el) { el.textContent = text || noAnswer; el.hidden = false; } }
  function hide() { var el = banner(); if (el) { el.hidden = true; } }
  document.addEventListener("htmx:sendError", function () { show(); });
  document.addEventListener("htmx:timeout", function () { show(); });
  document.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail.xhr;
    var page = xhr && new DOMParser().parseFromString(xhr.responseText, "text/html");
    var said = page && page.querySelector("main [role=alert]");
    show(said && said.textContent.trim());
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.successful) { hide(); }
  });

  // After a swap: say what changed (score changes and refusals), and after a tap put the
  // keyboard where the next action is, since the button that was tapped is gone.
  document.addEventListener("htmx:afterSettle", function (event) {
    var swapped = document.getElementById(event.detail.target && event.detail.target.id) || document;
    var said = swapped.querySelector(".refusal") || swapped.querySelector("[data-announce]");
    var announce = document.getElementById("announce");
    if (announce && said) {
      announce.textContent = "";
      window.setTimeout(function () { announce.textContent = said.textContent.trim(); }, 50);
    }
    var config = event.detail.requestConfig;
    if (!config || config.verb !== "post") { return; }  // a spectator's board refresh moves nothing
    var next = swapped.querySelector(".refusal") || swapped.querySelector("#turn h2, #turn h3");
    if (next) {
      next.setAttribute("tabindex", "-1");
      next.focus({ preventScroll: true });
    }
  });

  // "Redo" is offered for a few seconds after an undo (the server says how many are left): then it goes,
  // and the round's line it stood in for is back. A page without this script keeps it until the next tap.
  function redoTimers() {
    document.querySelectorAll("button[data-redo-left]").forEach(function (button) {
      if (button.dataset.timed) { return; }
      button.dataset.timed = "1";
      window.setTimeout(function () {
        var form = button.closest("form");
        if (form && !form.classList.contains("htmx-request")) { form.hidden = true; }
      }, Number(button.dataset.redoLeft) * 1000);
    });
  }
  document.addEventListener("htmx:afterSettle", redoTimers);
  redoTimers();

  // The installable app: the service worker keeps the shell and an offline page (secure contexts only).
  if ("serviceWorker" in navigator && window.isSecureContext && document.body.dataset.sw) {
    navigator.serviceWorker.register(document.body.dataset.sw).catch(function () { /* quietly without */ });
  }

  // The share page: copy a link, or hand it to the phone's share sheet. Each button stays hidden
  // where the browser cannot do it (plain HTTP has no Clipboard API and no Web Share).
  function canCopy() {
    return !!(navigator.clipboard && navigator.clipboard.writeText) ||
      !!(document.queryCommandSupported && document.queryCommandSupported("copy"));
  }
  function copy(link) {
    if (navigator.clipboard && navigator.clipboard.writeText) { return navigator.clipboard.writeText(link.href); }
    var range = document.createRange();  // without the Clipboard API: copy the selected link text
    range.selectNodeContents(link);
    window.getSelection().removeAllRanges();
    window.getSelection().addRange(range);
    return document.execCommand("copy") ? Promise.resolve() : Promise.reject(new Error("not copied"));
  }
  function copied(id) {
    var note = document.querySelector("[data-copied='" + id + "']");
    var announce = document.getElementById("announce");
    if (note) { note.hidden = false; }
    if (note && announce) { announce.textContent = note.textContent.trim(); }
  }
  document.querySelectorAll("[data-copy]").forEach(function (button) { button.hidden = !canCopy(); });
  document.querySelectorAll("[data-share]").forEach(function (button) { button.hidden = !navigator.share; });
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-copy], [data-share]") : null;
    var link = button && document.getElementById(button.dataset.copy || button.dataset.share);
    if (!link) { return; }
    if (button.dataset.copy) {
      copy(link).then(function () { copied(button.dataset.copy); }, function () { /* the link stays selectable */ });
    } else {
      navigator.share({ url: link.href }).catch(function () { /* dismissed */ });
    }
  });

  // Keep the screen on while a match is live; the toggle is remembered on this phone. The Screen
  // Wake Lock API needs a secure context: where it is missing (plain HTTP on the table's network)
  // NoSleep.js (vendored, loaded only there) plays a tiny looping video instead, which a browser may
  // start only from a tap: it starts at the first tap on the page (a tap on the switch turns it on).
  var lock = null;
  var native = "wakeLock" in navigator;
  var fallback = null;  // a NoSleep, once its script has loaded (no Wake Lock API here)
  var playing = false;  // the fallback's video plays
  function supported() { return native || fallback !== null; }
  function held() { return native ? lock !== null : playing; }
  function wanted() { return localStorage.getItem("chicago.wake") !== "off"; }
  function live() { return document.querySelector("[data-live]") !== null; }
  function render() {
    var button = document.getElementById("wake");
    if (!button) { return; }
    button.hidden = !supported() || !live();
    button.setAttribute("aria-pressed", wanted() ? "true" : "false");
    button.dataset.state = held() ? "on" : "off";
  }
  function release() {
    if (lock) { lock.release().catch(function () {}); lock = null; }
    if (playing) { fallback.disable(); playing = false; }
    render();
  }
  function acquire() {
    if (!supported() || !wanted() || !live() || document.visibilityState !== "visible") { release(); return; }
    if (held()) { render(); return; }
    if (!native) {
      fallback.enable().then(function () { playing = true; render(); }, function () { playing = false; render(); });
      return;
    }
    navigator.wakeLock.request("screen").then(function (sentinel) {
      lock = sentinel;
      sentinel.addEventListener("release", function () { if (lock === sentinel) { lock = null; } render(); });
      render();
    }).catch(function () { lock = null; render(); });
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("#wake") : null;
    if (!button) {
      if (fallback && !playing) { acquire(); }  // a tap lets the fallback's video start
      return;
    }
    if (native || held() || !wanted()) { localStorage.setItem("chicago.wake", wanted() ? "off" : "on"); }
    acquire();
  });
  document.addEventListener("visibilitychange", acquire);  // the browser drops the lock when hidden
  document.addEventListener("htmx:afterSettle", acquire);   // released when the match ends
  var switcher = document.getElementById("wake");
  if (!native && switcher && switcher.dataset.fallback) {
    var script = document.createElement("script");
    script.src = switcher.dataset.fallback;
    script.addEventListener("load", function () { fallback = new window.NoSleep(); acquire(); });
    document.head.appendChild(script);
  }
  acquire();
})();

// The new-match form: each seat's first-dealer choice says the name typed for that seat, as it
// is typed (the server says the same once the form is posted; data-named is its translated sentence).
(function () {
  "use strict";
  document.addEventListener("input", function (event) {
    var field = event.target;
    var form = field.form;
    if (!form || field.name !== "name" || !form.classList.contains("new-match")) { return; }
    var fieldset = form.querySelector(".first-dealer");
    var seat = Array.prototype.indexOf.call(form.querySelectorAll("input[name=name]"), field);
    var label = fieldset && fieldset.querySelector("[data-seat='" + seat + "']");
    if (!label) { return; }
    var name = field.value.trim();
    label.textContent = name ? fieldset.dataset.named.split("{name}").join(name) : label.dataset.unnamed;
  });
})();

// The live view pushed: the server sends the board itself on a stream (server-sent events) at
// each change, and the match's version as a heartbeat (the board fetches itself if that is
// newer). Its poll every 2 s is skipped while the stream speaks (at least every 12.5 s), and goes
// on when the stream drops or the server declines one (204): the page then polls as it always
// did, and catches up when the stream is back (the browser says which board it last had).
(function () {
  "use strict";
  var board = document.getElementById("board");
  if (!board || !board.dataset.stream || !window.EventSource || !window.htmx) { return; }
  var QUIET = 25000;  // ms without a word after which the stream is taken for dead
  var heard = 0;  // when the stream last spoke; 0 while it is down
  var source = new EventSource(board.dataset.stream);
  function state(said) { document.body.dataset.stream = said; }  // for the browser tests
  function shown() { return document.getElementById("board"); }
  function ended() {  // a finished match's board has no stream: nothing more will come
    var now = shown();
    if (now && !now.dataset.stream) { source.close(); heard = 0; state("closed"); }
  }
  function spoke() { heard = Date.now(); state("open"); return shown(); }  // the board now shown
  source.addEventListener("version", function (event) {
    var now = spoke();
    if (now && Number(event.data) > Number(now.dataset.version)) { htmx.trigger(now, "pushed"); }
  });
  source.addEventListener("board", function (event) {
    var now = spoke();
    if (now && Number(event.lastEventId) > Number(now.dataset.version)) {
      htmx.swap(now, event.data, {swapStyle: "outerHTML"});
      ended();
    }
  });
  source.addEventListener("error", function () { heard = 0; state("down"); });
  document.addEventListener("htmx:confirm", function (event) {
    var polled = event.detail.elt.id === "board" && !event.detail.triggeringEvent;  // a poll has no event
    if (polled && heard && Date.now() - heard < QUIET) { event.preventDefault(); }
  });
  document.addEventListener("htmx:afterSettle", ended);
})();

// Chicago Scorekeeper's only script besides the vendored htmx and NoSleep.js. Each part does nothing where
// the browser lacks what it needs (plain HTTP on a table's network has no service worker; the screen is
// kept on there by NoSleep.js, which is loaded only where the Wake Lock API is missing).
(function () {
  "use strict";

  // A tap that got no answer (the network dropped, or the server took too long) may have been saved or
  // not: it is never said to be "not saved". It is sent again by itself, the same form with the same key
  // and version, as soon as the server answers again (the `online` event, and a small request every few
  // seconds: navigator.onLine is wrong on some phones). A key the server recorded answers with what it
  // recorded (TRUST.md W2), so the tap is recorded once; then the banner says "Saved", or the table shows
  // why the tap was refused. The unanswered taps are kept for the tab (sessionStorage): a reload, or the
  // offline page, which reloads itself once the server answers, sends them too. A tap refused with an
  // error page (503 while nothing can be saved, with the reason; a form that expired) shows that page's
  // own words there instead: htmx swaps no error page in.
  var banner = document.getElementById("offline");
  var words = banner ? { failed: banner.textContent, waiting: banner.dataset.waiting, saved: banner.dataset.saved } : {};
  var UNANSWERED = "chicago.unanswered";
  var EVERY = 3000;  // ms between two tries while a tap waits for an answer
  var PATIENCE = 5000;  // ms a try may take
  var sending = null;  // the key of the tap being sent again
  var probing = null;  // the timer of the next try
  var fading = null;  // the timer that takes "Saved" away
  var taps = (function () {  // the unanswered taps, oldest first: {key, path, values, page}
    try { return JSON.parse(sessionStorage.getItem(UNANSWERED) || "[]"); } catch (e) { return []; }
  })();
  function keep() {
    try {
      if (taps.length) { sessionStorage.setItem(UNANSWERED, JSON.stringify(taps)); } else { sessionStorage.removeItem(UNANSWERED); }
    } catch (e) { /* no storage: kept while the page is open */ }
  }
  function show(text, state) {
    if (!banner) { return; }
    banner.textContent = text || words.failed;
    banner.dataset.state = state || "failed";
    banner.hidden = false;
  }
  function hide() { if (banner) { banner.hidden = true; } }
  function saved() {
    show(words.saved, "saved");
    window.clearTimeout(fading);
    fading = window.setTimeout(function () { if (banner.dataset.state === "saved") { hide(); } }, 6000);
  }
  function keyOf(detail) {  // a tap's idempotency key; none for anything else
    var config = detail && detail.requestConfig;
    var data = config && config.verb === "post" && config.formData;
    return (data && data.get && data.get("key")) || null;
  }
  function valuesOf(data) {
    var values = {};
    data.forEach(function (value, name) {
      if (typeof value !== "string") { return; }
      values[name] = name in values ? [].concat(values[name], value) : value;
    });
    return values;
  }
  function unknown(status) { return status === 502 || status === 504; }  // a proxy without the app's answer
  function wordsOf(xhr) {  // an answer's own words: an error page's, or a refusal's
    var page = xhr && new DOMParser().parseFromString(xhr.responseText, "text/html");
    var said = page && page.querySelector("main [role=alert], .refusal");
    return said && said.textContent.trim();
  }
  function reloadWhenBack() {  // the offline page, shown in place of a page the server did not answer
    var url = banner && banner.dataset.probe;
    return !!url && document.querySelector("[data-reload-when-back]") !== null && location.pathname !== url;
  }

  function lost(detail) {
    var key = keyOf(detail);
    if (!key) {  // a read (a spectator's poll comes again by itself), or a form that may not be sent again
      var read = detail && detail.requestConfig && detail.requestConfig.verb === "get";
      if (read) { show(words.waiting, "waiting"); } else { show(); }  // "not saved – tap again"
      return;
    }
    if (sending === key) { sending = null; }
    if (!taps.some(function (tap) { return tap.key === key; })) {
      var config = detail.requestConfig;
      taps.push({ key: key, path: config.path, values: valuesOf(config.formData), page: location.pathname });
      keep();
    }
    show(words.waiting, "waiting");
    later();
  }
  function sendNext() {
    if (sending || !taps.length || !window.htmx || reloadWhenBack()) { return; }
    var tap = taps[0];
    var here = tap.page === location.pathname && document.getElementById("table");
    sending = tap.key;
    show(words.waiting, "waiting");
    htmx.ajax("post", tap.path, {
      source: document.body, values: tap.values,
      target: here ? "#table" : "body", swap: here ? "outerHTML show:window:top" : "none"
    }).catch(function () { /* htmx:sendError or htmx:timeout keeps it */ });
  }
  function probe() {
    probing = null;
    var url = banner && banner.dataset.probe;
    if (!url || !window.fetch || (!taps.length && !reloadWhenBack())) { return; }
    var stop = window.AbortController ? new AbortController() : null;
    var timer = stop && window.setTimeout(function () { stop.abort(); }, PATIENCE);
    fetch(url, { method: "HEAD", cache: "no-store", credentials: "same-origin", signal: stop && stop.signal })
      .then(function (response) {
        window.clearTimeout(timer);
        if (unknown(response.status)) { later(); return; }
        if (reloadWhenBack()) { location.reload(); } else { sendNext(); }
      }, function () { window.clearTimeout(timer); later(); });
  }
  function later() { if (probing === null) { probing = window.setTimeout(probe, EVERY); } }
  window.addEventListener("online", function () { window.clearTimeout(probing); probe(); });

  document.addEventListener("htmx:sendError", function (event) { lost(event.detail); });
  document.addEventListener("htmx:timeout", function (event) { lost(event.detail); });
  document.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail.xhr;
    if (xhr && unknown(xhr.status) && keyOf(event.detail)) { lost(event.detail); return; }
    show(wordsOf(xhr));
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var detail = event.detail;
    var status = detail.xhr ? detail.xhr.status : 0;
    if (!status || unknown(status)) { return; }  // no answer: lost() keeps the tap
    var key = keyOf(detail);
    var waited = taps.length;
    taps = taps.filter(function (tap) { return tap.key !== key; });
    var again = key !== null && (sending === key || taps.length < waited);
    if (sending === key) { sending = null; }
    keep();
    if (again && status >= 200 && status < 300) {
      saved();
    } else if (again && detail.target === document.body && status < 500) {
      show(wordsOf(detail.xhr));  // refused, and answered on a page without its table: the refusal
    } else if (detail.successful) {
      hide();
    }
    sendNext();  // the server answers: the next unanswered tap, if any
  });
  if (taps.length) { show(words.waiting, "waiting"); }
  if (taps.length || reloadWhenBack()) { window.setTimeout(probe, 0); }

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

  // An opened card picker scrolls up under the scores (which stay in view), so that its 52 cards and the
  // button that sends them are on the screen of a small phone; one that fits already stays where it is.
  document.addEventListener("toggle", function (event) {
    var picker = event.target;
    if (!picker.matches || !picker.matches("details.picker") || !picker.open) { return; }
    var form = picker.closest("form") || picker;
    var scores = document.getElementById("scoreboard");
    var below = form.getBoundingClientRect().bottom - window.innerHeight;
    var room = picker.getBoundingClientRect().top - (scores ? scores.offsetHeight : 0) - 4;  // stuck at the top
    if (below > 0 && room > 0) { window.scrollBy(0, Math.min(below + 4, room)); }
  }, true);

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
// is typed (the server says the same once the form is posted; data-named is its translated sentence),
// and Enter in a seat goes on to the next seat while one is empty (issue 25).
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
    if (seat >= 4) { label.closest("label").hidden = !name; }  // seats 5 and 6: offered once named
  });

  // Enter ("Go" on a phone's keyboard) in a seat's field: on to the next empty seat while there is one
  // after a name just typed; from an empty seat, or the last one, it starts the match once two names
  // are in (the hidden first "Start" takes it). The keyboard's key says which: "next" or "go".
  // Without this script Enter starts the match from any seat (the first two are required).
  function seats(form) {  // the seats in sight: 5 and 6 only with "Five or six players" ticked and shown
    return Array.prototype.slice.call(form.querySelectorAll("input[name=name]")).filter(function (seat) {
      return seat.getClientRects().length > 0;
    });
  }
  function nextEmpty(fields, field) {
    if (!field.value.trim()) { return null; }
    var after = fields.slice(fields.indexOf(field) + 1);
    return after.filter(function (seat) { return !seat.value.trim(); })[0] || null;
  }
  function named(fields) { return fields.filter(function (seat) { return seat.value.trim(); }).length; }
  function hints(form) {
    var fields = seats(form);
    var ready = named(fields) >= 2;
    fields.forEach(function (field) {
      field.setAttribute("enterkeyhint", nextEmpty(fields, field) || !ready ? "next" : "go");
    });
  }
  document.querySelectorAll("form.new-match").forEach(hints);
  document.addEventListener("input", function (event) {
    var form = event.target.form;
    if (form && event.target.name === "name" && form.classList.contains("new-match")) { hints(form); }
  });
  document.addEventListener("change", function (event) {  // seats 5 and 6 come and go with their variant
    var form = event.target.form;
    if (form && event.target.name === "more_players" && form.classList.contains("new-match")) { hints(form); }
  });
  document.addEventListener("toggle", function (event) {
    var form = event.target.closest && event.target.closest("form.new-match");
    if (form) { hints(form); }
  }, true);
  document.addEventListener("keydown", function (event) {
    var field = event.target;
    var form = field.form;
    if (event.key !== "Enter" || event.isComposing || !form || field.name !== "name" || !form.classList.contains("new-match")) { return; }
    var fields = seats(form);
    var next = nextEmpty(fields, field);
    if (next) {
      event.preventDefault();
      next.focus();
    }
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

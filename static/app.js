// A tap that got no answer must not look saved: show "not saved – tap again" until the next answer.
(function () {
  "use strict";
  function banner() { return document.getElementById("offline"); }
  function show() { var el = banner(); if (el) { el.hidden = false; } }
  function hide() { var el = banner(); if (el) { el.hidden = true; } }
  document.addEventListener("htmx:sendError", show);
  document.addEventListener("htmx:timeout", show);
  document.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.xhr && event.detail.xhr.status) { hide(); }
  });
})();

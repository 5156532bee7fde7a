// Chicago Scorekeeper's service worker: the app's shell opens without the network.
// The score lives on the server: no POST and no match page or fragment is ever cached here.
"use strict";
const SHELL = {{ shell|tojson }};
const OFFLINE = SHELL[SHELL.length - 1];
const CACHE = "chicago-shell-{{ version }}";

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim())
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") { return; }  // every write goes straight to the server
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) { return; }
  if (SHELL.includes(url.pathname) && url.pathname !== OFFLINE) {
    // fingerprinted files never change under their name
    event.respondWith(caches.match(request).then((hit) => hit || fetch(request)));
  } else if (request.mode === "navigate") {
    // pages always come from the server; only when it cannot be reached, the offline page
    event.respondWith(fetch(request).catch(() => caches.match(OFFLINE)));
  }
});

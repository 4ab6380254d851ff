// The score page's service worker (registered with scope /score only): once the page has been
// loaded, it opens again without a network, e.g. at a table with no reception. Network first, so
// an online page is always the current one; the cache is the fallback. Scoring itself needs the
// server: offline, the page keeps the position and scores it when the network is back.
const CACHE = "tracklayer-score-v3";
const GAMES = ["ttr-europe", "ttr-new-york", "trans-europa", "trans-america"];
const LANGS = ["en", "de", "it", "fr", "nl"];
const FILES = [
  "/score",
  "/static/style.css",
  "/static/score.css",
  "/static/score.js",
  "/static/common.js",
  "/static/i18n.js",
  "/static/board.js",
  "/static/geo.js",
  "/static/results.js",
  "/static/favicon.svg",
  ...LANGS.map((l) => `/static/i18n/${l}.json`),
  ...GAMES.flatMap((g) => [`/api/boards/${g}`, `/api/boards/${g}/tickets`, `/static/geo/${g}.json`]),
];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((c) => Promise.all(FILES.map((f) => c.add(f).catch(() => null))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(keys.filter((k) => k.startsWith("tracklayer-score-") && k !== CACHE).map((k) => caches.delete(k))),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== self.location.origin) return; // POST /api/score goes to the server
  const key = url.pathname === "/score" ? "/score" : req;
  event.respondWith(
    fetch(req)
      .then((res) => {
        if (res.ok) {
          const copy = res.clone();
          caches.open(CACHE).then((c) => c.put(key, copy));
        }
        return res;
      })
      .catch(() => caches.match(key).then((hit) => hit || Response.error())),
  );
});

// The score page works offline: its service worker caches every module the page imports.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

const dir = new URL("../../tracklayer/web/static/", import.meta.url);
const source = (name) => readFileSync(new URL(name, dir), "utf8");

/** The modules a module imports, followed through their own imports. */
function importsOf(name, seen = new Set()) {
  for (const m of source(name).matchAll(/^import [^;]*? from "\.\/([\w-]+\.js)";/gms)) {
    if (!seen.has(m[1])) {
      seen.add(m[1]);
      importsOf(m[1], seen);
    }
  }
  return seen;
}

test("the score page's service worker caches score.js and everything it imports", () => {
  const cached = new Set([...source("score-sw.js").matchAll(/"\/static\/([\w-]+\.js)"/g)].map((m) => m[1]));
  const needed = importsOf("score.js");
  assert.ok(needed.has("i18n.js") && needed.has("geo.js"), "the import scan follows imports");
  for (const name of ["score.js", ...needed]) assert.ok(cached.has(name), `score-sw.js does not cache ${name}`);
});

// A finger's aim on the board: the nearest target within reach, a choice when two lie about as near, and the
// zoom step that makes nine targets in ten at least 44 pixels wide.
import { test } from "node:test";
import assert from "node:assert/strict";
import { aimAt, aimScale, clearance, segmentDistance } from "../../tracklayer/web/static/aim.js";

const seg = (x1, y1, x2, y2, group) => ({ x1, y1, x2, y2, group, label: `s${group}`, fire: () => {} });
const city = (x, y) => ({ x, y, r: 8, label: "c", fire: () => {} });

test("the distance to a segment is to its nearest point, ends included", () => {
  assert.equal(segmentDistance(5, 3, 0, 0, 10, 0), 3);
  assert.equal(segmentDistance(-3, 4, 0, 0, 10, 0), 5);
  assert.equal(segmentDistance(1, 1, 0, 0, 0, 0), Math.SQRT2);
});

test("a tap goes to the nearest route within reach, and to nothing beyond it", () => {
  const a = seg(0, 0, 100, 0, 1),
    b = seg(0, 40, 100, 40, 2);
  const targets = { segments: [a, b], points: [] };
  assert.deepEqual(aimAt(targets, 50, 5, 1), { target: a });
  assert.deepEqual(aimAt(targets, 50, 33, 1), { target: b });
  assert.equal(aimAt(targets, 50, -40, 1), null); // 40 px from a: out of a finger's reach
  assert.deepEqual(aimAt(targets, 50, -40, 0.5), { target: a }); // zoomed out, the same spot is 20 px away
});

test("two targets about as near are offered as a choice, the nearer first", () => {
  const a = seg(0, 0, 100, 0, 1),
    b = seg(0, 20, 100, 20, 2);
  const got = aimAt({ segments: [a, b], points: [] }, 50, 11, 1);
  assert.ok(got && "choose" in got);
  assert.deepEqual(got.choose, [b, a]);
});

test("the lanes of a double route are one target", () => {
  const a = seg(0, 0, 100, 0, 1),
    twin = seg(0, 8, 100, 8, 1);
  assert.deepEqual(aimAt({ segments: [a, twin], points: [] }, 50, 5, 1), { target: twin });
  assert.equal(clearance(a, [a, twin]), Infinity);
});

test("a city counts from its drawn edge: a tap on it is the city's, next to it the route's", () => {
  const c = city(0, 0),
    r = seg(11, 0, 100, 0, 1);
  const targets = { segments: [r], points: [c] };
  assert.deepEqual(aimAt(targets, 0, 0, 1.5), { target: c });
  assert.deepEqual(aimAt(targets, 60, 2, 1.5), { target: r });
});

test("the aim step zooms until nine routes in ten have a 44 px target, at most 4 times", () => {
  // ten parallel routes 20 board units apart: a clearance of 20 units needs 2.2 px a unit
  const segments = Array.from({ length: 10 }, (_, i) => seg(0, i * 20, 200, i * 20, i));
  assert.ok(Math.abs(aimScale({ segments, points: [] }, 1.1) - 2) < 1e-9);
  assert.equal(aimScale({ segments, points: [] }, 2.2), 1); // already big enough: no step
  assert.equal(aimScale({ segments, points: [] }, 0.1), 4); // a tiny board: the step stops at 4
});

// The browser's randomizer agrees bit for bit with the Python client halves: for every committed vector, the same
// random bytes give the same report and consume the same number of bytes (vectors: tests/js/make_vectors.py).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { randomize, respond } from "../../static/js/protocol.mjs";
import { ByteSource } from "../../static/js/random.mjs";

const dir = new URL("./vectors/", import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();

test("there are vectors for every mechanism family", () => {
  for (const prefix of ["ldp-de", "ldp-sue", "ldp-oue", "ldp-she", "ldp-the", "ldp-olh", "ldp-ss", "gaussian-approach-1",
                        "gaussian-approach-2", "gaussian-approach-3", "mrr-one-group", "mrr-two-groups",
                        "mixed-oue", "mixed-de", "mixed-olh", "respond-ldp", "respond-gaussian", "respond-mrr",
                        "respond-mixed"]) {
    assert.ok(files.some((f) => f.startsWith(prefix)), `missing vectors for ${prefix}`);
  }
});

for (const file of files) {
  test(`vectors ${file}`, () => {
    const { protocol, cases, published } = JSON.parse(readFileSync(new URL(file, dir), "utf8"));
    cases.forEach((c, i) => {
      const rng = ByteSource.fromBytes(Uint8Array.from(Buffer.from(c.bytes, "hex")));
      const report = file.startsWith("respond-")
        ? respond(protocol, c.answers, c.class, rng, { published })
        : randomize(protocol, c.answers, c.class, rng);
      assert.deepStrictEqual(JSON.parse(JSON.stringify(report)), c.report, `${file} case ${i}: report differs`);
      assert.equal(rng.consumed, c.consumed, `${file} case ${i}: consumed ${rng.consumed} bytes, Python ${c.consumed}`);
    });
  });
}

test("mixed vectors exercise every input of mixed.mjs: the class, each categorical question, both numeric groups and each numeric question", () => {
  const mixed = files.filter((f) => f.startsWith("mixed-"));
  assert.ok(mixed.length >= 3);
  for (const file of mixed) {
    const { protocol, cases } = JSON.parse(readFileSync(new URL(file, dir), "utf8"));
    const params = protocol.ldp;
    assert.ok(params.mixed && params.categorical.length > 0 && params.numeric.length > 0, file);
    const inputs = params.inputs.length + 2;
    assert.deepStrictEqual([...new Set(cases.map((c) => c.report.input))].sort(), [...Array(inputs).keys()], `${file}: inputs drawn`);
    const numeric = cases.filter((c) => c.report.input >= params.inputs.length).map((c) => c.report.report[0]);
    assert.deepStrictEqual([...new Set(numeric)].sort(), [...params.numeric.keys()], `${file}: numeric questions drawn`);
  }
});

// For tests/survey/test_protocol_version.py: reads a JSON array of protocol API bodies (each as the exact text the
// server sent) on stdin, and writes the JSON array of their protocol versions as the page computes them
// (static/js/memo.mjs protocolVersion of JSON.parse(body).protocol).
import { readFileSync } from "node:fs";

import { protocolVersion } from "../../static/js/memo.mjs";

const bodies = JSON.parse(readFileSync(0, "utf8"));
const versions = [];
for (const body of bodies) versions.push(await protocolVersion(JSON.parse(body).protocol));
process.stdout.write(JSON.stringify(versions));

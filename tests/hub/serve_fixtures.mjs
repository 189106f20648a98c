// The local Hub-shaped server (hub_server.mjs) over the fixture repositories (fixture_repos.mjs),
// for a program outside Node.js (tests/check_docs.py runs the docs' --hf examples against it):
// prints its URL on the first line, serves until its standard input closes.
//   node tests/hub/serve_fixtures.mjs [TOKEN]   (TOKEN: the gated repositories' read token)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startHub } from "./hub_server.mjs";
import { writeFixtureRepos } from "./fixture_repos.mjs";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-hub-fixtures-"));
writeFixtureRepos(path.join(root, "repos"));
const hub = await startHub({ root: path.join(root, "repos"), token: process.argv[2] || "hf_fixture" });
process.stdout.write(hub.url + "\n");
process.stdin.resume();
process.stdin.on("end", async () => {
  await hub.close();
  fs.rmSync(root, { recursive: true, force: true });
  process.exit(0);
});

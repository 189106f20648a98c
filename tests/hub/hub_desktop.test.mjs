// The desktop app reads models by their Hub id from the local Hub-shaped server (hub_server.mjs,
// loopback only): --hf puts the id in the Model section's Hub field and reads it as Read does,
// through the worker thread (src/platform/desktop/hub_worker.cpp: libcurl, HF_ENDPOINT,
// HF_TOKEN); the app's configuration (--state, a link's hash) and its layout (--layout) say what
// it shows. Run: node --test tests/hub/ (after the native build, under a display: xvfb-run).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startHub } from "./hub_server.mjs";
import { writeFixtureRepos } from "./fixture_repos.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const desktop = process.env.VRAMFIT_DESKTOP || path.join(here, "..", "..", "build", "native", "vramfit_desktop");
const TOKEN = "hf_desktopTOKEN0123456789abcdefXYZ";
let root, hub, runs = 0;

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "vramfit-hub-desktop-"));
  writeFixtureRepos(path.join(root, "repos"));
  hub = await startHub({ root: path.join(root, "repos"), token: TOKEN });
});

after(async () => {
  await hub.close();
  fs.rmSync(root, { recursive: true, force: true });
});

// One run of the desktop app with --hf: its configuration, its layout, what it printed and the
// requests the Hub saw. A home, a config folder and a Hub cache of its own.
function readWithDesktop(id, env = {}) {
  const dir = path.join(root, `run-${++runs}`);
  fs.mkdirSync(dir);
  const files = { png: path.join(dir, "shot.png"), layout: path.join(dir, "layout.json"), state: path.join(dir, "state.txt") };
  const clean = { PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: dir, VRAMFIT_HUB_CACHE: path.join(dir, "cache"),
                  HF_ENDPOINT: hub.url, ...env };
  const from = hub.log.length;
  return new Promise(resolve => {
    execFile("xvfb-run", ["-a", "-s", "-screen 0 1400x900x24", desktop, "--hf", id, "--size", "1280x800", "--screenshot", files.png,
                          "--layout", files.layout, "--state", files.state],
             { encoding: "utf8", env: clean, timeout: 120000 }, (error, stdout, stderr) => {
      assert.equal(error, null, `${id}: ${stderr}`);
      const hash = fs.readFileSync(files.state, "utf8").trim();
      const state = hash.startsWith("r=") ? JSON.parse(Buffer.from(hash.slice(2), "base64url").toString("utf8")) : {};
      const layout = JSON.parse(fs.readFileSync(files.layout, "utf8"));
      resolve({ state, hash, layout, stdout: stdout + stderr, requests: hub.log.slice(from), dir });
    });
  });
}

const shown = layout => layout.filter(i => i.visible).map(i => i.shown || i.label).join(" ");

test("desktop: a GGUF repository by its id is read through the Hub field and answered by llama.cpp", async () => {
  const r = await readWithDesktop("org/Tiny-GGUF");
  assert.equal(r.state.model.hub, `org/Tiny-GGUF@${hub.sha("org/Tiny-GGUF")}:Tiny-Q4_K_M.gguf`);
  assert.equal(r.state.engine, "llama.cpp", "a GGUF is answered by llama.cpp");
  assert.equal(r.state.weights.format, "as_stored");
  assert.ok(r.state.model.name.includes("Tiny-Q4_K_M.gguf"));
  const field = r.layout.find(i => i.label === "##hub_id");
  assert.ok(field && field.visible, "the Hub field is drawn");
  assert.ok(r.layout.some(i => i.label === "GGUF file" && i.visible), "the other quantization is offered");
  // Header bytes only, by the ranges the CLI reads (tests/hub/hub_cli.test.mjs): the first MiB, then
  // up to 4 MiB (100,000 tokens make the header longer than one).
  assert.deepEqual(r.requests.filter(e => e.cdn).map(e => e.range), ["bytes=0-1048575", "bytes=1048576-4194303"]);
});

test("desktop: a gated model with HF_TOKEN; the token only to the endpoint, never in the configuration or on screen", async () => {
  const r = await readWithDesktop("https://huggingface.co/meta-llama/Llama-3.1-70B-Instruct", { HF_TOKEN: TOKEN });
  assert.ok(r.state.model.hub.startsWith(`meta-llama/Llama-3.1-70B-Instruct@${hub.sha("meta-llama/Llama-3.1-70B-Instruct")}`));
  assert.equal(r.state.model.config.num_hidden_layers, 80);
  const sent = r.requests.reduce((s, e) => s + e.bytes, 0);
  assert.ok(sent < 2_000_000, `${sent} B for a sharded 70B model's headers`);
  assert.ok(r.requests.filter(e => !e.cdn).every(e => e.authorization === `Bearer ${TOKEN}`), "the token reaches the endpoint");
  assert.ok(r.requests.filter(e => e.cdn).every(e => e.authorization === ""), "never the storage host");
  assert.ok(!r.hash.includes(TOKEN) && !Buffer.from(r.hash.slice(2), "base64url").toString().includes(TOKEN));
  assert.ok(!shown(r.layout).includes(TOKEN) && !r.stdout.includes(TOKEN));
  assert.ok(!fs.existsSync(path.join(r.dir, "vramfit.hub_token")), "nothing remembered unasked");
});

test("desktop: without a token the gated model is refused in words and the model shown is kept", async () => {
  const r = await readWithDesktop("meta-llama/Llama-3.1-70B-Instruct");
  assert.ok(!r.state.model || !r.state.model.hub, "the model shown is kept");
  assert.match(shown(r.layout), /gated: accept the licence on the model page/);
  assert.ok(r.requests.length >= 1);
});

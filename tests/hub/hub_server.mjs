// A Hub-shaped HTTP server on loopback for the Hub client's tests: it serves the repositories
// under `root` (root/<org>/<name>/<files>, as fixture_repos.mjs writes them) the way the
// Hugging Face Hub does, so no test reaches the internet.
//
//   GET /api/models/<org>/<name>/revision/<rev>?blobs=true   the model API (huggingface_hub
//       hf_api.py model_info): {"id", "sha", "gated", "siblings": [{"rfilename", "size", "lfs"}]};
//       404 with X-Error-Code RepoNotFound / RevisionNotFound, as the Hub answers
//   GET /<org>/<name>/resolve/<rev>/<file>   a small file answered directly; an LFS file (over
//       10 MB, as the Hub stores them) redirected (302) to a storage server on another host name
//       (`localhost`, another port), as the Hub sends LFS files to its CDN; Range: bytes=a-b -> 206
//   A repository with a `.gated` file answers files only to `Authorization: Bearer <token>`:
//   401 (no token) or 403 (another token), X-Error-Code GatedRepo.
//   A repository with a `.moved` file (its text: the new id) answers every request with 307 to the
//   new id, as the Hub does for a renamed repository.
//   Faults, by repository: fault/rate-limited (429, Retry-After: 7), fault/html (an HTML page for
//   the model API), fault/cut (the connection closed half way through a range), fault/slow (a
//   range that stalls), fault/loop (a redirect loop), fault/no-range (Range ignored: 200, the
//   whole file).
//   Both answer CORS as the Hub does (preflights included).
// Every request is logged: {host, path, range, authorization, connection (the client's port), status, bytes}.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";

const LFS_THRESHOLD = 10 * 1000 * 1000;

function repoSha(repo) {
  return crypto.createHash("sha1").update(repo).digest("hex");
}

function listFiles(dir, prefix = "") {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith(".")) continue;
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(path.join(dir, entry.name), rel));
    else out.push({ rfilename: rel, size: fs.statSync(path.join(dir, entry.name)).size });
  }
  return out;
}

function parseRange(header, size) {
  const m = /^bytes=(\d+)-(\d*)$/.exec(header || "");
  if (!m) return null;
  const first = Number(m[1]);
  const last = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  return first <= last ? { first, last } : null;
}

// One request in the log: host, path, Range, token, connection, status and bytes sent.
function record(log, req, res, extra = {}) {
  const entry = {
    host: req.headers.host, path: req.url, range: req.headers.range || "",
    authorization: req.headers.authorization || "", connection: req.socket.remotePort, status: 0, bytes: 0, ...extra,
  };
  log.push(entry);
  const write = res.write.bind(res), end = res.end.bind(res);
  res.write = (chunk, ...rest) => { if (chunk) entry.bytes += chunk.length; return write(chunk, ...rest); };
  res.end = (chunk, ...rest) => { if (chunk && typeof chunk !== "function") entry.bytes += chunk.length; entry.status = res.statusCode; return end(chunk, ...rest); };
  return entry;
}

// An error as the Hub answers it: the status, X-Error-Code and X-Error-Message.
function error(res, status, code, message, headers = {}) {
  res.writeHead(status, { "Content-Type": "application/json", ...(code ? { "X-Error-Code": code } : {}),
                          "X-Error-Message": message, ...headers });
  res.end(JSON.stringify({ error: message }));
}

// Sends bytes first..last of a file (or all of it), with the status and headers a Range asks.
function sendFile(req, res, file, sha, fault) {
  const size = fs.statSync(file).size;
  const range = fault === "no-range" ? null : parseRange(req.headers.range, size);
  const first = range ? range.first : 0, last = range ? range.last : size - 1;
  const headers = { "Content-Type": "application/octet-stream", "Accept-Ranges": "bytes", "X-Repo-Commit": sha,
                    "ETag": `"${sha.slice(0, 16)}"`, "Content-Length": String(last - first + 1) };
  if (range) headers["Content-Range"] = `bytes ${first}-${last}/${size}`;
  res.writeHead(range ? 206 : 200, headers);
  if (fault === "slow") return;  // headers, then nothing: the client's timeout ends it
  if (fault === "cut") {
    const half = Math.floor((last - first + 1) / 2);
    const fd = fs.openSync(file, "r");
    const buffer = Buffer.alloc(half);
    fs.readSync(fd, buffer, 0, half, first);
    fs.closeSync(fd);
    res.write(buffer, () => res.socket.destroy());
    return;
  }
  fs.createReadStream(file, { start: first, end: last }).on("error", () => res.socket.destroy()).pipe(res);
}

// ["org", "name", ...], or a legacy one-part id ["gpt2", ...]: two parts when that folder exists.
function repoOf(root, parts) {
  const two = parts.length >= 2 ? path.join(root, parts[0], parts[1]) : "";
  if (two && fs.existsSync(two) && fs.statSync(two).isDirectory()) return { repo: `${parts[0]}/${parts[1]}`, rest: parts.slice(2) };
  return { repo: parts[0] || "", rest: parts.slice(1) };
}

// CORS as the Hub answers it, for the page's fetch(): any origin, the token and Range headers
// allowed, the Hub's error headers readable.
function cors(req, res) {
  res.setHeader("Access-Control-Allow-Origin", "*");
  res.setHeader("Access-Control-Expose-Headers", "X-Error-Code, X-Error-Message, Retry-After, Content-Range, X-Repo-Commit, ETag");
  if (req.method !== "OPTIONS") return false;
  res.writeHead(204, { "Access-Control-Allow-Headers": "Authorization, Range", "Access-Control-Allow-Methods": "GET, HEAD" });
  res.end();
  return true;
}

// The model info (/api/models/<repo>/revision/<rev>): the commit and the files, an LFS file's
// size under lfs; a captive portal's HTML for the "html" fault.
function answerFileList(res, dir, repo, sha, fault, gated) {
  if (fault === "html") {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    return res.end("<!DOCTYPE html><html><head><title>Sign in to the network</title></head><body>captive portal</body></html>");
  }
  const siblings = listFiles(dir).map(f => ({
    ...f, ...(f.size > LFS_THRESHOLD ? { lfs: { size: f.size, sha256: "0".repeat(64), pointerSize: 135 } } : {}),
  }));
  res.writeHead(200, { "Content-Type": "application/json; charset=utf-8" });
  return res.end(JSON.stringify({ _id: sha.slice(0, 24), id: repo, modelId: repo, sha, private: false,
                                  gated: gated ? "manual" : false, disabled: false, siblings }));
}

// The Hub: the model info and /<repo>/resolve/<rev>/<file>, with its redirects (a moved
// repository, large files to the storage host), gated repositories and the faults a repository
// named fault/<kind> asks for.
function answerHub(hub, req, res) {
  const entry = record(hub.log, req, res);
  if (cors(req, res)) return;
  const url = new URL(req.url, "http://hub");
  const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const api = parts[0] === "api" && parts[1] === "models";
  const { repo, rest } = repoOf(hub.root, api ? parts.slice(2) : parts);
  entry.repo = repo;
  const dir = path.join(hub.root, ...repo.split("/"));
  const fault = repo.startsWith("fault/") ? repo.slice(6) : "";
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    return error(res, api ? 404 : 401, "RepoNotFound", "Repository not found");
  }
  if (fs.existsSync(path.join(dir, ".moved"))) {
    const moved = fs.readFileSync(path.join(dir, ".moved"), "utf8").trim();
    const target = req.url.replace(`/${repo}/`, `/${moved}/`);
    res.writeHead(307, { Location: target });
    return res.end();
  }
  if (fault === "rate-limited") return error(res, 429, "", "Too Many Requests", { "Retry-After": "7" });
  const sha = repoSha(repo);
  let revision = "";
  if (api) {
    if (rest[0] !== "revision" || rest.length < 2) return error(res, 400, "", "Bad request");
    revision = rest.slice(1).join("/");
  } else {
    if (rest[0] !== "resolve" || rest.length < 3) return error(res, 404, "", "Not found");
    revision = rest[1];
  }
  if (revision !== "main" && revision !== sha) {
    return error(res, 404, "RevisionNotFound", `Invalid rev id: ${revision}`);
  }
  const gated = fs.existsSync(path.join(dir, ".gated"));
  if (api) return answerFileList(res, dir, repo, sha, fault, gated);
  if (fault === "loop") {
    res.writeHead(302, { Location: req.url });
    return res.end();
  }
  const fileRel = rest.slice(2).join("/");
  const file = path.join(dir, ...rest.slice(2));
  if (!fileRel || !fs.existsSync(file) || !fs.statSync(file).isFile() || path.basename(file).startsWith(".")) {
    return error(res, 404, "EntryNotFound", `${fileRel} does not exist on "${revision}"`);
  }
  if (gated) {
    const auth = req.headers.authorization || "";
    if (!auth) return error(res, 401, "GatedRepo", `Access to model ${repo} is restricted. You must have access to it and be authenticated to access it. Please log in.`);
    if (auth !== `Bearer ${hub.token}`) return error(res, 403, "GatedRepo", `Access to model ${repo} is restricted and you are not in the authorized list.`);
  }
  if (fs.statSync(file).size > LFS_THRESHOLD && !fault) {
    const location = `${hub.cdnBase}/repos/${encodeURIComponent(repo)}/${sha}/${rest.slice(2).map(encodeURIComponent).join("/")}` +
                     `?X-Amz-Expires=3600&X-Amz-Signature=${sha.slice(0, 12)}`;
    res.writeHead(302, { Location: location, "X-Repo-Commit": sha });
    return res.end();
  }
  sendFile(req, res, file, sha, fault);
}

export async function startHub({ root, token }) {
  const log = [];
  const sockets = new Set();
  const state = { root, token, log, cdnBase: "" };
  const hub = http.createServer((req, res) => answerHub(state, req, res));

  // The storage host: answers any path /repos/<repo>/<sha>/<file> with the file, ranges honoured.
  const cdn = http.createServer((req, res) => {
    record(log, req, res, { cdn: true });
    if (cors(req, res)) return;
    const url = new URL(req.url, "http://cdn");
    const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    if (parts[0] !== "repos" || parts.length < 4) return error(res, 404, "", "Not found");
    const file = path.join(root, ...parts[1].split("/"), ...parts.slice(3));
    if (!fs.existsSync(file)) return error(res, 404, "", "Not found");
    sendFile(req, res, file, parts[2], "");
  });

  for (const server of [hub, cdn]) server.on("connection", s => { sockets.add(s); s.on("close", () => sockets.delete(s)); });
  const listen = server => new Promise(resolve => server.listen(0, "127.0.0.1", () => resolve(server.address().port)));
  const hubPort = await listen(hub), cdnPort = await listen(cdn);
  state.cdnBase = `http://localhost:${cdnPort}`;
  return {
    url: `http://127.0.0.1:${hubPort}`,
    cdnBase: state.cdnBase,
    log,
    sha: repoSha,
    close: () => new Promise(resolve => {
      for (const s of sockets) s.destroy();
      let open = 2;
      for (const server of [hub, cdn]) server.close(() => { if (--open === 0) resolve(); });
    }),
  };
}

// vramfit's JavaScript API over the core-only WebAssembly module (vramfit_estimator.js/.wasm).
//
//   <script src="vramfit_estimator.js"></script>
//   <script src="vramfit-api.js"></script>
//   const vramfit = await loadVramfit();
//   const report = vramfit.estimate({model: {preset: "llama-3.1-8b"}, context_tokens: 8192});
//   report.breakdown.total_bytes, report.fit.fits, report.fit.max_context_tokens ...
//
// The request is the same JSON as the CLI's --request file (README, "Request JSON").
// Errors come back as {error: {id, field, message}}, never as exceptions.
(function (global) {
  "use strict";

  // The API over one instance of the module.
  function wrap(module) {
    return {
      // request: an object or a JSON string; returns the report object.
      estimate(request) {
        const text = typeof request === "string" ? request : JSON.stringify(request);
        return JSON.parse(callString(module, "_vramfit_estimate", text));
      },
      // The same, JSON text in and out (byte for byte what `vramfit infer --json` computes).
      estimateJson(text) {
        return callString(module, "_vramfit_estimate", text);
      },
      // {models, gpus, formats, kv_cache_dtypes}
      catalog() {
        return JSON.parse(callString(module, "_vramfit_catalog"));
      },
      // A pasted engine command line ("llama-server -m x.gguf -c 32768 -ngl 99",
      // "vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2") as request fields:
      // {fields: {engine, "<engine>": {...}, model?, weights?}, model_file, notes} or {error}.
      // Merge fields into a request and call estimate(); notes say what was set aside.
      readCommand(line) {
        return JSON.parse(callString(module, "_vramfit_read_command", line));
      },
      // A dropped File (or Blob with a name): reads only its header bytes with slice(),
      // growing the slice while a GGUF header runs on, and returns the request fields it
      // gives ({model, weights}) or {error}. Merge them into a request and call estimate().
      async readModelFile(file) {
        const name = file.name || "model";
        // The slices follow the one header-reading policy of the CLI and the desktop
        // (io/header_reads.hpp): GGUF from 1 MiB up, safetensors its stated header, a config whole.
        let length = nextRead(module, name, file.size, 0, null, false);
        for (;;) {
          const bytes = new Uint8Array(await file.slice(0, length).arrayBuffer());
          const result = readBytes(module, name, bytes, file.size);
          const runsOn = !!(result.error && result.error.id === "gguf.truncated");
          const next = nextRead(module, name, file.size, length, bytes, runsOn);
          if (next === 0) return result;
          length = next;
        }
      },
      // A model by its Hugging Face id, as people copy it: "Qwen/Qwen3-8B", "org/name@revision",
      // "unsloth/Qwen3-8B-GGUF:Q4_K_M", "https://huggingface.co/org/name/blob/main/x.gguf".
      // Reads the file list, config.json and the safetensors or GGUF headers with fetch() and
      // Range (never the weights) and returns {model, weights, hub: {repo, revision, sha, file,
      // ggufs, files_read, notes, bytes_fetched, fetches}} or {error: {id, field, message}}.
      // options: endpoint (a mirror; default the Hub), token (sent only to the endpoint, as a
      // bearer header; kept nowhere), signal (an AbortSignal: cancel), onProgress({files_done,
      // files_planned, bytes_fetched}), fetch (another fetch()).
      async readHubModel(id, options = {}) {
        const token = options.token || "";
        const doFetch = options.fetch || globalThis.fetch;
        let step = JSON.parse(withString(module, String(id), idPointer => withString(module, options.endpoint || "", endpointPointer =>
          takeString(module, module._vramfit_hub_begin(idPointer, endpointPointer, token ? 1 : 0)))));
        if (step.error) return step;
        const handle = step.handle;
        const endpointOrigin = new URL(step.fetch.url).origin;
        try {
          while (step.fetch) {
            const answer = await hubGet(doFetch, step.fetch, token, endpointOrigin, options.signal);
            if (answer.cancelled) {
              return { error: { id: "hub.cancelled", field: "hf", message: `hf: ${id}: cancelled` } };
            }
            step = JSON.parse(withBytes(module, answer.body, pointer => withString(module, JSON.stringify(answer.headers), headersPointer =>
              takeString(module, module._vramfit_hub_answer(handle, answer.status, pointer, answer.body.length, headersPointer)))));
            if (options.onProgress) options.onProgress(step.progress);
          }
        } finally {
          module._vramfit_hub_end(handle);
        }
        return step.error ? { error: step.error } : step.model;
      },
    };
  }

  // One GET: the Range asked, the token only to the endpoint's origin (fetch drops an
  // Authorization header on a redirect to another origin, as the Hub sends files to its
  // storage), the body read up to what was asked (a server that ignores Range is not read on).
  async function hubGet(doFetch, fetch, token, endpointOrigin, signal) {
    const headers = {};
    if (fetch.first >= 0) headers.Range = `bytes=${fetch.first}-${fetch.last}`;
    if (token && new URL(fetch.url).origin === endpointOrigin) headers.Authorization = `Bearer ${token}`;
    const limit = fetch.first >= 0 ? fetch.last - fetch.first + 1 : 64 * 1024 * 1024;
    const host = new URL(fetch.url).host;
    let response;
    try {
      response = await doFetch(fetch.url, { headers, signal, credentials: "omit", redirect: "follow" });
    } catch (e) {
      if (signal && signal.aborted) return { cancelled: true };
      return { status: 0, body: new Uint8Array(0), headers: { transport_error: `cannot reach ${host} (${e.message})` } };
    }
    const got = name => response.headers.get(name) || "";
    const answer = { status: response.status, body: new Uint8Array(0),
                     headers: { content_type: got("content-type"), error_code: got("x-error-code"),
                                error_message: got("x-error-message"), retry_after: got("retry-after") } };
    const chunks = [];
    let length = 0;
    try {
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        length += value.length;
        if (length > limit) {
          await reader.cancel();
          const more = fetch.first >= 0 ? `the server ignored the Range request (it sent more than the ${limit.toLocaleString("en")} B asked)`
                                        : "more than 64 MiB: not a file vramfit reads whole";
          return { status: 0, body: new Uint8Array(0), headers: { transport_error: more } };
        }
        chunks.push(value);
      }
    } catch (e) {
      if (signal && signal.aborted) return { cancelled: true };
      return { status: 0, body: new Uint8Array(0), headers: { transport_error: `the connection was cut after ${length.toLocaleString("en")} B` } };
    }
    answer.body = new Uint8Array(length);
    let at = 0;
    for (const c of chunks) { answer.body.set(c, at); at += c.length; }
    return answer;
  }

  // A C function of the module taking a string (or nothing) and returning a string it allocated.
  function callString(module, name, argument) {
    let argPointer = 0;
    if (argument !== undefined) {
      const length = module.lengthBytesUTF8(argument) + 1;
      argPointer = module._malloc(length);
      module.stringToUTF8(argument, argPointer, length);
    }
    const resultPointer = argument !== undefined ? module[name](argPointer) : module[name]();
    const text = module.UTF8ToString(resultPointer);
    module._vramfit_free(resultPointer);
    if (argPointer) module._free(argPointer);
    return text;
  }
  function takeString(module, pointer) {
    const text = module.UTF8ToString(pointer);
    module._vramfit_free(pointer);
    return text;
  }

  function withBytes(module, bytes, use) {
    const pointer = module._malloc(Math.max(1, bytes ? bytes.length : 0));
    if (bytes) module.HEAPU8.set(bytes, pointer);
    try { return use(pointer); } finally { module._free(pointer); }
  }

  function withString(module, text, use) {
    const pointer = allocString(module, text);
    try { return use(pointer); } finally { module._free(pointer); }
  }

  function nextRead(module, name, fileSize, previous, bytes, runsOn) {
    return withString(module, name, namePointer => withBytes(module, bytes, pointer =>
      module._vramfit_next_header_read(namePointer, fileSize, previous, pointer, runsOn ? 1 : 0)));
  }

  function readBytes(module, name, bytes, fileSize) {
    return withString(module, name, namePointer => withBytes(module, bytes, pointer => {
      const result = module._vramfit_read_model_file(namePointer, pointer, bytes.length, fileSize);
      const text = module.UTF8ToString(result);
      module._vramfit_free(result);
      return JSON.parse(text);
    }));
  }

  function allocString(module, text) {
    const length = module.lengthBytesUTF8(text) + 1;
    const pointer = module._malloc(length);
    module.stringToUTF8(text, pointer, length);
    return pointer;
  }

  // options: passed to createVramfit (e.g. {locateFile} to find vramfit_estimator.wasm elsewhere).
  global.loadVramfit = async function (options) {
    if (typeof global.createVramfit !== "function") {
      throw new Error("vramfit: load vramfit_estimator.js before calling loadVramfit()");
    }
    return wrap(await global.createVramfit(options || {}));
  };
  // The app page wraps its own module (which exports the same functions) with this.
  global.vramfitWrap = wrap;
  if (typeof module !== "undefined" && module.exports) module.exports = { wrap };
})(typeof window !== "undefined" ? window : globalThis);

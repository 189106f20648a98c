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

  function wrap(module) {
    function callString(name, argument) {
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
    return {
      // request: an object or a JSON string; returns the report object.
      estimate(request) {
        const text = typeof request === "string" ? request : JSON.stringify(request);
        return JSON.parse(callString("_vramfit_estimate", text));
      },
      // The same, JSON text in and out (byte for byte what `vramfit infer --json` computes).
      estimateJson(text) {
        return callString("_vramfit_estimate", text);
      },
      // {models, gpus, formats, kv_cache_dtypes}
      catalog() {
        return JSON.parse(callString("_vramfit_catalog"));
      },
      // A pasted engine command line ("llama-server -m x.gguf -c 32768 -ngl 99",
      // "vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2") as request fields:
      // {fields: {engine, "<engine>": {...}, model?, weights?}, model_file, notes} or {error}.
      // Merge fields into a request and call estimate(); notes say what was set aside.
      readCommand(line) {
        return JSON.parse(callString("_vramfit_read_command", line));
      },
      // A dropped File (or Blob with a name): reads only its header bytes with slice(),
      // growing the slice while a GGUF header runs on, and returns the request fields it
      // gives ({model, weights}) or {error}. Merge them into a request and call estimate().
      async readModelFile(file) {
        const name = file.name || "model";
        // The slices follow the one header-reading policy of the CLI and the desktop
        // (io/header_reads.hpp): GGUF from 1 MiB up, safetensors its stated header, a config whole.
        let length = nextRead(name, file.size, 0, null, false);
        for (;;) {
          const bytes = new Uint8Array(await file.slice(0, length).arrayBuffer());
          const result = readBytes(name, bytes, file.size);
          const runsOn = !!(result.error && result.error.id === "gguf.truncated");
          const next = nextRead(name, file.size, length, bytes, runsOn);
          if (next === 0) return result;
          length = next;
        }
      },
    };

    function withBytes(bytes, use) {
      const pointer = module._malloc(Math.max(1, bytes ? bytes.length : 0));
      if (bytes) module.HEAPU8.set(bytes, pointer);
      try { return use(pointer); } finally { module._free(pointer); }
    }

    function withString(text, use) {
      const pointer = allocString(text);
      try { return use(pointer); } finally { module._free(pointer); }
    }

    function nextRead(name, fileSize, previous, bytes, runsOn) {
      return withString(name, namePointer => withBytes(bytes, pointer =>
        module._vramfit_next_header_read(namePointer, fileSize, previous, pointer, runsOn ? 1 : 0)));
    }

    function readBytes(name, bytes, fileSize) {
      return withString(name, namePointer => withBytes(bytes, pointer => {
        const result = module._vramfit_read_model_file(namePointer, pointer, bytes.length, fileSize);
        const text = module.UTF8ToString(result);
        module._vramfit_free(result);
        return JSON.parse(text);
      }));
    }

    function allocString(text) {
      const length = module.lengthBytesUTF8(text) + 1;
      const pointer = module._malloc(length);
      module.stringToUTF8(text, pointer, length);
      return pointer;
    }
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

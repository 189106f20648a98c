// vramfit's JavaScript API over the core-only WebAssembly module (vramfit_api.js/.wasm).
//
//   <script src="vramfit_api.js"></script>
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
      // A dropped File (or Blob with a name): reads only its header bytes with slice(),
      // growing the slice while a GGUF header runs on, and returns the request fields it
      // gives ({model, weights}) or {error}. Merge them into a request and call estimate().
      async readModelFile(file) {
        const name = file.name || "model";
        const lower = name.toLowerCase();
        const kind = lower.endsWith(".gguf") ? "gguf" : lower.endsWith(".safetensors") ? "safetensors"
                   : lower.endsWith(".json") ? "config" : null;
        if (!kind) {
          return {error: {id: "file.unknown_kind", field: "file",
                          message: name + ": not a .gguf, .safetensors or config.json file"}};
        }
        let length = kind === "gguf" ? 1 << 20 : Math.min(file.size, 16 << 20);
        if (kind === "safetensors") {
          const head = new Uint8Array(await file.slice(0, 8).arrayBuffer());
          length = 8;
          if (head.length === 8) {
            const header = Number(new DataView(head.buffer).getBigUint64(0, true));
            length = 8 + Math.min(header, 100 * 1000 * 1000 + 1);  // the reader rejects > 100 MB
          }
        }
        for (;;) {
          const bytes = new Uint8Array(await file.slice(0, length).arrayBuffer());
          const result = readBytes(kind, bytes, file.size, name);
          const more = result.error && result.error.id === "gguf.truncated" && length < file.size && length < MAX_GGUF_HEADER;
          if (!more) return result;
          length = Math.min(length * 4, MAX_GGUF_HEADER);
        }
      },
    };

    function readBytes(kind, bytes, fileSize, name) {
      const pointer = module._malloc(Math.max(1, bytes.length));
      module.HEAPU8.set(bytes, pointer);
      const kindPointer = allocString(kind), namePointer = allocString(name);
      const result = module._vramfit_read_model_file(kindPointer, pointer, bytes.length, fileSize, namePointer);
      const text = module.UTF8ToString(result);
      [pointer, kindPointer, namePointer].forEach(p => module._free(p));
      module._vramfit_free(result);
      return JSON.parse(text);
    }

    function allocString(text) {
      const length = module.lengthBytesUTF8(text) + 1;
      const pointer = module._malloc(length);
      module.stringToUTF8(text, pointer, length);
      return pointer;
    }
  }

  const MAX_GGUF_HEADER = 256 << 20;  // GgufLimits::max_header_bytes

  // options: passed to createVramfit (e.g. {locateFile} to find vramfit_api.wasm elsewhere).
  global.loadVramfit = async function (options) {
    if (typeof global.createVramfit !== "function") {
      throw new Error("vramfit: load vramfit_api.js before calling loadVramfit()");
    }
    return wrap(await global.createVramfit(options || {}));
  };
  // The app page wraps its own module (which exports the same functions) with this.
  global.vramfitWrap = wrap;
  if (typeof module !== "undefined" && module.exports) module.exports = { wrap };
})(typeof window !== "undefined" ? window : globalThis);

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
    };
  }

  // options: passed to createVramfit (e.g. {locateFile} to find vramfit_api.wasm elsewhere).
  global.loadVramfit = async function (options) {
    if (typeof global.createVramfit !== "function") {
      throw new Error("vramfit: load vramfit_api.js before calling loadVramfit()");
    }
    return wrap(await global.createVramfit(options || {}));
  };
  if (typeof module !== "undefined" && module.exports) module.exports = { wrap };
})(typeof window !== "undefined" ? window : globalThis);

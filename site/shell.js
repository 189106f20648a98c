// The page around the app (index.html and embed.html): canvas, loading indicator, clear
// messages when WebGL 2 is missing or the context is lost, and the events that wake the
// app's render loop (it sleeps when nothing happens). After load it requests nothing but its
// own core-only module (same origin), on the first model file.
(function () {
  "use strict";
  const canvas = document.getElementById("canvas");
  const status = document.getElementById("status");
  const started = performance.now();

  function show(message, isError) {
    status.textContent = message;
    status.className = isError ? "error" : "";
    status.style.display = "block";
  }

  // Without WebGL 2 the app cannot draw; the page says so. Only the API's presence is checked
  // here (a probe context costs as much as the app's own); a context the browser refuses
  // (blocklisted GPU, disabled) is reported by the app through vramfitFail().
  const messages = {
    webgl2: "vramfit needs WebGL 2, which this browser does not offer (or it is disabled). " +
            "The command-line tool computes the same numbers.",
  };
  window.vramfitFail = function (what) {
    window.vramfitFailed = what;
    show(messages[what] || "vramfit could not start: " + what, true);
  };
  if (!window.WebGL2RenderingContext) {
    window.vramfitFail("webgl2");
    return;
  }
  window.vramfitFirstFrame = function () {
    window.vramfitTiming = {firstFrameMs: performance.now() - started, sinceNavigationMs: performance.now()};
    status.style.display = "none";
    canvas.focus();
  };

  canvas.addEventListener("webglcontextlost", function (event) {
    event.preventDefault();
    show("The graphics context was lost (the GPU was reset or is busy). Reload the page; your configuration is in the link.", true);
  });

  const wake = () => { if (window.Module && Module._vramfit_wake) Module._vramfit_wake(); };
  ["pointermove", "pointerdown", "pointerup", "wheel", "keydown", "keyup", "touchstart", "touchmove", "touchend",
   "focus", "blur", "paste"].forEach(name => canvas.addEventListener(name, wake, {passive: true}));
  window.addEventListener("resize", wake);
  window.addEventListener("hashchange", () => { if (window.Module && Module._vramfit_hash_changed) Module._vramfit_hash_changed(); });
  if (window.matchMedia) matchMedia("(resolution: 1dppx)").addEventListener("change", wake);

  // The core-only module (vramfit_estimator.js/.wasm, the JavaScript API of site/api.html, with its
  // wrapper vramfit-api.js) reads dropped model files and answers window.vramfitApi(). It is
  // fetched on first use, not with the page: most visits never drop a file. The single-file
  // page inlines it.
  const loadScript = (src, ready) => ready() ? Promise.resolve() : new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = src;
    script.onload = resolve;
    script.onerror = () => reject(new Error("could not load " + src));
    document.head.appendChild(script);
  });
  let api = null;
  window.vramfitApi = function () {
    if (!api) {
      api = loadScript("vramfit-api.js", () => typeof window.loadVramfit === "function")
        .then(() => loadScript("vramfit_estimator.js", () => typeof window.createVramfit === "function"))
        // The single file carries the estimator's wasm inline (scripts/single_file.py): a fresh
        // options object each time, since Emscripten writes into the one it is given.
        .then(() => window.loadVramfit(window.VRAMFIT_ESTIMATOR_WASM ? {wasmBinary: window.VRAMFIT_ESTIMATOR_WASM()} : {}));
      api.catch(() => { api = null; });  // a failed load may be retried
    }
    return api;
  };

  // The app's widgets by label with their rectangles in CSS pixels (the last frame drawn), for
  // tests that tap what a person taps: [{label, x, y, w, h, visible}, ...].
  window.vramfitLayout = function () {
    return window.Module && Module._vramfit_layout ? JSON.parse(Module.UTF8ToString(Module._vramfit_layout())) : [];
  };

  // A model file from a drop or the file picker: only its header bytes are read
  // (File.slice), nothing is sent; the app gets the request fields it gives.
  async function useModelFile(file) {
    if (!file || !window.Module || !Module._vramfit_apply_fragment) return;
    let fragment;
    try {
      fragment = await (await window.vramfitApi()).readModelFile(file);
    } catch (error) {
      fragment = {error: {id: "file.unreadable", field: "file", message: String(error && error.message || error)}};
    }
    const text = JSON.stringify(fragment);
    const length = Module.lengthBytesUTF8(text) + 1;
    const pointer = Module._malloc(length);
    Module.stringToUTF8(text, pointer, length);
    Module._vramfit_apply_fragment(pointer);
    Module._free(pointer);
  }
  canvas.addEventListener("dragover", event => event.preventDefault());
  canvas.addEventListener("drop", event => {
    event.preventDefault();
    useModelFile(event.dataTransfer && event.dataTransfer.files[0]);
  });
  // The app's "Open file..." button (phones and tablets cannot drop files).
  window.vramfitOpenFile = function () {
    const input = document.createElement("input");
    input.type = "file";
    input.accept = ".gguf,.safetensors,.json";
    input.addEventListener("change", () => useModelFile(input.files[0]));
    input.click();
  };

  window.Module = Object.assign(window.Module || {}, {
    canvas: canvas,  // output goes to the console (Emscripten's default print / printErr)
    onAbort: what => show("vramfit stopped: " + what, true),
  });
  show("Loading vramfit…", false);
  const script = document.createElement("script");
  script.src = "vramfit_app.js";
  script.async = true;
  script.onerror = () => show("Could not load vramfit_app.js.", true);
  if (!window.VRAMFIT_INLINE) document.body.appendChild(script);
})();

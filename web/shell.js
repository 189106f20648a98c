// The page around the app (index.html and embed.html): canvas, loading indicator, clear
// messages when WebGL 2 is missing or the context is lost, and the events that wake the
// app's render loop (it sleeps when nothing happens). After load it requests nothing but
// vramfit-api.js (same origin), on the first model file or Hub id, and the Hub endpoint the app's
// Hub field names, when a model is read by its id.
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

  // The app's exports exist before its wasm is ready; the first drawn frame says it is.
  const running = () => !!window.vramfitTiming;
  const wake = () => { if (running()) Module._vramfit_wake(); };
  ["keydown", "keyup", "focus", "blur"].forEach(name => window.addEventListener(name, wake, {passive: true}));
  window.addEventListener("resize", wake);
  const ready = running;

  // Pointer input, fed to Dear ImGui by the page itself (Emscripten's GLFW port maps touch to
  // one mouse whose press lands where the pointer last was, and scrolls the wheel backwards):
  // a mouse or pen is a mouse; a finger that lifts where it landed is a tap (a click there),
  // a finger that moves scrolls what is under it and never clicks.
  const SOURCE = {mouse: 0, touch: 1, pen: 2};
  const TAP_SLOP = 10;  // CSS pixels a finger may move and still tap
  let finger = null;    // the tracked touch: {id, x0, y0, x, y, moved}
  // Calls one of the app's exports with a string (UTF-8 in the module's memory, freed after).
  const withString = (text, exported) => {
    const size = Module.lengthBytesUTF8(text) + 1, pointer = Module._malloc(size);
    Module.stringToUTF8(text, pointer, size);
    exported(pointer);
    Module._free(pointer);
  };
  const position = (x, y, source) => Module._vramfit_pointer(x, y, SOURCE[source] || 0);
  canvas.addEventListener("pointerdown", event => {
    if (!ready()) return;
    event.preventDefault();  // no compatibility mouse events, no browser gestures
    if (event.pointerType === "touch") {
      if (finger) return;    // a second finger: the first one decides
      finger = {id: event.pointerId, x0: event.offsetX, y0: event.offsetY, x: event.offsetX, y: event.offsetY, moved: false};
      position(event.offsetX, event.offsetY, "touch");
    } else {
      canvas.setPointerCapture(event.pointerId);
      pressedAt = {x: event.offsetX, y: event.offsetY};
      position(event.offsetX, event.offsetY, event.pointerType);
      Module._vramfit_button(event.button === 2 ? 1 : event.button === 1 ? 2 : 0, 1, SOURCE[event.pointerType] || 0);
      if (event.button === 2) textField.underPointer(event);
    }
    wake();
  });
  canvas.addEventListener("pointermove", event => {
    if (!ready()) return;
    if (event.pointerType !== "touch") { position(event.offsetX, event.offsetY, event.pointerType); wake(); return; }
    if (!finger || finger.id !== event.pointerId) return;
    if (!finger.moved && Math.hypot(event.offsetX - finger.x0, event.offsetY - finger.y0) > TAP_SLOP) finger.moved = true;
    if (finger.moved) {
      Module._vramfit_touch_scroll(finger.x - event.offsetX, finger.y - event.offsetY, finger.scrolled ? 0 : 1);
      finger.scrolled = true;
    }
    finger.x = event.offsetX;
    finger.y = event.offsetY;
    wake();
  });
  // Browsers open a file picker only inside an input event's handler (iOS Safari strictly,
  // Chrome for a few seconds after one): a click or tap on the app's Open button (its box:
  // window.vramfitOpenFileBox, set by the app each frame) opens it here, in the release itself.
  let pressedAt = null;              // where the mouse or pen went down
  let pickerOpenedAt = -Infinity;    // when a release on the Open button opened the picker
  const onOpenButton = point => {
    const box = window.vramfitOpenFileBox;
    return !!box && !!point && point.x >= box[0] && point.x < box[2] && point.y >= box[1] && point.y < box[3];
  };
  const pointerEnd = (event, cancelled) => {
    if (!ready()) return;
    const tap = finger && finger.id === event.pointerId && !finger.moved;
    const pressed = event.pointerType === "touch" ? (tap ? {x: finger.x0, y: finger.y0} : null) : event.button === 0 ? pressedAt : null;
    if (!cancelled && onOpenButton(pressed) && onOpenButton(tap ? pressed : {x: event.offsetX, y: event.offsetY})) {
      pickerOpenedAt = performance.now();
      openFilePicker();
    }
    if (event.pointerType !== "touch") {
      pressedAt = null;
      Module._vramfit_button(event.button === 2 ? 1 : event.button === 1 ? 2 : 0, 0, SOURCE[event.pointerType] || 0);
    } else if (finger && finger.id === event.pointerId) {
      if (!finger.moved && !cancelled) {  // a tap: press and release where the finger is
        position(finger.x0, finger.y0, "touch");
        Module._vramfit_button(0, 1, SOURCE.touch);
        Module._vramfit_button(0, 0, SOURCE.touch);
        textField.tapped(finger.x0, finger.y0);
      }
      finger = null;
      // A lifted finger hovers nothing (no tooltip stays where it was); queued after the release,
      // Dear ImGui takes it on a later frame than the tap's click.
      Module._vramfit_pointer_left();
    }
    wake();
  };
  canvas.addEventListener("pointerup", event => pointerEnd(event, false));
  canvas.addEventListener("pointercancel", event => pointerEnd(event, true));
  canvas.addEventListener("pointerleave", event => {
    if (ready() && event.pointerType === "mouse") { Module._vramfit_pointer_left(); wake(); }
  });
  // The wheel and trackpad in the browser's direction, about three lines per notch (100 CSS
  // pixels, or 3 lines in line mode); Dear ImGui scrolls five lines per wheel unit.
  // In a frame (an embed in a documentation page), a wheel the app cannot use (nothing to
  // scroll under the pointer, or at its end) is the browser's: the page around it scrolls. A
  // page of its own keeps every wheel (a sideways one would otherwise go back in history).
  const inFrame = window.self !== window.top;
  canvas.addEventListener("wheel", event => {
    if (!ready()) return;
    const perUnit = event.deltaMode === 1 ? 5 : event.deltaMode === 2 ? 0.25 : 500 / 3;
    const dx = -event.deltaX / perUnit, dy = -event.deltaY / perUnit;
    position(event.offsetX, event.offsetY, "mouse");
    if (inFrame && !event.ctrlKey && !Module._vramfit_wheel_used(dx, dy)) { wake(); return; }
    event.preventDefault();
    Module._vramfit_wheel(dx, dy);
    wake();
  }, {passive: false});

  // Text input through a real (invisible) text field that the app places over its active
  // text box: the on-screen keyboard on phones, input methods, paste (Ctrl/Cmd+V,
  // Shift+Insert, the context menu) and the characters typed all arrive through it.
  const textField = (function () {
    const field = document.createElement("textarea");
    field.id = "text-input";
    field.setAttribute("aria-label", "text");
    field.setAttribute("autocomplete", "off");
    field.setAttribute("autocapitalize", "off");
    field.setAttribute("spellcheck", "false");
    field.style.cssText = "position:fixed;left:-1000px;top:0;width:1px;height:1px;opacity:0;border:0;padding:0;" +
                          "margin:0;resize:none;font-size:16px;pointer-events:none;z-index:1";
    document.body.appendChild(field);
    let active = false;
    const send = text => {
      if (!text || !ready()) return;
      withString(text, Module._vramfit_text);
      wake();
    };
    field.addEventListener("input", event => {
      const type = event.inputType || "";
      if (type.startsWith("delete")) Module._vramfit_backspace();  // on-screen keyboards send no key codes
      else if (type !== "insertLineBreak" && type !== "insertParagraph") send(event.data || field.value);
      field.value = "";
      wake();
    });
    // Ctrl+V and Shift+Insert are Dear ImGui's own paste: the text is handed over before ImGui
    // sees the keys. A paste without them (the context menu, Cmd+V) is inserted as typed text.
    let pasteKeys = false;
    field.addEventListener("keydown", event => {
      pasteKeys = (event.ctrlKey && !event.metaKey && event.key.toLowerCase() === "v") || (event.shiftKey && event.key === "Insert");
      wake();
    });
    field.addEventListener("paste", event => {
      event.preventDefault();
      const text = (event.clipboardData.getData("text/plain") || "").replace(/\r\n?/g, "\n");
      if (!ready()) return;
      withString(text, Module._vramfit_clipboard);
      if (!pasteKeys) send(text);
      pasteKeys = false;
      wake();
    });
    return {
      // The app's active text box (CSS pixels), or none: called by the app when it changes.
      place(isActive, x, y, w, h) {
        active = isActive;
        if (isActive) {
          Object.assign(field.style, {left: x + "px", top: y + "px", width: w + "px", height: h + "px"});
          if (document.activeElement !== field) field.focus({preventScroll: true});
        } else {
          field.style.left = "-1000px";
          if (document.activeElement === field) canvas.focus({preventScroll: true});
        }
      },
      // A tap on a text box focuses the field within the tap itself, as phones require before
      // they show their keyboard.
      tapped(x, y) {
        const box = window.vramfitLayout().find(w => w.inputable && x >= w.x && x < w.x + w.w && y >= w.y && y < w.y + w.h);
        if (box) this.place(true, box.x, box.y, box.w, box.h);
      },
      // A right click on the active text box: the browser's context menu is the field's (Paste).
      underPointer(event) {
        if (!active) return;
        field.style.pointerEvents = "auto";
        setTimeout(() => { field.style.pointerEvents = "none"; }, 1000);
      },
    };
  })();
  window.vramfitTextField = (isActive, x, y, w, h) => textField.place(isActive, x, y, w, h);
  window.addEventListener("hashchange", () => { if (running()) Module._vramfit_hash_changed(); });
  if (window.matchMedia) matchMedia("(resolution: 1dppx)").addEventListener("change", wake);

  // The JavaScript API over the app's own module (which exports the core-only module's
  // functions too): vramfit-api.js's wrap, loaded on first use (a dropped file, a Hub id); the
  // single-file page inlines it. window.vramfitApi() answers it, as loadVramfit() does.
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
      api = loadScript("vramfit-api.js", () => typeof window.vramfitWrap === "function").then(() => window.vramfitWrap(Module));
      api.catch(() => { api = null; });  // a failed load may be retried
    }
    return api;
  };

  // A model by its Hugging Face id (the app's Hub field): the JavaScript API's readHubModel reads
  // the file list, config.json and the weights' headers with fetch() and Range from the endpoint
  // the field names (the token only to it), and the app gets the progress and the answer. One
  // reading at a time; Cancel aborts its requests.
  let hubReading = null;
  window.vramfitReadHub = function (id, endpoint, token) {
    if (hubReading) hubReading.abort();
    const reading = hubReading = new AbortController();
    // The progress at most twice a second: each one draws frames, and a frame the GPU cannot draw
    // (a software renderer: ~30 ms) would hold up every answer behind it.
    let shownAt = -Infinity;
    const progress = p => {
      if (!running() || hubReading !== reading || performance.now() - shownAt < 500) return;
      shownAt = performance.now();
      withString(JSON.stringify(p), Module._vramfit_hub_progress);
    };
    window.vramfitApi()
      .then(api => api.readHubModel(id, {endpoint, token, signal: reading.signal, onProgress: progress}))
      .catch(error => ({error: {id: "hub.unreachable", field: "hf", message: "hf: " + id + ": " + String(error && error.message || error)}}))
      .then(answer => {
        if (hubReading === reading) hubReading = null;
        if (running()) withString(JSON.stringify(answer), Module._vramfit_hub_done);
      });
  };
  window.vramfitCancelHub = () => { if (hubReading) hubReading.abort(); };

  // The app's widgets by label with their rectangles in CSS pixels (the last frame drawn), for
  // tests that tap what a person taps: [{label, x, y, w, h, visible}, ...].
  window.vramfitLayout = function () {
    return running() ? JSON.parse(Module.UTF8ToString(Module._vramfit_layout())) : [];
  };

  // A model file from a drop or the file picker: only its header bytes are read
  // (File.slice), nothing is sent; the app gets the request fields it gives.
  async function useModelFile(file) {
    if (!file || !running()) return;
    let fragment;
    try {
      fragment = await (await window.vramfitApi()).readModelFile(file);
    } catch (error) {
      fragment = {error: {id: "file.unreadable", field: "file", message: String(error && error.message || error)}};
    }
    withString(JSON.stringify(fragment), Module._vramfit_apply_fragment);
  }
  canvas.addEventListener("dragover", event => event.preventDefault());
  canvas.addEventListener("drop", event => {
    event.preventDefault();
    useModelFile(event.dataTransfer && event.dataTransfer.files[0]);
  });
  // The app's "Open file..." button (phones and tablets cannot drop files). A release on it
  // opens the picker in pointerEnd above; the app asks a frame later (vramfitOpenFile), which
  // is then the same press, not a second one. Keys (Enter on the focused button) ask only there.
  function openFilePicker() {
    const input = document.createElement("input");
    input.type = "file";
    input.accept = ".gguf,.safetensors,.json";
    input.addEventListener("change", () => useModelFile(input.files[0]));
    input.click();
  }
  window.vramfitOpenFile = function () {
    const samePress = performance.now() - pickerOpenedAt < 2000;
    pickerOpenedAt = -Infinity;
    if (!samePress) openFilePicker();
  };

  // The interface's other languages (messages/ar.json): fetched when the app first draws in one
  // (the app asks each frame: {state: "loading" | "ready" | "failed", text}), or early, beside
  // the module, when the link asks for one; the single file carries its own copy.
  const catalogs = {};
  window.vramfitCatalog = function (code) {
    if (catalogs[code]) return catalogs[code];
    const entry = catalogs[code] = {state: "loading", text: ""};
    const carried = window.VRAMFIT_CATALOGS && window.VRAMFIT_CATALOGS[code];
    (carried ? Promise.resolve(carried) : fetch("messages/" + code + ".json").then(response => {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.text();
    })).then(text => { entry.state = "ready"; entry.text = text; },
             error => { entry.state = "failed"; entry.text = String(error && error.message || error); })
      .then(wake);
    return entry;
  };
  const linkLanguage = () => {
    try {
      return JSON.parse(atob(location.hash.replace(/^#r=/, "").replace(/-/g, "+").replace(/_/g, "/"))).language || "";
    } catch (error) {
      return "";  // no configuration, or one the app itself will say it cannot read
    }
  };

  window.Module = Object.assign(window.Module || {}, {
    canvas: canvas,  // output goes to the console (Emscripten's default print / printErr)
    onAbort: what => show("vramfit stopped: " + what, true),
  });
  show("Loading vramfit…", false);
  // A first visit (no configuration in the link) follows the browser's language.
  if (!location.hash && !window.VRAMFIT_EMBED && /^ar\b/i.test((navigator.languages || [])[0] || navigator.language || "")) {
    history.replaceState(null, "", "#r=eyJ2IjoxLCJsYW5ndWFnZSI6ImFyIn0");  // {"v":1,"language":"ar"}
  }
  if (/^ar\b/.test(linkLanguage())) window.vramfitCatalog("ar");
  const app = "vramfit_app.js";
  const script = document.createElement("script");
  script.src = app;
  script.async = true;
  script.onerror = () => show("Could not load " + app + ".", true);
  if (!window.VRAMFIT_INLINE) document.body.appendChild(script);
})();

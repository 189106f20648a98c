#!/usr/bin/env python3
"""Writes one self-contained HTML file from dist/: the page with its scripts inlined and the
app's module inlined as base64 (Module.wasmBinary: the same module index.html loads) and the
message catalogs as strings (window.VRAMFIT_CATALOGS: the page's messages/<code>.json), so it
works when opened from disk (file://), where browsers refuse to fetch a separate file.
  single_file.py DIST_DIR OUT.html"""
import base64
import json
import os
import sys


def main():
    dist, out = sys.argv[1], sys.argv[2]
    read = lambda name: open(os.path.join(dist, name), encoding="utf-8").read()
    html = read("index.html")
    wasm = lambda name: base64.b64encode(open(os.path.join(dist, name), "rb").read()).decode("ascii")
    binary = lambda name: "Uint8Array.from(atob(\"" + wasm(name) + "\"), c => c.charCodeAt(0))"
    catalogs = {name[:-len(".json")]: read(os.path.join("messages", name))
                for name in sorted(os.listdir(os.path.join(dist, "messages")))}
    boot = (
        "<script>window.VRAMFIT_INLINE = true;\n"
        "window.Module = {wasmBinary: " + binary("vramfit_app.wasm") + "};\n"
        "window.VRAMFIT_CATALOGS = " + json.dumps(catalogs, ensure_ascii=False) + ";</script>\n"
    )
    # "</script" cannot appear inside an inline script; escape it in the inlined sources.
    inline = lambda source: "<script>\n" + source.replace("</script", "<\\/script") + "\n</script>"
    # Nothing to fetch from disk: drop the preload hints.
    html = "".join(line for line in html.splitlines(keepends=True)
                   if 'rel="preload"' not in line and "Fetch the app while" not in line)
    html = html.replace('<script src="shell.js"></script>',
                        boot + inline(read("vramfit-api.js")) + "\n" + inline(read("shell.js")) + "\n" +
                        inline(read("vramfit_app.js")))
    with open(out, "w", encoding="utf-8") as f:
        f.write(html)
    print(f"{out}: {os.path.getsize(out):,} bytes")


if __name__ == "__main__":
    sys.exit(main())

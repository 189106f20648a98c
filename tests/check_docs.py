#!/usr/bin/env python3
"""Checks README.md and docs/*.md as a reader follows them:
- every relative link names a file of the repository, and every #anchor a heading of its page
  (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens);
- every page link with a state (http://127.0.0.1:8080/#r=...) decodes to a request the native
  CLI accepts (vramfit infer/train --request);
- every example in a code block, `$ build/native/vramfit ...` followed by the lines it prints
  ("..." for lines left out), prints those lines, in that order.
  python3 tests/check_docs.py   (after the native build)"""
import base64
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.path.join(ROOT, "build/native/vramfit")


def anchors(text):
    found = set()
    in_code = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        m = None if in_code else re.match(r"^#{1,6} (.*)$", line)
        if m:
            heading = re.sub(r"[`*]", "", m.group(1)).strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", heading).replace(" ", "-"))
    return found


def links(text):
    no_code = re.sub(r"```.*?```", "", text, flags=re.S)
    no_code = re.sub(r"`[^`\n]*`", "", no_code)
    return re.findall(r"\]\(([^)\s]+)\)", no_code)


def check_state_link(page, url, problems):
    state = url.split("#r=", 1)[1]
    try:
        request = json.loads(base64.urlsafe_b64decode(state + "=" * (-len(state) % 4)))
    except ValueError as e:
        problems.append(f"{page}: {url[:60]}...: the state does not decode ({e})")
        return
    command = "train" if request.get("mode") == "training" else "infer"
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(request, f)
    try:
        run = subprocess.run([CLI, command, "--request", f.name], capture_output=True, text=True)
        if run.returncode != 0:
            problems.append(f"{page}: {url[:60]}...: the CLI refuses its state: {run.stderr.strip()}")
    finally:
        os.unlink(f.name)


def code_blocks(text):
    blocks, current = [], None
    for line in text.splitlines():
        if line.startswith("```"):
            if current is None:
                current = []
            else:
                blocks.append(current)
                current = None
        elif current is not None:
            current.append(line)
    return blocks


class LocalHub:
    """The tests' Hub-shaped server (tests/hub/serve_fixtures.mjs) over the fixture repositories, started
    the first time an example reads a model by its Hub id; the docs' `HF_TOKEN=hf_...` is its token."""
    token = "hf_docs_example"

    def __init__(self):
        self.server = None
        self.home = None

    def env(self):
        if self.server is None:
            env = dict(os.environ, NODE_PATH=os.environ.get("NODE_PATH", "/usr/share/nodejs"))
            self.server = subprocess.Popen(["node", os.path.join(ROOT, "tests/hub/serve_fixtures.mjs"), self.token],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
            self.url = self.server.stdout.readline().strip()
            self.home = tempfile.mkdtemp(prefix="vramfit-docs-")
        return {"HF_ENDPOINT": self.url, "HOME": self.home, "HF_HOME": os.path.join(self.home, "hf"),
                "VRAMFIT_HUB_CACHE": os.path.join(self.home, "cache")}

    def close(self):
        if self.server is not None:
            self.server.stdin.close()
            self.server.wait(timeout=30)
            shutil.rmtree(self.home, ignore_errors=True)


def check_examples(page, text, problems, hub):
    for lines in code_blocks(text):
        if not lines or not lines[0].startswith("$ "):
            continue
        words = shlex.split(lines[0][2:])
        assigned = {}
        while words and re.match(r"^[A-Z_]+=", words[0]):
            name, _, value = words.pop(0).partition("=")
            assigned[name] = value
        if not words or words[0] != "build/native/vramfit":
            continue
        env = dict(os.environ)
        if "--hf" in words:
            env.update(hub.env())
        if assigned.get("HF_TOKEN") == "hf_...":
            assigned["HF_TOKEN"] = hub.token
        env.update(assigned)
        run = subprocess.run([os.path.join(ROOT, words[0])] + words[1:], capture_output=True, text=True, cwd=ROOT, env=env)
        printed = (run.stdout + run.stderr).splitlines()
        at = 0
        for expected in lines[1:]:
            if expected == "...":
                continue
            while at < len(printed) and printed[at] != expected:
                at += 1
            if at == len(printed):
                problems.append(f"{page}: `{lines[0][2:60]}...` does not print (in order): {expected}")
                break
            at += 1


def main():
    pages = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    texts = {p: open(os.path.join(ROOT, p), encoding="utf-8").read() for p in pages}
    problems = []
    checked = 0
    hub = LocalHub()
    for page, text in texts.items():
        for url in links(text):
            checked += 1
            if url.startswith("http://127.0.0.1:8080/"):
                if "#r=" in url:
                    check_state_link(page, url, problems)
                continue
            if re.match(r"^[a-z]+:", url):
                problems.append(f"{page}: {url}: no link leaves the repository (the tests reach no network)")
                continue
            path, _, anchor = url.partition("#")
            target = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(os.path.join(ROOT, target)):
                problems.append(f"{page}: {url}: no such file {target}")
                continue
            if anchor:
                if not target.endswith(".md"):
                    problems.append(f"{page}: {url}: an anchor into a file that is not a page")
                elif anchor not in anchors(texts.get(target) or open(os.path.join(ROOT, target), encoding="utf-8").read()):
                    problems.append(f"{page}: {url}: no heading #{anchor} in {target}")
        check_examples(page, text, problems, hub)
    hub.close()
    readme_lines = texts["README.md"].count("\n")
    if readme_lines > 200:
        problems.append(f"README.md: {readme_lines} lines, more than 200 (move a subject to docs/)")
    for p in problems:
        print(p)
    print(f"check_docs: {len(pages)} pages, {checked} links, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The message catalogs against the sources (issue 15: every key in both languages).

English is the text itself (the catalog is keyed by it), so "both" means:
1. every text the app draws from a literal (an ImGui label, button, tab, tooltip, column, a
   section title, a help marker, tr("...")) has an Arabic entry in data/messages/ar.json;
   names that stay as they are (flags such as -ngl or --max-model-len, formats, engines,
   identifiers) are listed by the rule below, not by hand;
2. every Arabic entry's key is text some source can draw: a string literal of src/ (adjacent
   literals joined), or two literals put together ("Optimizer state: " + "AdamW").
Prints what is missing and exits 1 when anything is.
"""
import json
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
catalog = json.loads((root / "data/messages/ar.json").read_text(encoding="utf-8"))
keys = {k for k in catalog if not k.startswith("_")}

LITERAL = r'"((?:[^"\\]|\\.)*)"'


def unescape(text):
    """C++ escapes: \\n, \\t, \\", \\\\ (the sources use no others in texts)."""
    return re.sub(r'\\(.)', lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)


def literals(source):
    """String literals, adjacent ones joined ("a" "b" is "ab")."""
    out = []
    for m in re.finditer(r'(?:' + LITERAL + r'\s*)+', source):
        parts = re.findall(LITERAL, m.group(0))
        out.append(unescape("".join(parts)))
    return out


# Character literals ('"', '\\') blanked first: a quote in one would start a string.
CHAR_LITERAL = r"'(?:\\.|[^'\\\n])'"
sources = {p: re.sub(CHAR_LITERAL, "' '", p.read_text(encoding="utf-8")) for p in (root / "src").rglob("*.cpp")}
all_literals = set()
for text in sources.values():
    all_literals.update(literals(text))

# 1. What the app draws from literals.
UI_CALLS = ("Text", "TextUnformatted", "TextWrapped", "TextDisabled", "TextColored", "Button", "SmallButton", "Checkbox",
            "RadioButton", "BeginTabItem", "CollapsingHeader", "Selectable", "TableSetupColumn", "SetTooltip",
            "InputTextWithHint", "TreeNode", "MenuItem", "BeginCombo", "tr", "section", "help_marker", "number_field",
            "text_wrapped_at_spaces", "text_wrapped_at_spaces_disabled", "button", "place", "memory_field", "begin", "tip",
            "enum_combo", "cache_type_combo", "choice_combo", "item", "TextDisabled")


def stays_as_is(text):
    """Names and notation that read the same in Arabic: flags, identifiers, formats, units."""
    t = text.strip()
    return (not re.search(r"[A-Za-z]{2,}", t) or t.startswith("-") or re.fullmatch(r"[A-Za-z0-9_.:+/()%\- ]*", t) and (
        re.fullmatch(r"[a-z0-9_.\-]+", t) or re.fullmatch(r"[A-Z0-9\-]+[a-z0-9]*", t) or t in NAMES))


NAMES = {"vramfit", "AdamW", "Adam", "Adafactor", "Lion", "SGD", "GB", "GiB", "vLLM", "Transformers", "LoRA", "GPU %d",
         "ZeRO-1", "ZeRO-2", "ZeRO-3", "QLoRA", "Autograd", "SGD + momentum", "8-bit Adam", "torch.autocast bf16",
         "torch.autocast fp16", "llama.cpp (Ollama, LM Studio)", "English", "KV", "V", "MLP", "mmproj", "fp32", "ZeRO-3: %lld",
         "device_map", "transformers.__version__", "BitsAndBytesConfig"}

def code_end(text, start, closing):
    """Where the code from start ends, outside strings and nested parentheses: the ';' that ends
    its statement (closing ';') or the ')' that closes its call's arguments (closing ')')."""
    i, quoted, depth = start, False, 0
    while i < len(text):
        c = text[i]
        if quoted and c == "\\":
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        elif not quoted:
            if c == closing and depth <= 0:
                return i
            depth += (c == "(") - (c == ")")
        i += 1
    return len(text)


def statement_end(text, start):
    return code_end(text, start, ";")


def argument_end(text, start):
    return code_end(text, start, ")")


missing = []
for path, text in sorted(sources.items()):
    cli_report = "src/cli/text_report" in str(path)  # the CLI's --lang ar reports (text_report*.cpp): their words t("...")
    if "src/app/" not in str(path) and not cli_report:
        continue
    # Every literal of the statement that calls a UI function (its label, tooltip, choices).
    calls = ("t",) if cli_report else UI_CALLS
    for m in re.finditer(r'\b(' + "|".join(calls) + r')\(', text):
        # The app: the whole statement; the CLI report: what t(...) itself holds.
        statement = text[m.end():(argument_end if cli_report else statement_end)(text, m.end())]
        for label in literals(statement):
            label = label.split("##")[0]
            if not label or (stays_as_is(label) and not cli_report) or label in keys:
                continue
            missing.append(f"{path.relative_to(root)}: no Arabic for {label!r}")
    missing = list(dict.fromkeys(missing))

# 2. Every key drawable: each fixed piece of it (the text between its %s) is made of at most
# four pieces of literals, as the sources compose text ("(all layers" + ", one GPU" + ").").
joined = "\0".join(sorted(all_literals))


def composed(piece, most=4):
    start, parts = 0, 0
    while start < len(piece):
        lo, hi = start, len(piece)  # the longest piece[start:end] some literal holds (a prefix's property)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if piece[start:mid] in joined:
                lo = mid
            else:
                hi = mid - 1
        if lo == start:
            return False
        start, parts = lo, parts + 1
    return parts <= most


def drawable(key):
    return all(composed(piece) for piece in key.split("%s") if piece)

stale = [f"data/messages/ar.json: {k!r} is not text the sources can draw" for k in sorted(keys) if not drawable(k)]

# 3. Every error message the core can give has its Arabic: each literal of an error's text
# (the statements that make an error, and what a typed number's reader says is wrong) with
# English words in it is part of an entry ("command: " + flag + " is not a" + " vLLM" + " flag
# vramfit knows; ..." has "%s is not a vLLM flag vramfit knows; ..."). Field names, ids and
# quoted values stay as they are.
ERROR_CALLS = ("make_error", "fail", "st_error", "layer_error", "truncated", "error_text")
keys_joined = "\0".join(sorted(keys))


def has_english(text):
    t = re.sub(r"'[^']*'", " ", text)  # quoted values
    words = [w for w in re.split(r"[\s,;:()\[\]\"=<>]+", t) if w]
    return any(re.fullmatch(r"[A-Za-z]+('s)?", w) and len(w) >= 3 and w not in NAMES and w.lower() not in ERROR_NAMES
               for w in words)


ERROR_NAMES = {"vramfit", "vllm", "gguf", "safetensors", "json", "llama", "cpp", "transformers", "lora", "qlora", "command",
               "request", "link", "model", "network", "draft", "engine", "gpus", "file", "batch", "config"}
untranslated = []
error_dirs = ("src/core/", "src/io/", "src/report/")
for path, text in sorted(sources.items()):
    if not any(d in str(path) for d in error_dirs):
        continue
    pieces = []
    for m in re.finditer(r'\b(' + "|".join(ERROR_CALLS) + r')\(', text):
        pieces += literals(text[m.end():statement_end(text, m.end())])
    for m in re.finditer(r'\bwhy = ', text):
        pieces += literals(text[m.end():statement_end(text, m.end())])
    for piece in pieces:
        core = piece
        while re.match(r"[\w.\[\]-]*: ", core):  # "gpu.id: ", "]: ": a field's name
            core = core[core.index(": ") + 2:]
        core = core.strip(" :;,.(")
        if re.fullmatch(r"[a-z0-9_.\[\]-]+", core) or not has_english(core) or core in keys_joined:
            continue
        untranslated.append(f"{path.relative_to(root)}: no Arabic entry holds the error text {piece!r}")
untranslated = list(dict.fromkeys(untranslated))

for line in missing + stale + untranslated:
    print(line)
print(f"check_messages: {len(keys)} Arabic entries; {len(missing)} texts without one, {len(stale)} entries no source draws, "
      f"{len(untranslated)} error texts without one")
sys.exit(1 if missing or stale or untranslated else 0)

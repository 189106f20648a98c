#include "hub_ref.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace vramfit {

namespace {

constexpr const char* kField = "hf";

bool is_id_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

// One part of a repo id: huggingface_hub's REPO_ID_REGEX, [\w\-.]{1,96}, word characters at both
// ends, and no "--" or "..".
bool valid_id_part(std::string_view part) {
  if (part.empty() || part.size() > 96) return false;
  for (char c : part) {
    if (!is_id_char(c)) return false;
  }
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (!word(part.front()) || !word(part.back())) return false;
  return part.find("--") == std::string_view::npos && part.find("..") == std::string_view::npos;
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.emplace_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int hi = hex_value(text[i + 1]), lo = hex_value(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && text.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Error bad(const std::string& text, const std::string& why) {
  return make_error("hub.bad_id", kField, "hf: " + text + ": " + why);
}

// The path of a Hub URL: org/name[/tree|blob|resolve/<rev>[/<file>]].
Result<HubRef> ref_from_url_path(const std::string& text, std::string_view path) {
  const size_t cut = path.find_first_of("?#");
  if (cut != std::string_view::npos) path = path.substr(0, cut);
  std::vector<std::string> parts = split_path(path);
  if (!parts.empty() && parts[0] == "models") parts.erase(parts.begin());
  if (parts.empty()) return bad(text, "the URL names no model (expected .../org/name)");
  if (parts[0] == "datasets" || parts[0] == "spaces") {
    return bad(text, "a " + std::string(parts[0] == "spaces" ? "Space" : "dataset") + ", not a model");
  }
  HubRef ref;
  size_t next = 1;
  auto is_view = [](const std::string& p) { return p == "tree" || p == "blob" || p == "resolve"; };
  if (parts.size() >= 2 && !is_view(parts[1])) {
    ref.repo = parts[0] + "/" + parts[1];
    next = 2;
  } else {
    ref.repo = parts[0];
  }
  if (next < parts.size()) {
    const std::string view = parts[next];
    if (!is_view(view) || next + 1 >= parts.size()) {
      return bad(text, "expected .../tree/<revision>, .../blob/<revision>/<file> or .../resolve/<revision>/<file> after the model");
    }
    ref.revision = percent_decode(parts[next + 1]);
    std::string file;
    for (size_t i = next + 2; i < parts.size(); ++i) file += (file.empty() ? "" : "/") + percent_decode(parts[i]);
    if (view != "tree") {
      if (file.empty()) return bad(text, "the URL names no file after the revision");
      ref.file = file;
    }
  }
  return ref;
}

}  // namespace

bool is_commit_sha(std::string_view revision) {
  if (revision.size() != 40) return false;
  for (char c : revision) {
    if (hex_value(c) < 0 || std::isupper(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

Result<HubRef> parse_hub_ref(std::string_view input) {
  while (!input.empty() && std::isspace(static_cast<unsigned char>(input.front()))) input.remove_prefix(1);
  while (!input.empty() && std::isspace(static_cast<unsigned char>(input.back()))) input.remove_suffix(1);
  const std::string text(input);
  if (text.empty()) return make_error("hub.bad_id", kField, "hf: give a model id, e.g. Qwen/Qwen3-8B");
  std::string_view rest = input;
  Result<HubRef> parsed = HubRef{};
  const std::string head = lower(rest.substr(0, 32));
  bool url = false;
  for (const char* scheme : {"https://", "http://"}) {
    if (starts_with(head, scheme)) {
      rest.remove_prefix(std::string_view(scheme).size());
      url = true;
    }
  }
  if (!url) {
    for (const char* host : {"huggingface.co/", "www.huggingface.co/", "hf.co/"}) {
      if (starts_with(head, host)) {
        url = true;
        break;
      }
    }
  }
  if (url) {
    const size_t slash = rest.find('/');
    if (slash == std::string_view::npos) return bad(text, "the URL names no model (expected .../org/name)");
    parsed = ref_from_url_path(text, rest.substr(slash));
  } else {
    HubRef ref;
    const size_t colon = rest.rfind(':');
    if (colon != std::string_view::npos) {
      const std::string after(rest.substr(colon + 1));
      rest = rest.substr(0, colon);
      if (after.empty()) return bad(text, "nothing after ':' (a quantization, e.g. :Q4_K_M)");
      const std::string l = lower(after);
      if (ends_with(l, ".gguf") || ends_with(l, ".safetensors") || ends_with(l, ".json")) {
        ref.file = after;  // org/name:<file>, as hub_ref_text writes a named file
      } else {
        ref.quant = after;
        for (char c : ref.quant) {
          if (!is_id_char(c)) return bad(text, "'" + ref.quant + "' is not a quantization name (e.g. Q4_K_M)");
        }
      }
    }
    const size_t at = rest.find('@');
    if (at != std::string_view::npos) {
      ref.revision = std::string(rest.substr(at + 1));
      rest = rest.substr(0, at);
      if (ref.revision.empty()) return bad(text, "nothing after '@' (a branch, tag or commit)");
    }
    ref.repo = std::string(rest);
    if (std::count(ref.repo.begin(), ref.repo.end(), '/') > 1) {
      return bad(text, "a model id is org/name; name a file as org/name:quant or by its URL (.../blob/main/<file>)");
    }
    parsed = ref;
  }
  if (!parsed) return parsed;
  HubRef ref = std::move(parsed).value();
  const size_t slash = ref.repo.find('/');
  const bool ok_repo = slash == std::string::npos
                           ? valid_id_part(ref.repo)
                           : valid_id_part(std::string_view(ref.repo).substr(0, slash)) &&
                                 valid_id_part(std::string_view(ref.repo).substr(slash + 1));
  if (!ok_repo) {
    return bad(text, "'" + ref.repo + "' is not a Hub model id (org/name: letters, digits, '-', '_', '.')");
  }
  for (char c : ref.revision) {
    if (std::iscntrl(static_cast<unsigned char>(c)) || c == ' ' || c == ':') return bad(text, "'" + ref.revision + "' is not a revision");
  }
  for (const std::string& part : split_path(ref.file)) {
    if (part == "..") return bad(text, "a file path may not contain '..'");
  }
  return ref;
}

std::string hub_ref_text(const HubRef& ref) {
  std::string text = ref.repo;
  if (ref.revision != "main") text += "@" + ref.revision;
  if (!ref.file.empty()) {
    text += ":" + ref.file;
  } else if (!ref.quant.empty()) {
    text += ":" + ref.quant;
  }
  return text;
}

Result<std::string> normalize_hub_endpoint(std::string_view endpoint) {
  std::string e(endpoint);
  while (!e.empty() && (e.back() == '/' || std::isspace(static_cast<unsigned char>(e.back())))) e.pop_back();
  while (!e.empty() && std::isspace(static_cast<unsigned char>(e.front()))) e.erase(e.begin());
  const std::string l = lower(e);
  const size_t scheme = starts_with(l, "https://") ? 8 : starts_with(l, "http://") ? 7 : 0;
  if (scheme == 0 || e.size() <= scheme) {
    return make_error("hub.bad_endpoint", "endpoint", "endpoint: '" + e + "' is not an http(s):// address (e.g. " +
                                                          kDefaultHubEndpoint + ")");
  }
  for (char c : e) {
    if (std::isspace(static_cast<unsigned char>(c)) || std::iscntrl(static_cast<unsigned char>(c)) || c == '?' || c == '#' || c == '@') {
      return make_error("hub.bad_endpoint", "endpoint", "endpoint: '" + e + "' is not an http(s):// address");
    }
  }
  return e;
}

std::string percent_encode(std::string_view text, bool keep_slash) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out += ch;
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string hub_model_info_url(const std::string& endpoint, const std::string& repo, const std::string& revision) {
  return endpoint + "/api/models/" + repo + "/revision/" + percent_encode(revision, false) + "?blobs=true";
}

std::string hub_resolve_url(const std::string& endpoint, const std::string& repo, const std::string& revision,
                            const std::string& file) {
  return endpoint + "/" + repo + "/resolve/" + percent_encode(revision, false) + "/" + percent_encode(file, true);
}

std::string hub_model_page_url(const std::string& endpoint, const HubRef& ref) {
  std::string url = endpoint + "/" + ref.repo;
  if (ref.revision != "main") url += "/tree/" + percent_encode(ref.revision, false);
  return url;
}

}  // namespace vramfit

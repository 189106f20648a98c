// What the app needs from where it runs, as capabilities: each platform (src/platform/web,
// src/platform/desktop) offers what it can, and the app shows only what is offered.
#pragma once
#include <string>

#include "text/messages.hpp"

namespace vramfit {

struct Platform {
  virtual ~Platform() = default;
  // Copies text to the clipboard. True when it is done now (desktop); false when the answer
  // comes later through App::copied (web: the browser's clipboard may refuse, e.g. an embed
  // whose iframe lacks allow="clipboard-write").
  virtual bool copy_text(const std::string& text) = 0;
  // The state as a history entry (web: the URL hash): a new one, or (replace) the current one
  // rewritten in canonical form.
  virtual void set_location_hash(const std::string& hash, bool replace) { (void)hash; (void)replace; }
  // A link to the full calculator with this configuration; "" where there are no links (desktop).
  virtual std::string link_to(const std::string& hash) const { (void)hash; return ""; }
  // The address of the embeddable page with this configuration; "" where nothing can embed it.
  virtual std::string embed_link_to(const std::string& hash) const { (void)hash; return ""; }
  // Opens a link in a new tab or window.
  virtual void open_link(const std::string& url) { (void)url; }
  // An Open dialog for model files (desktop: the app's own; web: the browser's file picker).
  virtual bool can_open_files() const { return false; }
  virtual void open_files() {}
  virtual const char* open_files_hint() const { return ""; }  // the Open button's tooltip
  // Where the Open button is this frame (in the app's pixels), or reachable = false when it
  // cannot be pressed (a popup is open). Web: browsers open a file picker only inside an input
  // event's handler, so the page opens it in the release over this box itself.
  virtual void open_files_button_at(float x0, float y0, float x1, float y1, bool reachable) {
    (void)x0, (void)y0, (void)x1, (void)y1, (void)reachable;
  }
  // The result in words for screen readers (web: the page's aria-live region).
  virtual void announce(const std::string& text) { (void)text; }
  // Text that will be drawn and may hold characters beyond the font's (a file name in Chinese,
  // a config in Arabic): the platform adds their glyphs before a later frame.
  virtual void need_glyphs_for(const std::string& utf8) { (void)utf8; }
  // Models by Hugging Face id (web: fetch() through the JavaScript API; desktop: libcurl in a
  // worker thread). The answer comes back through App::hub_answer and the progress through
  // App::hub_progress, on the UI's thread between frames; one reading at a time.
  virtual bool can_read_hub() const { return false; }
  virtual void read_hub_model(const std::string& id, const std::string& endpoint, const std::string& token) {
    (void)id, (void)endpoint, (void)token;
  }
  virtual void cancel_hub_read() {}
  // The endpoint the Hub field starts with ("": the Hub; desktop: HF_ENDPOINT).
  virtual std::string default_hub_endpoint() const { return ""; }
  // A read token this device keeps at the user's word (web: localStorage); "" when none.
  virtual std::string remembered_hub_token() const { return ""; }
  virtual void remember_hub_token(const std::string& token) { (void)token; }  // "": forget it
  // A language's catalog (data/messages/<code>.json): compiled in on the desktop; the page
  // fetches it when it is first wanted and wakes the app when it comes. Until it is ready the
  // app draws as it did; failed (failure says why): the app stays in English.
  enum class Catalog { ready, loading, failed };
  virtual Catalog language_catalog(Language language, std::string& failure) {
    (void)language, (void)failure;
    return Catalog::ready;
  }
};

}  // namespace vramfit

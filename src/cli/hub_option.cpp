#include "cli/hub_option.hpp"

#include "core/units.hpp"
#include "net/hub_client.hpp"

namespace vramfit {

bool read_hub_option(const HubOptions& options, const Catalog& catalog, std::optional<HubModel>& model, std::ostream& err) {
  auto ref = parse_hub_ref(options.id);
  if (!ref) {
    err << "error: --hf: " << ref.error().message << "\n";
    return false;
  }
  HubRef wanted = *ref;
  if (!options.file.empty()) wanted.file = options.file;
  auto settings = hub_settings_from_environment();
  if (!settings) {
    err << "error: " << settings.error().message << "\n";
    return false;
  }
  HubSettings s = *settings;
  if (!options.endpoint.empty()) {
    auto endpoint = normalize_hub_endpoint(options.endpoint);
    if (!endpoint) {
      err << "error: --hf-endpoint: " << endpoint.error().message << "\n";
      return false;
    }
    s.endpoint = *endpoint;
  }
  s.offline = s.offline || options.offline;
  auto read = read_hub_model(wanted, s, catalog.formats);
  if (!read) {
    err << "error: " << read.error().message << "\n";
    return false;
  }
  for (const std::string& note : read->notes) err << "note: " << note << "\n";
  err << "hf: " << read->ref.repo << "@" << read->sha.substr(0, 12) << ": read " << read->files_read.size() << " file(s) ("
      << (read->chosen.empty() ? "config.json" : read->chosen) << (read->files_read.size() > 1 && read->chosen.empty() ? ", ..." : "")
      << "), ";
  if (read->fetches == 0) {
    err << "all from the cache";
  } else {
    err << with_thousands(read->bytes_fetched) << " B fetched in " << read->fetches << " request(s)";
  }
  err << "\n";
  model = std::move(read).value();
  return true;
}

json hub_model_config_json(const HubModel& model) {
  if (model.has_weights) return {{"config", model.read.config}, {"name", model.read.weights.file}};
  return {{"config", model.config}, {"name", model.config_name}};
}

}  // namespace vramfit

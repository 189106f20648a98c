#include "report/command_request.hpp"

#include "io/engine_command.hpp"

namespace vramfit {

Result<CommandRequest> command_request(const std::string& line, const Catalog& catalog) {
  auto command = read_engine_command(line);
  if (!command) return command.error();
  CommandRequest r;
  const std::string engine = command->request["engine"].get<std::string>();
  r.fields = {{"engine", engine}, {engine, command->request[engine]}};
  if (!command->weights_format.empty()) r.fields["weights"] = {{"format", command->weights_format}};
  if (!command->model.empty()) {
    const ModelPreset* preset = catalog.find_model_by_repo(command->model);
    if (!preset) {
      return make_error("command.unknown_model", "command",
                        "command: " + command->model + ": no preset has this model and vramfit downloads nothing; "
                        "give its config.json, or pick a preset");
    }
    r.fields["model"] = {{"preset", preset->id}};
    r.notes.push_back(command->model + ": read as the preset " + preset->name + " (" + preset->hf_repo + ")");
  }
  if (!command->draft_model.empty()) {
    const ModelPreset* preset = catalog.find_model_by_repo(command->draft_model);
    if (!preset) {
      return make_error("command.unknown_model", "command.--speculative-config",
                        "command: --speculative-config: " + command->draft_model +
                            ": no preset has this model and vramfit downloads nothing; pick the draft's preset");
    }
    r.fields["draft"] = {{"model", {{"preset", preset->id}}}};
    r.notes.push_back(command->draft_model + ": the draft model, read as the preset " + preset->name);
  }
  if (!command->model_file.empty()) {
    r.model_file = command->model_file;
    r.notes.push_back(command->model_file + ": open the file itself to size its weights");
  }
  if (!command->draft_file.empty()) {
    r.draft_file = command->draft_file;
    r.notes.push_back(command->draft_file + ": the draft model (-md); open its file, or pick its preset, to size it");
  }
  for (const std::string& flag : command->ignored) r.notes.push_back(flag + " does not change memory: not read");
  return r;
}

json command_request_json(const std::string& line, const Catalog& catalog) {
  auto r = command_request(line, catalog);
  if (!r) return {{"error", {{"id", r.error().id}, {"field", r.error().field}, {"message", r.error().message}}}};
  return {{"fields", r->fields}, {"model_file", r->model_file}, {"draft_file", r->draft_file}, {"notes", r->notes}};
}

}  // namespace vramfit

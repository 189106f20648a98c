#include "tables.hpp"

#include <imgui.h>
#include <imgui_internal.h>
#include <misc/cpp/imgui_stdlib.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <numeric>
#include <vector>

#include "active_fit.hpp"
#include "ui_language.hpp"
#include "widgets.hpp"

namespace vramfit {

namespace {

constexpr ImGuiTableFlags kTableFlags = ImGuiTableFlags_Resizable | ImGuiTableFlags_Sortable | ImGuiTableFlags_SortTristate |
                                        ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_BordersOuter |
                                        ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchProp;

// The order in which to show `count` rows under the table's sort: `less(column, a, b)` compares
// rows a and b by a column; with no sort the rows keep their order.
std::vector<int> sorted_rows(int count, const std::function<bool(int, int, int)>& less) {
  std::vector<int> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  const ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs();
  if (!specs || specs->SpecsCount == 0) return order;
  const ImGuiTableColumnSortSpecs& spec = specs->Specs[0];
  const int column = spec.ColumnIndex;
  const bool ascending = spec.SortDirection == ImGuiSortDirection_Ascending;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return ascending ? less(column, a, b) : less(column, b, a); });
  return order;
}

// Dear ImGui's keyboard reaches a scrolling table as one stop (its child window): Tab lands on
// it and Enter goes in. Ends the table and, while the keyboard is on it or in it, says so at its
// bottom edge.
void end_table_saying_keys() {
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  const ImGuiTable* table = ImGui::GetCurrentTable();
  const ImGuiWindow* inner = table ? table->InnerWindow : nullptr;
  const ImRect rect = table ? table->OuterRect : ImRect();
  ImGui::EndTable();
  if (inner == nullptr || g.NavDisableHighlight) return;
  const char* hint = nullptr;
  if (g.NavWindow == inner) hint = "In the table: arrows move, Space opens or picks a row, Escape leaves";
  else if (g.NavId == inner->ChildId) hint = "A table: Enter goes in (then arrows move, Escape leaves)";
  if (hint == nullptr) return;
  ImGui::SetNextWindowPos(ImVec2(rect.Min.x + em(0.5f), rect.Max.y - em(0.25f)), ImGuiCond_Always, ImVec2(0.0f, 1.0f));
  ImGui::BeginTooltip();
  ImGui::TextUnformatted(hint);
  ImGui::EndTooltip();
}

double percent_of(int64_t bytes, int64_t capacity) {
  return capacity > 0 ? 100.0 * static_cast<double>(bytes) / static_cast<double>(capacity) : 0.0;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

void breakdown_rows(const std::vector<BreakdownItem>& items, int depth, DisplayUnits units, int64_t capacity) {
  const auto order = sorted_rows(static_cast<int>(items.size()), [&](int column, int a, int b) {
    const BreakdownItem& x = items[static_cast<size_t>(a)];
    const BreakdownItem& y = items[static_cast<size_t>(b)];
    return column == 0 ? x.label < y.label : x.bytes < y.bytes;
  });
  for (int index : order) {
    const BreakdownItem& it = items[static_cast<size_t>(index)];
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    // Top-level rows open with their formula showing; deeper rows open on a click.
    const ImGuiTreeNodeFlags flags = ImGuiTreeNodeFlags_SpanFullWidth | (depth == 0 ? ImGuiTreeNodeFlags_DefaultOpen : 0);
    const bool open = ImGui::TreeNodeEx(it.id.c_str(), flags, "%s", it.label.c_str());
    ImGui::TableSetColumnIndex(1);
    ImGui::TextUnformatted(format_bytes(it.bytes, units).c_str());
    ImGui::TableSetColumnIndex(2);
    ImGui::Text("%.1f%%", percent_of(it.bytes, capacity));
    if (!open) continue;
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    text_wrapped_at_spaces_disabled("= " + it.formula);
    if (!it.note.empty()) text_wrapped_at_spaces(it.note);
    breakdown_rows(it.children, depth + 1, units, capacity);
    ImGui::TreePop();
  }
}

}  // namespace

void draw_breakdown_table(const Request& request, const Report& r, float height) {
  const int64_t capacity = active_fit(request, r).capacity_bytes;
  if (height <= 0.0f) {
    height = std::max(ImGui::GetContentRegionAvail().y -
                          ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(r.breakdown.assumptions.size() + 1),
                      em(8.0f));
  }
  // At most 60 em wide: on a wide screen the figures stay beside their items.
  const float width = std::min(ImGui::GetContentRegionAvail().x, em(60.0f));
  if (ImGui::BeginTable("breakdown", 3, kTableFlags, ImVec2(width, height))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("Item", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Memory", ImGuiTableColumnFlags_WidthFixed, em(5.5f));
    ImGui::TableSetupColumn("of GPU", ImGuiTableColumnFlags_WidthFixed, em(4.0f));
    order_table_columns();
    ImGui::TableHeadersRow();
    breakdown_rows(r.breakdown.items, 0, request.units, capacity);
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted("Total");
    ImGui::TableSetColumnIndex(1);
    ImGui::TextUnformatted(format_bytes(r.breakdown.total_bytes, request.units).c_str());
    ImGui::TableSetColumnIndex(2);
    ImGui::Text("%.1f%%", percent_of(r.breakdown.total_bytes, capacity));
    end_table_saying_keys();
  }
  for (const std::string& a : r.breakdown.assumptions) textf_wrapped_at_spaces("assumed: %s", tr(a.c_str()));
}

std::optional<std::string> GpuTable::draw(const Request& request, const Report& r, float height) {
  std::optional<std::string> chosen;
  ImGui::SetNextItemWidth(em(14.0f));
  ImGui::InputTextWithHint("##gpu_filter", "filter GPUs", &filter_);
  const std::string needle = lower(filter_);
  std::vector<const GpuVerdict*> rows;
  std::vector<ActiveFit> fits;
  for (const GpuVerdict& v : r.gpus) {
    if (!needle.empty() && lower(v.gpu->name + " " + v.gpu->id).find(needle) == std::string::npos) continue;
    rows.push_back(&v);
    fits.push_back(active_fit(request, v));
  }
  // Narrower than 30 font widths (a tablet's results, a phone): the columns a person reads and
  // sorts by first — the GPU, its memory, the headroom, the verdict (what is needed stands in
  // the verdict above the tabs); narrower than 26 (a phone), the memory goes too.
  enum Column { kGpu, kMemory, kNeeded, kHeadroom, kVerdict };
  static const Column kAll[] = {kGpu, kMemory, kNeeded, kHeadroom, kVerdict};
  static const Column kNarrow[] = {kGpu, kMemory, kHeadroom, kVerdict};
  static const Column kNarrowest[] = {kGpu, kHeadroom, kVerdict};
  static const char* const kNames[] = {"GPU", "Memory", "Needed", "Headroom", "Verdict"};
  const float width = std::min(ImGui::GetContentRegionAvail().x, em(60.0f));
  const int count = width < em(26.0f) ? 3 : width < em(30.0f) ? 4 : 5;
  const Column* columns = count == 3 ? kNarrowest : count == 4 ? kNarrow : kAll;
  // (One table id per set of columns: Dear ImGui keeps a table's column widths frame to frame.)
  static const char* const kIds[] = {"gpus 3", "gpus 4", "gpus"};
  if (!ImGui::BeginTable(kIds[count - 3], count, kTableFlags, ImVec2(width, height))) return chosen;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (int c = 0; c < count; ++c) {
    ImGui::TableSetupColumn(kNames[columns[c]], ImGuiTableColumnFlags_WidthStretch, columns[c] == kGpu ? (count == 5 ? 2.6f : 2.0f) : 1.0f);
  }
  order_table_columns();
  ImGui::TableHeadersRow();
  // Verdicts order as fits < needs N (fewer first) < ZeRO-3 on N < no.
  const auto verdict_rank = [&](int i) {
    const ActiveFit& f = fits[static_cast<size_t>(i)];
    return f.fits ? int64_t(0) : f.min_gpus > 0 ? f.min_gpus : f.min_gpus_zero3 > 0 ? 1000 + f.min_gpus_zero3 : INT64_MAX;
  };
  const auto order = sorted_rows(static_cast<int>(rows.size()), [&](int column, int a, int b) {
    const ActiveFit& x = fits[static_cast<size_t>(a)];
    const ActiveFit& y = fits[static_cast<size_t>(b)];
    switch (columns[column]) {
      case kGpu: return rows[static_cast<size_t>(a)]->gpu->name < rows[static_cast<size_t>(b)]->gpu->name;
      case kMemory: return x.capacity_bytes < y.capacity_bytes;
      case kNeeded: return x.required_bytes < y.required_bytes;
      case kHeadroom: return x.headroom_bytes < y.headroom_bytes;
      case kVerdict: break;
    }
    return verdict_rank(a) < verdict_rank(b);
  });
  const DisplayUnits u = request.units;
  for (int index : order) {
    const GpuVerdict& v = *rows[static_cast<size_t>(index)];
    const ActiveFit& fit = fits[static_cast<size_t>(index)];
    ImGui::TableNextRow();
    for (int c = 0; c < count; ++c) {
      ImGui::TableSetColumnIndex(c);
      switch (columns[c]) {
        case kGpu:
          ImGui::PushID(v.gpu->id.c_str());
          if (ImGui::Selectable(v.gpu->name.c_str(), v.gpu->id == request.gpu_id && request.gpu_capacity_bytes == 0,
                                ImGuiSelectableFlags_SpanAllColumns)) {
            chosen = v.gpu->id;
          }
          ImGui::PopID();
          break;
        case kMemory: ImGui::TextUnformatted(format_bytes(fit.capacity_bytes, u).c_str()); break;
        case kNeeded: ImGui::TextUnformatted(format_bytes(fit.required_bytes, u).c_str()); break;
        case kHeadroom: ImGui::TextUnformatted(format_bytes(fit.headroom_bytes, u).c_str()); break;
        case kVerdict:
          if (fit.fits) ImGui::TextColored(ImVec4(0.3f, 0.8f, 0.5f, 1), "fits");
          else if (fit.min_gpus > 0) ImGui::TextColored(ImVec4(0.95f, 0.7f, 0.25f, 1), "needs %lld", static_cast<long long>(fit.min_gpus));
          else if (fit.min_gpus_zero3 > 0) ImGui::TextColored(ImVec4(0.95f, 0.7f, 0.25f, 1), "ZeRO-3: %lld", static_cast<long long>(fit.min_gpus_zero3));
          else ImGui::TextColored(ImVec4(0.9f, 0.35f, 0.3f, 1), "no");
          break;
      }
    }
  }
  end_table_saying_keys();
  return chosen;
}

void draw_layer_table(const Request& request, const Report& r, float height) {
  // Narrower than 34 font widths (a phone): the layer, its output shape and its activations.
  enum Column { kLayer, kType, kShape, kParameters, kActivations };
  static const Column kAll[] = {kLayer, kType, kShape, kParameters, kActivations};
  static const Column kNarrow[] = {kLayer, kShape, kActivations};
  static const char* const kNames[] = {"Layer", "Type", "Output shape", "Parameters", "Activations"};
  const float width = std::min(ImGui::GetContentRegionAvail().x, em(60.0f));
  const bool narrow = width < em(34.0f);
  const Column* columns = narrow ? kNarrow : kAll;
  const int count = narrow ? 3 : 5;
  if (!ImGui::BeginTable(narrow ? "layers narrow" : "layers", count, kTableFlags, ImVec2(width, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (int c = 0; c < count; ++c) ImGui::TableSetupColumn(kNames[columns[c]], ImGuiTableColumnFlags_WidthStretch, 1.0f);
  order_table_columns();
  ImGui::TableHeadersRow();
  const std::vector<LayerRow>& layers = r.network.layers;
  const auto order = sorted_rows(static_cast<int>(layers.size()), [&](int column, int a, int b) {
    const LayerRow& x = layers[static_cast<size_t>(a)];
    const LayerRow& y = layers[static_cast<size_t>(b)];
    switch (columns[column]) {
      case kLayer: return x.name < y.name;
      case kType: return x.type < y.type;
      case kShape: return x.output_shape < y.output_shape;
      case kParameters: return x.parameters < y.parameters;
      case kActivations: break;
    }
    return x.activation_bytes < y.activation_bytes;
  });
  for (int index : order) {
    const LayerRow& row = layers[static_cast<size_t>(index)];
    ImGui::TableNextRow();
    for (int c = 0; c < count; ++c) {
      ImGui::TableSetColumnIndex(c);
      switch (columns[c]) {
        case kLayer:
          ImGui::TextUnformatted(row.name.c_str());
          if (ImGui::IsItemHovered() && !row.keeps.empty()) ImGui::SetTooltip("keeps %s", row.keeps.c_str());
          break;
        case kType: ImGui::TextUnformatted(row.type.c_str()); break;
        case kShape: ImGui::TextUnformatted(shape_text(row.output_shape).c_str()); break;
        case kParameters: ImGui::TextUnformatted(with_thousands(row.parameters).c_str()); break;
        case kActivations: ImGui::TextUnformatted(format_bytes(row.activation_bytes, request.units).c_str()); break;
      }
    }
  }
  end_table_saying_keys();
}

}  // namespace vramfit

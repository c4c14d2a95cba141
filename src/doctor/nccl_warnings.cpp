#include "doctor/nccl_warnings.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <re2/filtered_re2.h>
#include <re2/re2.h>
#include <re2/set.h>

#include "core/embedded_data.h"

namespace gpuprobe::doctor {
namespace {

using nlohmann::json;

constexpr int kMinAtomLength = 3;

std::string Field(const json& row, const char* key) {
  return row.contains(key) && row[key].is_string() ? row[key].get<std::string>() : std::string();
}

RE2::Options Options() {
  RE2::Options o;
  o.set_case_sensitive(false);
  o.set_log_errors(false);
  o.set_max_mem(64u << 20);
  return o;
}

}  // namespace

struct NcclWarningTable::AtomSet {
  std::unique_ptr<RE2::Set> set;
};

NcclWarningTable::NcclWarningTable() = default;
NcclWarningTable::NcclWarningTable(NcclWarningTable&&) noexcept = default;
NcclWarningTable& NcclWarningTable::operator=(NcclWarningTable&&) noexcept = default;
NcclWarningTable::~NcclWarningTable() = default;

core::Result<NcclWarningTable> NcclWarningTable::Parse(std::string_view json_text) {
  json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("warnings") || !doc["warnings"].is_array()) {
    return core::Status::ParseError("nccl warnings: not a JSON object with a 'warnings' list");
  }
  NcclWarningTable table;
  table.source_ = Field(doc, "source");
  for (const auto& r : doc.value("releases", json::array())) {
    if (r.is_string()) table.releases_.push_back(r.get<std::string>());
  }
  table.filter_ = std::make_unique<re2::FilteredRE2>(kMinAtomLength);
  for (const auto& row : doc["warnings"]) {
    if (!row.is_object() || Field(row, "regex").empty() || Field(row, "format").empty()) {
      return core::Status::ParseError("nccl warnings: every row needs a 'format' and a 'regex'");
    }
    NcclWarning w;
    w.format = Field(row, "format");
    w.file = Field(row, "file");
    w.subsystem = Field(row, "subsystem");
    w.result = row.contains("result") && row["result"].is_string() ? row["result"].get<std::string>() : std::string();
    w.first = Field(row, "first");
    w.last = Field(row, "last");
    for (size_t i = 0; i < w.format.size(); ++i) {
      if (w.format[i] == '%') {
        ++i;
        continue;
      }
      w.literal_bytes += w.format[i] != ' ';
    }
    int id = -1;
    if (table.filter_->Add(Field(row, "regex"), Options(), &id) != RE2::NoError || id != static_cast<int>(table.rows_.size())) {
      return core::Status::ParseError(fmt::format("nccl warnings: bad regex for '{}'", w.format));
    }
    table.rows_.push_back(std::move(w));
  }
  std::vector<std::string> atoms;
  table.filter_->Compile(&atoms);
  // The atoms are lower case; they are matched on a lower-cased copy of the text.
  RE2::Options literal;
  literal.set_literal(true);
  literal.set_log_errors(false);
  table.atoms_ = std::make_unique<AtomSet>();
  table.atoms_->set = std::make_unique<RE2::Set>(literal, RE2::UNANCHORED);
  for (const auto& atom : atoms) {
    if (table.atoms_->set->Add(atom, nullptr) < 0) return core::Status::Internal("nccl warnings: cannot add atom " + atom);
  }
  if (!table.atoms_->set->Compile()) return core::Status::Internal("nccl warnings: the atoms do not compile");
  return table;
}

core::Result<const NcclWarningTable*> NcclWarningTable::Embedded() {
  static const core::Result<NcclWarningTable> kTable = []() -> core::Result<NcclWarningTable> {
    auto text = core::EmbeddedFile("knowledge/nccl_warnings.json");
    if (!text.ok()) return text.status();
    return Parse(*text);
  }();
  if (!kTable.ok()) return kTable.status();
  return &kTable.value();
}

const NcclWarning* NcclWarningTable::Match(std::string_view text) const {
  if (filter_ == nullptr || rows_.empty()) return nullptr;
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  std::vector<int> atoms;
  if (atoms_ != nullptr && atoms_->set != nullptr) atoms_->set->Match(lower, &atoms);
  std::vector<int> candidates;
  filter_->AllPotentials(atoms, &candidates);
  const NcclWarning* best = nullptr;
  for (int id : candidates) {
    if (!RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), filter_->GetRE2(id))) continue;
    const NcclWarning& w = rows_[static_cast<size_t>(id)];
    if (best == nullptr || w.literal_bytes > best->literal_bytes) best = &w;
  }
  return best;
}

}  // namespace gpuprobe::doctor

#include "doctor/library_messages.h"

#include <algorithm>
#include <mutex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <re2/re2.h>
#include <re2/set.h>

#include "core/embedded_data.h"

namespace gpuprobe::doctor {
namespace {

using nlohmann::json;

std::string Field(const json& row, const char* key) {
  return row.contains(key) && row[key].is_string() ? row[key].get<std::string>() : std::string();
}

RE2::Options Options() {
  RE2::Options o;
  o.set_case_sensitive(false);
  o.set_log_errors(false);
  o.set_max_mem(8u << 20);
  return o;
}

}  // namespace

struct LibraryMessageTable::Compiled {
  std::unique_ptr<RE2::Set> anchors;        // lower case, literal
  std::unique_ptr<std::once_flag[]> once;   // per row
  std::unique_ptr<std::unique_ptr<RE2>[]> regex;  // per row, compiled on first use
};

LibraryMessageTable::LibraryMessageTable() = default;
LibraryMessageTable::LibraryMessageTable(LibraryMessageTable&&) noexcept = default;
LibraryMessageTable& LibraryMessageTable::operator=(LibraryMessageTable&&) noexcept = default;
LibraryMessageTable::~LibraryMessageTable() = default;

core::Result<LibraryMessageTable> LibraryMessageTable::Parse(std::string_view json_text) {
  json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("warnings") || !doc["warnings"].is_array()) {
    return core::Status::ParseError("library messages: not a JSON object with a 'warnings' list");
  }
  LibraryMessageTable table;
  table.source_ = Field(doc, "source");
  table.api_ = Field(doc, "api");
  if (table.api_.empty()) return core::Status::ParseError("library messages: the table names no 'api'");
  for (const auto& r : doc.value("releases", json::array())) {
    if (r.is_string()) table.releases_.push_back(r.get<std::string>());
  }
  RE2::Options literal;
  literal.set_literal(true);
  literal.set_log_errors(false);
  auto compiled = std::make_unique<Compiled>();
  compiled->anchors = std::make_unique<RE2::Set>(literal, RE2::UNANCHORED);
  for (const auto& row : doc["warnings"]) {
    std::string anchor = Field(row, "anchor");
    if (!row.is_object() || Field(row, "regex").empty() || Field(row, "format").empty() || anchor.size() < 3) {
      return core::Status::ParseError("library messages: every row needs a 'format', a 'regex' and an 'anchor'");
    }
    LibraryMessage w;
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
    for (char& c : anchor) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (compiled->anchors->Add(anchor, nullptr) != static_cast<int>(table.rows_.size())) {
      return core::Status::ParseError(fmt::format("library messages: bad anchor for '{}'", w.format));
    }
    table.regexes_.push_back(Field(row, "regex"));
    table.rows_.push_back(std::move(w));
  }
  if (!compiled->anchors->Compile()) return core::Status::Internal("library messages: the anchors do not compile");
  compiled->once = std::make_unique<std::once_flag[]>(table.rows_.size());
  compiled->regex = std::make_unique<std::unique_ptr<RE2>[]>(table.rows_.size());
  table.compiled_ = std::move(compiled);
  return table;
}

namespace {

core::Result<LibraryMessageTable> FromEmbedded(const char* name) {
  auto text = core::EmbeddedFile(name);
  if (!text.ok()) return text.status();
  auto table = LibraryMessageTable::Parse(*text);
  if (!table.ok()) return core::DamagedEmbeddedData(table.status(), name);
  return table;
}

}  // namespace

core::Result<const LibraryMessageTable*> LibraryMessageTable::Nccl() {
  static const core::Result<LibraryMessageTable> kTable = FromEmbedded("knowledge/nccl_warnings.json");
  if (!kTable.ok()) return kTable.status();
  return &kTable.value();
}

core::Result<const LibraryMessageTable*> LibraryMessageTable::CudnnFrontend() {
  static const core::Result<LibraryMessageTable> kTable = FromEmbedded("knowledge/cudnn_frontend_messages.json");
  if (!kTable.ok()) return kTable.status();
  return &kTable.value();
}

const LibraryMessage* LibraryMessageTable::Match(std::string_view text) const {
  if (compiled_ == nullptr || rows_.empty()) return nullptr;
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  std::vector<int> candidates;
  if (!compiled_->anchors->Match(lower, &candidates)) return nullptr;
  const LibraryMessage* best = nullptr;
  for (int id : candidates) {
    size_t i = static_cast<size_t>(id);
    std::call_once(compiled_->once[i], [&] {
      auto re = std::make_unique<RE2>(regexes_[i], Options());
      if (re->ok()) compiled_->regex[i] = std::move(re);
    });
    const RE2* re = compiled_->regex[i].get();
    if (re == nullptr || !RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re)) continue;
    const LibraryMessage& w = rows_[i];
    if (best == nullptr || w.literal_bytes > best->literal_bytes) best = &w;
  }
  return best;
}

}  // namespace gpuprobe::doctor

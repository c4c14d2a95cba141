#include "doctor/host_errors.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include "core/embedded_data.h"

namespace gpuprobe::doctor {
namespace {

using nlohmann::json;

std::string StringField(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Shorter messages ("Bad address", "No such device") are ordinary English; these are glibc's
// own sentences.
constexpr size_t kMinMessageLength = 16;

}  // namespace

HostErrorTable::HostErrorTable() = default;
HostErrorTable::~HostErrorTable() = default;

core::Result<std::unique_ptr<HostErrorTable>> HostErrorTable::Parse(std::string_view json_text) {
  json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("errno") || !doc["errno"].is_array() ||
      !doc.contains("python_exceptions") || !doc["python_exceptions"].is_array()) {
    return core::Status::ParseError("host errors: not a JSON object with 'errno' and 'python_exceptions' lists");
  }
  std::unique_ptr<HostErrorTable> table(new HostErrorTable());
  for (const auto& row : doc["errno"]) {
    if (!row.is_object() || !row.contains("number") || !row["number"].is_number_integer() || StringField(row, "name").empty()) {
      return core::Status::ParseError("host errors: every errno row needs 'name' and an integer 'number'");
    }
    table->errnos_.push_back({StringField(row, "name"), row["number"].get<int>(), StringField(row, "message"), StringField(row, "message_zh")});
  }
  for (const auto& row : doc["python_exceptions"]) {
    if (!row.is_object() || StringField(row, "name").empty()) return core::Status::ParseError("host errors: every Python exception needs a 'name'");
    table->python_.push_back({StringField(row, "name"), StringField(row, "base"), StringField(row, "doc"), StringField(row, "module")});
  }
  // The grammars, not the names: a number where errno goes, an E-name as a word, and a line
  // that starts with an exception class (dotted module path allowed) and a colon or its end.
  table->errno_number_ = std::make_unique<re2::RE2>(R"((?i)(?:\[errno\s*|\berrno\s*[=:]?\s*|\berror\s+code\s+|\(os error\s+)(\d{1,3})\b)");
  table->errno_name_ = std::make_unique<re2::RE2>(R"(\b(E[A-Z0-9]{2,14})\b)");
  // An exception line: at a line's start, or after a title's "[Bug]: " or a quote's "(".
  table->python_line_ = std::make_unique<re2::RE2>(R"((?m)(?:^|[\s\]:(])(?:[A-Za-z_][\w]*\.)*([A-Z][A-Za-z]*(?:Error|Exception|Exit|Interrupt|Iteration|Group))(?::|\s*$))");
  table->syntax_frame_ = std::make_unique<re2::RE2>(R"((?m)^\s*File "[^"\n]+", line \d+\s*\n[^\n]*\S[^\n]*\n\s*\^+\s*(?:\n|$))");
  for (const auto* re : {table->errno_number_.get(), table->errno_name_.get(), table->python_line_.get(), table->syntax_frame_.get()}) {
    if (!re->ok()) return core::Status::ParseError(fmt::format("host errors: pattern does not compile: {}", re->error()));
  }
  return table;
}

core::Result<const HostErrorTable*> HostErrorTable::Embedded() {
  static const core::Result<std::unique_ptr<HostErrorTable>> kTable = []() -> core::Result<std::unique_ptr<HostErrorTable>> {
    auto text = core::EmbeddedFile("knowledge/host_errors.json");
    if (!text.ok()) return text.status();
    return Parse(*text);
  }();
  if (!kTable.ok()) return core::DamagedEmbeddedData(kTable.status(), "knowledge/host_errors.json");
  return kTable.value().get();
}

const OsError* HostErrorTable::ErrnoByNumber(int number) const {
  for (const auto& e : errnos_) {
    if (e.number == number) return &e;  // the first: the canonical name before its aliases
  }
  return nullptr;
}

const OsError* HostErrorTable::ErrnoByName(std::string_view name) const {
  for (const auto& e : errnos_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

const PythonException* HostErrorTable::PythonByName(std::string_view name) const {
  for (const auto& p : python_) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

bool HostErrorTable::DerivesFrom(const PythonException& exception, std::string_view ancestor) const {
  const PythonException* p = &exception;
  for (int depth = 0; p != nullptr && depth < 16; ++depth) {  // the hierarchy is a few levels deep
    if (p->name == ancestor) return true;
    p = p->base.empty() ? nullptr : PythonByName(p->base);
  }
  return false;
}

std::optional<HostError> HostErrorTable::Find(std::string_view text) const {
  HostError found;
  std::optional<size_t> os_at, python_at;
  re2::StringPiece input(text.data(), text.size());
  re2::StringPiece match;
  if (RE2::FindAndConsume(&input, *errno_number_, &match)) {
    found.os = ErrnoByNumber(std::stoi(std::string(match)));
    if (found.os != nullptr) os_at = static_cast<size_t>(match.data() - text.data());
  }
  input = re2::StringPiece(text.data(), text.size());
  while (found.os == nullptr && RE2::FindAndConsume(&input, *errno_name_, &match)) {
    found.os = ErrnoByName(std::string_view(match.data(), match.size()));
    if (found.os != nullptr) os_at = static_cast<size_t>(match.data() - text.data());
  }
  for (size_t i = 0; found.os == nullptr && i < errnos_.size(); ++i) {
    const auto& e = errnos_[i];
    size_t at = e.message.size() >= kMinMessageLength ? text.find(e.message) : std::string_view::npos;
    if (at != std::string_view::npos) {
      found.os = &e;
      found.os_by_message = true;
      os_at = at;
    }
  }
  // The last exception line of a traceback is the one raised.
  input = re2::StringPiece(text.data(), text.size());
  while (RE2::FindAndConsume(&input, *python_line_, &match)) {
    if (const auto* p = PythonByName(std::string_view(match.data(), match.size()))) {
      found.python = p;
      python_at = static_cast<size_t>(match.data() - text.data());
    }
  }
  // A traceback whose last frame is "File ..., line N" without a function, then the source line
  // and a caret under it, is how CPython prints a SyntaxError (the error line may be cut off).
  if (found.python == nullptr && RE2::PartialMatch(text, *syntax_frame_)) {
    found.python = PythonByName("SyntaxError");
    if (found.python != nullptr) {
      size_t frame = text.rfind("File \"");
      python_at = frame == std::string_view::npos ? 0 : frame;
    }
  }
  if (found.os == nullptr && found.python == nullptr) return std::nullopt;
  found.python_carries_errno = found.python != nullptr && DerivesFrom(*found.python, "OSError");
  found.offset = found.OsLeads() ? *os_at : *python_at;
  return found;
}

}  // namespace gpuprobe::doctor

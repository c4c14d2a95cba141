#include "report/status_text.h"

#include <fmt/args.h>
#include <fmt/format.h>

namespace gpuprobe::report {
namespace {

constexpr const char kKeySuffix[] = "_key";
constexpr size_t kKeySuffixLength = sizeof kKeySuffix - 1;

bool IsKeyArgument(const std::string& name) {
  return name.size() > kKeySuffixLength && name.compare(name.size() - kKeySuffixLength, kKeySuffixLength, kKeySuffix) == 0;
}

std::string Format(const Texts& texts, const std::string& key, const core::MessageArgs& args, int depth) {
  fmt::dynamic_format_arg_store<fmt::format_context> store;
  for (const auto& [name, value] : args) {
    if (IsKeyArgument(name)) {
      // "reason_key" fills "{reason}" with a text of its own, formatted with the same
      // arguments; one level only, so a key argument cannot recurse forever.
      std::string text = depth == 0 ? Format(texts, value, args, depth + 1) : texts.Get(value);
      store.push_back(fmt::arg(name.substr(0, name.size() - kKeySuffixLength).c_str(), text));
    } else {
      store.push_back(fmt::arg(name.c_str(), value));
    }
  }
  const std::string& pattern = texts.Get(key);
  try {
    return fmt::vformat(pattern, store);
  } catch (const fmt::format_error&) {
    // A placeholder without its argument: tests render every error key with the arguments
    // its callers give, so this shows only for a key used with the wrong arguments.
    return pattern;
  }
}

}  // namespace

std::string FormatWithArgs(const Texts& texts, const std::string& key, const core::MessageArgs& args) {
  return Format(texts, key, args, 0);
}

std::string StatusMessage(const core::Status& status, const Texts& texts) {
  if (status.message_key().empty()) return status.message();
  std::string out;
  const auto& contexts = status.contexts();
  const auto& keys = status.context_keys();
  for (size_t i = 0; i < contexts.size(); ++i) {
    const bool keyed = i < keys.size() && !keys[i].first.empty();
    out += (keyed ? Format(texts, keys[i].first, keys[i].second, 0) : contexts[i]) + texts.Get("error.context_separator");
  }
  return out + Format(texts, status.message_key(), status.message_args(), 0);
}

std::string StatusHint(const core::Status& status, const Texts& texts) {
  if (status.hint_key().empty()) return status.hint();
  return Format(texts, status.hint_key(), status.message_args(), 0);
}

}  // namespace gpuprobe::report

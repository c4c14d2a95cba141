#include "cli/parse_errors.h"


#include <re2/re2.h>
#include <string>

namespace gpuprobe::cli {
namespace {

// CLI11 (2.x) words its errors in fixed sentences (CLI/Error.hpp); the names and values in
// them are what a translation needs. Each pattern is exercised against the real app by
// tests/cli/help_formatter_test.cpp, so a CLI11 upgrade that rewords one fails a test rather
// than an error in the wrong language.
core::Status Keyed(const std::string& what, const std::string& key, core::MessageArgs args) {
  return core::Status::InvalidArgument(what).WithKeys(key, std::move(args));
}


// The captures of `pattern` matched against the whole of `text` (m[0] is the text). RE2: a
// CLI11 message quoting a 100 KB argument costs linear time, not a recursion per character.
bool Match(const std::string& text, const char* pattern, std::vector<std::string>* m) {
  RE2 re(pattern);
  int groups = re.NumberOfCapturingGroups();
  std::vector<std::string> captures(static_cast<size_t>(std::max(groups, 0)));
  std::vector<RE2::Arg> args(captures.size());
  std::vector<const RE2::Arg*> arg_ptrs(captures.size());
  for (size_t i = 0; i < captures.size(); ++i) {
    args[i] = &captures[i];
    arg_ptrs[i] = &args[i];
  }
  if (!RE2::FullMatchN(text, re, arg_ptrs.data(), groups)) return false;
  m->assign(1, text);
  m->insert(m->end(), captures.begin(), captures.end());
  return true;
}

// The class is read from the exit code CLI11 gives each error class: get_name() is not
// reliable (an ExtrasError raised by a subcommand carries the subcommand's name).
core::Status Classify(const std::string& what, CLI::ExitCodes kind) {
  using CLI::ExitCodes;
  std::vector<std::string> m;
  if (kind == ExitCodes::ExtrasError && Match(what, R"(The following arguments? (?:was|were) not expected: (.*))", &m)) {
    return Keyed(what, "error.cli.unexpected", {{"args", m[1]}});
  }
  if (kind == ExitCodes::ConversionError) {
    if (Match(what, R"(Could not convert: (\S+) = (.*))", &m)) return Keyed(what, "error.cli.conversion", {{"option", m[1]}, {"value", m[2]}});
    if (Match(what, R"(The value (.*) is not an allowed value for (\S+))", &m)) {
      return Keyed(what, "error.cli.not_allowed", {{"option", m[2]}, {"value", m[1]}});
    }
    if (Match(what, R"((\S+): too many inputs for a flag)", &m)) return Keyed(what, "error.cli.flag_value", {{"option", m[1]}});
    if (Match(what, R"((\S+): Should be true/false or a number)", &m)) return Keyed(what, "error.cli.flag_bool", {{"option", m[1]}});
  }
  if (kind == ExitCodes::ValidationError) {
    if (Match(what, R"((\S+): (\S+) not in (\{.*\}))", &m)) {
      return Keyed(what, "error.cli.not_in_set", {{"option", m[1]}, {"value", m[2]}, {"set", m[3]}});
    }
    if (Match(what, R"((\S+): .*)", &m)) return Keyed(what, "error.cli.invalid_value", {{"option", m[1]}});
  }
  if (kind == ExitCodes::ArgumentMismatch) {
    if (Match(what, R"((\S+): \d+ required \S+ missing)", &m)) return Keyed(what, "error.cli.needs_value", {{"option", m[1]}});
    if (Match(what, R"(Expected (?:exactly|at least) \d+ arguments to (\S+), got \d+)", &m)) {
      return Keyed(what, "error.cli.value_count", {{"option", m[1]}});
    }
    if (Match(what, R"((\S+): At (?:least|Most) \d+ required but received \d+)", &m)) {
      return Keyed(what, "error.cli.value_count", {{"option", m[1]}});
    }
    if (Match(what, R"((\S+) was given a disallowed flag override)", &m)) return Keyed(what, "error.cli.flag_value", {{"option", m[1]}});
  }
  if (kind == ExitCodes::RequiredError && Match(what, R"((\S+) is required)", &m)) return Keyed(what, "error.cli.required", {{"option", m[1]}});
  if (kind == ExitCodes::ExcludesError && Match(what, R"((\S+) excludes (\S+))", &m)) {
    return Keyed(what, "error.cli.excludes", {{"option", m[1]}, {"other", m[2]}});
  }
  if (kind == ExitCodes::RequiresError && Match(what, R"((\S+) requires (\S+))", &m)) {
    return Keyed(what, "error.cli.requires", {{"option", m[1]}, {"other", m[2]}});
  }
  return Keyed(what, "error.cli.other", {});
}

}  // namespace

core::Status StatusFromParseError(const CLI::ParseError& error, const std::string& command) {
  core::Status keyed = Classify(error.what(), static_cast<CLI::ExitCodes>(error.get_exit_code()));
  core::MessageArgs args = keyed.message_args();
  args.emplace_back("command", command);
  return core::Status::InvalidArgument(keyed.message(), "run '" + command + " --help' for usage and examples")
      .WithKeys(keyed.message_key(), std::move(args), "error.cli.hint");
}

}  // namespace gpuprobe::cli

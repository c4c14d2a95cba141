// `--help` in the user's language. A CLI11 Formatter that takes every word of a help page
// from the text catalogue (data/texts/<lang>/help.json) instead of the strings the verbs pass
// to CLI11: the description ("help.<verb>.summary"), each option ("help.<verb>.<long-name>",
// a positional by its name), the footer with examples and exit status ("help.<verb>.footer")
// and, on every page, the pointer to the glossary ("help.label.glossary"),
// and CLI11's own words (Usage, OPTIONS, REQUIRED, group titles, value types, the names of
// positional arguments: "help.label.*").
// The main program's keys use "global" for <verb>; -h/--help and --version are
// "help.global.help" and "help.global.version" on every page. A key missing from the
// catalogue shows as the catalogue's missing-text marker, and a test walks every verb and
// option of the real app so that never ships.
//
// Thread safety: immutable after construction; the Texts it refers to must outlive it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "report/i18n.h"

namespace gpuprobe::cli {

/// The catalogue key of a command's help texts: "global" for the main program, else the
/// verb's name.
std::string HelpScope(const CLI::App* app);

/// The catalogue key of an option's description: "help.<scope>.<first long name>" (or its
/// positional name); -h/--help and --version map to "help.global.help"/"help.global.version".
std::string HelpOptionKey(const CLI::App* app, const CLI::Option* option);

class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(const report::Texts& texts);

  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_footer(const CLI::App* app) const override;
  std::string make_group(std::string group, bool is_positional, std::vector<const CLI::Option*> opts) const override;
  std::string make_subcommands(const CLI::App* app, CLI::AppFormatMode mode) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_option(const CLI::Option* option, bool is_positional) const override;
  std::string make_option_name(const CLI::Option* option, bool is_positional) const override;
  std::string make_option_usage(const CLI::Option* option) const override;
  std::string make_option_opts(const CLI::Option* option) const override;
  std::string make_option_desc(const CLI::Option* option) const override;

  /// The commands whose options this formatter describes: `root` and its subcommands (CLI11
  /// does not tell a formatter which command an option belongs to).
  void set_apps(const CLI::App* root);

 private:
  /// The text "help.label.<lower-case word>" ("usage", "group.options", "type.text").
  std::string Label(const std::string& word) const;

  const report::Texts& texts_;
  std::vector<const CLI::App*> apps_;
};

/// Columns `text` (UTF-8) takes in a terminal: East Asian wide characters (CJK, full-width
/// punctuation) count two, others one. CLI11 pads by bytes, which misaligns Chinese.
size_t DisplayWidth(const std::string& text);

/// Installs a HelpFormatter on `app` and every subcommand already added.
void InstallHelpFormatter(CLI::App* app, const report::Texts& texts);

}  // namespace gpuprobe::cli

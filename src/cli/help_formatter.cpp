#include "cli/help_formatter.h"

#include <cctype>
#include <cstdint>
#include <sstream>

#include "core/strings.h"

namespace gpuprobe::cli {
namespace {

using core::Lower;

// An option's own name, without dashes: its first long name, else its positional name.
std::string OptionName(const CLI::Option* option) {
  if (!option->get_lnames().empty()) return option->get_lnames().front();
  if (!option->get_snames().empty()) return option->get_snames().front();
  return option->get_name();
}

// "  name  description", the description starting at column `width` (by display width), on
// the next line when the name is too long; continuation lines of the description indented.
std::string HelpLine(const std::string& name, const std::string& description, size_t width) {
  std::string left = "  " + name;
  std::string out = left;
  if (!description.empty()) {
    size_t used = DisplayWidth(left);
    if (used >= width) {
      out += "\n" + std::string(width, ' ');
    } else {
      out += std::string(width - used, ' ');
    }
    for (char c : description) {
      out.push_back(c);
      if (c == '\n') out += std::string(width, ' ');
    }
  }
  return out + "\n";
}

}  // namespace

size_t DisplayWidth(const std::string& text) {
  size_t width = 0;
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t length = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    std::uint32_t code = length == 1 ? c : c & (0xFF >> (length + 1));
    for (size_t k = 1; k < length && i + k < text.size(); ++k) code = (code << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    // Wide: Hangul Jamo, CJK radicals to Yi, Hangul syllables, CJK compatibility, full-width
    // forms (Unicode East Asian Width W/F, the ranges Chinese text uses).
    bool wide = (code >= 0x1100 && code <= 0x115F) || (code >= 0x2E80 && code <= 0xA4CF) || (code >= 0xAC00 && code <= 0xD7A3) ||
                (code >= 0xF900 && code <= 0xFAFF) || (code >= 0xFE30 && code <= 0xFE4F) || (code >= 0xFF00 && code <= 0xFF60) ||
                (code >= 0xFFE0 && code <= 0xFFE6) || (code >= 0x20000 && code <= 0x3FFFD);
    width += wide ? 2 : 1;
    i += length;
  }
  return width;
}

std::string HelpScope(const CLI::App* app) {
  return app->get_parent() == nullptr ? std::string("global") : app->get_name();
}

std::string HelpOptionKey(const CLI::App* app, const CLI::Option* option) {
  std::string name = OptionName(option);
  // The help and version flags are CLI11's, the same on every page.
  if (option == app->get_help_ptr() || name == "help") return "help.global.help";
  if (name == "version") return "help.global.version";
  return "help." + HelpScope(app) + "." + name;
}

HelpFormatter::HelpFormatter(const report::Texts& texts) : texts_(texts) {
  // CLI11's words on the usage line and in option lists, from the catalogue.
  label("Usage", Label("usage"));
  label("OPTIONS", Label("options_badge"));
  label("SUBCOMMAND", Label("subcommand_badge"));
  label("SUBCOMMANDS", Label("subcommands_badge"));
  for (const char* word : {"REQUIRED", "Needs", "Excludes", "Env"}) label(word, Label(word));
  column_width(30);
}

std::string HelpFormatter::Label(const std::string& word) const { return texts_.Get("help.label." + Lower(word)); }

std::string HelpFormatter::make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const {
  if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
  std::stringstream out;
  out << make_description(app);
  out << make_usage(app, name);
  out << make_positionals(app);
  out << make_groups(app, mode);
  out << make_subcommands(app, mode);
  out << '\n' << make_footer(app);
  return out.str();
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
  return texts_.Get("help." + HelpScope(app) + ".summary") + "\n";
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
  // Every command has examples and exit codes; a missing one shows as missing (and fails a test).
  // Every page ends pointing to the glossary (`gpuprobe explain TERM`).
  return texts_.Get("help." + HelpScope(app) + ".footer") + "\n\n" + texts_.Get("help.label.glossary") + "\n";
}

std::string HelpFormatter::make_group(std::string group, bool is_positional, std::vector<const CLI::Option*> opts) const {
  std::stringstream out;
  // CLI11 names the groups "Options" (every option's default) and "Positionals".
  out << "\n" << Label("group." + (is_positional ? std::string("Positionals") : group)) << ":\n";
  for (const CLI::Option* option : opts) out << make_option(option, is_positional);
  return out.str();
}

std::string HelpFormatter::make_subcommands(const CLI::App* app, CLI::AppFormatMode mode) const {
  std::vector<const CLI::App*> subcommands = app->get_subcommands([](const CLI::App* sub) {
    return !sub->get_name().empty() && !sub->get_disabled();
  });
  if (subcommands.empty()) return {};
  std::stringstream out;
  out << "\n" << Label("group.subcommands") << ":\n";
  for (const CLI::App* sub : subcommands) {
    out << (mode == CLI::AppFormatMode::All ? sub->help(sub->get_name(), CLI::AppFormatMode::Sub) + "\n"
                                            : make_subcommand(sub));
  }
  return out.str();
}

std::string HelpFormatter::make_subcommand(const CLI::App* sub) const {
  return HelpLine(sub->get_display_name(true), texts_.Get("help." + sub->get_name() + ".summary"), column_width_);
}

std::string HelpFormatter::make_option_name(const CLI::Option* option, bool is_positional) const {
  // A positional's name is a placeholder the user replaces ("benchmarks"): a word of the
  // reader's language. Flags keep their names: they are what the user types.
  if (is_positional) return Label("positional." + option->get_name());
  return CLI::Formatter::make_option_name(option, is_positional);
}

std::string HelpFormatter::make_option_usage(const CLI::Option* option) const {
  std::string usage = Label("positional." + option->get_name());
  if (option->get_expected_max() >= CLI::detail::expected_max_vector_size) usage += "...";
  return option->get_required() ? usage : "[" + usage + "]";
}

std::string HelpFormatter::make_option(const CLI::Option* option, bool is_positional) const {
  return HelpLine(make_option_name(option, is_positional) + make_option_opts(option), make_option_desc(option), column_width_);
}

std::string HelpFormatter::make_option_opts(const CLI::Option* option) const {
  std::stringstream out;
  if (!option->get_option_text().empty()) return " " + option->get_option_text();
  if (option->get_type_size() != 0) {
    // "TEXT", "INT", or "TEXT:{en,zh}": the type word is translated, a validator's list kept.
    std::string type = option->get_type_name();
    if (!type.empty()) {
      size_t colon = type.find(':');
      std::string base = type.substr(0, colon);
      out << " " << Label("type." + base) << (colon == std::string::npos ? "" : type.substr(colon));
    }
    if (!option->get_default_str().empty()) out << "=" << option->get_default_str();
    if (option->get_expected_max() == CLI::detail::expected_max_vector_size) {
      out << " ...";
    } else if (option->get_expected_min() > 1) {
      out << " x " << option->get_expected();
    }
    if (option->get_required()) out << " " << get_label("REQUIRED");
  }
  if (!option->get_envname().empty()) out << " (" << get_label("Env") << ":" << option->get_envname() << ")";
  if (!option->get_needs().empty()) {
    out << " " << get_label("Needs") << ":";
    for (const CLI::Option* other : option->get_needs()) out << " " << other->get_name();
  }
  if (!option->get_excludes().empty()) {
    out << " " << get_label("Excludes") << ":";
    for (const CLI::Option* other : option->get_excludes()) out << " " << other->get_name();
  }
  return out.str();
}

std::string HelpFormatter::make_option_desc(const CLI::Option* option) const {
  // CLI11 does not hand the option's app to the formatter; the parent is found by asking each
  // command, so the key names the verb the option belongs to.
  const CLI::App* owner = nullptr;
  for (const CLI::App* app : apps_) {
    for (const CLI::Option* candidate : app->get_options()) {
      if (candidate == option) owner = app;
    }
  }
  if (owner == nullptr) return option->get_description();
  return texts_.Get(HelpOptionKey(owner, option));
}

void HelpFormatter::set_apps(const CLI::App* root) {
  apps_ = {root};
  for (const CLI::App* sub : root->get_subcommands([](const CLI::App*) { return true; })) apps_.push_back(sub);
}

void InstallHelpFormatter(CLI::App* app, const report::Texts& texts) {
  auto formatter = std::make_shared<HelpFormatter>(texts);
  formatter->set_apps(app);
  app->formatter(formatter);
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) sub->formatter(formatter);
}

}  // namespace gpuprobe::cli

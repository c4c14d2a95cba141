// `--help` comes from the text catalogue for every verb and option the real app has, in
// every language, and reads in Chinese without English left in it; CLI11's parse errors map
// to translated messages.
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/cli_app.h"
#include "cli/help_formatter.h"
#include "cli/parse_errors.h"
#include "cli/zh_leak_checker.h"
#include "report/status_text.h"

namespace gpuprobe::cli {
namespace {

std::vector<const CLI::App*> Commands(const CLI::App& app) {
  std::vector<const CLI::App*> out = {&app};
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) out.push_back(sub);
  return out;
}

// Every key the formatter will look up for `app`'s pages.
std::set<std::string> KeysOf(const CLI::App& app) {
  std::set<std::string> keys = {"help.label.usage", "help.label.options_badge", "help.label.subcommand_badge",
                                "help.label.subcommands_badge", "help.label.required", "help.label.group.options",
                                "help.label.group.positionals", "help.label.group.subcommands",
                                "help.label.glossary"};
  for (const CLI::App* command : Commands(app)) {
    std::string scope = HelpScope(command);
    keys.insert("help." + scope + ".summary");
    keys.insert("help." + scope + ".footer");
    for (const CLI::Option* option : command->get_options()) {
      keys.insert(HelpOptionKey(command, option));
      if (option->get_positional()) keys.insert("help.label.positional." + option->get_name());
      std::string type = option->get_type_name();
      if (option->get_type_size() != 0 && !type.empty()) {
        std::string base = type.substr(0, type.find(':'));
        for (char& c : base) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        keys.insert("help.label.type." + base);
      }
    }
  }
  return keys;
}

class HelpCatalogueTest : public ::testing::TestWithParam<report::Language> {};

TEST_P(HelpCatalogueTest, EveryVerbAndOptionHasItsHelpText) {
  auto texts = report::Texts::Load(GetParam());
  ASSERT_TRUE(texts.ok());
  auto cli = BuildCliApp(*texts);
  std::set<std::string> keys = KeysOf(cli->app);
  EXPECT_GT(keys.size(), 90u);  // 11 verbs and their ~90 options: the walk found the real app
  for (const std::string& key : keys) EXPECT_TRUE(texts->Has(key)) << report::LanguageCode(GetParam()) << " lacks " << key;
}

TEST_P(HelpCatalogueTest, NoHelpTextIsLeftOverFromARemovedOption) {
  auto texts = report::Texts::Load(GetParam());
  ASSERT_TRUE(texts.ok());
  auto cli = BuildCliApp(*texts);
  std::set<std::string> keys = KeysOf(cli->app);
  for (const auto& [key, text] : texts->All()) {
    if (key.rfind("help.", 0) != 0 || key.rfind("help.label.", 0) == 0) continue;
    EXPECT_TRUE(keys.count(key)) << key << " is in the catalogue but no verb or option uses it";
  }
}

INSTANTIATE_TEST_SUITE_P(Languages, HelpCatalogueTest, ::testing::Values(report::Language::kEn, report::Language::kZh));

TEST(HelpFormatterTest, EveryHelpPageReadsInChinese) {
  auto texts = report::Texts::Load(report::Language::kZh);
  ASSERT_TRUE(texts.ok());
  auto cli = BuildCliApp(*texts);
  auto allowlist = testing::ReadAllowlist(GPUPROBE_TESTS_DIR "/cli/zh_allowlist.txt");
  ASSERT_FALSE(allowlist.empty());
  for (const CLI::App* command : Commands(cli->app)) {
    std::string page = command->help();
    EXPECT_NE(page.find(texts->Get("help.label.usage")), std::string::npos) << command->get_name();
    auto leaks = testing::FindLeaks(page, allowlist);
    EXPECT_TRUE(leaks.empty()) << "gpuprobe " << command->get_name() << " --help:\n" << testing::DescribeLeaks(leaks);
  }
}

TEST(HelpFormatterTest, EnglishPagesKeepTheirExamplesAndColumns) {
  auto texts = report::Texts::Load(report::Language::kEn);
  ASSERT_TRUE(texts.ok());
  auto cli = BuildCliApp(*texts);
  std::string main_page = cli->app.help();
  EXPECT_NE(main_page.find("Usage: gpuprobe [OPTIONS] [SUBCOMMAND]"), std::string::npos) << main_page;
  EXPECT_NE(main_page.find("Examples:"), std::string::npos);
  EXPECT_NE(main_page.find("  plan                        will my model fit"), std::string::npos) << main_page;
  const CLI::App* bench = cli->app.get_subcommand("bench");
  EXPECT_NE(bench->help().find("  --list                      list every benchmark id"), std::string::npos) << bench->help();
}

// Issue 26: every verb's --help points a newcomer to the glossary, in both languages.
TEST_P(HelpCatalogueTest, EveryPagePointsToTheGlossary) {
  auto texts = report::Texts::Load(GetParam());
  ASSERT_TRUE(texts.ok());
  auto cli = BuildCliApp(*texts);
  const std::string pointer = texts->Get("help.label.glossary");
  ASSERT_NE(pointer.find("gpuprobe explain"), std::string::npos) << pointer;
  size_t pages = 0;
  for (const CLI::App* command : Commands(cli->app)) {
    std::string page = command->help();
    EXPECT_NE(page.find(pointer), std::string::npos) << "gpuprobe " << command->get_name() << " --help:\n" << page;
    ++pages;
  }
  EXPECT_GE(pages, 12u);  // the main page and its 11 verbs
}

TEST(HelpFormatterTest, ChineseColumnsAlignByDisplayWidth) {
  EXPECT_EQ(DisplayWidth("abc"), 3u);
  EXPECT_EQ(DisplayWidth("文本"), 4u);
  EXPECT_EQ(DisplayWidth("必填(文本)"), 10u);
  EXPECT_EQ(DisplayWidth("\xEF\xBC\x88"), 2u);  // a full-width parenthesis is wide too
  auto texts = report::Texts::Load(report::Language::kZh);
  ASSERT_TRUE(texts.ok());
  auto cli = BuildCliApp(*texts);
  std::string page = cli->app.get_subcommand("bench")->help();
  // "  --threads 整数" is 16 columns (20 bytes): its description starts at column 30.
  EXPECT_NE(page.find("  --threads 整数" + std::string(14, ' ') + "CPU"), std::string::npos) << page;
}

// Parses `args` with the real app; the Status a parse error becomes.
core::Status ParseStatus(CliApp& cli, std::vector<std::string> args) {
  std::vector<char*> argv = {const_cast<char*>("gpuprobe")};
  for (auto& a : args) argv.push_back(a.data());
  try {
    cli.app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return StatusFromParseError(e, "gpuprobe");
  }
  return core::Status::Ok();
}

TEST(ParseErrorsTest, EachMistakeAUserCanMakeHasItsOwnTranslatedMessage) {
  auto zh = report::Texts::Load(report::Language::kZh);
  ASSERT_TRUE(zh.ok());
  struct Case {
    std::vector<std::string> args;
    const char* key;
  } cases[] = {
      {{"plan", "--params", "7B", "--bogus"}, "error.cli.unexpected"},
      {{"bench", "--threads", "abc"}, "error.cli.conversion"},
      {{"--lang", "fr", "gpus"}, "error.cli.not_in_set"},
      {{"bench", "--threads"}, "error.cli.needs_value"},
  };
  for (auto& c : cases) {
    auto cli = BuildCliApp(*zh);
    core::Status status = ParseStatus(*cli, c.args);
    EXPECT_EQ(status.message_key(), c.key) << status.message();
    EXPECT_EQ(status.code(), core::StatusCode::kInvalidArgument);
    std::string text = report::StatusMessage(status, *zh) + report::StatusHint(status, *zh);
    EXPECT_TRUE(testing::FindLeaks(text, testing::ReadAllowlist(GPUPROBE_TESTS_DIR "/cli/zh_allowlist.txt")).empty()) << text;
  }
}

TEST(ParseErrorsTest, RequiredAndExclusiveOptionsAreTranslatedToo) {
  // No verb has a required or exclusive option today; a scratch app shows the mapping holds.
  CLI::App app;
  std::string a, b;
  app.add_option("--needed", a)->required();
  auto* x = app.add_option("--x", b);
  app.add_flag("--y")->excludes(x);
  std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "error.cli.required"}, {{"--needed", "1", "--x", "2", "--y"}, "error.cli.excludes"}};
  for (auto& [args, key] : cases) {
    std::vector<char*> argv = {const_cast<char*>("t")};
    for (auto& s : args) argv.push_back(s.data());
    try {
      app.parse(static_cast<int>(argv.size()), argv.data());
      ADD_FAILURE() << "no error for " << key;
    } catch (const CLI::ParseError& e) {
      EXPECT_EQ(StatusFromParseError(e, "t").message_key(), key) << e.what();
    }
    app.clear();
  }
}

}  // namespace
}  // namespace gpuprobe::cli

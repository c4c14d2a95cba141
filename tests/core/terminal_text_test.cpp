#include "core/terminal_text.h"

#include <sstream>

#include <gtest/gtest.h>

namespace gpuprobe::core {
namespace {

TEST(EscapeForTerminal, KeepsTextNewlinesTabsAndChinese) {
  EXPECT_EQ(EscapeForTerminal("H200 141 GB\tok\n"), "H200 141 GB\tok\n");
  EXPECT_EQ(EscapeForTerminal("显存 80 GiB — ok"), "显存 80 GiB — ok");
}

TEST(EscapeForTerminal, EscapesC0ControlsAndDel) {
  EXPECT_EQ(EscapeForTerminal("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(EscapeForTerminal("\x1b]0;owned\a"), "\\x1b]0;owned\\x07");
  EXPECT_EQ(EscapeForTerminal("line\rfake"), "line\\x0dfake");
  EXPECT_EQ(EscapeForTerminal(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(EscapeForTerminal("x\x7fy"), "x\\x7fy");
}

TEST(EscapeForTerminal, EscapesC1AndBidiOverrides) {
  EXPECT_EQ(EscapeForTerminal("\xc2\x9b" "31m"), "\\x9b31m");         // C1 CSI
  EXPECT_EQ(EscapeForTerminal("abc\xe2\x80\xae" "def"), "abc\\u202edef");  // RIGHT-TO-LEFT OVERRIDE
  EXPECT_EQ(EscapeForTerminal("\xe2\x81\xa6"), "\\u2066");
}

TEST(EscapeForTerminal, InvalidUtf8BytesShownAsHex) {
  EXPECT_EQ(EscapeForTerminal("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(EscapeForTerminal("\xc0\xaf"), "\\xc0\\xaf");          // overlong '/'
  EXPECT_EQ(EscapeForTerminal("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(EscapeForTerminal("ab\xe6\x98"), "ab\\xe6\\x98");       // cut short at the end
}

TEST(TerminalSafeBuf, FiltersAStreamAndKeepsCharactersSplitAcrossWrites) {
  std::ostringstream target;
  {
    TerminalSafeBuf safe(target.rdbuf());
    std::ostream out(&safe);
    const std::string chinese = "显存";
    out << chinese.substr(0, 2);
    out.flush();  // a flush does not split the character
    out << chinese.substr(2) << " \x1b[31mred" << '\x07' << "\n";
  }
  EXPECT_EQ(target.str(), "显存 \\x1b[31mred\\x07\n");
}

TEST(TerminalSafeBuf, AnIncompleteCharacterAtTheEndIsEscaped) {
  std::ostringstream target;
  {
    TerminalSafeBuf safe(target.rdbuf());
    std::ostream out(&safe);
    out << "x\xe6\x98";
  }
  EXPECT_EQ(target.str(), "x\\xe6\\x98");
}

TEST(WriteTerminalControl, RawThroughTheFilterAsIsElsewhere) {
  std::ostringstream target;
  {
    TerminalSafeBuf safe(target.rdbuf());
    std::ostream out(&safe);
    WriteTerminalControl(out, "\x1b[H");
    out << "\x1b[H";
  }
  EXPECT_EQ(target.str(), "\x1b[H\\x1b[H");
  std::ostringstream plain;
  WriteTerminalControl(plain, "\x1b[2J");
  EXPECT_EQ(plain.str(), "\x1b[2J");
}

}  // namespace
}  // namespace gpuprobe::core

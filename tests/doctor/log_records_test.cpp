#include "doctor/log_records.h"

#include <vector>

#include <gtest/gtest.h>

namespace gpuprobe::doctor {
namespace {

std::vector<std::string> Records(std::string_view text) {
  std::vector<std::string> out;
  ForEachRecord(text, 64 * 1024, [&](const LogRecord& r) { out.emplace_back(r.text); });
  return out;
}

// Prefix formats below are synthetic lines in each tool's documented shape.
TEST(LogLine, TakesOffEveryKnownPrefixAndKeepsTheTime) {
  struct Case {
    const char* line;
    LogTime::Kind kind;
    const char* time;
  };
  const Case cases[] = {
      {"[ 1843.308145] NVRM: message", LogTime::Kind::kSinceBoot, "1843.308145"},
      {"[Fri Mar  3 04:27:08 2023] NVRM: message", LogTime::Kind::kCalendar, "Fri Mar  3 04:27:08 2023"},
      {"Dec  2 11:38:47 worker4 kernel: [  219.470994] NVRM: message", LogTime::Kind::kNoYear, "Dec  2 11:38:47"},
      {"2024-05-20T02:46:53.856596762Z node kernel: NVRM: message", LogTime::Kind::kCalendar, "2024-05-20T02:46:53.856596762Z"},
      {"kern:     err: [2024-05-20T02:46:53.856596762Z]: NVRM: message", LogTime::Kind::kCalendar, "2024-05-20T02:46:53.856596762Z"},
      {"11\xE6\x9C\x88 15 14:15:47 host nv-fabricmanager[4177]: NVRM: message", LogTime::Kind::kNoYear, "11\xE6\x9C\x88 15 14:15:47"},
      {"+> [  +0.000316] NVRM: message", LogTime::Kind::kNone, ""},
  };
  for (const auto& c : cases) {
    LogLine l = ParseLogLine(c.line);
    EXPECT_EQ(l.message, "NVRM: message") << c.line;
    EXPECT_EQ(l.time.kind, c.kind) << c.line;
    EXPECT_EQ(l.time.text, c.time) << c.line;
  }
  LogLine plain = ParseLogLine("RuntimeError: CUDA error: misaligned address");
  EXPECT_EQ(plain.message, "RuntimeError: CUDA error: misaligned address");
  EXPECT_FALSE(plain.prefixed);
}

TEST(LogLine, CalendarTimesOrder) {
  LogLine a = ParseLogLine("[Fri Mar  3 04:27:08 2023] a");
  LogLine b = ParseLogLine("[Fri Mar  3 04:27:53 2023] b");
  EXPECT_LT(a.time.seconds, b.time.seconds);
  EXPECT_DOUBLE_EQ(b.time.seconds - a.time.seconds, 45.0);
}

TEST(Records, AKernelNoticeOverSeveralLinesIsOneRecord) {
  auto r = Records(
      "[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
      "               NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
      "               NVRM: fallen off the bus and is not responding to commands.\n"
      "[ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], "NVRM: The NVIDIA GPU 0000:b3:00.0 (PCI ID: 10de:26b5) installed in this system has fallen off the bus and is not "
                  "responding to commands.");
  auto timestamped = Records(
      "[  652.483304] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:1050) installed\n"
      "[  652.483305] NVRM: in this system is not supported by the 280.13 NVIDIA Linux\n"
      "[  652.483306] NVRM: graphics driver release.\n");
  ASSERT_EQ(timestamped.size(), 1u);
}

TEST(Records, XidLinesAreNeverJoinedAndLineNumbersStayTrue) {
  std::vector<std::pair<int, int>> spans;
  ForEachRecord("NVRM: GPU at PCI:0000:0a:00: GPU-760d\r\nNVRM: Xid (PCI:0000:0a:00): 31, pid=1, MMU Fault\r\n\nlast", 64 * 1024,
                [&](const LogRecord& rec) { spans.emplace_back(rec.first_line, rec.last_line); });
  ASSERT_EQ(spans.size(), 4u);
  EXPECT_EQ(spans[1], std::make_pair(2, 2));
  EXPECT_EQ(spans[3], std::make_pair(4, 4));
}

TEST(Records, ALongLineIsCutForMatchingButCountedOnce) {
  std::string text = std::string(1 << 20, 'x') + "\nnext\n";
  int count = 0;
  size_t longest = 0;
  ForEachRecord(text, 1024, [&](const LogRecord& r) {
    ++count;
    longest = std::max(longest, r.text.size());
  });
  EXPECT_EQ(count, 2);
  EXPECT_EQ(longest, 1024u);
}

}  // namespace
}  // namespace gpuprobe::doctor

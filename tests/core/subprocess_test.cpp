#include "core/subprocess.h"

#include <gtest/gtest.h>

namespace gpuprobe::core {
namespace {

TEST(Subprocess, CapturesStdoutAndExitCode) {
  auto result = RunSubprocess({"sh", "-c", "echo hello; echo oops >&2; exit 3"});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->stdout_text, "hello\n");
  EXPECT_EQ(result->stderr_text, "oops\n");
  EXPECT_EQ(result->exit_code, 3);
  EXPECT_FALSE(result->timed_out);
}

TEST(Subprocess, ArgumentsAreNotInterpretedByAShell) {
  // With no shell in between, "$(echo injected)" must arrive as literal text.
  auto result = RunSubprocess({"echo", "$(echo injected); rm -rf /nonexistent"});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->stdout_text, "$(echo injected); rm -rf /nonexistent\n");
}

TEST(Subprocess, KillsAChildThatRunsPastTheTimeout) {
  SubprocessOptions options;
  options.timeout_seconds = 0.2;
  auto result = RunSubprocess({"sleep", "30"}, options);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->timed_out);
  EXPECT_EQ(result->signal_number, 9);
}

TEST(Subprocess, MissingProgramIsUnavailable) {
  auto result = RunSubprocess({"gpuprobe-no-such-program-xyz"});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable);
}

TEST(Subprocess, EmptyArgvIsInvalid) {
  EXPECT_EQ(RunSubprocess({}).status().code(), StatusCode::kInvalidArgument);
}

TEST(Subprocess, FeedsStandardInput) {
  SubprocessOptions options;
  options.stdin_text = "line one\nline two\n";
  auto result = RunSubprocess({"wc", "-l"}, options);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->stdout_text.find('2') != std::string::npos, true) << result->stdout_text;
}

TEST(Subprocess, TruncatesHugeOutputAtTheLimit) {
  SubprocessOptions options;
  options.max_output_bytes = 1000;
  auto result = RunSubprocess({"sh", "-c", "yes | head -c 100000"}, options);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->stdout_text.size(), 1000u);
  EXPECT_EQ(result->exit_code, 0);
}

}  // namespace
}  // namespace gpuprobe::core

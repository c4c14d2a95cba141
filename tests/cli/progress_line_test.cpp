// The one progress printer: nothing but the kept lines on a pipe; on a terminal one line
// redrawn in place, padded over a longer one, cut by display width on a character boundary,
// and cleared to its widest width.
#include "cli/progress_line.h"

#include <sstream>

#include <gtest/gtest.h>

namespace gpuprobe::cli {
namespace {

TEST(ProgressLine, OnAPipeOnlyTheLoggedLinesAreWritten) {
  std::ostringstream err;
  ProgressLine progress(err, /*terminal=*/false);
  progress.Show("measuring");
  progress.Log("[1/3] memory.triad cpu all threads");
  progress.Clear();
  EXPECT_EQ(err.str(), "[1/3] memory.triad cpu all threads\n");
}

TEST(ProgressLine, OnATerminalOneLineIsRedrawnAndCleared) {
  std::ostringstream err;
  ProgressLine progress(err, /*terminal=*/true);
  progress.Show("reading the GPUs");
  progress.Show("doctor");
  progress.Clear();
  // The shorter line blanks what is left of the longer one; Clear blanks the widest.
  EXPECT_EQ(err.str(), "\rreading the GPUs\rdoctor          \r                \r");
}

TEST(ProgressLine, ALongLineIsCutByDisplayWidthOnACharacterBoundary) {
  std::ostringstream err;
  ProgressLine progress(err, /*terminal=*/true);
  std::string chinese;
  for (int i = 0; i < 50; ++i) chinese += "测";  // 100 display columns
  progress.Show(chinese);
  std::string shown = err.str().substr(1);
  EXPECT_EQ(shown.size(), 39u * 3) << "39 characters of two columns fit in 78";
}

TEST(ProgressLine, TheBarFillsItsCellsInProportion) {
  EXPECT_EQ(ProgressBar(0, 10, "a"), "[                              ] 0/10 a");
  EXPECT_EQ(ProgressBar(5, 10, "b"), "[###############               ] 5/10 b");
  EXPECT_EQ(ProgressBar(10, 10, "c"), "[##############################] 10/10 c");
  EXPECT_EQ(ProgressBar(3, 0, "d"), "[                              ] 3/0 d");
}

}  // namespace
}  // namespace gpuprobe::cli

#include "bench/cuda/numa_placement.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

namespace gpuprobe::bench {
namespace {

TEST(NumaPlacementTest, ReadsTheGpusNodeFromSysfs) {
  char pattern[] = "/tmp/gpuprobe-sysfs-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  std::string root = pattern;
  ASSERT_EQ(mkdir((root + "/0000:1b:00.0").c_str(), 0755), 0);
  std::ofstream(root + "/0000:1b:00.0/numa_node") << "1\n";
  ASSERT_EQ(mkdir((root + "/0000:3b:00.0").c_str(), 0755), 0);
  std::ofstream(root + "/0000:3b:00.0/numa_node") << "-1\n";
  EXPECT_EQ(PciNumaNode("0000:1B:00.0", root), 1) << "upper-case hex from the runtime";
  EXPECT_EQ(PciNumaNode("00000000:1B:00.0", root), 1) << "NVML's 8-digit domain";
  EXPECT_EQ(PciNumaNode("0000:3b:00.0", root), -1) << "a single-node machine";
  EXPECT_EQ(PciNumaNode("0000:99:00.0", root), -1) << "no such device";
  EXPECT_EQ(PciNumaNode("", root), -1);
  std::system(("rm -rf '" + root + "'").c_str());
}

TEST(NumaPlacementTest, BindingToNoNodeIsANoOp) {
  ScopedMemoryNode none(-1);
  EXPECT_FALSE(none.bound());
  ScopedMemoryNode missing(4096);  // no such node: nothing bound, nothing broken
  EXPECT_FALSE(missing.bound());
}

}  // namespace
}  // namespace gpuprobe::bench

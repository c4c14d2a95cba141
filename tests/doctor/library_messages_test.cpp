#include "doctor/library_messages.h"

#include <gtest/gtest.h>

#include "doctor/error_analysis.h"

namespace gpuprobe::doctor {
namespace {

const LibraryMessageTable& Table() {
  auto t = LibraryMessageTable::Nccl();
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return **t;
}

TEST(LibraryMessages, TheTableIsReadFromSeveralReleases) {
  EXPECT_GE(Table().rows().size(), 500u);
  EXPECT_GE(Table().releases().size(), 10u);
  for (const auto& row : Table().rows()) EXPECT_FALSE(row.subsystem.empty()) << row.format;
}

TEST(LibraryMessages, AWarnLineGivesTheStatusTheCodeReturnsAndItsSubsystem) {
  const LibraryMessage* w = Table().Match("node1:1:2 [3] misc/ibvwrap.cc:262 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_0:1, curr state INIT");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->result, "ncclSystemError");
  EXPECT_EQ(w->subsystem, "ibvwrap");
  w = Table().Match("misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.0.0.3<36138>");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->result, "ncclRemoteError");
  EXPECT_EQ(w->subsystem, "socket");
}

TEST(LibraryMessages, APluginsPrefixIsTheSameMessage) {
  const LibraryMessage* w = Table().Match("NET/IBext : Got completion from peer 10.1.1.1<1234> with status=12 opcode=0 len=0 vendor err 129 (Send)");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->result, "ncclRemoteError");
}

// Every pattern of the generated table compiles (each is compiled on demand at run time).
TEST(LibraryMessages, EveryPatternCompiles) {
  for (const auto& row : Table().rows()) {
    std::string line = row.format;
    // The format itself, with its conversions as printed values, is a line it matches.
    for (size_t at = line.find('%'); at != std::string::npos; at = line.find('%', at)) line.replace(at, 2, "7");
    (void)Table().Match(line);
  }
  SUCCEED();
}

TEST(LibraryMessages, NothingForOtherText) {
  EXPECT_EQ(Table().Match("NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>"), nullptr);
  EXPECT_EQ(Table().Match("an ordinary log line"), nullptr);
}

}  // namespace
}  // namespace gpuprobe::doctor

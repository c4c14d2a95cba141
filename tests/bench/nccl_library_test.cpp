// The NCCL loader without a GPU: a missing library is a clear Unavailable with its text key
// (the CLI turns it into exit 3), a library without NCCL's functions is refused by name, and
// where libnccl is installed every function binds and the version reads without a GPU.
#include "bench/nccl_library.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace gpuprobe::bench::nccl {
namespace {

TEST(NcclLibraryTest, MissingLibraryIsUnavailableWithItsText) {
  auto lib = LoadNcclFrom({"libnccl-gpuprobe-absent.so.2"});
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().code(), core::StatusCode::kUnavailable);
  EXPECT_NE(lib.status().message().find("NCCL not found"), std::string::npos);
  EXPECT_EQ(lib.status().message_key(), "collectives.error.nccl_missing");
  EXPECT_EQ(lib.status().hint_key(), "collectives.error.nccl_missing.hint");
}

TEST(NcclLibraryTest, ALibraryWithoutNcclsFunctionsIsRefusedByName) {
  // libc loads everywhere and exports no ncclGetVersion.
  auto lib = LoadNcclFrom({"libc.so.6"});
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().message_key(), "collectives.error.nccl_symbol");
  EXPECT_NE(lib.status().message().find("ncclGetVersion"), std::string::npos);
}

TEST(NcclLibraryTest, TheEnvironmentChoosesTheLibrary) {
  ::setenv("GPUPROBE_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1);
  auto names = NcclCandidates();
  ::unsetenv("GPUPROBE_NCCL_LIBRARY");
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0], "/nonexistent/libnccl.so.2");
  EXPECT_EQ(NcclCandidates().front(), "libnccl.so.2");
}

TEST(NcclLibraryTest, InstalledNcclBindsEveryFunction) {
  auto lib = LoadNcclFrom({"libnccl.so.2", "libnccl.so"});
  if (!lib.ok()) GTEST_SKIP() << "no libnccl here: " << lib.status().message();
  const Api& api = (*lib)->api;
  EXPECT_NE(api.all_reduce, nullptr);
  EXPECT_NE(api.group_end, nullptr);
  EXPECT_GE(api.version, 20700);  // ncclSend/ncclRecv exist, so 2.7 or later
  EXPECT_STREQ(api.get_error_string(kSuccess), "no error");
}

TEST(NcclLibraryTest, VersionText) {
  EXPECT_EQ(NcclVersionText(22803), "2.28.3");
  EXPECT_EQ(NcclVersionText(2804), "2.8.4");
  EXPECT_EQ(NcclVersionText(0), "unknown");
}

}  // namespace
}  // namespace gpuprobe::bench::nccl

#include "core/file_io.h"

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace gpuprobe::core {
namespace {

class FileIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gpuprobe_file_io_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(FileIoTest, ReadsAFile) {
  std::ofstream(dir_ / "a.json") << "{\"x\": 1}";
  auto text = ReadTextFile((dir_ / "a.json").string(), 1024);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "{\"x\": 1}");
}

TEST_F(FileIoTest, MissingFileNamesThePath) {
  auto text = ReadTextFile((dir_ / "missing.json").string(), 1024);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(text.status().message().find("missing.json"), std::string::npos);
}

TEST_F(FileIoTest, FifoWithNoWriterIsRefusedInsteadOfBlocking) {
  std::string fifo = (dir_ / "pipe").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto text = ReadTextFile(fifo, 1024);  // would block forever if it opened the FIFO
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(text.status().message().find("not a regular file"), std::string::npos);
}

TEST_F(FileIoTest, DeviceIsRefused) {
  auto text = ReadTextFile("/dev/zero", 1024);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("not a regular file"), std::string::npos);
}

TEST_F(FileIoTest, DirectoryIsRejectedWithAHint) {
  auto text = ReadTextFile(dir_.string(), 1024);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("is a directory"), std::string::npos);
}

TEST_F(FileIoTest, OversizedFileIsRejectedBeforeReading) {
  std::ofstream(dir_ / "big.json") << std::string(5000, 'x');
  auto text = ReadTextFile((dir_ / "big.json").string(), 1024);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("too large"), std::string::npos);
}

TEST_F(FileIoTest, EmptyNameIsInvalid) {
  EXPECT_EQ(ReadTextFile("", 10).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace gpuprobe::core

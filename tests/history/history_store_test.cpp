#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "history/history_store.h"

namespace gpuprobe::history {
namespace {

class HistoryStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gpuprobe-history-" + std::to_string(getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    path_ = (dir_ / "nested" / "history.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static RunRecord Run(const std::string& cpu, int results) {
    RunRecord run;
    run.cpu = cpu;
    run.mode = "quick";
    run.version = "test";
    for (int i = 0; i < results; ++i) {
      RecordedResult r;
      r.id = "memory.r" + std::to_string(i);
      r.key = r.id + "|cpu|all threads";
      r.backend = "cpu";
      r.case_label = "all threads";
      r.metric = "bandwidth";
      r.unit = "B/s";
      r.threads = 2;
      r.value = 1e9 * (i + 1);
      r.low = r.value * 0.9;
      r.high = r.value * 1.1;
      run.results.push_back(r);
    }
    return run;
  }

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(HistoryStoreTest, SavesListsAndLoadsRuns) {
  auto store = HistoryStore::Open(path_, true);  // creates the missing folders
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto first = store->Save(Run("CPU A", 3), "{}");
  auto second = store->Save(Run("CPU B", 2), "{}");
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_LT(*first, *second);
  auto runs = store->List();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].cpu, "CPU A");
  EXPECT_EQ((*runs)[0].results, 3);
  EXPECT_FALSE((*runs)[0].recorded_at.empty());
  auto loaded = store->Load(*second);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->results.size(), 2u);
  EXPECT_DOUBLE_EQ(loaded->results[1].value, 2e9);
  EXPECT_DOUBLE_EQ(loaded->results[1].low, 1.8e9);
  EXPECT_EQ(loaded->results[1].threads, 2);
  EXPECT_FALSE(store->Load(999).ok());
}

TEST_F(HistoryStoreTest, AKillInTheMiddleOfASaveLosesNoEarlierRun) {
  {
    auto store = HistoryStore::Open(path_, true);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE(store->Save(Run("before the crash", 4), "{}").ok());
  }
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto store = HistoryStore::Open(path_, true);
    if (!store.ok()) _exit(3);
    // Dies with the run row and one result written but not committed.
    (void)store->Save(Run("killed", 50), "{}", [] { raise(SIGKILL); });
    _exit(4);  // not reached
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child was meant to die inside the transaction";
  EXPECT_EQ(WTERMSIG(status), SIGKILL);

  auto store = HistoryStore::Open(path_, false);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto runs = store->List();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].cpu, "before the crash");
  EXPECT_EQ((*runs)[0].results, 4);
  // And the history still takes new runs.
  EXPECT_TRUE(store->Save(Run("after", 1), "{}").ok());
}

TEST_F(HistoryStoreTest, AFileThatIsNotAHistoryIsRefusedAndLeftUntouched) {
  std::filesystem::create_directories(dir_);
  std::string other = (dir_ / "notes.db").string();
  const std::string content = "these are my notes, not a database\n";
  std::ofstream(other) << content;
  auto store = HistoryStore::Open(other, true);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("not a gpuprobe history"), std::string::npos);
  std::ifstream in(other);
  std::string read((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(read, content);
}

TEST_F(HistoryStoreTest, MissingHistoryIsAClearErrorWhenNotCreating) {
  auto store = HistoryStore::Open(path_, false);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("no history"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path_));
}

}  // namespace
}  // namespace gpuprobe::history

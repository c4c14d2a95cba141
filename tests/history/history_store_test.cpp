#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <sqlite3.h>

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
  // A store opened for reading refuses to write; opened for writing, the history still takes
  // new runs.
  EXPECT_FALSE(store->Save(Run("through a reader", 1), "{}").ok());
  auto writer = HistoryStore::Open(path_, true);
  ASSERT_TRUE(writer.ok());
  EXPECT_TRUE(writer->Save(Run("after", 1), "{}").ok());
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

// Fifty writers create the same new history at the same moment and each saves a run: the
// schema is made once, in one transaction, and every save lands (WAL + busy timeout).
TEST_F(HistoryStoreTest, FiftyConcurrentWritersOnANewFileAllSucceed) {
  constexpr int kWriters = 50;
  std::atomic<int> failures{0};
  std::vector<std::string> errors(kWriters);
  std::vector<std::thread> threads;
  for (int i = 0; i < kWriters; ++i) {
    threads.emplace_back([&, i] {
      auto store = HistoryStore::Open(path_, true);
      if (!store.ok()) {
        errors[static_cast<size_t>(i)] = store.status().message();
        ++failures;
        return;
      }
      auto id = store->Save(Run("writer " + std::to_string(i), 3), "{}");
      if (!id.ok()) {
        errors[static_cast<size_t>(i)] = id.status().message();
        ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& e : errors) EXPECT_TRUE(e.empty()) << e;
  EXPECT_EQ(failures.load(), 0);
  auto store = HistoryStore::Open(path_, false);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto runs = store->List();
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(runs->size(), static_cast<size_t>(kWriters));
}

TEST_F(HistoryStoreTest, AReadingVerbNeverWritesNotEvenToAnEmptyFile) {
  std::filesystem::create_directories(dir_);
  std::string empty = (dir_ / "empty.db").string();
  std::ofstream(empty).close();
  auto store = HistoryStore::Open(empty, false);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("no saved run"), std::string::npos) << store.status().message();
  EXPECT_EQ(std::filesystem::file_size(empty), 0u) << "the empty file must stay empty";
}

TEST_F(HistoryStoreTest, AReadOnlyHistoryIsRefusedWhenOpenedNotAfterTheRun) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes read-only files: the check cannot be seen as root";
  { ASSERT_TRUE(HistoryStore::Open(path_, true).ok()); }
  ASSERT_EQ(::chmod(path_.c_str(), 0444), 0);
  auto store = HistoryStore::Open(path_, true);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("read-only"), std::string::npos) << store.status().message();
}

// A full disk (simulated with a file-size limit in a child process) is an error, and the new
// file that could not be made is not left behind empty.
TEST_F(HistoryStoreTest, AFullDiskLeavesNoEmptyFileBehind) {
  std::filesystem::create_directories(dir_);
  std::string path = (dir_ / "full.db").string();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit {1024, 1024};
    setrlimit(RLIMIT_FSIZE, &limit);
    auto store = HistoryStore::Open(path, true);
    _exit(store.ok() ? 1 : 0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the open must fail when nothing can be written";
  EXPECT_FALSE(std::filesystem::exists(path)) << "no empty database left behind";
}

}  // namespace
}  // namespace gpuprobe::history

namespace gpuprobe::history {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string Format1Schema() { return ReadAll(std::string(GPUPROBE_FIXTURES_DIR) + "/history/format1-schema.sql"); }

void Exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  std::string message = error != nullptr ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << message;
}

class ForeignHistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gpuprobe-foreign-" + std::to_string(getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "app.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  std::string path_;
};

// Another application's database with user_version 1 (the first version of many programs):
// refused by writers and readers, and not one byte changes (journal mode included).
TEST_F(ForeignHistoryTest, AnotherProgramsDatabaseWithUserVersionOneIsRefusedAndUnchanged) {
  Exec(path_, "CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO runs VALUES (1, 'x'); PRAGMA user_version = 1;");
  const std::string before = ReadAll(path_);
  for (bool create : {true, false}) {
    auto store = HistoryStore::Open(path_, create);
    ASSERT_FALSE(store.ok());
    EXPECT_NE(store.status().message().find("not a gpuprobe history"), std::string::npos) << store.status().message();
    EXPECT_EQ(store.status().code(), core::StatusCode::kParseError);
  }
  EXPECT_EQ(ReadAll(path_), before);
  EXPECT_FALSE(std::filesystem::exists(path_ + "-wal"));
}

TEST_F(ForeignHistoryTest, AnApplicationIdOfAnotherProgramIsRefused) {
  Exec(path_, "PRAGMA application_id = 1234;");
  const std::string before = ReadAll(path_);
  auto store = HistoryStore::Open(path_, true);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("application_id=0x4d2"), std::string::npos) << store.status().message();
  EXPECT_EQ(ReadAll(path_), before);
}

// A history written before the application id (format 1) is still ours: read as it is,
// upgraded in place when a run is saved.
TEST_F(ForeignHistoryTest, AFormatOneHistoryIsReadAndUpgradedWhenWritten) {
  Exec(path_, Format1Schema() + R"(
INSERT INTO runs VALUES (1, '2025-01-01T00:00:00Z', 'h', 'CPU', '', 'quick', '0.1', '{}');
INSERT INTO results VALUES (1, 'memory.triad|cpu|all', 'memory.triad', 'cpu', 'all', 'bandwidth', 'B/s', 2, 1e10, 9e9, 1.1e10, 0);)");
  {
    auto reader = HistoryStore::Open(path_, false);
    ASSERT_TRUE(reader.ok()) << reader.status().message();
    auto run = reader->Load(1);
    ASSERT_TRUE(run.ok()) << run.status().message();
    EXPECT_DOUBLE_EQ(run->results.at(0).value, 1e10);
  }
  auto writer = HistoryStore::Open(path_, true);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  EXPECT_EQ(IdentifyHistory(db).kind, Identity::kOurs);
  sqlite3_close(db);
}

TEST_F(ForeignHistoryTest, ANewHistoryCarriesItsIdentity) {
  auto store = HistoryStore::Open(path_, true);
  ASSERT_TRUE(store.ok()) << store.status().message();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  EXPECT_EQ(IdentifyHistory(db).kind, Identity::kOurs);
  sqlite3_close(db);
}

// A value another program damaged makes the run corrupted, never a quiet 0 or null.
TEST_F(ForeignHistoryTest, CorruptedValuesAreReportedAsCorrupted) {
  for (const char* damage : {"'abc'", "1e999", "-5", "0"}) {
    std::filesystem::remove(path_);
    long long id = 0;
    {
      auto store = HistoryStore::Open(path_, true);
      ASSERT_TRUE(store.ok());
      RunRecord run;
      run.cpu = "CPU";
      RecordedResult r;
      r.key = "memory.triad|cpu|all";
      r.id = "memory.triad";
      r.metric = "bandwidth";
      r.unit = "B/s";
      r.value = 1e10;
      r.low = 9e9;
      r.high = 1.1e10;
      run.results.push_back(r);
      auto saved = store->Save(run, "{}");
      ASSERT_TRUE(saved.ok());
      id = *saved;
    }
    Exec(path_, std::string("PRAGMA ignore_check_constraints = 1; UPDATE results SET value = ") + damage);
    auto store = HistoryStore::Open(path_, false);
    ASSERT_TRUE(store.ok());
    auto loaded = store->Load(id);
    ASSERT_FALSE(loaded.ok()) << damage;
    EXPECT_NE(loaded.status().message().find("is corrupted"), std::string::npos) << loaded.status().message();
  }
}

}  // namespace
}  // namespace gpuprobe::history

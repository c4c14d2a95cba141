#include "history/history_store.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sqlite3.h>

namespace gpuprobe::history {
namespace {

constexpr int kSchemaVersion = 1;

constexpr const char* kSchema = R"(
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  recorded_at TEXT NOT NULL,
  host TEXT NOT NULL, cpu TEXT NOT NULL, gpus TEXT NOT NULL,
  mode TEXT NOT NULL, version TEXT NOT NULL,
  document TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key TEXT NOT NULL, id TEXT NOT NULL, backend TEXT NOT NULL, case_label TEXT NOT NULL,
  metric TEXT NOT NULL, unit TEXT NOT NULL, threads INTEGER NOT NULL,
  value REAL NOT NULL, low REAL NOT NULL, high REAL NOT NULL, noisy INTEGER NOT NULL,
  PRIMARY KEY (run_id, key));
)";

/// A prepared statement that finalizes itself.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() { return stmt_; }
  void Bind(int i, const std::string& s) { sqlite3_bind_text(stmt_, i, s.c_str(), static_cast<int>(s.size()), SQLITE_TRANSIENT); }
  void Bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
  void Bind(int i, long long v) { sqlite3_bind_int64(stmt_, i, v); }
  std::string Text(int column) {
    const unsigned char* t = sqlite3_column_text(stmt_, column);
    return t ? reinterpret_cast<const char*>(t) : "";
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_ERROR;
};

core::Status DbError(sqlite3* db, const std::string& path, const std::string& what) {
  return core::Status::IoError(fmt::format("history '{}': {}: {}", path, what, sqlite3_errmsg(db)));
}

/// The run columns both List and Load select first, in this order.
constexpr const char* kRunColumns = "r.id, r.recorded_at, r.host, r.cpu, r.gpus, r.mode, r.version";

template <typename Run>
void ReadRunColumns(Statement& q, Run* run) {
  run->id = sqlite3_column_int64(q.get(), 0);
  run->recorded_at = q.Text(1);
  run->host = q.Text(2);
  run->cpu = q.Text(3);
  run->gpus = q.Text(4);
  run->mode = q.Text(5);
  run->version = q.Text(6);
}

std::string NowUtc() {
  auto now = std::chrono::system_clock::now();
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(now)));
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

}  // namespace

std::string DefaultHistoryPath() {
  const char* xdg = std::getenv("XDG_DATA_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/gpuprobe/history.db";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.local/share/gpuprobe/history.db";
}

namespace {

// Reads user_version and whether the file has any table, inside the caller's transaction.
core::Status ReadSchema(sqlite3* db, const std::string& path, int* user_version, bool* empty) {
  Statement check(db, "PRAGMA user_version");
  if (!check.ok() || sqlite3_step(check.get()) != SQLITE_ROW) {
    return core::Status::ParseError(fmt::format("'{}' is not a gpuprobe history database", path),
                                    "pass another file with --db; this one was left untouched")
        .WithKeys("history.error.not_history", {{"path", path}}, "history.error.untouched_hint");
  }
  *user_version = sqlite3_column_int(check.get(), 0);
  Statement tables(db, "SELECT count(*) FROM sqlite_master");
  if (!tables.ok() || sqlite3_step(tables.get()) != SQLITE_ROW) return DbError(db, path, "cannot read");
  *empty = sqlite3_column_int(tables.get(), 0) == 0;
  return core::Status::Ok();
}

core::Status CheckOurs(int user_version, bool empty, const std::string& path) {
  if (!empty && user_version != kSchemaVersion) {
    return core::Status::ParseError(
               fmt::format("'{}' is an SQLite file but not a gpuprobe history (schema {})", path, user_version),
               "pass another file with --db; this one was left untouched")
        .WithKeys("history.error.other_schema", {{"path", path}, {"schema", std::to_string(user_version)}},
                  "history.error.untouched_hint");
  }
  return core::Status::Ok();
}

}  // namespace

core::Result<HistoryStore> HistoryStore::Open(const std::string& path, bool create) {
  std::error_code ec;
  bool exists = std::filesystem::exists(path, ec);
  if (!exists && !create) {
    return core::Status::InvalidArgument(fmt::format("no history at '{}'", path), "save a run first: gpuprobe bench --save")
        .WithKeys("history.error.missing", {{"path", path}}, "history.error.save_first_hint");
  }
  if (exists && !std::filesystem::is_regular_file(path, ec)) {
    return core::Status::InvalidArgument(fmt::format("history '{}' is not a regular file", path))
        .WithKeys("history.error.not_regular", {{"path", path}});
  }
  bool made_directory = false;
  if (!exists) {
    auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty() && !std::filesystem::exists(parent, ec)) {
      made_directory = std::filesystem::create_directories(parent, ec);
      if (ec) return core::Status::IoError(fmt::format("cannot create '{}': {}", parent.string(), ec.message()));
    }
  }
  // A reading verb opens read-only: it can never turn a stray file into a database.
  sqlite3* raw = nullptr;
  int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  HistoryStore store;
  store.path_ = path;
  store.db_ = std::shared_ptr<sqlite3>(raw, [](sqlite3* db) { sqlite3_close(db); });
  if (rc != SQLITE_OK) return DbError(raw, path, "cannot open");
  sqlite3_busy_timeout(raw, 10000);  // another gpuprobe saving at the same moment waits, not fails
  sqlite3_extended_result_codes(raw, 1);

  if (!create) {
    int user_version = -1;
    bool empty = false;
    GPUPROBE_RETURN_IF_ERROR(ReadSchema(raw, path, &user_version, &empty));
    if (empty) {
      return core::Status::InvalidArgument(fmt::format("'{}' holds no saved run (an empty file)", path),
                                           "save a run first: gpuprobe bench --save --db " + path)
          .WithKeys("history.error.empty_file", {{"path", path}}, "history.error.save_first_db_hint");
    }
    GPUPROBE_RETURN_IF_ERROR(CheckOurs(user_version, empty, path));
    return store;
  }

  // Writers: a file the OS will not let us write is found now, before a bench runs for minutes.
  if (sqlite3_db_readonly(raw, "main") == 1) {
    return core::Status::InvalidArgument(fmt::format("history '{}' is read-only", path),
                                         "make it writable, or pass another file with --db")
        .WithKeys("history.error.read_only", {{"path", path}}, "history.error.read_only_hint");
  }
  // Check and create the schema in one write transaction: two processes that open a new
  // file at the same moment serialise here instead of one reading a half-made schema.
  auto undo_new_file = [&]() {
    store.db_.reset();
    if (!exists) {
      std::filesystem::remove(path, ec);
      std::filesystem::remove(path + "-wal", ec);
      std::filesystem::remove(path + "-shm", ec);
      std::filesystem::remove(path + "-journal", ec);
      if (made_directory) std::filesystem::remove(std::filesystem::path(path).parent_path(), ec);
    }
  };
  if (sqlite3_exec(raw, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) {
    core::Status error = (sqlite3_errcode(raw) & 0xff) == SQLITE_NOTADB
                             ? core::Status::ParseError(fmt::format("'{}' is not a gpuprobe history database", path),
                                                        "pass another file with --db; this one was left untouched")
                                   .WithKeys("history.error.not_history", {{"path", path}}, "history.error.untouched_hint")
                             : DbError(raw, path, "cannot write");
    undo_new_file();
    return error;
  }
  int user_version = -1;
  bool empty = false;
  core::Status schema = ReadSchema(raw, path, &user_version, &empty);
  if (schema.ok()) schema = CheckOurs(user_version, empty, path);
  if (schema.ok() && empty) {
    std::string script = std::string(kSchema) + fmt::format("PRAGMA user_version = {};", kSchemaVersion);
    if (sqlite3_exec(raw, script.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) schema = DbError(raw, path, "cannot create the tables");
  }
  if (schema.ok() && sqlite3_exec(raw, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    schema = DbError(raw, path, "cannot create the tables");
  }
  if (!schema.ok()) {
    sqlite3_exec(raw, "ROLLBACK", nullptr, nullptr, nullptr);
    undo_new_file();  // a full disk leaves no empty file behind
    return schema;
  }
  // WAL: readers never block the writer and concurrent writers queue on the busy timeout.
  // Set outside a transaction; a file system without shared memory keeps the rollback
  // journal, which is still correct.
  sqlite3_exec(raw, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr);
  sqlite3_exec(raw, "PRAGMA foreign_keys = ON", nullptr, nullptr, nullptr);
  return store;
}

core::Result<long long> HistoryStore::Save(RunRecord run, const std::string& document, const std::function<void()>& inside_transaction) {
  sqlite3* db = db_.get();
  if (sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) return DbError(db, path_, "cannot start a write");
  auto fail = [&](const std::string& what) {
    core::Status status = DbError(db, path_, what);
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return status;
  };
  run.recorded_at = NowUtc();
  if (run.host.empty()) run.host = HostName();
  {
    Statement insert(db, "INSERT INTO runs (recorded_at, host, cpu, gpus, mode, version, document) VALUES (?,?,?,?,?,?,?)");
    if (!insert.ok()) return fail("cannot prepare");
    insert.Bind(1, run.recorded_at);
    insert.Bind(2, run.host);
    insert.Bind(3, run.cpu);
    insert.Bind(4, run.gpus);
    insert.Bind(5, run.mode);
    insert.Bind(6, run.version);
    insert.Bind(7, document);
    if (sqlite3_step(insert.get()) != SQLITE_DONE) return fail("cannot save the run");
  }
  run.id = sqlite3_last_insert_rowid(db);
  Statement result(db, "INSERT OR REPLACE INTO results VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
  if (!result.ok()) return fail("cannot prepare");
  bool first = true;
  for (const auto& r : run.results) {
    sqlite3_reset(result.get());
    result.Bind(1, run.id);
    result.Bind(2, r.key);
    result.Bind(3, r.id);
    result.Bind(4, r.backend);
    result.Bind(5, r.case_label);
    result.Bind(6, r.metric);
    result.Bind(7, r.unit);
    result.Bind(8, static_cast<long long>(r.threads));
    result.Bind(9, r.value);
    result.Bind(10, r.low);
    result.Bind(11, r.high);
    result.Bind(12, static_cast<long long>(r.noisy ? 1 : 0));
    if (sqlite3_step(result.get()) != SQLITE_DONE) return fail("cannot save a result");
    if (first && inside_transaction) inside_transaction();
    first = false;
  }
  if (sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) return fail("cannot commit");
  return run.id;
}

core::Result<std::vector<RunSummary>> HistoryStore::List() const {
  sqlite3* db = db_.get();
  const std::string sql = fmt::format("SELECT {}, (SELECT count(*) FROM results s WHERE s.run_id = r.id) FROM runs r ORDER BY r.id", kRunColumns);
  Statement q(db, sql.c_str());
  if (!q.ok()) return DbError(db, path_, "cannot read");
  std::vector<RunSummary> runs;
  int rc;
  while ((rc = sqlite3_step(q.get())) == SQLITE_ROW) {
    RunSummary s;
    ReadRunColumns(q, &s);
    s.results = sqlite3_column_int(q.get(), 7);
    runs.push_back(s);
  }
  if (rc != SQLITE_DONE) return DbError(db, path_, "cannot read");
  return runs;
}

core::Result<RunRecord> HistoryStore::Load(long long id) const {
  sqlite3* db = db_.get();
  RunRecord run;
  {
    const std::string sql = fmt::format("SELECT {} FROM runs r WHERE r.id = ?", kRunColumns);
    Statement q(db, sql.c_str());
    if (!q.ok()) return DbError(db, path_, "cannot read");
    q.Bind(1, static_cast<long long>(id));
    if (sqlite3_step(q.get()) != SQLITE_ROW) {
      return core::Status::InvalidArgument(fmt::format("no run {} in '{}'", id, path_), "'gpuprobe history' lists the runs")
          .WithKeys("history.error.no_run", {{"id", std::to_string(id)}, {"path", path_}}, "history.error.no_run_hint");
    }
    ReadRunColumns(q, &run);
  }
  Statement q(db, "SELECT key, id, backend, case_label, metric, unit, threads, value, low, high, noisy FROM results WHERE run_id = ? ORDER BY rowid");
  if (!q.ok()) return DbError(db, path_, "cannot read");
  q.Bind(1, static_cast<long long>(id));
  int rc;
  while ((rc = sqlite3_step(q.get())) == SQLITE_ROW) {
    RecordedResult r;
    r.key = q.Text(0);
    r.id = q.Text(1);
    r.backend = q.Text(2);
    r.case_label = q.Text(3);
    r.metric = q.Text(4);
    r.unit = q.Text(5);
    r.threads = sqlite3_column_int(q.get(), 6);
    r.value = sqlite3_column_double(q.get(), 7);
    r.low = sqlite3_column_double(q.get(), 8);
    r.high = sqlite3_column_double(q.get(), 9);
    r.noisy = sqlite3_column_int(q.get(), 10) != 0;
    run.results.push_back(r);
  }
  if (rc != SQLITE_DONE) return DbError(db, path_, "cannot read");
  return run;
}

}  // namespace gpuprobe::history

#include "history/history_store.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sqlite3.h>

namespace gpuprobe::history {
namespace {

// What makes a file a gpuprobe history: SQLite's application id field (the header's bytes
// 68-71, "GPPR") and our own schema table, beyond the user_version any program may set to 1.
constexpr long long kApplicationId = 0x47505052;
constexpr int kSchemaVersion = 2;  // 1: the same tables without the application id and schema table

// The table definitions; SQLite keeps this text in sqlite_master, which is how a history of
// format 1 is recognised (the spelling must not change).
constexpr const char* kRunsTable = R"(CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  recorded_at TEXT NOT NULL,
  host TEXT NOT NULL, cpu TEXT NOT NULL, gpus TEXT NOT NULL,
  mode TEXT NOT NULL, version TEXT NOT NULL,
  document TEXT NOT NULL))";
constexpr const char* kResultsTable = R"(CREATE TABLE results (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key TEXT NOT NULL, id TEXT NOT NULL, backend TEXT NOT NULL, case_label TEXT NOT NULL,
  metric TEXT NOT NULL, unit TEXT NOT NULL, threads INTEGER NOT NULL,
  value REAL NOT NULL, low REAL NOT NULL, high REAL NOT NULL, noisy INTEGER NOT NULL,
  PRIMARY KEY (run_id, key)))";
constexpr const char* kSchemaTable = "CREATE TABLE gpuprobe_schema (version INTEGER NOT NULL, written_by TEXT NOT NULL)";

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

// The text key of one of DbError's `what` phrases; "history.what.raw" (the phrase as it is)
// for any other.
const char* WhatKey(const std::string& what) {
  static const std::pair<const char*, const char*> kKeys[] = {
      {"cannot open", "history.what.open"},
      {"cannot write", "history.what.write"},
      {"cannot create the tables", "history.what.tables"},
      {"cannot start a write", "history.what.start_write"},
      {"cannot read", "history.what.read"},
      {"cannot prepare", "history.what.prepare"},
      {"cannot save the run", "history.what.save_run"},
      {"cannot save a result", "history.what.save_result"},
      {"cannot commit", "history.what.commit"}};
  for (const auto& [phrase, key] : kKeys) {
    if (what == phrase) return key;
  }
  return "history.what.raw";
}

core::Status DbError(sqlite3* db, const std::string& path, const std::string& what) {
  const std::string detail = sqlite3_errmsg(db);
  return core::Status::IoError(fmt::format("history '{}': {}: {}", path, what, detail))
      .WithKeys("error.history.db", {{"path", path}, {"what_key", WhatKey(what)}, {"what_text", what}, {"detail", detail}});
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

core::Status NotOurs(const std::string& path, const std::string& why) {
  return core::Status::ParseError(fmt::format("'{}' is an SQLite file but not a gpuprobe history ({})", path, why),
                                  "pass another file with --db; this one was left untouched")
      .WithKeys("history.error.other_schema", {{"path", path}, {"schema", why}}, "history.error.untouched_hint");
}

core::Status NotADatabase(const std::string& path) {
  return core::Status::ParseError(fmt::format("'{}' is not a gpuprobe history database", path),
                                  "pass another file with --db; this one was left untouched")
      .WithKeys("history.error.not_history", {{"path", path}}, "history.error.untouched_hint");
}

bool ReadInt(sqlite3* db, const char* sql, long long* value) {
  Statement q(db, sql);
  if (!q.ok() || sqlite3_step(q.get()) != SQLITE_ROW) return false;
  *value = sqlite3_column_int64(q.get(), 0);
  return true;
}

/// The table definitions exactly as this version creates them (whitespace-normalised), so
/// a history written before the file carried our application id is still recognised.
std::string NormalisedSql(std::string_view sql) {
  std::string out;
  bool space = false;
  for (char c : sql) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space && c != ',' && c != ')' && out.back() != '(') out += ' ';
    space = false;
    out += c;
  }
  return out;
}

bool HasOurTables(sqlite3* db, bool with_schema_table) {
  Statement q(db, "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
  if (!q.ok()) return false;
  std::vector<std::pair<std::string, std::string>> tables;
  while (sqlite3_step(q.get()) == SQLITE_ROW) tables.emplace_back(q.Text(0), NormalisedSql(q.Text(1)));
  std::vector<std::pair<std::string, std::string>> expected = {
      {"results", NormalisedSql(kResultsTable)},
      {"runs", NormalisedSql(kRunsTable)},
  };
  if (with_schema_table) expected.insert(expected.begin(), {"gpuprobe_schema", NormalisedSql(kSchemaTable)});
  return tables == expected;
}

std::string TableNames(sqlite3* db) {
  Statement q(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 6");
  std::string names;
  int n = 0;
  while (q.ok() && sqlite3_step(q.get()) == SQLITE_ROW) {
    if (n > 0) names += ",";
    names += n < 5 ? q.Text(0) : std::string("...");
    ++n;
  }
  return names.empty() ? "none" : names;
}

}  // namespace

Identity IdentifyHistory(sqlite3* db) {
  long long application_id = -1, user_version = -1, objects = -1;
  if (!ReadInt(db, "PRAGMA application_id", &application_id) || !ReadInt(db, "PRAGMA user_version", &user_version) ||
      !ReadInt(db, "SELECT count(*) FROM sqlite_master", &objects)) {
    return {Identity::kNotSqlite, ""};
  }
  if (application_id == kApplicationId) {
    long long version = -1;
    if (!ReadInt(db, "SELECT version FROM gpuprobe_schema", &version) || !HasOurTables(db, true)) {
      return {Identity::kForeign, fmt::format("application_id={:#x}, tables={}", application_id, TableNames(db))};
    }
    if (version != kSchemaVersion) return {Identity::kForeign, fmt::format("gpuprobe_schema.version={}", version)};
    return {Identity::kOurs, ""};
  }
  if (application_id != 0) return {Identity::kForeign, fmt::format("application_id={:#x}", application_id)};
  if (objects == 0 && user_version == 0) return {Identity::kEmpty, ""};
  // Histories written before the application id: user_version 1 and exactly our two tables.
  if (user_version == 1 && HasOurTables(db, false)) return {Identity::kLegacy, ""};
  return {Identity::kForeign, fmt::format("user_version={}, tables={}", user_version, TableNames(db))};
}

namespace {

core::Status CheckIdentity(const Identity& identity, const std::string& path) {
  switch (identity.kind) {
    case Identity::kNotSqlite: return NotADatabase(path);
    case Identity::kForeign: return NotOurs(path, identity.why);
    default: return core::Status::Ok();
  }
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
  // An existing file is identified read-only first: a file that is not ours is refused
  // before a single byte of it (its journal mode included) could change.
  if (exists) {
    sqlite3* probe = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &probe, SQLITE_OPEN_READONLY, nullptr);
    std::shared_ptr<sqlite3> closer(probe, [](sqlite3* db) { sqlite3_close(db); });
    if (rc != SQLITE_OK) return DbError(probe, path, "cannot open");
    sqlite3_busy_timeout(probe, 10000);
    // One read transaction: another process creating the file meanwhile is seen whole or not at all.
    sqlite3_exec(probe, "BEGIN", nullptr, nullptr, nullptr);
    Identity identity = IdentifyHistory(probe);
    sqlite3_exec(probe, "COMMIT", nullptr, nullptr, nullptr);
    GPUPROBE_RETURN_IF_ERROR(CheckIdentity(identity, path));
    if (!create && identity.kind == Identity::kEmpty) {
      return core::Status::InvalidArgument(fmt::format("'{}' holds no saved run (an empty file)", path),
                                           "save a run first: gpuprobe bench --save --db " + path)
          .WithKeys("history.error.empty_file", {{"path", path}}, "history.error.save_first_db_hint");
    }
  }
  bool made_directory = false;
  if (!exists) {
    auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty() && !std::filesystem::exists(parent, ec)) {
      made_directory = std::filesystem::create_directories(parent, ec);
      if (ec) {
        return core::Status::IoError(fmt::format("cannot create '{}': {}", parent.string(), ec.message()))
            .WithKeys("error.history.mkdir", {{"path", parent.string()}, {"detail", ec.message()}});
      }
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
  if (!create) return store;

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
    core::Status error = (sqlite3_errcode(raw) & 0xff) == SQLITE_NOTADB ? NotADatabase(path) : DbError(raw, path, "cannot write");
    undo_new_file();
    return error;
  }
  // Identified again inside the transaction: another process may have made it meanwhile.
  Identity identity = IdentifyHistory(raw);
  core::Status schema = CheckIdentity(identity, path);
  if (schema.ok() && identity.kind != Identity::kOurs) {
    std::string script = fmt::format("{}{}{}{}INSERT INTO gpuprobe_schema VALUES ({}, 'gpuprobe');"
                                     "PRAGMA application_id = {}; PRAGMA user_version = {};",
                                     identity.kind == Identity::kEmpty ? kRunsTable : "",
                                     identity.kind == Identity::kEmpty ? ";" : "",
                                     identity.kind == Identity::kEmpty ? std::string(kResultsTable) + ";" : "",
                                     std::string(kSchemaTable) + ";", kSchemaVersion, kApplicationId, kSchemaVersion);
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
    // Values are checked as they are read: a cell another program damaged ('abc' reads as
    // 0, 1e999 as infinity) must make the run "corrupted", never a quiet "SAME".
    for (int column : {6, 7, 8, 9, 10}) {
      int type = sqlite3_column_type(q.get(), column);
      double number = sqlite3_column_double(q.get(), column);
      bool integer_column = column == 6 || column == 10;
      bool numeric = type == SQLITE_INTEGER || (type == SQLITE_FLOAT && !integer_column);
      bool valid = numeric && std::isfinite(number) && number >= 0 && (column != 7 || number > 0);
      if (!valid) {
        const char* names[] = {"threads", "value", "low", "high", "noisy"};
        std::string cell = q.Text(column);
        if (type == SQLITE_NULL) cell = "NULL";
        return core::Status::ParseError(
                   fmt::format("run {} in '{}' is corrupted: result '{}' has {} '{}'", id, path_, r.key, names[column - 6], cell),
                   "the run cannot be compared; save a new run with gpuprobe bench --save")
            .WithKeys("history.error.corrupted",
                      {{"id", std::to_string(id)}, {"path", path_}, {"key", r.key}, {"field", names[column - 6]}, {"cell", cell}},
                      "history.error.corrupted_hint");
      }
    }
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

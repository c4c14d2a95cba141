// The run history: an SQLite file ($XDG_DATA_HOME/gpuprobe/history.db by default) holding
// every saved bench run, its results, and the full JSON document it came from.
//
// Writes are atomic: a run is saved in one transaction, so a crash, a kill or Ctrl-C in the
// middle leaves the file as it was, with every earlier run intact (SQLite's journal).
//
// Thread safety: one HistoryStore per thread (an SQLite connection is not shared).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "history/run_record.h"

struct sqlite3;

namespace gpuprobe::history {

struct RunSummary {
  long long id = 0;
  std::string recorded_at, host, cpu, gpus, mode, version;
  int results = 0;
};

/// What an SQLite file is to us. A history carries our application id and schema table;
/// format 1 (before them) is recognised by its exact tables and upgraded when written.
struct Identity {
  enum Kind { kNotSqlite, kEmpty, kOurs, kLegacy, kForeign } kind = kNotSqlite;
  std::string why;  ///< for kForeign: what it holds instead ("application id 0x1234", "schema 1")
};
/// Reads only: pragmas and sqlite_master.
Identity IdentifyHistory(sqlite3* db);

/// $XDG_DATA_HOME/gpuprobe/history.db, else $HOME/.local/share/gpuprobe/history.db.
std::string DefaultHistoryPath();

class HistoryStore {
 public:
  /// Opens (creating it and its folder when `create`) the history at `path`. ParseError when
  /// the file exists but is not a gpuprobe history; InvalidArgument when it is missing and !create.
  static core::Result<HistoryStore> Open(const std::string& path, bool create);

  /// Saves `run` (its id and recorded_at are assigned) with the document it came from; returns the id.
  /// `inside_transaction` is called after the first result is written, before the commit
  /// (tests use it to kill the process mid-write).
  core::Result<long long> Save(RunRecord run, const std::string& document,
                               const std::function<void()>& inside_transaction = {});
  core::Result<std::vector<RunSummary>> List() const;
  /// One run by id; InvalidArgument when there is no such run.
  core::Result<RunRecord> Load(long long id) const;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::shared_ptr<sqlite3> db_;
};

}  // namespace gpuprobe::history

// What doctor reads of the machine, behind one small interface so tests can point it at a
// recorded environment: a root directory holding proc/, sys/, dev/ and etc/ trees, the process
// environment, and programs run with a timeout and no shell (nvcc, python3).
//
// Every method is virtual so a test can fake one answer the file tree cannot give (a device
// node this user may not open, when the tests run as root).
//
// Thread safety: read-only after construction.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/subprocess.h"

namespace gpuprobe::doctor {

class Environment {
 public:
  /// `root` prefixes every absolute path ("/" for the real machine). `variables` are the
  /// environment variables doctor looks at.
  Environment(std::string root, std::map<std::string, std::string> variables);
  virtual ~Environment() = default;
  Environment(const Environment&) = default;
  Environment& operator=(const Environment&) = default;
  /// The real machine: root from $GPUPROBE_DOCTOR_ROOT (tests) or "/", the real environment.
  static Environment Real();

  const std::string& root() const { return root_; }
  virtual std::optional<std::string> Read(const std::string& path,
                                          std::size_t max_bytes = 1 << 20) const;
  virtual bool Exists(const std::string& path) const;
  /// Whether the current user may read and write the path (device nodes).
  virtual bool Accessible(const std::string& path) const;
  virtual std::vector<std::string> List(const std::string& directory) const;
  /// The target of a symlink, or empty.
  virtual std::string LinkTarget(const std::string& path) const;
  virtual std::optional<std::string> Variable(const std::string& name) const;
  /// The full path of `program` on this environment's PATH, or empty.
  virtual std::string FindProgram(const std::string& program) const;
  /// Runs a program found on this environment's PATH; Unavailable when it is not installed.
  virtual core::Result<core::SubprocessResult> Run(const std::vector<std::string>& argv,
                                                   double timeout_seconds) const;

 private:
  std::string Path(const std::string& path) const;
  std::string root_;
  std::map<std::string, std::string> variables_;
};

}  // namespace gpuprobe::doctor

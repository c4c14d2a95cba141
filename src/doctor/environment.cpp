#include "doctor/environment.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

extern char** environ;

namespace gpuprobe::doctor {

Environment::Environment(std::string root, std::map<std::string, std::string> variables)
    : root_(std::move(root)), variables_(std::move(variables)) {
  if (root_.empty()) root_ = "/";
}

Environment Environment::Real() {
  std::map<std::string, std::string> vars;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry = *e;
    auto eq = entry.find('=');
    if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  const char* root = std::getenv("GPUPROBE_DOCTOR_ROOT");
  return Environment(root != nullptr && *root != '\0' ? root : "/", vars);
}

std::string Environment::Path(const std::string& path) const {
  if (root_ == "/") return path;
  return root_ + (path.empty() || path[0] != '/' ? "/" : "") + path;
}

std::optional<std::string> Environment::Read(const std::string& path, std::size_t max_bytes) const {
  std::ifstream in(Path(path), std::ios::binary);
  if (!in) return std::nullopt;
  std::string data;
  data.resize(max_bytes);
  in.read(&data[0], static_cast<std::streamsize>(max_bytes));
  data.resize(static_cast<std::size_t>(in.gcount()));
  return data;
}

bool Environment::Exists(const std::string& path) const {
  std::error_code error;
  return std::filesystem::exists(Path(path), error);
}

bool Environment::Accessible(const std::string& path) const {
  return ::access(Path(path).c_str(), R_OK | W_OK) == 0;
}

std::vector<std::string> Environment::List(const std::string& directory) const {
  std::vector<std::string> out;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(Path(directory), error))
    out.push_back(entry.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string Environment::LinkTarget(const std::string& path) const {
  std::error_code error;
  auto target = std::filesystem::read_symlink(Path(path), error);
  return error ? std::string() : target.string();
}

std::optional<std::string> Environment::Variable(const std::string& name) const {
  auto it = variables_.find(name);
  if (it == variables_.end()) return std::nullopt;
  return it->second;
}

std::string Environment::FindProgram(const std::string& program) const {
  if (program.find('/') != std::string::npos)
    return ::access(program.c_str(), X_OK) == 0 ? program : std::string();
  std::string path = Variable("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    std::string dir =
        path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!dir.empty()) {
      std::string candidate = dir + "/" + program;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return {};
}

core::Result<core::SubprocessResult> Environment::Run(const std::vector<std::string>& raw_argv,
                                                      double timeout_seconds) const {
  // Programs come from this environment's PATH, so tests can supply fake nvcc and python3.
  std::vector<std::string> argv = raw_argv;
  if (!argv.empty()) {
    std::string found = FindProgram(argv[0]);
    if (found.empty()) {
      return core::Status::Unavailable(argv[0] + " is not installed").WithKeys("error.program.not_installed", {{"program", argv[0]}});
    }
    argv[0] = found;
  }
  core::SubprocessOptions options;
  options.timeout_seconds = timeout_seconds;
  options.max_output_bytes = 1 << 20;
  return core::RunSubprocess(argv, options);
}

}  // namespace gpuprobe::doctor

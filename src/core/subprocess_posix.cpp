#include "core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

extern char** environ;

namespace gpuprobe::core {
namespace {

struct Pipe {
  int read_end = -1;
  int write_end = -1;
  ~Pipe() { Close(); }
  void Close() {
    if (read_end >= 0) ::close(read_end);
    if (write_end >= 0) ::close(write_end);
    read_end = write_end = -1;
  }
};

bool MakePipe(Pipe* pipe) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  pipe->read_end = fds[0];
  pipe->write_end = fds[1];
  return true;
}

void Append(std::string* out, const char* data, size_t n, size_t limit) {
  if (out->size() >= limit) return;
  out->append(data, std::min(n, limit - out->size()));
}

}  // namespace

Result<SubprocessResult> RunSubprocess(const std::vector<std::string>& argv,
                                       const SubprocessOptions& options) {
  if (argv.empty() || argv[0].empty()) return Status::InvalidArgument("no program to run").WithKeys("error.program.none");
  Pipe in, out, err;
  if (!MakePipe(&in) || !MakePipe(&out) || !MakePipe(&err)) {
    return StatusFromErrno("creating pipes for " + argv[0], errno);
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.read_end, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out.write_end, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.write_end, STDERR_FILENO);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    return Status::Unavailable(fmt::format("cannot run '{}': {}", argv[0], std::strerror(rc)))
        .WithKeys("error.program.cannot_run", {{"program", argv[0]}, {"reason_key", ErrnoReasonKey(rc)}, {"errno", std::to_string(rc)}});
  }
  ::close(in.read_end);
  in.read_end = -1;
  ::close(out.write_end);
  out.write_end = -1;
  ::close(err.write_end);
  err.write_end = -1;

  // Feed stdin without blocking on a child that never reads it.
  ::fcntl(in.write_end, F_SETFL, O_NONBLOCK);
  size_t stdin_offset = 0;
  if (options.stdin_text.empty()) {
    ::close(in.write_end);
    in.write_end = -1;
  }

  SubprocessResult result;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(options.timeout_seconds));
  bool out_open = true, err_open = true;
  char buffer[65536];
  while (out_open || err_open) {
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      result.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    int wait_ms = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count()) + 1;
    pollfd fds[3];
    int n = 0;
    int out_index = -1, err_index = -1, in_index = -1;
    if (out_open) { out_index = n; fds[n++] = {out.read_end, POLLIN, 0}; }
    if (err_open) { err_index = n; fds[n++] = {err.read_end, POLLIN, 0}; }
    if (in.write_end >= 0) { in_index = n; fds[n++] = {in.write_end, POLLOUT, 0}; }
    int ready = ::poll(fds, n, wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      return StatusFromErrno("waiting for " + argv[0], errno);
    }
    if (in_index >= 0 && (fds[in_index].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = ::write(in.write_end, options.stdin_text.data() + stdin_offset,
                          options.stdin_text.size() - stdin_offset);
      if (w > 0) stdin_offset += static_cast<size_t>(w);
      if (w < 0 || stdin_offset >= options.stdin_text.size()) {
        ::close(in.write_end);
        in.write_end = -1;
      }
    }
    auto drain = [&](int index, int fd, bool* open, std::string* sink) {
      if (index < 0 || !(fds[index].revents & (POLLIN | POLLHUP | POLLERR))) return;
      ssize_t r = ::read(fd, buffer, sizeof buffer);
      if (r > 0) {
        Append(sink, buffer, static_cast<size_t>(r), options.max_output_bytes);
      } else if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) {
        *open = false;
      }
    };
    drain(out_index, out.read_end, &out_open, &result.stdout_text);
    drain(err_index, err.read_end, &err_open, &result.stderr_text);
  }

  int wait_status = 0;
  while (::waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(wait_status)) {
    result.exit_code = WEXITSTATUS(wait_status);
  } else if (WIFSIGNALED(wait_status)) {
    result.exit_code = -1;
    result.signal_number = WTERMSIG(wait_status);
  }
  // posix_spawnp reports a missing program through the child's exit status 127.
  if (result.exit_code == 127 && result.stdout_text.empty() && result.stderr_text.empty()) {
    return Status::Unavailable(fmt::format("cannot run '{}': program not found", argv[0]))
        .WithKeys("error.program.not_found", {{"program", argv[0]}});
  }
  return result;
}

}  // namespace gpuprobe::core

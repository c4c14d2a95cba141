// `gpuprobe serve`: a Prometheus exporter. NVML is polled on a background thread; a scrape
// only copies the last poll, so it never waits on NVML, and a hung NVML call shows up as a
// stale gpuprobe_last_poll_success_timestamp_seconds instead of a hung server.
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <httplib.h>

#include "cli/command.h"
#include "serve/prometheus_text.h"
#include "telemetry/findings.h"
#include "telemetry/nvml_library.h"
#include "telemetry/nvml_source.h"

namespace gpuprobe::cli {
namespace {

constexpr const char* kFooter = R"(Examples:
  gpuprobe serve                                 http://127.0.0.1:9400/metrics, polled every 5 s
  gpuprobe serve --listen 0.0.0.0:9400           every interface (explicit: the default is loopback only)
  gpuprobe serve --interval 1
  curl -s localhost:9400/metrics | grep DCGM_FI_DEV_GPU_UTIL

Endpoints: /metrics (Prometheus text format; dcgm-exporter's names where the quantity is the
same, gpuprobe_* for the rest, findings as gpuprobe_finding{id,severity}), /healthz.
SIGTERM or Ctrl-C stops it cleanly. deploy/ has a Dockerfile and a Kubernetes DaemonSet.
Exit status: 0 stopped by a signal; 2 bad --listen or --interval; 3 the address cannot be bound.)";

struct ServeOptions {
  std::string listen = "127.0.0.1:9400";
  double interval = 5;
};

/// What the poller shares with the request handlers, under one mutex.
struct SharedState {
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  std::vector<telemetry::Snapshot> gpus;
  std::vector<telemetry::Finding> findings;
  serve::PollHealth health;
};

int g_stop_pipe[2] = {-1, -1};

double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void PollLoop(std::shared_ptr<SharedState> state, double interval) {
  std::unique_ptr<telemetry::NvmlLibrary> nvml;
  while (true) {
    auto start = std::chrono::steady_clock::now();
    core::Status status;
    std::vector<telemetry::Snapshot> gpus;
    if (!nvml) {
      auto loaded = telemetry::NvmlLibrary::Load();
      if (loaded.ok()) {
        status = (*loaded)->Init();
        if (status.ok()) nvml = std::move(loaded.value());
      } else {
        status = loaded.status();
      }
    }
    if (nvml) {
      auto read = telemetry::ReadNvmlSnapshots(*nvml);
      if (read.ok()) {
        gpus = std::move(read.value());
      } else {
        status = read.status();
        nvml.reset();  // load and init again next time (a driver reload, a GPU that came back)
      }
    }
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::unique_lock<std::mutex> lock(state->mutex);
    state->health.polls_total++;
    state->health.last_poll_duration_seconds = took;
    state->health.last_poll_ok = status.ok();
    if (status.ok()) {
      state->findings = telemetry::EvaluateFindings(gpus);
      state->gpus = std::move(gpus);
      state->health.last_success_unix_seconds = UnixNow();
      state->health.last_error.clear();
    } else {
      state->health.poll_errors_total++;
      state->health.last_error = status.message();
      state->gpus.clear();  // no stale figures presented as current
      state->findings.clear();
    }
    if (state->wake.wait_for(lock, std::chrono::duration<double>(interval), [&] { return state->stopping; })) return;
  }
}

core::Result<std::pair<std::string, int>> ParseListen(const std::string& text) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return core::Status::InvalidArgument(fmt::format("--listen '{}' must be HOST:PORT, e.g. 127.0.0.1:9400", text));
  }
  std::string host = text.substr(0, colon), port_text = text.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  int port = -1;
  auto [end, error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (error != std::errc() || end != port_text.data() + port_text.size() || port < 0 || port > 65535) {
    return core::Status::InvalidArgument(fmt::format("--listen '{}': the port must be a number from 0 to 65535", text));
  }
  return std::make_pair(host, port);
}

bool IsLoopback(const std::string& host) { return host == "127.0.0.1" || host == "localhost" || host == "::1"; }

core::Result<core::ExitCode> RunServe(VerbContext& ctx, const ServeOptions& o) {
  auto listen = ParseListen(o.listen);
  if (!listen.ok()) return listen.status();
  if (!(o.interval >= 0.1 && o.interval <= 3600)) return core::Status::InvalidArgument("--interval must be between 0.1 and 3600 seconds");

  // SIGTERM/SIGINT: the handler only writes a byte to a pipe (async-signal-safe); a thread
  // reading the pipe stops the server. A handler, not a blocked mask with sigwait, because
  // libraries start threads of their own (OpenBLAS at load time) that would not block it.
  if (pipe(g_stop_pipe) != 0) return core::Status::IoError("cannot create the stop pipe");
  struct sigaction action = {};
  action.sa_handler = [](int) {
    char byte = 1;
    ssize_t ignored = write(g_stop_pipe[1], &byte, 1);
    (void)ignored;
  };
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);

  char host_name[256] = {};
  gethostname(host_name, sizeof(host_name) - 1);
  std::string hostname = host_name;

  auto state = std::make_shared<SharedState>();
  state->health.poll_interval_seconds = o.interval;
  httplib::Server server;
  server.set_keep_alive_max_count(1000);
  server.set_tcp_nodelay(true);  // without it small responses wait ~40 ms on delayed ACKs
  // Keep-alive connections each hold a worker: enough workers that many scrapers (or a load
  // test) do not queue behind each other.
  server.new_task_queue = [] { return new httplib::ThreadPool(32); };
  server.Get("/metrics", [state, hostname](const httplib::Request&, httplib::Response& res) {
    std::vector<telemetry::Snapshot> gpus;
    std::vector<telemetry::Finding> findings;
    serve::PollHealth health;
    {
      std::lock_guard<std::mutex> lock(state->mutex);
      gpus = state->gpus;
      findings = state->findings;
      health = state->health;
    }
    res.set_content(serve::RenderMetrics(gpus, findings, health, hostname), "text/plain; version=0.0.4; charset=utf-8");
  });
  server.Get("/healthz", [state](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(state->mutex);
    // The server is alive; whether NVML answers is a metric, not a liveness failure.
    res.set_content(state->health.last_poll_ok ? "ok\n" : "ok (no GPU data: " + state->health.last_error + ")\n", "text/plain");
  });
  server.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("gpuprobe exporter: /metrics, /healthz\n", "text/plain");
  });

  const auto& [host, port] = *listen;
  int bound = port;
  if (port == 0) {
    bound = server.bind_to_any_port(host);
    if (bound < 0) return core::Status::Unavailable(fmt::format("cannot listen on {}: no free port", host));
  } else if (!server.bind_to_port(host, port)) {
    return core::Status::Unavailable(fmt::format("cannot listen on {}: address in use, not local, or not permitted", o.listen),
                                     "pick another port with --listen HOST:PORT");
  }

  std::thread poller(PollLoop, state, o.interval);
  std::atomic<bool> listen_returned{false};
  std::thread signal_waiter([&server, &listen_returned]() {
    char byte = 0;
    while (read(g_stop_pipe[0], &byte, 1) < 0 && errno == EINTR) {
    }
    // A signal that arrives before the accept loop runs must not be lost: stop() only acts
    // on a running server, so wait for it to run (or to have ended).
    while (!server.is_running() && !listen_returned.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    server.stop();
  });
  ctx.out << fmt::format("gpuprobe serve: listening on http://{}:{}/metrics (poll every {:g} s){}\n", host.find(':') != std::string::npos ? "[" + host + "]" : host,
                         bound, o.interval, IsLoopback(host) ? "" : "; reachable from other machines")
          << std::flush;
  bool ok = server.listen_after_bind();
  listen_returned = true;
  // Stop the poller; if NVML is hung inside a call, do not wait for it: the process exits.
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->stopping = true;
  }
  state->wake.notify_all();
  poller.detach();
  if (signal_waiter.joinable()) {
    char byte = 0;
    ssize_t ignored = write(g_stop_pipe[1], &byte, 1);  // wakes the waiter if the server stopped on its own
    (void)ignored;
    signal_waiter.join();
  }
  ctx.out << "gpuprobe serve: stopped\n";
  if (!ok) return core::Status::IoError("the server stopped on an error");
  return core::ExitCode::kOk;
}

}  // namespace

VerbRunner SetupServeVerb(CLI::App* command) {
  auto o = std::make_shared<ServeOptions>();
  command->footer(kFooter);
  command->add_option("--listen", o->listen, "HOST:PORT to listen on (default 127.0.0.1:9400, loopback only; port 0 picks a free one)");
  command->add_option("--interval", o->interval, "seconds between NVML polls (default 5)");
  return [o](VerbContext& ctx) { return RunServe(ctx, *o); };
}

}  // namespace gpuprobe::cli

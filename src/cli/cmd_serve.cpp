// `gpuprobe serve`: a Prometheus exporter. NVML is polled on a background thread, which also
// renders the metrics text; a scrape only hands out the last rendering, so it never waits on
// NVML or on another client, and a hung NVML call shows up as a stale
// gpuprobe_last_poll_success_timestamp_seconds and a 503 on /readyz instead of a hung server.
// The HTTP side is serve/http_server (one epoll thread, limits on every client).
#include "cli/cmd_serve.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/command.h"
#include "serve/http_server.h"
#include "serve/listen_address.h"
#include "serve/prometheus_text.h"
#include "telemetry/findings.h"
#include "telemetry/nvml_library.h"
#include "telemetry/nvml_source.h"

namespace gpuprobe::cli {
namespace {


struct ServeOptions {
  std::string listen = "127.0.0.1:9400";
  double interval = 5;
  bool allow_remote = false;
  std::string healthz = "ready";
};

/// What the poller shares with the request handler, under one mutex.
struct SharedState {
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  std::shared_ptr<const std::string> metrics;  ///< rendered after each poll
  serve::PollHealth health;
};

int g_stop_pipe[2] = {-1, -1};

double UnixNow() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

void PollLoop(std::shared_ptr<SharedState> state, double interval, std::string hostname) {
  std::unique_ptr<telemetry::NvmlLibrary> nvml;
  while (true) {
    auto start = std::chrono::steady_clock::now();
    core::Status status;
    std::vector<telemetry::Snapshot> gpus;
    if (!nvml) {
      auto opened = telemetry::NvmlLibrary::Open();
      if (opened.ok()) {
        nvml = std::move(opened.value());
      } else {
        status = opened.status();
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
    // Rendered here, outside the lock and off the server's thread: a scrape copies a pointer.
    std::vector<telemetry::Finding> findings;
    if (status.ok()) findings = telemetry::EvaluateFindings(gpus);
    serve::PollHealth health;
    {
      std::lock_guard<std::mutex> lock(state->mutex);
      health = state->health;
    }
    health.polls_total++;
    health.last_poll_duration_seconds = took;
    health.last_poll_ok = status.ok();
    if (status.ok()) {
      health.last_success_unix_seconds = UnixNow();
      health.last_error.clear();
    } else {
      health.poll_errors_total++;
      health.last_error = status.message();
      gpus.clear();  // no stale figures presented as current
    }
    auto text = std::make_shared<const std::string>(serve::RenderMetrics(gpus, findings, health, hostname));
    std::unique_lock<std::mutex> lock(state->mutex);
    state->health = health;
    state->metrics = std::move(text);
    if (state->wake.wait_for(lock, std::chrono::duration<double>(interval), [&] { return state->stopping; })) return;
  }
}

// Ready: the last poll succeeded and is recent enough that a scrape shows current figures.
std::pair<bool, std::string> Readiness(const serve::PollHealth& h, double interval) {
  double max_age = std::max(3 * interval, 10.0);
  if (h.polls_total == 0) return {false, "not ready: no NVML poll has finished yet"};
  if (!h.last_poll_ok) return {false, "not ready: no GPU data can be read: " + h.last_error};
  double age = UnixNow() - h.last_success_unix_seconds;
  if (age > max_age) return {false, fmt::format("not ready: the last successful poll was {:.0f} s ago (NVML may be hung)", age)};
  return {true, "ready: GPU data from NVML is current"};
}

serve::HttpReply Handle(const serve::HttpRequest& request, SharedState& state, const ServeOptions& o) {
  serve::HttpReply reply;
  if (request.target == "/metrics") {
    std::shared_ptr<const std::string> metrics;
    {
      std::lock_guard<std::mutex> lock(state.mutex);
      metrics = state.metrics;
    }
    reply.content_type = "text/plain; version=0.0.4; charset=utf-8";
    reply.body = metrics ? *metrics : std::string();
    return reply;
  }
  bool live = request.target == "/livez" || (request.target == "/healthz" && o.healthz == "live");
  if (live) {
    reply.body = "ok: serving\n";
    return reply;
  }
  if (request.target == "/readyz" || request.target == "/healthz") {
    serve::PollHealth health;
    {
      std::lock_guard<std::mutex> lock(state.mutex);
      health = state.health;
    }
    auto [ready, why] = Readiness(health, o.interval);
    reply.status = ready ? 200 : 503;
    reply.body = why + "\n";
    return reply;
  }
  if (request.target == "/") {
    reply.body = "gpuprobe exporter: /metrics, /livez, /readyz, /healthz (see gpuprobe serve --help)\n";
    return reply;
  }
  reply.status = 404;
  reply.body = "not found: try /metrics\n";
  return reply;
}

core::Result<core::ExitCode> RunServe(VerbContext& ctx, const ServeOptions& o) {
  auto listen = serve::ParseListen(o.listen);
  if (!listen.ok()) return listen.status();
  if (!(o.interval >= 0.1 && o.interval <= 3600)) {
    return core::Status::InvalidArgument("--interval must be between 0.1 and 3600 seconds").WithKeys("error.serve.interval", {});
  }
  if (o.healthz != "ready" && o.healthz != "live") return core::Status::InvalidArgument("--healthz must be 'ready' or 'live'")
      .WithKeys("error.serve.healthz", {});
  bool loopback = serve::IsLoopbackHost(listen->host);
  if (!loopback && !o.allow_remote) {
    return core::Status::InvalidArgument(
        fmt::format("--listen {} is reachable from other machines (it is not a loopback address)", o.listen),
        "add --allow-remote if you mean it (a Kubernetes DaemonSet does), or listen on 127.0.0.1")
            .WithKeys("error.serve.remote", {{"address", o.listen}}, "error.serve.remote.hint");
  }
  auto server = serve::HttpServer::Bind(listen->host, listen->port, serve::HttpLimits{});
  if (!server.ok()) return server.status();

  // SIGTERM/SIGINT: the handler only writes a byte to a pipe (async-signal-safe), which the
  // server's loop watches. A handler, not a blocked mask with sigwait, because libraries
  // start threads of their own (OpenBLAS at load time) that would not block it.
  if (pipe(g_stop_pipe) != 0) return core::StatusFromErrnoKeyed("cannot create the stop pipe", errno, "error.serve.stop_pipe", {});
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
  auto state = std::make_shared<SharedState>();
  state->health.poll_interval_seconds = o.interval;
  state->metrics = std::make_shared<const std::string>(serve::RenderMetrics({}, {}, state->health, host_name));
  std::thread poller(PollLoop, state, o.interval, std::string(host_name));

  std::string shown = listen->host.find(':') != std::string::npos ? "[" + listen->host + "]" : listen->host;
  if (!loopback) ctx.err << Tr(ctx.texts, "serve.remote", fmt::arg("address", fmt::format("{}:{}", shown, (*server)->port()))) << "\n";
  ctx.out << Tr(ctx.texts, "serve.listening", fmt::arg("url", fmt::format("http://{}:{}/metrics", shown, (*server)->port())),
                fmt::arg("interval", fmt::format("{:g}", o.interval)))
          << "\n" << std::flush;
  core::Status run = (*server)->Run([&](const serve::HttpRequest& r) { return Handle(r, *state, o); }, g_stop_pipe[0]);
  // Stop the poller; if NVML is hung inside a call, do not wait for it: the process exits.
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->stopping = true;
  }
  state->wake.notify_all();
  poller.detach();
  const auto& stats = (*server)->stats();
  ctx.out << Tr(ctx.texts, "serve.stopped", fmt::arg("requests", stats.requests), fmt::arg("refused", stats.refused_over_limit),
                fmt::arg("timed_out", stats.timed_out), fmt::arg("bad", stats.bad_requests))
          << "\n";
  if (!run.ok()) return run;
  return core::ExitCode::kOk;
}

}  // namespace

VerbRunner SetupServeVerb(CLI::App* command) {
  auto o = std::make_shared<ServeOptions>();
  command->add_option("--listen", o->listen, "HOST:PORT to listen on (default 127.0.0.1:9400, loopback only; port 0 picks a free one)");
  command->add_option("--interval", o->interval, "seconds between NVML polls (default 5)");
  command->add_flag("--allow-remote", o->allow_remote, "allow a --listen address other machines can reach (0.0.0.0, a LAN address)");
  command->add_option("--healthz", o->healthz, "what /healthz means: ready (default, 503 without GPU data) or live (200 while serving)");
  return [o](VerbContext& ctx) { return RunServe(ctx, *o); };
}

}  // namespace gpuprobe::cli
